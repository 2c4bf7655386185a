package cvar

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// must returns v, failing the test program on a setup error.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMisuseReturnsErrors calls every exported function and method of the
// package with bad arguments and wants an error, never a panic or a silent
// success.
func TestMisuseReturnsErrors(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 200, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	theta := make([]float64, model.NumParams())
	vanilla := Options{Method: Vanilla, Steps: 3}
	empty := &batch.Data[float64]{}
	badLabel := *data
	badLabel.Labels = append([]int32(nil), data.Labels...)
	badLabel.Labels[7] = 5
	good := &ModelFile{Kind: batch.KindLogistic, D: 3, K: 2, Precision: F64, Theta: []float64{1, 2, 3, 4}, Alpha: 0.1, Method: Alg3, Classes: []string{"a", "b"}}
	closedOnline := func() error {
		o, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1})
		if err != nil {
			return fmt.Errorf("setup: %w (not the error under test)", err)
		}
		o.Close()
		return o.Observe([]float64{1, 2, 3}, 0, 1)
	}
	online := func(x []float64, label int) error {
		o, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1})
		if err != nil {
			return fmt.Errorf("setup: %w (not the error under test)", err)
		}
		defer o.Close()
		return o.Observe(x, 0, label)
	}
	var ts tailScratch[float64]
	var noCtx context.Context
	closedEvaluator := func() error {
		ev, err := NewEvaluator(model, 2)
		if err != nil {
			return fmt.Errorf("setup: %w (not the error under test)", err)
		}
		ev.Close()
		_, err = ev.Losses(theta, data)
		return err
	}
	x := []float64{1, 2, 3}
	cases := []struct {
		name string
		f    func() error
	}{
		{"Train nil model", func() error { _, err := Train[float64](nil, data, vanilla); return err }},
		{"Train nil data", func() error { _, err := Train(model, nil, vanilla); return err }},
		{"Train zero rows", func() error { _, err := Train(model, empty, vanilla); return err }},
		{"Train label out of range", func() error { _, err := Train(model, &badLabel, vanilla); return err }},
		{"Train Threads -1", func() error { _, err := Train(model, data, Options{Method: Vanilla, Threads: -1}); return err }},
		{"Train no method", func() error { _, err := Train(model, data, Options{}); return err }},
		{"Train smoothing 7", func() error { _, err := Train(model, data, Options{Method: Alg3, Smoothing: Smoothing(7)}); return err }},
		{"Train step rule 7", func() error { _, err := Train(model, data, Options{Method: Alg3, Rule: StepRule(7)}); return err }},
		{"Train wrong model", func() error { _, err := Train(must(batch.NewSoftmax[float64](3, 4)), data, vanilla); return err }},
		{"Train short Init", func() error { _, err := Train(model, data, Options{Method: Vanilla, Init: []float64{1}}); return err }},
		{"TrainContext nil context", func() error { _, err := TrainContext(noCtx, model, data, vanilla); return err }},
		{"TuneContext nil context", func() error { _, err := TuneContext(noCtx, model, data, data, vanilla, TuneOptions{}); return err }},
		{"Tune nil model", func() error { _, err := Tune[float64](nil, data, data, vanilla, TuneOptions{}); return err }},
		{"Evaluator.Losses after Close", closedEvaluator},
		{"Losses short θ", func() error { _, err := lossesOf(model, theta[:2], data, 8); return err }},
		{"Losses nil model", func() error { _, err := lossesOf[float64](nil, theta, data, 1); return err }},
		{"Losses nil data", func() error { _, err := lossesOf(model, theta, nil, 1); return err }},
		{"Losses threads -1", func() error { _, err := lossesOf(model, theta, data, -1); return err }},
		{"Predictions short θ", func() error { _, err := predictionsOf(model, theta[:2], data, 8); return err }},
		{"Predictions nil data", func() error { _, err := predictionsOf(model, theta, nil, 1); return err }},
		{"Predictions nil model", func() error { _, err := predictionsOf[float64](nil, theta, data, 1); return err }},
		{"Predictions threads -1", func() error { _, err := predictionsOf(model, theta, data, -1); return err }},
		{"Evaluate long θ", func() error { _, err := Evaluate(model, append(theta, 1), data); return err }},
		{"Evaluate bad α", func() error { _, err := Evaluate(model, theta, data, 1.5); return err }},
		{"Evaluate zero rows", func() error { _, err := Evaluate(model, theta, empty); return err }},
		{"NewEvaluator nil model", func() error { _, err := NewEvaluator[float64](nil, 1); return err }},
		{"NewEvaluator threads -1", func() error { _, err := NewEvaluator(model, -1); return err }},
		{"Evaluator.Metrics short θ", func() error {
			ev, err := NewEvaluator(model, 1)
			if err != nil {
				return fmt.Errorf("setup: %w (not the error under test)", err)
			}
			defer ev.Close()
			_, err = ev.Metrics(theta[:2], data, 0.1)
			return err
		}},
		{"MetricsOf short correct", func() error { _, err := MetricsOf([]float64{1, 2}, []bool{true}, 0.1); return err }},
		{"MetricsOf no losses", func() error { _, err := MetricsOf([]float64{}, nil, 0.1); return err }},
		{"NewOnline nil model", func() error {
			_, err := NewOnline[float64](nil, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1})
			return err
		}},
		{"NewOnline d = 0", func() error { _, err := NewOnline(model, 0, 2, Options{Method: Alg1, Steps: 10, LR: 0.1}); return err }},
		{"NewOnline k = -1", func() error { _, err := NewOnline(model, 3, -1, Options{Method: Alg1, Steps: 10, LR: 0.1}); return err }},
		{"NewOnline Threads -1", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1, Threads: -1})
			return err
		}},
		{"Online.Observe short x", func() error { return online([]float64{1}, 1) }},
		{"Online.Observe bad label", func() error { return online(x, 2) }},
		{"Online.Observe after Close", closedOnline},
		{"SaveModel nil model", func() error { return SaveModel(&bytes.Buffer{}, nil) }},
		{"SaveModel nil writer", func() error { return SaveModel(nil, good) }},
		{"LoadModel nil reader", func() error { _, err := LoadModel(nil); return err }},
		{"BuildModel nil", func() error { _, _, err := BuildModel[float64](nil); return err }},
		{"ModelFile.Validate nil", func() error { return (*ModelFile)(nil).Validate() }},
		{"CVaR empty", func() error { _, err := CVaR([]float64(nil), 0.1); return err }},
		{"CVaR α = 0", func() error { _, err := CVaR(x, 0); return err }},
		{"VaR NaN", func() error { _, err := VaR([]float64{math.NaN()}, 0.5); return err }},
		{"CVaR α NaN", func() error { _, err := CVaR([]float32{1}, math.NaN()); return err }},
		{"VaR Inf", func() error { _, err := VaR([]float32{float32(math.Inf(1))}, 0.5); return err }},
		{"WeightedCVaR short weights", func() error { _, _, err := WeightedCVaR(x, []float64{1}, 0.5); return err }},
		{"Tails α 2", func() error { _, err := Tails(x, 0.1, 2); return err }},
		{"tailScratch.CVaR", func() error { _, err := ts.CVaR(nil, 0.1); return err }},
		{"tailScratch.VaR", func() error { _, err := ts.VaR(x, -1); return err }},
		{"tailScratch.WeightedCVaR", func() error { _, _, err := ts.WeightedCVaR(x, []float64{-1, 1, 1}, 0.5); return err }},
		{"tailScratch.AppendTails", func() error { _, err := ts.AppendTails(nil, []float64{}, 0.5); return err }},
		{"Method.UnmarshalText", func() error { var m Method; return m.UnmarshalText([]byte("alg9")) }},
		{"Smoothing.UnmarshalText", func() error { var s Smoothing; return s.UnmarshalText([]byte("cubic")) }},
	}
	for _, c := range cases {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", c.name, r)
					err = fmt.Errorf("panicked")
				}
			}()
			err = c.f()
		}()
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// badData returns data sets with one thing wrong each, of the kind a
// Data built by hand gets wrong, for a logistic model of 3 features.
func badData(t *testing.T) map[string]*batch.Data[float64] {
	sp, _ := sparseTwins(t, 40, 3, true, 9)
	dense := subgroupData(t, 2500, 3, 4) // several chunks of a whole-data pass
	with := func(f func(d *batch.Data[float64])) *batch.Data[float64] {
		d := *sp
		d.Indptr = append([]int64(nil), sp.Indptr...)
		d.Cols = append([]uint32(nil), sp.Cols...)
		d.Vals = append([]float64(nil), sp.Vals...)
		f(&d)
		return &d
	}
	withX := func(f func(x []float64)) *batch.Data[float64] {
		d := *dense
		d.X = append([]float64(nil), dense.X...)
		f(d.X)
		return &d
	}
	mid := sp.N / 2
	return map[string]*batch.Data[float64]{
		"offsets falling":           with(func(d *batch.Data[float64]) { d.Indptr[mid] = d.Indptr[mid+1] + 1 }),
		"offset past the non-zeros": with(func(d *batch.Data[float64]) { d.Indptr[mid] = int64(len(d.Cols)) + 5 }),
		"offsets not from 0":        with(func(d *batch.Data[float64]) { d.Indptr[0] = 1 }),
		"too few offsets":           with(func(d *batch.Data[float64]) { d.Indptr = d.Indptr[:d.N] }),
		"column outside":            with(func(d *batch.Data[float64]) { d.Cols[len(d.Cols)-1] = 3 }),
		"values short":              with(func(d *batch.Data[float64]) { d.Vals = d.Vals[:len(d.Vals)-1] }),
		"sparse NaN":                with(func(d *batch.Data[float64]) { d.Vals[0] = math.NaN() }),
		"dense NaN":                 withX(func(x []float64) { x[len(x)-1] = math.NaN() }),
		"dense infinity":            withX(func(x []float64) { x[1200*3] = math.Inf(-1) }),
	}
}

// TestBadDataReturnsErrors gives every entry point that takes data a Data
// with one thing wrong and wants an error, never a panic (which on an
// engine's worker would end the test program) or a silent result.
func TestBadDataReturnsErrors(t *testing.T) {
	t.Parallel()
	model := must(batch.NewLogistic[float64](3))
	theta := []float64{0.1, -0.2, 0.3, 0}
	good := subgroupData(t, 300, 3, 2)
	opt := Options{Method: Alg3, Steps: 20, Threads: 2}
	tuneOpt := Options{Method: Vanilla, Steps: 5}
	for name, data := range badData(t) {
		calls := []struct {
			name string
			f    func() error
		}{
			{"Train", func() error { _, err := Train(model, data, opt); return err }},
			{"Losses", func() error { _, err := lossesOf(model, theta, data, 2); return err }},
			{"Predictions", func() error { _, err := predictionsOf(model, theta, data, 2); return err }},
			{"Evaluate", func() error { _, err := Evaluate(model, theta, data, 0.1); return err }},
			{"Evaluator.Metrics", func() error {
				ev := must(NewEvaluator(model, 2))
				defer ev.Close()
				_, err := ev.Metrics(theta, data, 0.1)
				return err
			}},
			{"Tune training data", func() error { _, err := Tune(model, data, good, tuneOpt, TuneOptions{Threads: 1}); return err }},
			{"Tune validation data", func() error { _, err := Tune(model, good, data, tuneOpt, TuneOptions{Threads: 1}); return err }},
		}
		for _, c := range calls {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s, %s: panic: %v", name, c.name, r)
						err = fmt.Errorf("panicked")
					}
				}()
				err = c.f()
			}()
			if err == nil {
				t.Errorf("%s, %s: no error", name, c.name)
			}
		}
	}
}
