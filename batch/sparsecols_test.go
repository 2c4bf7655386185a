package batch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGradientSparseEmptyChunk runs GradientSparse in float32 for softmax
// (3 classes) on rows of which a whole chunk has no non-zeros: the bits of
// Gradient on 1 and 2 threads.
func TestGradientSparseEmptyChunk(t *testing.T) {
	t.Parallel()
	const n, d, k = 64, 30, 3
	rng := rand.New(rand.NewPCG(3, 4))
	indptr := []int64{0}
	var cols []uint32
	var vals []float32
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		if i < 16 || i >= 32 {
			for range 1 + rng.IntN(5) {
				cols, vals = append(cols, uint32(rng.IntN(d))), append(vals, float32(rng.NormFloat64()))
			}
		}
		indptr = append(indptr, int64(len(cols)))
		labels[i] = int32(rng.IntN(k))
	}
	data, err := NewSparseData(indptr, cols, vals, n, d, nil, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	model := must(NewSoftmax[float32](d, k))
	theta := make([]float32, model.NumParams())
	for i := range theta {
		theta[i] = float32(0.3 * rng.NormFloat64())
	}
	wt := &Weighting{Objective: Softplus, Alpha: 0.3, Tau: 0.5, Eps: 0.1}
	for _, threads := range []int{1, 2} {
		e, err := newEngineWith(model, threads, engineOptions{chunkRows: 16, allThreads: true, sparseAlways: true}) // the workers on small data
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, len(theta))
		if _, _, err := e.Gradient(want, theta, data, nil, n, wt); err != nil {
			t.Fatal(err)
		}
		_, _, coords, grad, err := e.GradientSparse(theta, data, nil, n, wt)
		if err != nil {
			t.Fatal(err)
		}
		if len(coords) == 0 || len(grad) != len(coords) {
			t.Fatalf("%d threads: %d coordinates, %d gradient entries", threads, len(coords), len(grad))
		}
		for u, i := range coords {
			if grad[u] != want[i] {
				t.Fatalf("%d threads: g[%d] = %v, Gradient %v", threads, i, grad[u], want[i])
			}
		}
		e.Close()
	}
}

// TestGradientSparseNoNonZeros runs GradientSparse on a minibatch of rows
// without non-zeros: only the biases are touched, with Gradient's values.
func TestGradientSparseNoNonZeros(t *testing.T) {
	t.Parallel()
	const n, d, k = 40, 30, 3
	indptr := make([]int64, n+1)
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(i % k)
	}
	data, err := NewSparseData(indptr, nil, []float64{}, n, d, nil, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	theta[k*d], theta[k*d+1] = 0.5, -0.25
	e := must(NewEngine(Model[float64](model), 1))
	defer e.Close()
	wt := &Weighting{Objective: Mean}
	want := make([]float64, len(theta))
	if _, _, err := e.Gradient(want, theta, data, nil, n, wt); err != nil {
		t.Fatal(err)
	}
	_, _, coords, grad, err := e.GradientSparse(theta, data, nil, n, wt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(coords, []int{k * d, k*d + 1, k*d + 2}) || len(grad) != k {
		t.Fatalf("coords %v, grad %v: want the %d biases", coords, grad, k)
	}
	for u, i := range coords {
		if grad[u] != want[i] || want[i] == 0 {
			t.Fatalf("bias %d: %v, Gradient %v", u, grad[u], want[i])
		}
	}
}
