package cvar

import (
	"math/rand/v2"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestFoldedUpdate checks that Train's update folded into the engine's
// pass over the gradient (the running average, the weight decay and
// θ −= η·g on each block of coordinates) gives the bits of the serial
// update, with the average and the last iterate as output, on 1 and 2
// threads, in float32 and float64, for a model of several blocks.
func TestFoldedUpdate(t *testing.T) {
	t.Parallel()
	testFoldedUpdate[float32](t)
	testFoldedUpdate[float64](t)
}

func testFoldedUpdate[T batch.Float](t *testing.T) {
	const n, d, k = 600, 250, 10 // 2510 parameters: two blocks, the last short
	r := rand.New(rand.NewPCG(4, 5))
	x := make([]T, n*d)
	for i := range x {
		x[i] = T(r.Float64())
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(r.IntN(k))
	}
	data := must(batch.NewData(x, n, d, nil, labels, k))
	// Softmax's blocks are the reduction's, of 2048 coordinates; the MLP's
	// first layer is updated by a unit's weights over blocks of columns
	// (the last short).
	for _, model := range []batch.Model[T]{must(batch.NewSoftmax[T](d, k)), must(batch.NewMLP[T](d, 5, k))} {
		testFoldedModel(t, model, data)
	}
}

func testFoldedModel[T batch.Float](t *testing.T, model batch.Model[T], data *batch.Data[T]) {
	for _, out := range []Output{OutputAverage, OutputLast} {
		for _, threads := range []int{1, 2} {
			opt := Options{Method: Alg3, Output: out, Steps: 40, Batch: 128, LR: 0.05, Eps: 0.1, WeightDecay: 0.01, Seed: 3, Threads: threads}
			var res [2]*Result[T]
			for i, serial := range []bool{true, false} {
				opt.serialUpdate = serial
				res[i] = must(Train(model, data, opt))
			}
			for i := range res[0].Theta {
				if res[0].Theta[i] != res[1].Theta[i] {
					t.Fatalf("%s %T output %v, %d threads: θ[%d] = %v folded, %v serial", model.Name(), T(0), out, threads, i, res[1].Theta[i], res[0].Theta[i])
				}
			}
			if res[0].Tau != res[1].Tau {
				t.Fatalf("%s %T output %v, %d threads: τ %v folded, %v serial", model.Name(), T(0), out, threads, res[1].Tau, res[0].Tau)
			}
		}
	}
}
