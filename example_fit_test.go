package cvar_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
)

// Two workers fit their parts of the rows; the parts travel as bytes and
// merge, in the order of the parts, into the fit of all the rows.
func ExampleFit() {
	rows := [][]float64{{1, 10}, {2, 20}, {3, 30}, {4, 40}}
	labels := []float64{0, 1, 0, 1}
	parts := make([][]byte, 2)
	for p := range parts {
		f := cvar.NewFit[float64](2)
		for i := 2 * p; i < 2*p+2; i++ {
			if err := f.Add(rows[i], labels[i]); err != nil {
				panic(err)
			}
		}
		parts[p], _ = f.MarshalBinary()
	}
	all := cvar.NewFit[float64](2)
	for _, b := range parts {
		var f cvar.Fit[float64]
		if err := f.UnmarshalBinary(b); err != nil {
			panic(err)
		}
		if err := all.Merge(&f); err != nil {
			panic(err)
		}
	}
	info, prep, err := all.Resolve(cvar.FitOptions{Scaling: cvar.ScaleMaxAbs})
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Kind, info.Classes, info.NTrain, prep.Scale)
	// Output: logistic [0 1] 4 [4 40]
}
