package cvar

import (
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
)

// TestPrepareWhole: TrainFrac 1 trains on a copy of every row, in order,
// scaled as a split's training part would be, with no validation part.
func TestPrepareWhole(t *testing.T) {
	t.Parallel()
	full, err := dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: 50, D: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(full.X)
	p, err := Prepare(full, PrepareOptions{Scaling: ScaleZScore, ScaleTarget: true, TrainFrac: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Val != nil || p.Train.N != full.N || !slices.Equal(p.Train.Y, full.Y) {
		t.Fatalf("train %d rows, val %v; want all %d rows, no validation part", p.Train.N, p.Val, full.N)
	}
	if !slices.Equal(full.X, before) {
		t.Error("Prepare modified full")
	}
	for j := range full.D {
		mean, std := columnMoments(p.Train, j)
		if mean > 1e-12 || mean < -1e-12 || std < 1-1e-12 || std > 1+1e-12 {
			t.Errorf("column %d: mean %v, deviation %v", j, mean, std)
		}
	}
	if ts := must(dataset.FitTargetScaler(full)); p.Preprocessing.TargetScale != ts.Scale {
		t.Errorf("target scale %v, want %v", p.Preprocessing.TargetScale, ts.Scale)
	}
	if _, err := Prepare(full, PrepareOptions{TrainFrac: 1.5}); err == nil {
		t.Error("TrainFrac 1.5: no error")
	}
}
