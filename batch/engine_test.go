package batch

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/internal/engine"
)

// TestEngineCloseStopsWorkers checks the engine's lifecycle: Close right
// after the workers were started (some of them not yet running) stops every
// one of them, and a second Close is harmless. Under -race this is also the
// test of the channel hand-over between Close and the workers.
func TestEngineCloseStopsWorkers(t *testing.T) {
	data := testData[float64](t, 3000, 5, 2, 1)
	model := must(NewLogistic[float64](5))
	theta := make([]float64, model.NumParams())
	losses := make([]float64, data.N)
	base := runtime.NumGoroutine()
	for range 100 {
		e := must(NewEngine(model, 4))
		if err := e.Losses(losses, theta, data); err != nil {
			t.Fatal(err)
		}
		e.Close()
		e.Close()
	}
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > base; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > base {
		t.Errorf("%d goroutines after 100 engines were closed, %d before", n, base)
	}
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// TestReductionMatchesChunkTree checks the parallel reduction against the
// sum it stands for: each chunk's gradient computed alone, then summed
// along the tree of combine.go (written here as a recursion: the sum of
// chunks [lo, hi) is that of [lo, mid) plus that of [mid, hi), mid the
// largest power of two past lo below hi), bit for bit, for chunk counts
// of every tree shape, on a model with many blocks of coordinates (the rows
// of a chunk in increasing order), on 1–3 threads.
func TestReductionMatchesChunkTree(t *testing.T) {
	t.Parallel()
	const n, d, k, rows = 300, 1500, 10, 16
	data := testData[float64](t, n, d, k, 5)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = 0.001 * float64(i%17-8)
	}
	for _, batch := range []int{16, 32, 48, 80, 112, 250} { // 1, 2, 3, 5, 7, 16 chunks
		idx := make([]int, batch)
		for i := range idx {
			idx[i] = (i * 37) % n
		}
		var parts [][]float64
		var wk Work[float64]
		for lo := 0; lo < len(idx); lo += rows {
			hi := min(lo+rows, len(idx))
			coef := make([]float64, hi-lo)
			for i := range coef {
				coef[i] = 1 / float64(len(idx))
			}
			rows := slices.Clone(idx[lo:hi]) // a chunk's rows are visited in order
			slices.Sort(rows)
			model.Forward(&wk, theta, data, rows, hi-lo)
			part := make([]float64, len(theta))
			model.Backward(&wk, theta, data, rows, coef, part)
			parts = append(parts, part)
		}
		var sum func(lo, hi int) []float64
		sum = func(lo, hi int) []float64 {
			if hi-lo == 1 {
				return slices.Clone(parts[lo])
			}
			size := 1
			for size*2 < hi-lo {
				size *= 2
			}
			a, b := sum(lo, lo+size), sum(lo+size, hi)
			for i := range a {
				a[i] += b[i]
			}
			return a
		}
		want := sum(0, len(parts))
		for _, threads := range []int{1, 2, 3} {
			e := must(newEngineWith(model, threads, engineOptions{chunkRows: rows}))
			g := make([]float64, len(theta))
			for range 2 { // the second call reuses the chunks' buffers
				if _, _, err := e.Gradient(g, theta, data, idx, 0, &Weighting{Objective: Mean}); err != nil {
					t.Fatal(err)
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%d chunks, threads=%d: g[%d] = %v, want %v", len(parts), threads, i, g[i], want[i])
					}
				}
			}
			e.Close()
		}
	}
}

// TestChunkRowOrder checks the visit of a chunk's rows in increasing order:
// the losses come back in the call's order, and shuffling the rows within
// each chunk changes no bit of the gradient, for every objective (TopK's
// coefficients follow their rows).
func TestChunkRowOrder(t *testing.T) {
	t.Parallel()
	const n, d, k = 400, 9, 3
	data := testData[float64](t, n, d, k, 8)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = 0.05 * float64(i%11-5)
	}
	e := must(newEngineWith(model, 2, engineOptions{chunkRows: 32}))
	defer e.Close()
	idx := make([]int, 200)
	for i := range idx {
		idx[i] = (i*131 + 7) % n
	}
	shuffled := slices.Clone(idx)
	for lo := 0; lo < len(idx); lo += 32 {
		slices.Reverse(shuffled[lo:min(lo+32, len(idx))])
	}
	var wk Work[float64]
	for _, wt := range []Weighting{{Objective: Mean}, {Objective: Softplus, Alpha: 0.2, Eps: 0.1, Tau: 0.8}, {Objective: TopK, Alpha: 0.2}} {
		g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
		l1, _, err := e.Gradient(g1, theta, data, idx, 0, &wt)
		if err != nil {
			t.Fatal(err)
		}
		l1 = slices.Clone(l1)
		for i, r := range idx {
			model.Forward(&wk, theta, data, []int{r}, 1)
			if math.Abs(wk.Loss[0]-l1[i]) > 1e-12 { // a row alone may round otherwise
				t.Fatalf("%v: loss %d (row %d) = %v, want %v", wt.Objective, i, r, l1[i], wk.Loss[0])
			}
		}
		l2, _, err := e.Gradient(g2, theta, data, shuffled, 0, &wt)
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < len(idx); lo += 32 {
			hi := min(lo+32, len(idx))
			for i := lo; i < hi; i++ {
				if l2[lo+hi-1-i] != l1[i] {
					t.Fatalf("%v: shuffled loss %d = %v, want %v", wt.Objective, lo+hi-1-i, l2[lo+hi-1-i], l1[i])
				}
			}
		}
		for i := range g1 {
			if math.Float64bits(g1[i]) != math.Float64bits(g2[i]) {
				t.Fatalf("%v: g[%d] = %v with the chunks' rows shuffled, %v in order", wt.Objective, i, g2[i], g1[i])
			}
		}
	}
}

// hooked is a model that brings engine hooks, as package cvar's run does.
type hooked[T Float] struct {
	Model[T]
	h *engine.Hooks
}

func (m hooked[T]) Unhooked() Model[T]         { return m.Model }
func (m hooked[T]) EngineHooks() *engine.Hooks { return m.h }

// TestGradientThen checks the update folded into the reduction through the
// hooks of a hooked model (engine.Hooks.Then): θ −= η·g on each block gives
// θ bit for bit as the same kernels on the whole vector after a Gradient
// of the same engine with no hook set, in float32 and float64, with one
// chunk and with several, on 1 to 3 threads. The engine computes with the
// model inside, and an engine of a plain model has no hooks.
func TestGradientThen(t *testing.T) {
	t.Parallel()
	testGradientThen[float32](t)
	testGradientThen[float64](t)
}

func testGradientThen[T Float](t *testing.T) {
	const n, d, k = 300, 701, 10 // 7020 parameters: 4 blocks, the last short
	data64 := testData[float64](t, n, d, k, 6)
	x := make([]T, len(data64.X))
	for i, v := range data64.X {
		x[i] = T(v)
	}
	data := must(NewData(x, n, d, nil, data64.Labels, k))
	model := must(NewSoftmax[T](d, k))
	ops := kernelsOf[T](model)
	if plain := must(NewEngine[T](model, 1)); plain.hooks != nil {
		t.Fatal("an engine of a plain model has hooks")
	}
	for _, rows := range []int{40, 300} {
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = (i * 53) % n
		}
		for _, threads := range []int{1, 2, 3} {
			theta0 := make([]T, model.NumParams())
			for i := range theta0 {
				theta0[i] = T(0.001 * float64(i%23-11))
			}
			want, got := slices.Clone(theta0), slices.Clone(theta0)
			g1, g2 := make([]T, len(theta0)), make([]T, len(theta0))
			h := &engine.Hooks{}
			e := must(NewEngine[T](hooked[T]{model, h}, threads))
			if e.model != Model[T](model) || e.hooks != h {
				t.Fatalf("the engine computes with %T and hooks %p; want the model inside and %p", e.model, e.hooks, h)
			}
			wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.3}
			if _, _, err := e.Gradient(g1, want, data, idx, 0, &wt); err != nil {
				t.Fatal(err)
			}
			ops.Axpy(0.01, want, g1)
			ops.Axpy(-0.1, g1, want)
			h.Then = func(lo, hi int) {
				ops.Axpy(0.01, got[lo:hi], g2[lo:hi])
				ops.Axpy(-0.1, g2[lo:hi], got[lo:hi])
			}
			_, _, err := e.Gradient(g2, got, data, idx, 0, &wt)
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			for i := range want {
				if want[i] != got[i] || g1[i] != g2[i] {
					t.Fatalf("%d rows, %d threads: θ[%d] = %v folded, %v after; g %v, %v", rows, threads, i, got[i], want[i], g2[i], g1[i])
				}
			}
		}
	}
}

// TestTimingSpan checks the timing seam's span of a call's tasks: none
// after a reset, and after a call at least the tasks' work a thread and
// at most the call's wall time.
func TestTimingSpan(t *testing.T) {
	const n, d = 2048, 64
	_, two := mnistShaped(n, d)
	model := must(NewLogistic[float32](d))
	for _, threads := range []int{1, 2} {
		e := must(newEngineWith(model, threads, engineOptions{timing: true, allThreads: true}))
		theta := make([]float32, model.NumParams())
		g := make([]float32, len(theta))
		wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.5, InvL: 1}
		idx := must(NewSampler(n, 512, WithReplacement, 1)).Next()
		e.resetSpan()
		if s := e.span(); s != 0 {
			t.Fatalf("%d threads: span %v after a reset, want 0", threads, s)
		}
		t0 := time.Now()
		if _, _, err := e.Gradient(g, theta, two, idx, 0, &wt); err != nil {
			t.Fatal(err)
		}
		wall := time.Since(t0)
		var work int64
		for _, b := range e.busy {
			work += b
		}
		span := e.span()
		if span <= 0 || span > wall || int64(span)*int64(threads) < work {
			t.Errorf("%d threads: span %v, want in (0, %v] and at least the work %v a thread", threads, span, wall, time.Duration(work/int64(threads)))
		}
		e.Close()
	}
}
