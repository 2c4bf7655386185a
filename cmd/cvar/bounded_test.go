package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// manyClasses is a CSV of n rows of 4 features whose label is the row's
// number modulo k: k classes.
func manyClasses(n, k int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d\n", i%7, i%11, i%13, i%17, i%k)
	}
	return b.String()
}

// TestTrainModelScratchWithinMaxMemory: the bound of -max-memory covers the
// scratch of a model of many classes or hidden units (a row of scores a
// class, of activations a unit), not only its parameters: beyond it train
// refuses before allocating, naming the flag; within it the heap stays
// within the bound.
func TestTrainModelScratchWithinMaxMemory(t *testing.T) {
	dir := t.TempDir()
	k5000 := write(t, dir, "k5000.csv", manyClasses(6000, 5000))
	k20000 := write(t, dir, "k20000.csv", manyClasses(20000, 20000))
	for _, c := range []struct {
		data string
		args []string
	}{
		{k5000, []string{"-model", "softmax"}},
		{k20000, []string{"-model", "softmax"}},
		{k5000, []string{"-model", "mlp", "-hidden", "2000"}},
	} {
		args := append([]string{"train", "-data", c.data, "-no-header", "-epochs", "1", "-max-memory", "64MB"}, c.args...)
		peak := heapPeak(func() { fails(t, 1, []string{"needs about", "bound of 61 MiB", "-max-memory"}, args...) })
		if peak > 16<<20 {
			t.Errorf("cvar %s: refused after the heap grew by %s", strings.Join(args, " "), numtext.Bytes(peak))
		}
	}
	fails(t, 1, []string{"k5000.csv: 4 features make a softmax model, 2 of them trained at once (-threads)", "-max-memory"},
		"experiment", "-data", k5000, "-no-header", "-model", "softmax", "-epochs", "1", "-seeds", "1", "-threads", "2", "-max-memory", "64MB")
	for _, c := range []struct {
		bound int64
		args  []string
	}{
		{128 << 20, []string{"-model", "softmax"}},
		{128 << 20, []string{"-model", "mlp", "-hidden", "50"}},
	} {
		args := append([]string{"train", "-data", k5000, "-no-header", "-epochs", "1", "-max-memory", fmt.Sprint(c.bound)}, c.args...)
		var out string
		peak := heapPeak(func() { out = ok(t, args...) })
		t.Logf("cvar %s: the heap grew by %s", strings.Join(args, " "), numtext.Bytes(peak))
		if !strings.Contains(out, "validation") {
			t.Errorf("cvar %s: no report: %q", strings.Join(args, " "), out)
		}
		if limit := c.bound + dataset.ReadOverhead; peak > limit {
			t.Errorf("cvar %s: the heap grew by %s, more than %s", strings.Join(args, " "), numtext.Bytes(peak), numtext.Bytes(limit))
		}
	}
}

// TestMain runs the program itself when CVAR_TEST_MAIN holds its
// arguments (one a line), so that a test can measure a process of its own:
// its peak resident memory, its reading of a pipe.
func TestMain(m *testing.M) {
	if args := os.Getenv("CVAR_TEST_MAIN"); args != "" {
		os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestScoresWithinMaxMemory: eval and predict hold a score a class for
// every row; for a model of 5000 classes those pass -max-memory long
// before the data does, and both commands refuse, naming the flag, before
// computing them.
func TestScoresWithinMaxMemory(t *testing.T) {
	dir := t.TempDir()
	data := write(t, dir, "k5000.csv", manyClasses(6000, 5000))
	model := dir + "/m.cvar"
	ok(t, "train", "-data", data, "-no-header", "-epochs", "1", "-model", "softmax", "-o", model)
	for _, cmd := range []string{"eval", "predict"} {
		peak := heapPeak(func() {
			fails(t, 1, []string{"k5000.csv: the scores of 6000 rows × 5000 classes", "-max-memory"},
				cmd, "-in", model, "-data", data, "-no-header", "-max-memory", "64MB")
		})
		if peak > 64<<20 {
			t.Errorf("%s refused after the heap grew by %s", cmd, numtext.Bytes(peak))
		}
	}
}
