package experiment_test

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/experiment"
)

// ExampleRun compares the three methods on the built-in classification
// data: each seed splits it 2/3–1/3 and standardises the features on the
// training split, and each method keeps the setting of the grid with the
// smallest validation mean loss.
func ExampleRun() {
	full, err := dataset.SyntheticClassification[float32](dataset.SynthClassOptions{N: 900, D: 8, Seed: 1})
	if err != nil {
		panic(err)
	}
	split := func(seed uint64) (*experiment.Data[float32], error) {
		train, val, err := dataset.Split(full, 0, seed)
		if err != nil {
			return nil, err
		}
		st, err := dataset.FitStandardizer(train)
		if err != nil {
			return nil, err
		}
		for _, ds := range []*dataset.Dataset[float32]{train, val} {
			if err := dataset.StandardizeInPlace(st, ds); err != nil {
				return nil, err
			}
		}
		d := &experiment.Data[float32]{}
		if d.Train, err = train.Batch(); err != nil {
			return nil, err
		}
		if d.Val, err = val.Batch(); err != nil {
			return nil, err
		}
		d.Fit = d.Train
		d.Model, err = batch.NewLogistic[float32](train.D)
		return d, err
	}
	cfg := experiment.Options{
		Alphas: []float64{0.1}, LRs: []float64{0.01, 0.05}, WeightDecays: []float64{0, 1e-3},
		Seeds: 2, Epochs: 5, Batch: 64,
	}
	res, err := experiment.Run("synthetic", cfg, split)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Runs, "training runs")
	for _, r := range res.Rows {
		fmt.Printf("%-17s selected on %d seeds\n", r.Title, len(r.Selected))
	}
	// Output:
	// 24 training runs
	// Vanilla-SGD       selected on 2 seeds
	// CVaR-on-Minibatch selected on 2 seeds
	// CVaR-SGD          selected on 2 seeds
}
