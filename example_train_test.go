package cvar_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// ExampleTrain trains CVaR-SGD (Alg3) with its practical defaults and,
// for comparison, Vanilla-SGD on the mean loss, then measures the tail of
// both models' losses.
func ExampleTrain() {
	const n, d = 4000, 3
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*d)
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		if row[0]+0.5*row[1]+0.3*rng.NormFloat64() > 0 {
			labels[i] = 1
		}
	}
	data, err := batch.NewData(x, n, d, nil, labels, 2)
	if err != nil {
		panic(err)
	}
	model, err := batch.NewLogistic[float64](d)
	if err != nil {
		panic(err)
	}
	for _, method := range []cvar.Method{cvar.Alg3, cvar.Vanilla} {
		res, err := cvar.Train(model, data, cvar.Options{Method: method, Alpha: 0.1, Batch: 64, Epochs: 20, Seed: 1})
		if err != nil {
			panic(err)
		}
		m, err := cvar.Evaluate(model, res.Theta, data, 0.1)
		if err != nil {
			panic(err)
		}
		cv, _ := m.TailAt(0.1)
		fmt.Printf("%-7v η = %.3f (%s): CVaR_0.1 %.2f, accuracy %.2f, mean loss %.2f\n", method, res.Params.LR, res.Params.LRFrom, cv, m.Accuracy, m.MeanLoss)
	}
	// Output:
	// alg3    η = 0.010 (default): CVaR_0.1 0.72, accuracy 0.91, mean loss 0.56
	// vanilla η = 0.010 (default): CVaR_0.1 0.87, accuracy 0.91, mean loss 0.30
}
