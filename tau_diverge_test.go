package cvar

import (
	"errors"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestTauDivergence: a step size of τ so large that τ runs past the
// losses' bound is a DivergenceError naming τ, for Train and Online,
// rather than a run that returns τ = 5e300.
func TestTauDivergence(t *testing.T) {
	t.Parallel()
	x := []float64{1, 0, 0, 1, 1, 1, -1, 0, 0, -1, -1, -1}
	labels := []int32{0, 1, 1, 0, 1, 0}
	data, err := batch.NewData(x, 6, 2, nil, labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewLogistic[float64](2)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{Alg1, Alg3} {
		res, err := Train[float64](model, data, Options{Method: m, Alpha: 0.1, TauLR: 1e300, Epochs: 2, Seed: 1})
		var de *DivergenceError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "τ") {
			t.Errorf("%v with TauLR 1e300: %v (τ %v), want a DivergenceError naming τ", m, err, tauOf(res))
		}
	}
	on, err := NewOnline[float64](model, 2, 2, Options{Method: Alg1, Alpha: 0.1, TauLR: 1e300, Steps: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	var de *DivergenceError
	for i := 0; i < 6 && de == nil; i++ {
		if err := on.Observe(x[2*i:2*i+2], 0, int(labels[i])); err != nil && !errors.As(err, &de) {
			t.Fatalf("sample %d: %v", i+1, err)
		}
	}
	if de == nil {
		t.Errorf("Online with TauLR 1e300: no DivergenceError, τ %v", on.Result().Tau)
	}
}

func tauOf(r *Result[float64]) any {
	if r == nil {
		return nil
	}
	return r.Tau
}
