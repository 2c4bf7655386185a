package cvar_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// ExampleTrain trains CVaR-SGD (Alg3) with the step size and smoothing of
// Theorem 3.9 on a binary problem, then measures the tail of its losses.
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
	res, err := cvar.Train(model, data, cvar.Options{
		Method: cvar.Alg3,
		Alpha:  0.1,
		Domain: cvar.Ball(5),
		Batch:  64,
		Epochs: 20,
		Seed:   1,
	})
	if err != nil {
		panic(err)
	}
	m, err := cvar.Evaluate(model, res.Theta, data, 0.1)
	if err != nil {
		panic(err)
	}
	cv, va := m.TailAt(0.1)
	fmt.Printf("step size from Theorem 3.9: %v (η = %.3f, ε = %.2f)\n", res.Params.TheoremLR, res.Params.LR, res.Params.Eps)
	fmt.Printf("accuracy %.2f, mean loss %.2f\n", m.Accuracy, m.MeanLoss)
	fmt.Printf("CVaR_0.1 %.2f, VaR_0.1 %.2f\n", cv, va)
	// Output:
	// step size from Theorem 3.9: true (η = 1.539, ε = 28.39)
	// accuracy 0.91, mean loss 0.21
	// CVaR_0.1 1.13, VaR_0.1 0.65
}
