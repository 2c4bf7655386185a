package cvar_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// ExampleEvaluate measures a fixed logistic model, θ = (w, b) = (2, 0), on
// eight labelled points: the mean loss, the accuracy, and the tail of the
// losses at two tail fractions α.
func ExampleEvaluate() {
	x := []float64{-2, -1, -0.5, 0.5, 1, 2, -1, 1.5}
	labels := []int32{0, 0, 0, 1, 1, 1, 1, 0} // the last two points are on the wrong side
	data, err := batch.NewData(x, 8, 1, nil, labels, 2)
	if err != nil {
		panic(err)
	}
	model, err := batch.NewLogistic[float64](1)
	if err != nil {
		panic(err)
	}
	theta := []float64{2, 0}

	m, err := cvar.Evaluate(model, theta, data, 0.25, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("n = %d, mean loss %.3f, accuracy %.3f\n", m.N, m.MeanLoss, m.Accuracy)
	// The two misclassified points' losses, log(1 + e³) and log(1 + e²),
	// are the worst quarter; VaR is the next loss down.
	for _, t := range m.Tails {
		fmt.Printf("α = %.2f: CVaR %.3f, VaR %.3f\n", t.Alpha, t.CVaR, t.VaR)
	}
	// Output:
	// n = 8, mean loss 0.762, accuracy 0.750
	// α = 0.25: CVaR 2.588, VaR 0.313
	// α = 0.50: CVaR 1.451, VaR 0.127
}
