package cvar_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// ExamplePrepare splits data in memory 2/3–1/3, standardises it with the
// training part's means and deviations, trains on the training part and
// measures the tail on the validation part. The Preprocessing goes into
// the model file, for new data.
func ExamplePrepare() {
	full, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 1500, D: 6, Seed: 1})
	if err != nil {
		panic(err)
	}
	p, err := cvar.Prepare(full, cvar.PrepareOptions{Scaling: cvar.ScaleZScore, Seed: 1})
	if err != nil {
		panic(err)
	}
	train, err := p.Train.Batch()
	if err != nil {
		panic(err)
	}
	val, err := p.Val.Batch()
	if err != nil {
		panic(err)
	}
	model, err := batch.NewLogistic[float64](full.D)
	if err != nil {
		panic(err)
	}
	res, err := cvar.Train(model, train, cvar.Options{Method: cvar.Alg3, Alpha: 0.1, Epochs: 5, Seed: 1})
	if err != nil {
		panic(err)
	}
	m, err := cvar.Evaluate(model, res.Theta, val, 0.1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d training rows, %d validation rows, %d means fitted\n", p.Train.N, p.Val.N, len(p.Preprocessing.Mean))
	fmt.Printf("validation accuracy above 0.8: %v\n", m.Accuracy > 0.8)
	// Output:
	// 1000 training rows, 500 validation rows, 6 means fitted
	// validation accuracy above 0.8: true
}
