package batch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// mnistShaped returns n rows of d float32 in [0, 1) with 10 classes, and
// the same rows as a binary problem (class ≥ 5 against the rest).
func mnistShaped(n, d int) (ten, two *Data[float32]) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = r.Float32()
	}
	lab := make([]int32, n)
	bin := make([]int32, n)
	for i := range lab {
		lab[i] = int32(r.IntN(10))
		if lab[i] >= 5 {
			bin[i] = 1
		}
	}
	return must(NewData(x, n, d, nil, lab, 10)), must(NewData(x, n, d, nil, bin, 2))
}

// suiteModel is one of the epoch suite's models with its data.
type suiteModel struct {
	name  string
	model Model[float32]
	data  *Data[float32]
}

// suiteModels returns the epoch suite's models (logistic regression,
// softmax over 10 classes, the MLP) on MNIST-shaped data of n rows and d
// columns (mnistShaped).
func suiteModels(n, d int) []suiteModel {
	ten, two := mnistShaped(n, d)
	return []suiteModel{
		{"logistic", must(NewLogistic[float32](d)), two},
		{"softmax", must(NewSoftmax[float32](d, 10)), ten},
		{"mlp", must(NewMLP[float32](d, DefaultHidden, 10)), ten},
	}
}

// benchChunkRows is the chunk size of the benchmarks, from $CVAR_CHUNK_ROWS
// (0, the engine's default, when unset).
func benchChunkRows() int {
	n, _ := strconv.Atoi(os.Getenv("CVAR_CHUNK_ROWS"))
	return n
}

// BenchmarkStepSerial times training steps of the epoch suite's shape (MNIST
// 60000×784 in float32, minibatches of 512 drawn with replacement, the
// smoothed CVaR weights of Alg 3) and splits each step into the chunk work
// (forward, weights and backward of the chunks, summed over the threads)
// and the serial rest: wall − chunk work / threads, which holds the
// dispatch, the reduction of the chunks' gradients and the update
// θ −= η·g folded into it (gradientThen, as cvar.Train does), the running
// average of θ, ‖θ‖², and any imbalance between the threads. The rest is
// split three ways: the reduction's work a thread; the threads' idle time
// within the tasks' span (from the first task's start to the last one's
// end, less all task work a thread), where they wait for the last chunk
// or block; and the step outside that span (the sampler, the average,
// ‖θ‖², the call's checks and the wake-up of the workers).
//
//	go test ./batch -run - -bench StepSerial -benchtime 200x
//
// Metrics: ns/step (wall), chunk-ns/step (the work, summed), serial-ns/step
// and serial-% of the wall time, reduce-ns/step, idle-ns/step and
// outside-ns/step (the split of serial-ns/step), and p50-ns/step, the
// median step: on a shared VM, whose vCPUs are now and then descheduled
// for hundreds of µs (a step waits for its slowest thread), the median
// shows what the threads buy when they run.
func BenchmarkStepSerial(b *testing.B) {
	const n, d, batch = 60000, 784, 512
	models := suiteModels(n, d)
	var threads []int
	for _, t := range []int{1, 2, 4, 8, 16} {
		if t <= runtime.GOMAXPROCS(0) {
			threads = append(threads, t)
		}
	}
	for _, mc := range models {
		for _, th := range threads {
			b.Run(fmt.Sprintf("%s/threads=%d", mc.name, th), func(b *testing.B) {
				model := mc.model
				theta := make([]float32, model.NumParams())
				model.InitParams(theta, 1)
				avg := append([]float32(nil), theta...)
				g := make([]float32, len(theta))
				ops := kernelsOf(model)
				e := must(newEngineWith(model, th, engineOptions{chunkRows: benchChunkRows(), timing: true}))
				defer e.Close()
				sampler := must(NewSampler(n, batch, WithReplacement, 3))
				wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.5, InvL: 1}
				update := func(lo, hi int) { ops.Axpy(-0.01, g[lo:hi], theta[lo:hi]) }
				var span time.Duration // the tasks' spans, summed
				// A step as cvar.Train's: the update folded into the gradient's last pass.
				step := func(t int) {
					ops.Lerp(1/float32(t), theta, avg)
					e.resetSpan()
					if _, _, err := e.gradientThen(g, theta, mc.data, sampler.Next(), 0, &wt, update); err != nil {
						b.Fatal(err)
					}
					span += e.span()
					_ = ops.Dot(theta, theta)
				}
				for t := 1; t <= 20; t++ { // warm the buffers and the workers
					step(t)
				}
				busy0 := e.busy // the warm-up's
				span = 0
				steps := make([]time.Duration, b.N)
				b.ResetTimer()
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					ts := time.Now()
					step(21 + i)
					steps[i] = time.Since(ts)
				}
				wall := float64(time.Since(t0).Nanoseconds()) / float64(b.N)
				reportMedian(b, steps)
				var work float64
				for _, ph := range []phase{phaseStep, phaseForward, phaseBackward} {
					work += float64(e.busy[ph] - busy0[ph])
				}
				work /= float64(b.N)
				th := float64(e.Threads())
				reduce := float64(e.busy[phaseReduce]-busy0[phaseReduce]) / float64(b.N) / th
				spanned := float64(span.Nanoseconds()) / float64(b.N)
				serial := wall - work/th
				b.ReportMetric(wall, "ns/step")
				b.ReportMetric(work, "chunk-ns/step")
				b.ReportMetric(serial, "serial-ns/step")
				b.ReportMetric(100*serial/wall, "serial-%")
				b.ReportMetric(reduce, "reduce-ns/step")
				b.ReportMetric(spanned-work/th-reduce, "idle-ns/step")
				b.ReportMetric(wall-spanned, "outside-ns/step")
			})
		}
	}
}

// BenchmarkUpdate times the serial update of a training step on the
// parameters of the epoch suite's models (float32, in cache after the
// gradient): θ −= η·g, the running average of θ and ‖θ‖², the part of a
// step that cvar.Train runs on one thread after Engine.Gradient.
func BenchmarkUpdate(b *testing.B) {
	for _, p := range []struct {
		name string
		n    int
	}{{"logistic", 785}, {"softmax", 7850}, {"mlp", 79510}} {
		b.Run(p.name, func(b *testing.B) {
			ops := kernelsOf[float32](must(NewLogistic[float32](1)))
			theta, g, avg := make([]float32, p.n), make([]float32, p.n), make([]float32, p.n)
			for i := range g {
				g[i] = float32(i%7) * 1e-3
			}
			for i := 0; i < b.N; i++ {
				ops.Lerp(1/float32(i+1), theta, avg)
				ops.Axpy(-0.01, g, theta)
				_ = ops.Dot(theta, theta)
			}
		})
	}
}
