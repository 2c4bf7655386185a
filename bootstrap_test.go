package cvar

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cvarlearn/cvar/internal/rng"
)

// bootData is n losses and correctness flags of a pseudorandom sample.
func bootData(n int) ([]float64, []bool) {
	r := rand.New(rand.NewPCG(3, 4))
	losses, correct := make([]float64, n), make([]bool, n)
	for i := range losses {
		losses[i] = r.ExpFloat64()
		correct[i] = r.Float64() < 0.8
	}
	return losses, correct
}

// TestBootstrapResamples: resample r draws its rows from internal/rng
// stream bootStream+r of the seed, and each interval runs between the
// 2.5 % and 97.5 % quantiles of the statistic over the resamples — so the
// same seed gives the same numbers, whatever the number of threads.
func TestBootstrapResamples(t *testing.T) {
	t.Parallel()
	losses, correct := bootData(300)
	alphas := []float64{0.05, 0.5}
	const b, seed = 9, 42 // few resamples: each one moves the bounds
	// The statistics of each resample, drawn here directly.
	var cvar, meanLoss, acc []float64
	for r := range b {
		src := rng.New(seed, bootStream+uint64(r))
		ls, ok := make([]float64, len(losses)), make([]bool, len(losses))
		for i := range ls {
			k := src.IntN(len(losses))
			ls[i], ok[i] = losses[k], correct[k]
		}
		m, err := MetricsOf(ls, ok, alphas...)
		if err != nil {
			t.Fatal(err)
		}
		cvar, meanLoss, acc = append(cvar, m.Tails[0].CVaR), append(meanLoss, m.MeanLoss), append(acc, m.Accuracy)
	}
	interval := func(s []float64) (float64, float64) {
		s = slices.Sorted(slices.Values(s))
		return quantile(s, 0.025), quantile(s, 0.975)
	}
	point, err := MetricsOf(losses, correct, alphas...)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 3} {
		got, err := Bootstrap(losses, correct, alphas, BootstrapOptions{Resamples: b, Seed: seed, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			got     Interval
			value   float64
			samples []float64
		}{
			{"CVaR_0.05", got.Tails[0].CVaR, point.Tails[0].CVaR, cvar},
			{"mean loss", got.MeanLoss, point.MeanLoss, meanLoss},
			{"accuracy", got.Accuracy, point.Accuracy, acc},
		} {
			lo, hi := interval(c.samples)
			if c.got != (Interval{c.value, lo, hi}) {
				t.Errorf("threads %d, %s: %+v, want %v [%v, %v]", threads, c.name, c.got, c.value, lo, hi)
			}
		}
		if got.Tails[1].Alpha != 0.5 || !(got.Tails[1].VaR.Lo <= got.Tails[1].VaR.Hi) {
			t.Errorf("threads %d: VaR_0.5 %+v", threads, got.Tails[1])
		}
	}
}

// TestBootstrapOptions: no resamples gives the estimates with NaN bounds;
// regression (no flags) has a NaN accuracy; OnResample counts the
// resamples; float32 losses work as float64 ones.
func TestBootstrapOptions(t *testing.T) {
	t.Parallel()
	losses, _ := bootData(50)
	m, err := Bootstrap(losses, nil, []float64{0.1}, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := CVaR(losses, 0.1)
	if m.Tails[0].CVaR.Value != want || !math.IsNaN(m.Tails[0].CVaR.Lo) || !math.IsNaN(m.MeanLoss.Hi) {
		t.Errorf("no resamples: %+v, want CVaR %v and NaN bounds", m.Tails[0], want)
	}
	if !math.IsNaN(m.Accuracy.Value) || !math.IsNaN(m.Accuracy.Lo) {
		t.Errorf("regression accuracy %+v, want NaN", m.Accuracy)
	}
	var calls atomic.Int64
	l32 := make([]float32, len(losses))
	for i, v := range losses {
		l32[i] = float32(v)
	}
	m32, err := Bootstrap(l32, nil, nil, BootstrapOptions{Resamples: 37, Threads: 4, OnResample: func() { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 37 || len(m32.Tails) != 0 || !(m32.MeanLoss.Lo < m32.MeanLoss.Value && m32.MeanLoss.Value < m32.MeanLoss.Hi) {
		t.Errorf("float32: %d calls, %+v", calls.Load(), m32)
	}
}

// TestBootstrapErrors: bad arguments are errors, never a panic or NaNs.
func TestBootstrapErrors(t *testing.T) {
	t.Parallel()
	losses, correct := bootData(10)
	for name, c := range map[string]struct {
		losses  []float64
		correct []bool
		alphas  []float64
		opt     BootstrapOptions
		is      error
	}{
		"flags":     {losses, correct[:9], nil, BootstrapOptions{}, nil},
		"resamples": {losses, nil, nil, BootstrapOptions{Resamples: -1}, nil},
		"threads":   {losses, nil, nil, BootstrapOptions{Threads: -2}, nil},
		"alpha":     {losses, nil, []float64{1.5}, BootstrapOptions{}, ErrAlpha},
		"empty":     {nil, nil, nil, BootstrapOptions{Resamples: 5}, ErrEmpty},
		"nan":       {[]float64{1, math.NaN()}, nil, nil, BootstrapOptions{}, ErrNonFinite},
	} {
		_, err := Bootstrap(c.losses, c.correct, c.alphas, c.opt)
		if err == nil || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want one matching %v", name, err, c.is)
		}
	}
}
