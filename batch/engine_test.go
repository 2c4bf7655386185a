package batch

import (
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
