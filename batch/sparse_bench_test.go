package batch

import (
	"math/rand/v2"
	"testing"
)

// benchSparse is a synthetic text-like CSR set: 20 000 rows × 2²⁰
// features, 40 non-zeros a row, labels 0/1, f32.
func benchSparse(b *testing.B) *Data[float32] {
	b.Helper()
	const n, d, nnz = 20000, 1 << 20, 40
	rng := rand.New(rand.NewPCG(1, 2))
	indptr := make([]int64, n+1)
	cols := make([]uint32, n*nnz)
	vals := make([]float32, n*nnz)
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		for j := 0; j < nnz; j++ {
			cols[i*nnz+j] = uint32(rng.IntN(d))
			vals[i*nnz+j] = 1 / float32(nnz)
		}
		indptr[i+1] = int64((i + 1) * nnz)
		labels[i] = int32(rng.IntN(2))
	}
	data, err := NewSparseData(indptr, cols, vals, n, d, nil, labels, 2)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkSparseGradient compares, on one thread, the minibatch gradient
// (128 rows, Softplus weighting) of logistic regression on benchSparse
// written densely (Gradient: every chunk clears and adds a d-long gradient)
// and sparsely (GradientSparse: only the touched coordinates).
func BenchmarkSparseGradient(b *testing.B) {
	data := benchSparse(b)
	model := must(NewLogistic[float32](data.D))
	theta := make([]float32, model.NumParams())
	g := make([]float32, model.NumParams())
	wt := &Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.05, InvL: 1, Tau: 0.5}
	rng := rand.New(rand.NewPCG(3, 4))
	idx := make([]int, 128)
	next := func() {
		for i := range idx {
			idx[i] = rng.IntN(data.N)
		}
	}
	for _, mode := range []string{"dense", "sparse"} {
		b.Run(mode, func(b *testing.B) {
			e := must(NewEngine(model, 1))
			defer e.Close()
			for b.Loop() {
				next()
				var err error
				if mode == "dense" {
					_, _, err = e.Gradient(g, theta, data, idx, 0, wt)
				} else {
					_, _, _, _, err = e.GradientSparse(theta, data, idx, 0, wt)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
