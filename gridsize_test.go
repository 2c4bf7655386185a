package cvar

import (
	"errors"
	"math"
	"testing"
)

// TestGridSizeError checks that a grid past MaxGridSettings fails with a
// *GridSizeError naming each list's count as tried and the full product.
func TestGridSizeError(t *testing.T) {
	t.Parallel()
	lrs := make([]float64, 300)
	for i := range lrs {
		lrs[i] = float64(i+1) / 1000
	}
	wds := make([]float64, 300)
	cases := []struct {
		name string
		g    Grid
		opt  Options
		want GridSizeError
		msg  string
	}{
		{"alg3, blend", Grid{LR: lrs, WeightDecay: wds}, Options{Method: Alg3, Objective: ObjectiveBlend},
			GridSizeError{LR: 300, WeightDecay: 300, EpsFraction: 3, Objective: 4, Settings: 1_080_000},
			"cvar: a grid of 300 × 300 × 3 × 4 = 1080000 settings exceeds MaxGridSettings (65536)"},
		{"vanilla, chi2", Grid{LR: lrs, WeightDecay: wds[:100]}, Options{Method: Vanilla, Objective: ObjectiveChi2},
			GridSizeError{LR: 300, WeightDecay: 100, EpsFraction: 1, Objective: 3, Settings: 90_000},
			"cvar: a grid of 300 × 100 × 1 × 3 = 90000 settings exceeds MaxGridSettings (65536)"},
	}
	for _, c := range cases {
		trials, err := c.g.Trials(c.opt)
		var ge *GridSizeError
		if !errors.As(err, &ge) {
			t.Errorf("%s: %d trials, error %v; want a *GridSizeError", c.name, len(trials), err)
			continue
		}
		if *ge != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, *ge, c.want)
		}
		if err.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, err, c.msg)
		}
	}
	// At the limit the grid expands: the count is the number of trials.
	trials, err := Grid{LR: lrs[:256], WeightDecay: wds[:256]}.Trials(Options{Method: Vanilla, Objective: ObjectiveCVaR})
	if err != nil || len(trials) != MaxGridSettings {
		t.Errorf("256 × 256: %d trials, error %v; want %d", len(trials), err, MaxGridSettings)
	}
}

// TestGridSizeErrorOverflow checks that a product past 2^64 saturates and
// says so, rather than wrapping to a small count.
func TestGridSizeErrorOverflow(t *testing.T) {
	t.Parallel()
	e := &GridSizeError{LR: 1, WeightDecay: 1, EpsFraction: 1, Objective: 1, Settings: math.MaxUint64}
	if want := "cvar: a grid of 1 × 1 × 1 × 1 = over 18446744073709551615 settings exceeds MaxGridSettings (65536)"; e.Error() != want {
		t.Errorf("%q, want %q", e, want)
	}
}
