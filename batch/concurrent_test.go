package batch

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// finishes runs f on a goroutine and fails the test unless it returns
// within limit: a deadlock fails the test instead of hanging it.
func finishes(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v: deadlock", what, limit)
	}
}

// TestEngineConcurrentUse shares one Engine among 8 goroutines calling
// Losses, Scores and Gradient at once: each call returns ErrConcurrentUse
// or the result a lone goroutine gets, never another number, and none
// hangs.
func TestEngineConcurrentUse(t *testing.T) {
	const goroutines = 8
	calls := 200
	if testing.Short() {
		calls = 50
	}
	data := testData[float64](t, 3000, 5, 2, 4) // 3 whole-data chunks
	model := must(NewLogistic[float64](5))
	e := must(NewEngine[float64](model, 4))
	defer e.Close()
	theta := []float64{0.3, -0.2, 0.1, 0.5, -0.4, 0.05}
	wantLoss := make([]float64, data.N)
	wantScore := make([]float64, data.N)
	wantGrad := make([]float64, len(theta))
	if err := e.Losses(wantLoss, theta, data); err != nil {
		t.Fatal(err)
	}
	if err := e.Scores(wantScore, theta, data); err != nil {
		t.Fatal(err)
	}
	wt := &Weighting{Objective: Mean}
	if _, _, err := e.Gradient(wantGrad, theta, data, nil, 1000, wt); err != nil {
		t.Fatal(err)
	}
	var ok, refused, wrong atomic.Int64
	var other atomic.Value
	finishes(t, 2*time.Minute, "8 goroutines sharing an Engine", func() {
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dst := make([]float64, data.N)
				g2 := make([]float64, len(theta))
				for i := range calls {
					var err error
					var got, want []float64
					switch (g + i) % 3 {
					case 0:
						err, got, want = e.Losses(dst, theta, data), dst, wantLoss
					case 1:
						err, got, want = e.Scores(dst, theta, data), dst, wantScore
					default:
						_, _, err = e.Gradient(g2, theta, data, nil, 1000, wt)
						got, want = g2, wantGrad
					}
					switch {
					case errors.Is(err, ErrConcurrentUse):
						refused.Add(1)
					case err != nil:
						other.Store(err)
					case !slices.Equal(got, want):
						wrong.Add(1)
					default:
						ok.Add(1)
					}
				}
			}()
		}
		wg.Wait()
	})
	if err := other.Load(); err != nil {
		t.Fatalf("a call failed with %v, want nil or ErrConcurrentUse", err)
	}
	if wrong.Load() > 0 {
		t.Errorf("%d calls returned a result that differs from a lone goroutine's", wrong.Load())
	}
	if ok.Load() == 0 {
		t.Errorf("no call of %d succeeded", goroutines*calls)
	}
	t.Logf("%d calls succeeded, %d refused", ok.Load(), refused.Load())
}

// TestEngineCallbackCalls calls the Engine and Close from gradientThen's
// then: the inner call returns ErrConcurrentUse, Close returns at once,
// the running call completes, and its workers have exited after it.
func TestEngineCallbackCalls(t *testing.T) {
	data := testData[float64](t, 2000, 5, 2, 5)
	model := must(NewLogistic[float64](5))
	theta := make([]float64, model.NumParams())
	g := make([]float64, len(theta))
	wt := &Weighting{Objective: Mean}
	base := runtime.NumGoroutine()
	e := must(NewEngine[float64](model, 3))
	var inner atomic.Value
	finishes(t, time.Minute, "calls of the Engine from then", func() {
		_, _, err := e.gradientThen(g, theta, data, nil, 2000, wt, func(lo, hi int) {
			_, err := e.LossesOf(theta, data, nil, 10)
			inner.Store(err)
			e.Close()
		})
		if err != nil {
			t.Errorf("the outer call: %v", err)
		}
	})
	if err, _ := inner.Load().(error); !errors.Is(err, ErrConcurrentUse) {
		t.Errorf("a call from then returned %v, want ErrConcurrentUse", err)
	}
	if _, _, err := e.Gradient(g, theta, data, nil, 10, wt); err == nil || errors.Is(err, ErrConcurrentUse) {
		t.Errorf("a call after Close returned %v, want the engine's closed error", err)
	}
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > base; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > base {
		t.Errorf("%d goroutines after Close from then, %d before the engine", n, base)
	}
}

// TestSamplerConcurrentUse draws from one Sampler on 8 goroutines at once:
// each Next is one whole draw of the sampler's sequence, so afterwards the
// sampler is where a lone goroutine's would be after as many draws.
func TestSamplerConcurrentUse(t *testing.T) {
	t.Parallel()
	const goroutines, each = 8, 300
	for _, mode := range []Sampling{WithReplacement, Shuffled, InOrder} {
		shared := must(NewSampler(1000, 48, mode, 3))
		lone := must(NewSampler(1000, 48, mode, 3))
		var rows atomic.Int64
		finishes(t, time.Minute, "8 goroutines sharing a Sampler", func() {
			var wg sync.WaitGroup
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range each {
						rows.Add(int64(len(shared.Next())))
					}
				}()
			}
			wg.Wait()
		})
		var want int64
		for range goroutines * each {
			want += int64(len(lone.Next()))
		}
		if rows.Load() != want {
			t.Errorf("%v: the shared draws held %d rows, a lone goroutine's %d", mode, rows.Load(), want)
		}
		if got, next := shared.Next(), lone.Next(); !slices.Equal(got, next) {
			t.Errorf("%v: after the shared draws Next gives %v, a lone sampler %v", mode, got[:4], next[:4])
		}
	}
}
