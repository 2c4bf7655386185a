package cvar_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// ExampleObjective trains on the built-in data, whose rare group's
// spurious feature reverses, with plain SGD, with a blend of the mean and
// CVaR_0.1, and with Group DRO over the data's groups, and measures each
// group's accuracy.
func ExampleObjective() {
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 4000, Seed: 1, MarkGroups: true})
	if err != nil {
		panic(err)
	}
	data, err := ds.Batch()
	if err != nil {
		panic(err)
	}
	model, err := batch.NewLogistic[float64](ds.D)
	if err != nil {
		panic(err)
	}
	ev, err := cvar.NewEvaluator(model, 0)
	if err != nil {
		panic(err)
	}
	defer ev.Close()
	for _, opt := range []cvar.Options{
		{Method: cvar.Vanilla},
		{Method: cvar.Alg3, Objective: cvar.ObjectiveBlend},
		{Method: cvar.Vanilla, Objective: cvar.ObjectiveGroup, Groups: ds.Groups},
	} {
		opt.Epochs, opt.Seed = 30, 1
		res, err := cvar.Train(model, data, opt)
		if err != nil {
			panic(err)
		}
		ge, err := ev.Groups(res.Theta, data, ds.Groups, ds.GroupNames, cvar.GroupOptions{}, 0.1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-7v %-7v", opt.Method, res.Params.Risk)
		for _, g := range ge.Groups {
			fmt.Printf("  %s %.2f", g.Name, g.Accuracy.Value)
		}
		fmt.Println()
	}
	// Output:
	// vanilla default  majority 0.99  minority 0.37
	// alg3    blend    majority 0.98  minority 0.83
	// vanilla group    majority 0.95  minority 0.95
}
