package batch

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// BenchmarkGatherCost times one-thread gradient steps of the epoch suite's
// shape (MNIST 60000×784 in float32, minibatches of 512, Alg 3's weights)
// on rows drawn with replacement ("sampled"), on the same draws read once
// just before the step, untimed ("cached": what a perfect overlap of the
// gathering with the step before would leave), and on 512 rows that lie
// next to each other in memory ("contiguous"). The sampled step over the
// cached one is what the gathering of a minibatch's rows still costs
// beside its compute, the most that overlapping it (a prefetch of the
// next minibatch, or a worker packing it) could save. "pack" times a
// packing worker's own job instead: copying the sampled rows into one
// contiguous buffer. With one core packing, T threads step no faster than
// the slower of the pack and the contiguous step on T−1 threads. Run it
// with CVAR_KERNEL=avx2 for the AVX2 kernels.
//
//	go test ./batch -run - -bench GatherCost -benchtime 300x
//
// Metric: p50-ns/step, the median step (a shared VM's vCPUs are now and
// then descheduled for hundreds of µs).
func BenchmarkGatherCost(b *testing.B) {
	const n, d, batch = 60000, 784, 512
	models := suiteModels(n, d)
	for _, mc := range models {
		for _, rows := range []string{"sampled", "cached", "contiguous"} {
			b.Run(mc.name+"/"+rows, func(b *testing.B) {
				theta := make([]float32, mc.model.NumParams())
				mc.model.InitParams(theta, 1)
				g := make([]float32, len(theta))
				e := must(NewEngine(mc.model, 1))
				defer e.Close()
				sampler := must(NewSampler(n, batch, WithReplacement, 3))
				wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.5, InvL: 1}
				idx := make([]int, batch)
				const warm = 10
				steps := make([]time.Duration, b.N)
				b.ResetTimer()
				for i := range b.N + warm {
					s := sampler.Next()
					if rows == "contiguous" { // a window that starts at the first draw
						for j := range idx {
							idx[j] = s[0]%(n-batch) + j
						}
					} else {
						copy(idx, s)
					}
					if rows == "cached" && math.IsNaN(float64(readRows(mc.data, idx))) {
						b.Fatal("NaN in the features")
					}
					t0 := time.Now()
					if _, _, err := e.Gradient(g, theta, mc.data, idx, 0, &wt); err != nil {
						b.Fatal(err)
					}
					if i >= warm {
						steps[i-warm] = time.Since(t0)
					}
				}
				reportMedian(b, steps)
			})
		}
	}
	b.Run("pack", func(b *testing.B) {
		data := models[0].data
		packed := make([]float32, batch*data.D)
		sampler := must(NewSampler(n, batch, WithReplacement, 3))
		steps := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := range b.N {
			idx := sampler.Next()
			t0 := time.Now()
			packRows(packed, data, idx)
			steps[i] = time.Since(t0)
		}
		reportMedian(b, steps)
	})
}

// reportMedian reports the median of steps as p50-ns/step.
func reportMedian(b *testing.B, steps []time.Duration) {
	slices.Sort(steps)
	b.ReportMetric(float64(steps[len(steps)/2].Nanoseconds()), "p50-ns/step")
}

// packRows copies the rows idx of dense data, one after another, into dst.
func packRows(dst []float32, data *Data[float32], idx []int) {
	for j, r := range idx {
		copy(dst[j*data.D:(j+1)*data.D], data.X[r*data.Stride:r*data.Stride+data.D])
	}
}

// readRows reads the rows idx of dense data (through an assembly kernel,
// which the compiler cannot drop) and returns their sum of squares.
func readRows(data *Data[float32], idx []int) float32 {
	ops := kernel.For[float32]()
	var sum float32
	for _, r := range idx {
		row := data.X[r*data.Stride : r*data.Stride+data.D]
		sum += ops.Dot(row, row)
	}
	return sum
}
