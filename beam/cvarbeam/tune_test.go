package cvarbeam

import (
	"context"
	"testing"

	"github.com/cvarlearn/cvar"
)

// Each setting of a small grid trains as a work item; the one picked has
// the smallest validation CVaR_0.1, as cvar.Tune picks.
func TestTuneGrid(t *testing.T) {
	glob := writeSynthetic(t, t.TempDir(), 900, 8, 4)
	cfg := TuneOptions{TrainOptions: TrainOptions{Input: Input{Glob: glob}, Epochs: 3, Batch: 32, Seed: 2},
		Grid: cvar.Grid{LR: []float64{0.001, 0.1}, WeightDecay: []float64{0, 1e-3}, EpsFraction: []float64{0.05}}}
	got, err := Tune(context.Background(), cfg, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Trials) != 4 {
		t.Fatalf("%d trials, want 4", len(got.Trials))
	}
	best, _ := got.Trials[got.Best].Val.TailAt(0.1)
	for i, tr := range got.Trials {
		c, _ := tr.Val.TailAt(0.1)
		if tr.Err == nil && c < best {
			t.Errorf("trial %d has CVaR_0.1 %v below the pick's %v", i, c, best)
		}
		if tr.Val.N != got.Validation.N {
			t.Errorf("trial %d evaluated %d rows, the held-out rows are %d", i, tr.Val.N, got.Validation.N)
		}
	}
	if got.Trials[got.Best].LR != got.Model.Params.LR || got.Model.Params.LRFrom != "tuned" {
		t.Errorf("the model's step size %v (%s); the pick's %v", got.Model.Params.LR, got.Model.Params.LRFrom, got.Trials[got.Best].LR)
	}
	vc, _ := got.Validation.TailAt(0.1)
	if !close9(vc, best) {
		t.Errorf("the model file's validation CVaR_0.1 %v; the trial's %v", vc, best)
	}
}
