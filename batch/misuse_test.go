package batch

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
)

// noPanic runs f and turns a panic into a test failure.
func noPanic(t *testing.T, name string, f func() error) error {
	t.Helper()
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panic: %v", name, r)
				err = fmt.Errorf("panicked")
			}
		}()
		err = f()
	}()
	return err
}

// TestMisuseReturnsErrors calls every exported function and method of the
// package with bad arguments and wants an error, never a panic or a silent
// success.
func TestMisuseReturnsErrors(t *testing.T) {
	t.Parallel()
	data := testData[float64](t, 100, 3, 2, 1)
	reg := testData[float64](t, 100, 3, 0, 2)
	model := must(NewLogistic[float64](3))
	theta := make([]float64, model.NumParams())
	g := make([]float64, model.NumParams())
	wt := &Weighting{Objective: Mean}
	engine := func() *Engine[float64] { return must(NewEngine[float64](model, 2)) }
	closed := engine()
	closed.Close()
	badLabel := *data
	badLabel.Labels = append([]int32(nil), data.Labels...)
	badLabel.Labels[50] = 7
	short := *data
	short.X = data.X[:10]
	grad := func(e *Engine[float64], g, theta []float64, d *Data[float64], idx []int, n int, wt *Weighting) error {
		defer e.Close()
		_, _, err := e.Gradient(g, theta, d, idx, n, wt)
		return err
	}
	x4 := []float64{1, 2, 3, 4}
	const quarter = 1 << (bits.UintSize - 2) // 4·quarter overflows int
	cases := []struct {
		name string
		f    func() error
	}{
		{"NewData n·d overflows", func() error { _, err := NewData(x4, 4, quarter, []float64{1, 2, 3, 4}, nil, 0); return err }},
		{"NewData n·d overflows the other way", func() error { _, err := NewData(x4, quarter, 4, nil, []int32{0, 1, 0, 1}, 2); return err }},
		{"NewData no rows", func() error { _, err := NewData[float64](nil, 0, 3, []float64{}, nil, 0); return err }},
		{"NewData one class", func() error { _, err := NewData(x4, 4, 1, nil, []int32{0, 0, 0, 0}, 1); return err }},
		{"NewData short labels", func() error { _, err := NewData(x4, 4, 1, nil, []int32{0, 1}, 2); return err }},
		{"NewLogistic(-1)", func() error { _, err := NewLogistic[float64](-1); return err }},
		{"NewLogistic(0)", func() error { _, err := NewLogistic[float32](0); return err }},
		{"NewLeastSquares(-1)", func() error { _, err := NewLeastSquares[float64](-1); return err }},
		{"NewLeastAbsolute(MaxInt)", func() error { _, err := NewLeastAbsolute[float64](math.MaxInt); return err }},
		{"NewSoftmax one class", func() error { _, err := NewSoftmax[float64](3, 1); return err }},
		{"NewSoftmax no features", func() error { _, err := NewSoftmax[float64](0, 3); return err }},
		{"NewSoftmax too large", func() error { _, err := NewSoftmax[float64](math.MaxInt, 3); return err }},
		{"NewMLP no inputs", func() error { _, err := NewMLP[float64](0, 5, 2); return err }},
		{"NewMLP one class", func() error { _, err := NewMLP[float64](3, 5, 1); return err }},
		{"NewMLP too wide", func() error { _, err := NewMLP[float64](3, math.MaxInt, 2); return err }},
		{"NewMLP too many parameters", func() error { _, err := NewMLP[float64](math.MaxInt32, math.MaxInt32, math.MaxInt32); return err }},
		{"NewModel d = -1", func() error { _, err := NewModel[float64](KindLogistic, -1, 2, 0); return err }},
		{"NewModel huge mlp", func() error { _, err := NewModel[float32](KindMLP, 784, 10, 100_000_000); return err }},
		{"NewModel unknown kind", func() error { _, err := NewModel[float32]("svm", 3, 2, 0); return err }},
		{"NewModel logistic with 3 classes", func() error { _, err := NewModel[float32](KindLogistic, 3, 3, 0); return err }},
		{"NewModel linear with classes", func() error { _, err := NewModel[float32](KindLinear, 3, 2, 0); return err }},
		{"NumParams huge", func() error { _, err := NumParams(KindSoftmax, 1<<30, 1<<30, 0); return err }},
		{"NumParams mlp without hidden units", func() error { _, err := NumParams(KindMLP, 3, 2, 0); return err }},
		{"NewMLPBLAS one class", func() error { _, err := NewMLPBLAS[float32](3, 5, 1); return err }},
		{"NewEngine nil model", func() error { _, err := NewEngine[float64](nil, 1); return err }},
		{"NewEngine -1 threads", func() error { _, err := NewEngine[float64](model, -1); return err }},
		{"newEngineWith -5 rows", func() error { _, err := newEngineWith[float64](model, 1, engineOptions{chunkRows: -5}); return err }},
		{"Gradient short θ", func() error { return grad(engine(), g, theta[:2], data, nil, 10, wt) }},
		{"Gradient long θ", func() error { return grad(engine(), g, append(theta, 1), data, nil, 10, wt) }},
		{"Gradient short g", func() error { return grad(engine(), g[:1], theta, data, nil, 10, wt) }},
		{"Gradient nil data", func() error { return grad(engine(), g, theta, nil, nil, 10, wt) }},
		{"Gradient empty data", func() error { return grad(engine(), g, theta, &Data[float64]{}, nil, 10, wt) }},
		{"Gradient short X", func() error { return grad(engine(), g, theta, &short, nil, 10, wt) }},
		{"Gradient label out of range", func() error { return grad(engine(), g, theta, &badLabel, []int{50}, 0, wt) }},
		{"Gradient regression data", func() error { return grad(engine(), g, theta, reg, nil, 10, wt) }},
		{"Gradient nil weighting", func() error { return grad(engine(), g, theta, data, nil, 10, nil) }},
		{"Gradient bad weighting", func() error { return grad(engine(), g, theta, data, nil, 10, &Weighting{Objective: Hinge, Alpha: 2}) }},
		{"Gradient row out of range", func() error { return grad(engine(), g, theta, data, []int{3, 100}, 0, wt) }},
		{"Gradient negative row", func() error { return grad(engine(), g, theta, data, []int{-1}, 0, wt) }},
		{"Gradient no rows", func() error { return grad(engine(), g, theta, data, []int{}, 0, wt) }},
		{"Gradient n > N", func() error { return grad(engine(), g, theta, data, nil, 101, wt) }},
		{"Gradient n = 0", func() error { return grad(engine(), g, theta, data, nil, 0, wt) }},
		{"Gradient closed engine", func() error { return grad(closed, g, theta, data, nil, 10, wt) }},
		{"Losses short dst", func() error { e := engine(); defer e.Close(); return e.Losses(make([]float64, 99), theta, data) }},
		{"Losses short θ", func() error { e := engine(); defer e.Close(); return e.Losses(make([]float64, 100), theta[:1], data) }},
		{"Losses nil data", func() error { e := engine(); defer e.Close(); return e.Losses(make([]float64, 100), theta, nil) }},
		{"Losses closed engine", func() error { return closed.Losses(make([]float64, 100), theta, data) }},
		{"Scores short dst", func() error { e := engine(); defer e.Close(); return e.Scores(make([]float64, 99), theta, data) }},
		{"Scores wrong features", func() error {
			e := must(NewEngine[float64](must(NewLogistic[float64](4)), 1))
			defer e.Close()
			return e.Scores(make([]float64, 100), make([]float64, 5), data)
		}},
		{"Scores nil data", func() error { e := engine(); defer e.Close(); return e.Scores(make([]float64, 100), theta, nil) }},
		{"NewSampler n = 0", func() error { _, err := NewSampler(0, 3, Shuffled, 1); return err }},
		{"NewSampler b = 0", func() error { _, err := NewSampler(5, 0, InOrder, 1); return err }},
		{"NewSampler n = MaxInt", func() error { _, err := NewSampler(math.MaxInt, 3, Shuffled, 1); return err }},
		{"NewSampler unknown mode", func() error { _, err := NewSampler(5, 2, Sampling(7), 1); return err }},
		{"NewSampler no mode", func() error { _, err := NewSampler(5, 2, Sampling(0), 1); return err }},
		{"Weighting.Validate", func() error { return (&Weighting{Objective: Softplus, Alpha: 0.1}).Validate() }},
		{"Weighting.Validate objective", func() error { return (&Weighting{Objective: Objective(9)}).Validate() }},
		{"Linear.Check nil", func() error { return model.Check(nil) }},
		{"Softmax.Check nil", func() error { return must(NewSoftmax[float64](3, 2)).Check(nil) }},
		{"MLP.Check nil", func() error { return must(NewMLP[float64](3, 4, 2)).Check(nil) }},
		{"Data.Validate nil", func() error { return (*Data[float64])(nil).Validate() }},
		{"Data.Validate empty", func() error { return (&Data[float64]{}).Validate() }},
		{"Data.Validate label", func() error { return badLabel.Validate() }},
		{"Data.Validate short X", func() error { return short.Validate() }},
		{"Data.ValidateFeatures stride", func() error { d := *data; d.Stride = 2; return d.ValidateFeatures() }},
		{"Data.Validate huge N", func() error { d := *data; d.N = quarter; return d.Validate() }},
	}
	for _, c := range cases {
		if err := noPanic(t, c.name, c.f); err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	// The good calls still work.
	e := engine()
	defer e.Close()
	if _, _, err := e.Gradient(g, theta, data, []int{0, 99}, 0, wt); err != nil {
		t.Errorf("a good Gradient call: %v", err)
	}
}

// TestThreadsClamped checks that an engine never runs more workers than
// GOMAXPROCS: asking for a million threads gives GOMAXPROCS.
func TestThreadsClamped(t *testing.T) {
	t.Parallel()
	model := must(NewLogistic[float64](3))
	e := must(NewEngine[float64](model, 1_000_000))
	defer e.Close()
	if procs := runtimeProcs(); e.Threads() != procs {
		t.Errorf("Threads() = %d for 1e6 asked, want GOMAXPROCS = %d", e.Threads(), procs)
	}
	e0 := must(NewEngine[float64](model, 0))
	defer e0.Close()
	if procs := runtimeProcs(); e0.Threads() != procs {
		t.Errorf("Threads() = %d for 0 asked, want GOMAXPROCS = %d", e0.Threads(), procs)
	}
}
