package cvar_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// ExampleTune picks CVaR-SGD's step size, weight decay and smoothing by
// validation CVaR_0.1 on a problem with a rare subgroup.
func ExampleTune() {
	split := func(n int, seed uint64) *batch.Data[float64] {
		const d = 4
		rng := rand.New(rand.NewPCG(seed, 3))
		x := make([]float64, n*d)
		labels := make([]int32, n)
		for i := 0; i < n; i++ {
			row := x[i*d : (i+1)*d]
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			score := row[0] + 0.3*rng.NormFloat64()
			if rng.Float64() < 0.1 { // the rare subgroup: its own rule
				row[3] += 3
				score = row[1]
			}
			if score > 0 {
				labels[i] = 1
			}
		}
		data, err := batch.NewData(x, n, d, nil, labels, 2)
		if err != nil {
			panic(err)
		}
		return data
	}
	train, val := split(3000, 1), split(1500, 2)
	model, err := batch.NewLogistic[float64](4)
	if err != nil {
		panic(err)
	}
	tuned, err := cvar.Tune(model, train, val, cvar.Options{Method: cvar.Alg3, Alpha: 0.1, Epochs: 20, Seed: 1},
		cvar.TuneOptions{Grid: cvar.Grid{LR: []float64{0.01, 0.1}, WeightDecay: []float64{0}}})
	if err != nil {
		panic(err)
	}
	best := tuned.Trials[tuned.Best]
	c, _ := best.Val.TailAt(0.1)
	fmt.Printf("%d settings tried; picked η = %g, ε = %g × the initial VaR_0.1: validation CVaR_0.1 %.2f\n",
		len(tuned.Trials), best.LR, best.EpsFraction, c)
	// Output:
	// 6 settings tried; picked η = 0.01, ε = 0.01 × the initial VaR_0.1: validation CVaR_0.1 0.72
}
