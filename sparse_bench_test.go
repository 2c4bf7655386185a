package cvar

import (
	"math/rand/v2"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// BenchmarkSparseTrain times 1000 steps of logistic Alg3 (batch 128, one
// thread, f32) on a synthetic text-like CSR set of 20 000 rows × 2²⁰
// features, 40 non-zeros a row: "dense-step" runs the step that touches all
// d weights (a ball too large to bind forces it: the step of before the
// sparse step), "sparse-step" the step on the touched coordinates only;
// "-decay" adds weight decay, lazy in the sparse step.
func BenchmarkSparseTrain(b *testing.B) {
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
		if cols[i*nnz]%2 == 0 {
			labels[i] = 1
		}
	}
	data, err := batch.NewSparseData(indptr, cols, vals, n, d, nil, labels, 2)
	if err != nil {
		b.Fatal(err)
	}
	model, err := batch.NewLogistic[float32](d)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		dom   Domain
		decay float64
	}{
		{"dense-step", Ball(1e9), 0},
		{"sparse-step", Domain{}, 0},
		{"dense-step-decay", Ball(1e9), 1e-4},
		{"sparse-step-decay", Domain{}, 1e-4},
	} {
		b.Run(c.name, func(b *testing.B) {
			opt := Options{Method: Alg3, Alpha: 0.1, Eps: 0.05, Steps: 1000, Batch: 128, LR: 0.5, Seed: 1, Threads: 1, Domain: c.dom, WeightDecay: c.decay}
			for b.Loop() {
				if _, err := Train(model, data, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
