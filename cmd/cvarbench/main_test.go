package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestQuickJSON runs the whole quick benchmark in-process and checks the
// JSON report: it parses, every section is there, and every measured ratio
// is positive and finite. It checks no speed: speed is what cvarbench
// reports, not what a test asserts.
func TestQuickJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick benchmark (about 15 s)")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-quick", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	m := rep.Machine
	if m.CPU == "" || m.Arch == "" || m.GoVersion == "" || m.KernelActive == "" || len(m.KernelImpls) == 0 || m.GOMAXPROCS <= 0 {
		t.Errorf("machine report incomplete: %+v", m)
	}
	for _, f := range []string{"AVX2", "FMA", "AVX-512", "ASIMD", "SVE"} {
		if _, ok := m.Features[f]; !ok {
			t.Errorf("feature %s not reported", f)
		}
	}
	l := rep.Limits
	if l == nil {
		t.Fatal("no limits")
	}
	for name, v := range map[string]float64{"bandwidth 1": l.Bandwidth1, "bandwidth all": l.BandwidthAll,
		"peak f32 1": l.PeakF32_1, "peak f32 all": l.PeakF32All, "peak f64 1": l.PeakF64_1, "peak f64 all": l.PeakF64All, "page latency": l.PageLatencyNs} {
		if !(v > 0) || v > 1e15 {
			t.Errorf("limit %s = %v", name, v)
		}
	}
	if len(rep.Kernels) == 0 {
		t.Fatal("no kernel rows")
	}
	seen := map[string]bool{}
	for _, k := range rep.Kernels {
		seen[k.Impl] = true
		if !(k.NsPerOp > 0) || !(k.GBps > 0) || !(k.Speedup > 0) || (k.GFLOPs == 0 && k.Melems == 0) || k.Level == "" {
			t.Errorf("kernel row %+v", k)
		}
	}
	for _, im := range append([]string{"generic", "gonum", "mathloop"}, m.KernelImpls...) {
		if !seen[im] {
			t.Errorf("no kernel row for %s", im)
		}
	}
	if want := 3 * 3 * 2 * len(uniq([]int{1, m.GOMAXPROCS})); len(rep.Epochs) != want {
		t.Errorf("%d epoch rows, want %d (3 models × 3 methods × 2 precisions × thread counts)", len(rep.Epochs), want)
	}
	for _, e := range rep.Epochs {
		if !(e.SecondsEpoch > 0) || !(e.SamplesPerSec > 0) || !(e.FloorSeconds > 0) || !(e.RatioToFloor > 0) ||
			!(e.Bytes > 0) || !(e.Flops > 0) || e.FloorBound == "" || e.Timed == "" {
			t.Errorf("epoch row %+v", e)
		}
		// No machine trains a sample in under a nanosecond: a quick
		// epoch's scaled difference of two runs must not come out as
		// noise (it once read 9e-9 s for a whole epoch).
		if e.SecondsEpoch < float64(e.Samples)*1e-9 {
			t.Errorf("epoch row %s %s %s threads=%d: %v s for %d samples", e.Model, e.Method, e.Prec, e.Threads, e.SecondsEpoch, e.Samples)
		}
	}
	// The speed targets: the one-thread floors and f64 over f32, and on
	// 2, 8 or 16 threads (the quick run's "all") the speed-ups there
	// (three models on 2; softmax, the MLP and logistic's floor on 8, 16).
	wantTargets := 6
	if p := m.GOMAXPROCS; p == 2 || p == 8 || p == 16 {
		wantTargets += 3
	}
	if len(rep.Targets) != wantTargets {
		t.Errorf("%d targets judged, want %d: %+v", len(rep.Targets), wantTargets, rep.Targets)
	}
	for _, tr := range rep.Targets {
		if tr.Name == "" || tr.Want == "" || tr.Basis == "" || !(tr.Got > 0) {
			t.Errorf("target row %+v", tr)
		}
	}
	if want := 2 * len(uniq([]int{1, m.GOMAXPROCS})); len(rep.Sparse) != want {
		t.Errorf("%d sparse rows, want %d (2 precisions × thread counts)", len(rep.Sparse), want)
	}
	for _, e := range rep.Sparse {
		if !(e.SecondsEpoch > 0) || !(e.FloorSeconds > 0) || !(e.RatioToFloor > 0) || e.NNZ != int64(e.N)*40 || !(e.DataBytes > 0) || e.Timed == "" {
			t.Errorf("sparse row %+v", e)
		}
	}
}

// TestSparseSection runs the sparse section alone, small, as a table.
func TestSparseSection(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-sections", "sparse", "-sparse-n", "2000", "-sparse-d", "5000", "-prec", "f32", "-threads", "1", "-epochs", "1", "-time", "1ms", "-stream-mib", "1"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"sparse: logistic alg3", "synthetic-text (N 2000, D 5000", "×floor", "peak RSS MB"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("sparse table lacks %q:\n%s", want, out.String())
		}
	}
	if code := run([]string{"-sparse-d", "10"}, &out, &errb); code != 2 {
		t.Errorf("-sparse-d 10: exit %d, want 2", code)
	}
}

func TestTablesAndFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-sections", "machine"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"cpu", "features", "AVX2", "caches", "kernel path", "go1."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("machine table lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range [][]string{{"-prec", "f16"}, {"-threads", "0"}, {"-models", "svm"}, {"-kernels", "sse9"}, {"-methods", "alg9"}, {"extra"}} {
		errb.Reset()
		if code := run(bad, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
	for _, bad := range [][]string{{"-nope"}, {"-epochs", "x"}} {
		out.Reset()
		errb.Reset()
		if code := run(bad, &out, &errb); code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line on stderr", bad, code, out.String(), errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "-sections") || errb.Len() != 0 {
		t.Errorf("-h: exit %d, stdout %q, stderr %q; want the flags on stdout", code, out.String(), errb.String())
	}
	// A small run of the kernel section, as a table.
	out.Reset()
	if code := run([]string{"-sections", "kernels", "-cases", "dot", "-sizes", "64", "-prec", "f32", "-time", "1ms"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"dot", "generic", "(gonum)", "×generic"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kernel table lacks %q:\n%s", want, out.String())
		}
	}
}
