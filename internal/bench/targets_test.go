package bench

import (
	"math"
	"testing"

	"github.com/cvarlearn/cvar"
)

// TestTargets checks each target's figure and verdict on made-up rows,
// met and missed on either side of its bound, and that rows of another
// method or kernel implementation, or a missing row, judge nothing.
func TestTargets(t *testing.T) {
	alg3 := cvar.Alg3.String()
	row := func(model, prec string, threads int, sec float64) EpochRow {
		return EpochRow{Model: model, Method: alg3, Prec: prec, Impl: "avx512", Threads: threads, SecondsEpoch: sec}
	}
	withFloor := func(r EpochRow, floor float64, bound string) EpochRow {
		r.FloorSeconds, r.RatioToFloor, r.FloorBound = floor, r.SecondsEpoch/floor, bound
		return r
	}
	u8 := row("logistic:u8", "f32", 1, 0.0050)
	u8.Bytes, u8.FloorBandwidth, u8.Samples = 47e6, 32e9, 60000 // f32 floor: 4·47e6/32e9 = 5.875 ms
	su8 := row("softmax:u8", "f32", 1, 0.0180)
	su8.Bytes, su8.FloorBandwidth, su8.Samples = 47e6, 32e9, 60000
	all := row("logistic", "f32", 16, 0.004)
	all.Bytes, all.FloorBandwidth = 188e6, 100e9 // floor 1.88 ms: 2.13×
	rows := []EpochRow{
		withFloor(row("logistic", "f32", 1, 0.0117), 0.0064, "memory"), // 1.83: missed
		withFloor(row("softmax", "f32", 1, 0.0120), 0.0090, "compute"), // 1.33: met
		withFloor(row("mlp", "f32", 1, 0.130), 0.100, "compute"),       // 1.3: met (bound included)
		row("logistic", "f64", 1, 0.0200),                              // 1.71: met
		row("softmax", "f64", 1, 0.0300),                               // 2.5: missed
		u8, su8,
		row("logistic", "f32", 2, 0.0065), // 1.8: met
		row("softmax", "f32", 2, 0.0080),  // 1.5: missed
		row("softmax", "f32", 8, 0.0019),  // 6.3: met
		row("mlp", "f32", 16, 0.0140),     // 9.3: missed
		row("softmax", "f32", 16, 0.0019), // 6.3: met (≥ 6 on 16 threads for softmax, 10 for the MLP)
		all,
		// Not judged: another kernel path and another method.
		{Model: "mlp", Method: alg3, Prec: "f64", Impl: "avx2", Threads: 1, SecondsEpoch: 1},
		{Model: "mlp", Method: cvar.Vanilla.String(), Prec: "f64", Impl: "avx512", Threads: 1, SecondsEpoch: 1},
	}
	got := map[string]TargetRow{}
	for _, r := range Targets(rows, "avx512", 16) {
		if _, dup := got[r.Name]; dup {
			t.Errorf("target %q twice", r.Name)
		}
		got[r.Name] = r
	}
	want := []struct {
		name string
		fig  float64
		met  bool
	}{
		{"logistic f32, 1 thread: epoch / floor", 0.0117 / 0.0064, false},
		{"softmax f32, 1 thread: epoch / floor", 0.0120 / 0.0090, true},
		{"mlp f32, 1 thread: epoch / floor", 0.130 / 0.100, true},
		{"logistic, 1 thread: f64 epoch / f32 epoch", 0.0200 / 0.0117, true},
		{"softmax, 1 thread: f64 epoch / f32 epoch", 0.0300 / 0.0120, false},
		{"logistic:u8, 1 thread: epoch / f32 memory floor", 0.0050 / (4 * 47e6 / 32e9), true},
		{"softmax:u8, 1 thread: epoch / f32 memory floor", 0.0180 / (4 * 47e6 / 32e9), false},
		{"logistic f32: 2-thread speed-up", 0.0117 / 0.0065, true},
		{"softmax f32: 2-thread speed-up", 0.0120 / 0.0080, false},
		{"softmax f32: 8-thread speed-up", 0.0120 / 0.0019, true},
		{"mlp f32: 16-thread speed-up", 0.130 / 0.0140, false},
		{"softmax f32: 16-thread speed-up", 0.0120 / 0.0019, true},
		{"logistic f32, 16 threads: epoch / memory floor", 0.004 / (188e6 / 100e9), false},
	}
	for _, w := range want {
		r, ok := got[w.name]
		if !ok {
			t.Errorf("target %q not judged", w.name)
			continue
		}
		if math.Abs(r.Got-w.fig) > 1e-9*w.fig || r.Met != w.met || r.Want == "" || r.Basis == "" {
			t.Errorf("%s: got %v (met %v, want %q, basis %q), want %v (met %v)", w.name, r.Got, r.Met, r.Want, r.Basis, w.fig, w.met)
		}
		delete(got, w.name)
	}
	for name := range got {
		t.Errorf("target %q judged without its rows", name) // the MLP's f64 rows are not Alg 3 on avx512
	}
	// Without the one-thread f32 rows only the targets that do not need
	// them are judged (the u8 floors, logistic on all cores); with fewer
	// than 8 cores, logistic on all of them is not.
	if tr := Targets(rows[5:], "avx512", 16); len(tr) != 3 {
		t.Errorf("without one-thread f32 rows: %d targets, want the two u8 ones and all-core logistic: %+v", len(tr), tr)
	}
	for _, tr := range Targets(rows, "avx512", 4) {
		if tr.Name == "logistic f32, 16 threads: epoch / memory floor" {
			t.Error("all-core logistic judged on a 4-core machine's rows")
		}
	}
	if tr := Targets(rows, "generic", 16); len(tr) != 0 {
		t.Errorf("rows of avx512 judged for generic: %+v", tr)
	}
}
