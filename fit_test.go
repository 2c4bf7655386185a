package cvar

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// fitRows adds rows [lo, hi) of ds to f: training rows of the split with
// seed 2, dense or as their non-zeros, and the held-out rows' targets.
func fitRows(t *testing.T, f *Fit[float64], ds *dataset.Dataset[float64], lo, hi int, sparse bool) {
	t.Helper()
	split, err := dataset.NewSplitter(ds.N, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := lo; i < hi; i++ {
		var y float64
		if ds.Task == dataset.Classification {
			y, err = strconv.ParseFloat(ds.Classes[ds.Labels[i]], 64) // as the CSV holds it
		} else {
			y = ds.Y[i]
		}
		switch {
		case !split.Train(i):
			err = f.AddHeld(y)
		case sparse:
			var idx []uint32
			var val []float64
			for j, v := range ds.Row(i) {
				if v != 0 {
					idx, val = append(idx, uint32(j)), append(val, v)
				}
			}
			err = f.AddSparse(idx, val, y)
		default:
			err = f.Add(ds.Row(i), y)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestFitMatchesTrainStream: a Fit of the rows TrainStream splits off
// resolves to its kind, classes and preprocessing, bit for bit.
func TestFitMatchesTrainStream(t *testing.T) {
	t.Parallel()
	ds := synthClass(t, 300, 7, 3)
	for _, scaling := range []Scaling{ScaleAuto, ScaleMaxAbs, ScaleUnit} {
		opens := 0
		res, err := TrainStream(context.Background(), memSource(csvOf(ds), &opens), StreamOptions[float64]{
			Options: Options{Method: Alg4, Seed: 2}, Scaling: scaling,
		})
		if err != nil {
			t.Fatal(err)
		}
		f := NewFit[float64](ds.D)
		fitRows(t, f, ds, 0, ds.N, false)
		info, prep, err := f.Resolve(FitOptions{Scaling: scaling})
		if err != nil {
			t.Fatal(err)
		}
		if info.Kind != res.Kind || !slices.Equal(info.Classes, res.Classes) || info.NTrain != res.NTrain || info.NVal != res.NVal ||
			!slices.Equal(prep.Mean, res.Preprocessing.Mean) || !slices.Equal(prep.Scale, res.Preprocessing.Scale) || prep.Divide != res.Preprocessing.Divide {
			t.Errorf("scaling %d: Fit %+v %+v; TrainStream %+v %+v", scaling, info, prep, res.StreamInfo, res.Preprocessing)
		}
	}
}

// TestFitMerge: two halves merged resolve as one pass does (the classes and
// max-abs exactly, moments to rounding), through the encoding, and the same
// merge gives the same bits.
func TestFitMerge(t *testing.T) {
	t.Parallel()
	ds, err := dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: 300, D: 5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.N {
		ds.Row(i)[i%5] = 0 // some zeros, for the sparse rows
	}
	one := &Fit[float64]{}
	fitRows(t, one, ds, 0, ds.N, true)
	merged := func() *Fit[float64] {
		a, b := &Fit[float64]{}, &Fit[float64]{}
		fitRows(t, a, ds, 0, 120, true)
		fitRows(t, b, ds, 120, ds.N, true)
		enc, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Fit[float64]
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if err := a.Merge(&back); err != nil {
			t.Fatal(err)
		}
		return a
	}
	m := merged()
	for _, opt := range []FitOptions{{ScaleTarget: true}, {Scaling: ScaleZScore, Sparse: true}, {Sparse: true}} {
		wi, wp, err1 := one.Resolve(opt)
		gi, gp, err2 := m.Resolve(opt)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if gi.Kind != wi.Kind || gi.Kind != batch.KindLinear || gi.D != 5 || gi.NTrain != wi.NTrain || gi.NVal != wi.NVal ||
			!closeAll(gp.Mean, wp.Mean) || !closeAll(gp.Scale, wp.Scale) || !closeAll([]float64{gp.TargetMean, gp.TargetScale}, []float64{wp.TargetMean, wp.TargetScale}) {
			t.Errorf("%+v: merged %+v %+v; one pass %+v %+v", opt, gi, gp, wi, wp)
		}
		if opt.Scaling == ScaleAuto && opt.Sparse && !slices.Equal(gp.Scale, wp.Scale) {
			t.Errorf("max-abs: merged %v; one pass %v", gp.Scale, wp.Scale)
		}
	}
	if m.Density() != one.Density() || !(m.Density() < 1) {
		t.Errorf("density: merged %v; one pass %v", m.Density(), one.Density())
	}
	b1, _ := m.MarshalBinary()
	b2, _ := merged().MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Error("the same merge gave different bits")
	}
}

func closeAll(a, b []float64) bool {
	for j := range a {
		if math.Abs(a[j]-b[j]) > 1e-12*math.Max(1, math.Abs(b[j])) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestFitErrors: what a Fit refuses.
func TestFitErrors(t *testing.T) {
	t.Parallel()
	f := NewFit[float64](2)
	if err := f.Add([]float64{1, 2, 3}, 0); err == nil {
		t.Error("a row wider than the fit was accepted")
	}
	if err := f.Add([]float64{1, 2}, math.NaN()); err == nil {
		t.Error("a NaN target was accepted")
	}
	if _, _, err := f.Resolve(FitOptions{}); err == nil || !strings.Contains(err.Error(), "no training rows") {
		t.Errorf("no rows: %v", err)
	}
	wide := NewFit[float64](3)
	if err := f.Merge(wide); err == nil {
		t.Error("fits of 2 and 3 features merged")
	}
	if err := new(Fit[float64]).UnmarshalBinary([]byte("junk")); err == nil {
		t.Error("junk decoded as a fit")
	}
	for i, y := range []float64{1, 1, 1} {
		if err := f.Add([]float64{float64(i), 1}, y); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.Resolve(FitOptions{}); err == nil || !strings.Contains(err.Error(), "every label is 1") {
		t.Errorf("one class: %v", err)
	}
	if _, _, err := f.Resolve(FitOptions{Kind: batch.KindLinear, Classes: []string{"a", "b"}}); err == nil || !strings.Contains(err.Error(), "class texts") {
		t.Errorf("linear of text classes: %v", err)
	}
	info, _, err := f.Resolve(FitOptions{Classes: []string{"a", "b", "c"}})
	if err != nil || info.Kind != batch.KindSoftmax || len(info.Classes) != 3 {
		t.Errorf("imposed classes: %+v, %v", info, err)
	}
}
