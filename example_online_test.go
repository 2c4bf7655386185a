package cvar_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// ExampleOnline trains binary logistic regression with Alg1 on a stream,
// one sample at a time, without holding the stream in memory, then
// measures the averaged model on fresh samples of the same source.
func ExampleOnline() {
	const d, n = 2, 5000
	rng := rand.New(rand.NewPCG(7, 8))
	sample := func(x []float64) int {
		x[0], x[1] = rng.NormFloat64(), rng.NormFloat64()
		if x[0]-x[1]+0.3*rng.NormFloat64() > 0 {
			return 1
		}
		return 0
	}

	model, err := batch.NewLogistic[float64](d)
	if err != nil {
		panic(err)
	}
	on, err := cvar.NewOnline(model, d, 2, cvar.Options{Method: cvar.Alg1, Alpha: 0.1, Steps: n, Seed: 1})
	if err != nil {
		panic(err)
	}
	defer on.Close()
	x := make([]float64, d)
	for range n {
		label := sample(x)
		if err := on.Observe(x, 0, label); err != nil {
			panic(err)
		}
	}
	res := on.Result()

	// Held-out samples from the same source.
	const m = 2000
	xs := make([]float64, m*d)
	labels := make([]int32, m)
	for i := range m {
		labels[i] = int32(sample(xs[i*d : (i+1)*d]))
	}
	test, err := batch.NewData(xs, m, d, nil, labels, 2)
	if err != nil {
		panic(err)
	}
	met, err := cvar.Evaluate(model, res.Theta, test, 0.1)
	if err != nil {
		panic(err)
	}
	cv, _ := met.TailAt(0.1)
	fmt.Printf("%d samples seen, η = %g (%s)\n", on.Seen(), res.Params.LR, res.Params.LRFrom)
	fmt.Printf("w₀ > 0 > w₁: %v\n", res.Theta[0] > 0 && res.Theta[1] < 0)
	fmt.Printf("held out: accuracy %.2f, CVaR_0.1 %.2f\n", met.Accuracy, cv)
	// Output:
	// 5000 samples seen, η = 0.001 (default for one sample a step)
	// w₀ > 0 > w₁: true
	// held out: accuracy 0.93, CVaR_0.1 0.70
}
