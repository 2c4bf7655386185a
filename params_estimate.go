package cvar

import (
	"math"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// The estimate of G and β at the initial point for a model without
// closed-form bounds.

// The function estimateConstants takes G from the gradient norms of
// estimateSamples samples. It takes β from the gradients of the first
// estimateDirections of them along a random direction; a few directions
// suffice for β. The length δ of those moves is estimateStep, relative to
// max(‖θ₀‖, 1).
const (
	estimateSamples    = 256
	estimateDirections = 32
	estimateStep       = 1e-3
)

// estimateConstants estimates G and β of a model without closed-form bounds
// at θ₀. G is the largest per-sample gradient norm over up to
// estimateSamples samples. β is the largest ratio
// ‖∇ℓ(θ₀ + δu) − ∇ℓ(θ₀)‖/δ over random unit directions u.
func estimateConstants[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], seed uint64) (g, beta float64) {
	// One-sample gradients: a single worker of its own, so that the run's
	// workers are made only after every option is resolved.
	e, err := batch.NewEngine(model, 1)
	if err != nil {
		return math.NaN(), math.NaN() // resolve reports the step size it cannot set
	}
	defer e.Close()
	r := rng.New(seed, 0xe57)
	p := len(theta)
	g0, g1 := make([]T, p), make([]T, p)
	moved := make([]T, p)
	u := make([]float64, p)
	mean := &batch.Weighting{Objective: batch.Mean}
	var nrm float64
	for _, v := range theta {
		nrm += float64(v) * float64(v)
	}
	delta := estimateStep * math.Max(1, math.Sqrt(nrm))
	for s := 0; s < min(estimateSamples, data.N); s++ {
		idx := []int{r.IntN(data.N)}
		if _, _, err := e.Gradient(g0, theta, data, idx, 0, mean); err != nil {
			return math.NaN(), math.NaN() // resolve reports the step size it cannot set
		}
		g = math.Max(g, norm(g0))
		if s >= estimateDirections {
			continue
		}
		var un float64
		for i := range u {
			u[i] = r.NormFloat64()
			un += u[i] * u[i]
		}
		un = math.Sqrt(un)
		for i := range moved {
			moved[i] = theta[i] + T(delta*u[i]/un)
		}
		if _, _, err := e.Gradient(g1, moved, data, idx, 0, mean); err != nil {
			return math.NaN(), math.NaN()
		}
		for i := range g1 {
			g1[i] -= g0[i]
		}
		beta = math.Max(beta, norm(g1)/delta)
	}
	return g, beta
}

func norm[T batch.Float](x []T) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}
