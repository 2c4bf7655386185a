package cvar

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestEntryPointsNilArguments calls the training, tuning and evaluation
// entry points with a nil model or nil data and wants an error naming the
// missing argument, never a panic.
func TestEntryPointsNilArguments(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 50, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	theta := make([]float64, model.NumParams())
	opt := Options{Method: Vanilla, Steps: 2}
	ctx := context.Background()
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"Tune nil model", "model", func() error { _, err := Tune[float64](nil, data, data, opt, TuneOptions{}); return err }},
		{"Tune nil train", "train", func() error { _, err := Tune(model, nil, data, opt, TuneOptions{}); return err }},
		{"Tune nil val", "val", func() error { _, err := Tune(model, data, nil, opt, TuneOptions{}); return err }},
		{"TuneContext nil model", "model", func() error {
			_, err := TuneContext[float64](ctx, nil, data, data, opt, TuneOptions{})
			return err
		}},
		{"Train nil model", "model", func() error { _, err := Train[float64](nil, data, opt); return err }},
		{"Train nil data", "data", func() error { _, err := Train(model, nil, opt); return err }},
		{"TrainContext nil model", "model", func() error { _, err := TrainContext[float64](ctx, nil, data, opt); return err }},
		{"TrainContext nil data", "data", func() error { _, err := TrainContext(ctx, model, nil, opt); return err }},
		{"Evaluate nil model", "model", func() error { _, err := Evaluate[float64](nil, theta, data, 0.1); return err }},
		{"Evaluate nil data", "data", func() error { _, err := Evaluate(model, theta, nil, 0.1); return err }},
		{"NewEvaluator nil model", "model", func() error { _, err := NewEvaluator[float64](nil, 1); return err }},
		{"Losses nil model", "model", func() error { _, err := lossesOf[float64](nil, theta, data, 1); return err }},
		{"Losses nil data", "data", func() error { _, err := lossesOf(model, theta, nil, 1); return err }},
		{"NewOnline nil model", "model", func() error {
			_, err := NewOnline[float64](nil, 3, 2, Options{Method: Alg1, Steps: 10})
			return err
		}},
	}
	for _, c := range cases {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
					t.Errorf("%s: %v", c.name, err)
				}
			}()
			err = c.f()
		}()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one naming %q", c.name, err, c.want)
		}
	}
}

// TestTuneRejectsOnEpoch: Tune trains its settings at once and cannot honour
// Options.OnEpoch, so it says so instead of dropping the callback.
func TestTuneRejectsOnEpoch(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 50, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	called := false
	opt := Options{Method: Vanilla, Steps: 2, OnEpoch: func(EpochInfo) error { called = true; return nil }}
	_, err := Tune(model, data, data, opt, TuneOptions{Grid: Grid{LR: []float64{0.1}, WeightDecay: []float64{0}}})
	if err == nil || !strings.Contains(err.Error(), "OnEpoch") {
		t.Fatalf("Tune with OnEpoch: error %v; want one naming OnEpoch", err)
	}
	if called {
		t.Fatal("Tune called OnEpoch though it returned an error")
	}
	opt.OnEpoch = nil
	if _, err := Tune(model, data, data, opt, TuneOptions{Grid: Grid{LR: []float64{0.1}, WeightDecay: []float64{0}}}); err != nil {
		t.Fatalf("Tune without OnEpoch: %v", err)
	}
}
