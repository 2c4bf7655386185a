package cvar

import (
	"math"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
)

// columnMoments are the mean and population deviation of column j.
func columnMoments(ds *dataset.Dataset[float64], j int) (mean, std float64) {
	for i := range ds.N {
		mean += ds.X[i*ds.D+j]
	}
	mean /= float64(ds.N)
	for i := range ds.N {
		d := ds.X[i*ds.D+j] - mean
		std += d * d
	}
	return mean, math.Sqrt(std / float64(ds.N))
}

// TestPrepareZScore: the training part is standardised with what was
// fitted on it, the validation part and a test set with the same, and
// full is left as it was.
func TestPrepareZScore(t *testing.T) {
	t.Parallel()
	full, err := dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: 300, D: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.X {
		full.X[i] = 10 + 3*full.X[i]
	}
	before := slices.Clone(full.X)
	test, _, _ := dataset.Split(full, 0.5, 9)
	testBefore := slices.Clone(test.X)
	p, err := Prepare(full, PrepareOptions{Scaling: ScaleZScore, ScaleTarget: true, Seed: 3}, nil, test)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.X, before) {
		t.Error("Prepare modified full")
	}
	if p.Train.N != 200 || p.Val.N != 100 {
		t.Errorf("split %d/%d, want 200/100", p.Train.N, p.Val.N)
	}
	for j := range full.D {
		if m, s := columnMoments(p.Train, j); math.Abs(m) > 1e-12 || math.Abs(s-1) > 1e-12 {
			t.Errorf("column %d of the training part: mean %v, deviation %v", j, m, s)
		}
		mean, scale := p.Preprocessing.Mean[j], p.Preprocessing.Scale[j]
		if got, want := test.X[j], (testBefore[j]-mean)/scale; math.Abs(got-want) > 1e-12 {
			t.Errorf("test[0][%d] = %v, want %v", j, got, want)
		}
	}
	ts := must(dataset.FitTargetScaler(p.Train))
	if p.Preprocessing.TargetMean != ts.Mean || p.Preprocessing.TargetScale != ts.Scale || ts.Scale == 0 {
		t.Errorf("target standardisation %v, %v; want %v", p.Preprocessing.TargetMean, p.Preprocessing.TargetScale, ts)
	}
	if p, _ := Prepare(full, PrepareOptions{Scaling: ScaleNone, Seed: 3}); p.Preprocessing.TargetScale != 0 || p.Preprocessing.Mean != nil {
		t.Errorf("ScaleNone without ScaleTarget: %+v", p.Preprocessing)
	}
}

// TestPrepareUnitAndAuto: ScaleUnit divides by 255; ScaleAuto scales
// sparse data by its largest |x| without centring.
func TestPrepareUnitAndAuto(t *testing.T) {
	t.Parallel()
	full, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 90, D: 5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(full, PrepareOptions{Scaling: ScaleUnit, ScaleTarget: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, _, _ := dataset.Split(full, 0, 1)
	if p.Preprocessing.Divide != 255 || p.Train.X[7] != train.X[7]/255 || p.Preprocessing.TargetScale != 0 {
		t.Errorf("unit: %+v, x %v from %v", p.Preprocessing, p.Train.X[7], train.X[7])
	}
	sparse := &dataset.Dataset[float64]{Name: "s", N: 4, D: 2, Task: dataset.Classification, Labels: []int32{0, 1, 0, 1}, Classes: []string{"a", "b"},
		Indptr: []int64{0, 1, 2, 3, 4}, Cols: []uint32{0, 1, 0, 1}, Vals: []float64{-4, 2, 2, 1}, Features: []string{"f1", "f2"}}
	p, err = Prepare(sparse, PrepareOptions{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Train.IsSparse() || slices.ContainsFunc(p.Preprocessing.Mean, func(m float64) bool { return m != 0 }) {
		t.Errorf("auto on sparse data: %+v", p.Preprocessing)
	}
	for _, v := range p.Train.Vals {
		if math.Abs(v) > 1 {
			t.Errorf("a scaled value %v beyond 1: %v", v, p.Train.Vals)
		}
	}
	if _, err := Prepare(full, PrepareOptions{Scaling: Scaling(99)}); err == nil {
		t.Error("Scaling 99: no error")
	}
	if _, err := Prepare[float64](nil, PrepareOptions{}); err == nil {
		t.Error("nil data: no error")
	}
}
