package cvar

import (
	"math/rand/v2"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// BenchmarkSparseTrain times 1000 steps of logistic Alg3 (batch 128, one
// thread, f32) on a synthetic text-like CSR set of 20 000 rows × 2²⁰
// features, 40 non-zeros a row: "dense-step" runs the step that touches all
// d weights (the step dense data takes), "sparse-step" the lazy
// step on the touched coordinates only (lazy.go); for the last iterate and
// the average, with and without weight decay, and a ball that binds; and
// "compact-step-last" the last iterate through the compact minibatch
// (GradientSparse) where "sparse-step-last" runs in θ itself
// (Engine.StepSparse).
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
		out   Output
		dom   Domain
		decay float64
	}{
		{"last", OutputLast, Domain{}, 0},
		{"last-decay", OutputLast, Domain{}, 1e-4},
		{"average", OutputAverage, Domain{}, 0},
		{"average-decay", OutputAverage, Domain{}, 1e-4},
		{"ball", OutputLast, Ball(0.5), 0},
	} {
		for _, step := range []string{"dense", "sparse", "compact"} {
			if step == "compact" && c.name != "last" {
				continue
			}
			b.Run(step+"-step-"+c.name, func(b *testing.B) {
				opt := Options{Method: Alg3, Alpha: 0.1, Eps: 0.05, Steps: 1000, Batch: 128, LR: 0.5, Seed: 1, Threads: 1,
					Output: c.out, Domain: c.dom, WeightDecay: c.decay, denseStep: step == "dense", compactStep: step == "compact"}
				for b.Loop() {
					if _, err := Train(model, data, opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
