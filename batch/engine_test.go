package batch

import (
	"math"
	"runtime"
	"testing"
	"time"
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

// TestReductionMatchesChunkOrder checks the parallel reduction against the
// sum it replaces: each chunk's gradient computed alone, added to the first
// in chunk order, bit for bit, on a model with many blocks of coordinates.
func TestReductionMatchesChunkOrder(t *testing.T) {
	const n, d, k, rows = 300, 1500, 10, 64
	data := testData[float64](t, n, d, k, 5)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = 0.001 * float64(i%17-8)
	}
	idx := make([]int, 250)
	for i := range idx {
		idx[i] = (i * 37) % n
	}
	want := make([]float64, len(theta))
	part := make([]float64, len(theta))
	var wk Work[float64]
	for lo := 0; lo < len(idx); lo += rows {
		hi := min(lo+rows, len(idx))
		coef := make([]float64, hi-lo)
		for i := range coef {
			coef[i] = 1 / float64(len(idx))
		}
		model.Forward(&wk, theta, data, idx[lo:hi], hi-lo)
		if lo == 0 {
			model.Backward(&wk, theta, data, idx[lo:hi], coef, want)
			continue
		}
		clear(part)
		model.Backward(&wk, theta, data, idx[lo:hi], coef, part)
		for i, v := range part {
			want[i] += v
		}
	}
	for _, threads := range []int{1, 2, 3} {
		e := must(NewEngineChunks(model, threads, rows))
		g := make([]float64, len(theta))
		for range 2 { // the second call reuses the chunks' buffers
			if _, _, err := e.Gradient(g, theta, data, idx, 0, &Weighting{Objective: Mean}); err != nil {
				t.Fatal(err)
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(want[i]) {
					t.Fatalf("threads=%d: g[%d] = %v, want %v", threads, i, g[i], want[i])
				}
			}
		}
		e.Close()
	}
}
