package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCountFlagsRefused: count flags whose arithmetic would wrap or pass
// the library's limits are refused with one line naming the flag, before
// any work (a wrapped count would run a negative number of steps, or ask for
// gigabytes).
func TestCountFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	data := write(t, dir, "d.csv", classCSV(60, 1, true))
	many := func(v string, n int) string { return strings.TrimSuffix(strings.Repeat(v+",", n), ",") }
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-epochs", "1844674407370955162", "-batch", "10"}, []string{"-epochs 1844674407370955162", "9007199254740992"}},
		{[]string{"train", "-epochs", "9223372036854775807"}, []string{"-epochs 9223372036854775807"}},
		{[]string{"train", "-steps", "9007199254740993"}, []string{"-steps 9007199254740993"}},
		{[]string{"train", "-classes", "9223372036854775807"}, []string{"-classes 9223372036854775807", "2147483647"}},
		{[]string{"train", "-tune", "-tune-lrs", many("0.1", 300), "-tune-wds", many("0", 300)}, []string{"-tune-lrs × -tune-wds × -tune-eps × -tune-trims", "1080000 settings", "65536"}},
		{[]string{"experiment", "-seeds", "1000000000"}, []string{"-seeds", "1000000000", "100000"}},
		{[]string{"experiment", "-epochs", "9223372036854775807"}, []string{"-epochs 9223372036854775807"}},
		{[]string{"experiment", "-epochs", "100000000000000"}, []string{"-epochs 100000000000000", "135 training runs"}},
		{[]string{"experiment", "-lrs", many("0.1", 200), "-wds", many("0", 200)}, []string{"-lrs", "-wds", "100000"}},
	} {
		fails(t, 2, c.want, c.args...)
	}
	// Counts that pass the flags but not the data: -epochs of several steps
	// each, on the data in memory and streamed, found once the data is read
	// (exit 1).
	fails(t, 1, []string{"-epochs 4503599627370497", "of 2 steps each"}, "train", "-data", data, "-epochs", "4503599627370497", "-batch", "20")
	numeric := write(t, dir, "n.csv", strings.NewReplacer(",cat\n", ",0\n", ",dog\n", ",1\n").Replace(classCSV(60, 1, true)))
	fails(t, 1, []string{"-epochs 4503599627370497", "of 40 steps each"}, "train", "-data", numeric, "-stream", "-method", "alg1", "-epochs", "4503599627370497")
	fails(t, 1, []string{"-epochs 1125899906842625", "of 8 steps each"}, "experiment", "-data", data, "-epochs", "1125899906842625", "-batch", "5", "-alpha", "0.1", "-seeds", "1", "-lrs", "0.1", "-wds", "0")
	// Memory the counts ask for: the bootstrap's resamples, -plot's curves,
	// -tune's parameters.
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", data, "-o", model, "-epochs", "1")
	fails(t, 1, []string{"-bootstrap 100000", "-max-memory"}, "eval", "-in", model, "-data", data, "-bootstrap", "100000", "-alphas", many("0.5", 2000), "-max-memory", "1GB")
	fails(t, 1, []string{"-plot curves", "-max-memory"}, "experiment", "-n", "300", "-epochs", "100000000", "-plot", filepath.Join(dir, "plots"))
	fails(t, 1, []string{"-tune's 15 settings", "-max-memory"}, "train", "-n", "300", "-d", "200", "-classes", "50", "-tune", "-method", "vanilla", "-max-memory", "1MB")
}

// TestTuneEpsZero: -tune-eps 0 is refused as -tune-lrs 0 is, rather than
// read as the default fraction.
func TestTuneEpsZero(t *testing.T) {
	t.Parallel()
	fails(t, 2, []string{"-tune-eps", "positive"}, "train", "-tune", "-tune-eps", "0")
	fails(t, 2, []string{"-tune-eps", "positive"}, "train", "-tune", "-tune-eps", "0.05,0")
	fails(t, 2, []string{"-tune-lrs", "positive"}, "train", "-tune", "-tune-lrs", "0")
}
