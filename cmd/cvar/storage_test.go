package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// metricLines returns the lines of a train or eval report that hold metrics.
func metricLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && (f[0] == "training" || f[0] == "validation" || f[0] == "test") {
			ls = append(ls, l)
		}
	}
	return ls
}

// TestStorage trains on IDX data held as bytes, halves, bfloat16s and
// float32: auto picks bytes for a float32 softmax, bytes and float32 report
// the same metrics, and eval reads bytes too.
func TestStorage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idxPair(t, dir, 90, false)
	model := filepath.Join(dir, "m.cvar")
	common := []string{"train", "-data", dir, "-precision", "f32", "-model", "softmax", "-method", "vanilla", "-epochs", "3", "-seed", "3"}
	var ref []string
	for _, s := range []string{"f32", "u8", "f16", "bf16", "auto"} {
		args := append(append([]string(nil), common...), "-storage", s)
		if s == "u8" {
			args = append(args, "-o", model)
		}
		out := ok(t, args...)
		want := map[string]string{"f32": "f32, data", "u8": "f32 (u8 features)", "f16": "f32 (f16 features)", "bf16": "f32 (bf16 features)", "auto": "f32 (u8 features)"}[s]
		if !strings.Contains(out, want) {
			t.Errorf("-storage %s: the report lacks %q:\n%s", s, want, out)
		}
		m := metricLines(out)
		if len(m) == 0 {
			t.Fatalf("-storage %s: no metrics:\n%s", s, out)
		}
		if ref == nil {
			ref = m
		} else if s != "f16" && s != "bf16" && strings.Join(m, "\n") != strings.Join(ref, "\n") {
			t.Errorf("-storage %s: metrics\n%s\nwant (f32)\n%s", s, strings.Join(m, "\n"), strings.Join(ref, "\n"))
		}
	}
	e8 := ok(t, "eval", "-in", model, "-data", dir, "-storage", "u8", "-bootstrap", "0")
	e32 := ok(t, "eval", "-in", model, "-data", dir, "-storage", "f32", "-bootstrap", "0")
	if e8 != e32 {
		t.Errorf("eval -storage u8:\n%s\nwant (f32)\n%s", e8, e32)
	}
	ok(t, "predict", "-in", model, "-data", dir, "-storage", "auto", "-o", filepath.Join(dir, "p.csv"))
	if out := ok(t, "train", "-data", dir, "-precision", "f32", "-model", "mlp", "-hidden", "5", "-epochs", "2"); !strings.Contains(out, "(u8 features)") {
		t.Errorf("the mlp on IDX data in f32 did not take u8 features:\n%s", out)
	}
}

func TestStorageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idxPair(t, dir, 30, false)
	csv := write(t, dir, "d.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n9,1,0\n2,3,1\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-data", csv, "-precision", "f32", "-storage", "u8"}, []string{"-storage u8", "IDX", "CSV"}},
		{[]string{"train", "-storage", "u8", "-precision", "f32"}, []string{"-storage u8", "IDX", "built-in"}},
		{[]string{"train", "-data", dir, "-storage", "u8"}, []string{"-storage u8", "-precision f32"}},
		{[]string{"train", "-data", dir, "-precision", "f32", "-storage", "u8", "-scale", "zscore"}, []string{"-storage u8", "-scale"}},
		{[]string{"train", "-data", dir, "-storage", "f32"}, []string{"-storage f32", "-precision f64"}},
		{[]string{"train", "-storage", "f8"}, []string{"-storage", `"f8"`}},
		{[]string{"train", "-data", csv, "-storage", "bf16"}, []string{"-storage bf16", "-precision f32"}},
		{[]string{"train", "-data", csv, "-stream", "-method", "alg1", "-storage", "u8"}, []string{"-stream", "-storage u8"}},
	} {
		fails(t, 2, c.want, c.args...)
	}
}
