package cvar

import (
	"runtime"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/batch"
)

// settledGoroutines waits briefly for goroutines that are on their way out
// and returns the count once it is at most want (or the last count seen).
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestNoGoroutinesLeft checks that Train, Losses, Predictions and Evaluate
// leave no goroutine behind, however many threads they were given: a
// service that calls them in a loop must not grow.
func TestNoGoroutinesLeft(t *testing.T) {
	data := subgroupData(t, 3000, 4, 3) // 3 whole-data chunks, 6 minibatch chunks
	model := must(batch.NewLogistic[float64](4))
	theta := make([]float64, model.NumParams())
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	base := settledGoroutines(0)
	for i := 0; i < rounds; i++ {
		if _, err := lossesOf(model, theta, data, 8); err != nil {
			t.Fatal(err)
		}
		if _, err := predictionsOf(model, theta, data, 8); err != nil {
			t.Fatal(err)
		}
		if _, err := Evaluate(model, theta, data, 0.1); err != nil {
			t.Fatal(err)
		}
		if i%20 == 0 {
			if _, err := Train(model, data, Options{Method: Vanilla, Steps: 2, Batch: 400, Threads: 8}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := settledGoroutines(base); n > base {
		t.Errorf("%d goroutines after %d rounds, %d before", n, rounds, base)
	}
}
