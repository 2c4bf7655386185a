package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTuneGridCount checks that -tune's refusal of a grid past
// cvar.MaxGridSettings counts the settings as the library's Grid.Trials
// expands them: ε fractions for Alg2–4 without -eps, trims for the blend
// and (but for 0) the trimmed objective, χ² radii for chi2.
func TestTuneGridCount(t *testing.T) {
	t.Parallel()
	many := strings.TrimSuffix(strings.Repeat("0.1,", 300), ",")
	zeros := strings.TrimSuffix(strings.Repeat("0,", 300), ",")
	for _, c := range []struct {
		flags    []string
		settings int
	}{
		{nil, 300 * 300 * 3 * 4},
		{[]string{"-method", "vanilla"}, 300 * 300},
		{[]string{"-eps", "0.1"}, 300 * 300 * 4},
		{[]string{"-method", "alg2", "-objective", "cvar"}, 300 * 300 * 3},
		{[]string{"-objective", "trimmed", "-tune-trims", "0,0.1,0.2"}, 300 * 300 * 3 * 2},
		{[]string{"-objective", "chi2", "-tune-rhos", "0.5,1"}, 300 * 300 * 3 * 2},
		{[]string{"-method", "minibatch", "-objective", "chi2", "-tune-rhos", "0.5,1"}, 300 * 300 * 2},
	} {
		args := append([]string{"train", "-tune", "-tune-lrs", many, "-tune-wds", zeros}, c.flags...)
		msg := fmt.Sprintf("cvar train: -tune-lrs × -tune-wds × -tune-eps × -tune-trims (or -tune-rhos) make %d settings, more than 65536 (see cvar train -h)", c.settings)
		fails(t, 2, []string{msg}, args...)
	}
}
