package cvarbeam

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// Each setting of a small grid trains as a work item; the one picked has
// the smallest validation CVaR_0.1, as cvar.Tune picks.
func TestTuneGrid(t *testing.T) {
	glob := writeSynthetic(t, t.TempDir(), 900, 8, 4)
	cfg := TuneOptions{TrainOptions: TrainOptions{Input: Input{Glob: glob}, Options: cvar.Options{Epochs: 3, Batch: 32, Seed: 2}},
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

// With a standardised regression target, each trial's validation metrics
// are in the target's units: the pick's equal those of the model file
// (un-scaled by cvar.UnscaleTarget) on the same held-out rows.
func TestTuneScaledTarget(t *testing.T) {
	ds, err := dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: 600, D: 5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(csvHeader(5) + "\n")
	for i := range ds.N {
		for _, v := range ds.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.FormatFloat(100+50*ds.Y[i], 'g', -1, 64) + "\n")
	}
	glob := filepath.Join(t.TempDir(), "reg.csv")
	if err := os.WriteFile(glob, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := TuneOptions{TrainOptions: TrainOptions{Input: Input{Glob: glob}, Kind: batch.KindLinear, ScaleTarget: true, Options: cvar.Options{Epochs: 3, Batch: 32, Seed: 2}},
		Grid: cvar.Grid{LR: []float64{0.01, 0.1}, WeightDecay: []float64{0}, EpsFraction: []float64{0.05}}}
	got, err := Tune(context.Background(), cfg, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	best := got.Trials[got.Best].Val
	vc, _ := got.Validation.TailAt(0.1)
	bc, _ := best.TailAt(0.1)
	if math.Abs(vc-bc) > 1e-6*math.Max(1, math.Abs(vc)) || math.Abs(got.Validation.MeanLoss-best.MeanLoss) > 1e-6*math.Max(1, best.MeanLoss) {
		t.Errorf("the model file's validation CVaR_0.1 %v and mean loss %v; the trial's %v and %v", vc, got.Validation.MeanLoss, bc, best.MeanLoss)
	}
}
