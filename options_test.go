package cvar

import (
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestOptionsRefusedNamingField: counts that would wrap or exceed
// MaxSteps, a non-finite Scale, a starting point outside K and bad tuning
// options are errors that name the field, never a run that wraps, clamps
// or projects silently.
func TestOptionsRefusedNamingField(t *testing.T) {
	data := subgroupData(t, 200, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	f32 := must(batch.NewLogistic[float32](3))
	data32 := &batch.Data[float32]{X: make([]float32, len(data.X)), N: data.N, D: data.D, Stride: data.Stride, K: data.K, Labels: data.Labels, Y: make([]float32, len(data.Y))}
	for i, v := range data.X {
		data32.X[i] = float32(v)
	}
	for i, v := range data.Y {
		data32.Y[i] = float32(v)
	}
	train := func(opt Options) error { _, err := Train(model, data, opt); return err }
	tune := func(opt Options, to TuneOptions) error { _, err := Tune(model, data, data, opt, to); return err }
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"Epochs over MaxSteps", train(Options{Method: Vanilla, Epochs: 1844674407370955162, Batch: 10}), []string{"Epochs 1844674407370955162", "MaxSteps"}},
		{"Epochs MaxInt64", train(Options{Method: Vanilla, Epochs: math.MaxInt64, Batch: 10}), []string{"Epochs 9223372036854775807", "MaxSteps"}},
		{"Epochs × steps over MaxSteps", train(Options{Method: Alg2, Epochs: MaxSteps / 100}), []string{"Epochs", "200 steps each", "MaxSteps"}},
		{"Steps over MaxSteps", train(Options{Method: Vanilla, Steps: MaxSteps + 1}), []string{"Steps 9007199254740993", "MaxSteps"}},
		{"Online Steps over MaxSteps", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: MaxSteps + 1, LR: 0.1})
			return err
		}(), []string{"Steps", "MaxSteps"}},
		{"Scale NaN", train(Options{Method: Vanilla, Steps: 1, Scale: batch.Scale{MaxNorm: math.NaN(), MaxAbsY: 1}}), []string{"Scale.MaxNorm NaN"}},
		{"Scale negative", train(Options{Method: Vanilla, Steps: 1, Scale: batch.Scale{MaxNorm: 1, MaxAbsY: -1}}), []string{"Scale.MaxAbsY -1"}},
		{"Online Scale Inf", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, Scale: batch.Scale{MaxNorm: math.Inf(1)}})
			return err
		}(), []string{"Scale.MaxNorm +Inf"}},
		{"Init outside the ball", train(Options{Method: Alg3, Steps: 1, Domain: Ball(1), Init: []float64{1, 1, 0, 0}}), []string{"Init", "norm 1.414", "ball(R=1)"}},
		{"Init outside the box", train(Options{Method: Alg3, Steps: 1, Domain: Box(-1, 1), Init: []float64{0, 0, 2, 0}}), []string{"Init[2] is 2", "box[-1, 1]"}},
		{"Init NaN", train(Options{Method: Vanilla, Steps: 1, Init: []float64{0, math.NaN(), 0, 0}}), []string{"Init[1] is NaN"}},
		{"Init overflows float32", func() error {
			_, err := Train(f32, data32, Options{Method: Vanilla, Steps: 1, Init: []float64{0, 0, 1e300, 0}})
			return err
		}(), []string{"Init[2] is 1e+300", "float32"}},
		{"Online Init outside the ball", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1, Domain: Ball(0.5), Init: []float64{0, 0, 0, 1}})
			return err
		}(), []string{"Init", "ball(R=0.5)"}},
		{"TuneOptions.Threads -1", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Threads: -1}), []string{"TuneOptions.Threads -1"}},
		{"Tune Options.Threads -1", tune(Options{Method: Vanilla, Steps: 1, Threads: -1}, TuneOptions{}), []string{"-1 threads"}},
		{"Grid.EpsFraction 0", tune(Options{Method: Alg3, Steps: 1}, TuneOptions{Grid: Grid{EpsFraction: []float64{0.05, 0}}}), []string{"Grid.EpsFraction value 0", "positive"}},
		{"Grid.LR 0", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Grid: Grid{LR: []float64{0}}}), []string{"Grid.LR value 0", "positive"}},
		{"Grid.WeightDecay NaN", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Grid: Grid{WeightDecay: []float64{math.NaN()}}}), []string{"Grid.WeightDecay value NaN"}},
		{"grid too large", tune(Options{Method: Alg3, Steps: 1}, TuneOptions{Grid: Grid{LR: make1(300), WeightDecay: make1(300)}}), []string{"300 × 300 × 3", "MaxGridSettings"}},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(c.err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, c.err, w)
			}
		}
	}
}

// make1 returns n step sizes of 1.
func make1(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestInitOnTheBoundary: a starting point on K's boundary, as a projection
// leaves it (a few ulps outside in float32), is accepted, and counts up to
// MaxSteps resolve exactly.
func TestInitOnTheBoundary(t *testing.T) {
	data := subgroupData(t, 200, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	r := 0.3
	init := []float64{1, 2, 3, 4}
	var s float64
	for _, v := range init {
		s += v * v
	}
	for i := range init {
		init[i] = float64(float32(init[i] * r / math.Sqrt(s)))
	}
	if _, err := Train(model, data, Options{Method: Alg3, Steps: 2, Domain: Ball(r), Init: init}); err != nil {
		t.Fatalf("Init on the ball's boundary: %v", err)
	}
	if _, err := Train(model, data, Options{Method: Alg3, Steps: 2, Domain: Box(-1, 1), Init: []float64{-1, 1, 0, 1}}); err != nil {
		t.Fatalf("Init on the box's boundary: %v", err)
	}
	pr, err := resolve(&Options{Method: Alg2, Epochs: MaxSteps / 8}, 4, 8, batch.Bounds{}, true, nil)
	if err != nil || pr.Steps != MaxSteps {
		t.Fatalf("Epochs MaxSteps/8 on 8 samples: %d steps, %v; want %d", pr.Steps, err, MaxSteps)
	}
	if _, err := resolve(&Options{Method: Alg2, Epochs: MaxSteps/8 + 1}, 4, 8, batch.Bounds{}, true, nil); err == nil || !strings.Contains(err.Error(), "MaxSteps") {
		t.Fatalf("Epochs MaxSteps/8 + 1 on 8 samples: %v; want an error naming MaxSteps", err)
	}
}
