package cvar_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
)

// ExampleTrainStream trains binary logistic regression with Alg1 on CSV
// data read pass by pass: TrainStream counts the rows, fits the z-score on
// the training part, infers the task and the classes from the labels,
// trains, and measures both parts, holding a chunk of rows at a time. Here
// the data is in memory; a file would be opened with os.Open.
func ExampleTrainStream() {
	var csv bytes.Buffer
	rng := rand.New(rand.NewPCG(7, 8))
	fmt.Fprintln(&csv, "x1,x2,label")
	for range 3000 {
		x1, x2 := 10+rng.NormFloat64(), 5*rng.NormFloat64()
		label := 0
		if x1-10-x2/5+0.3*rng.NormFloat64() > 0 {
			label = 1
		}
		fmt.Fprintf(&csv, "%.4f,%.4f,%d\n", x1, x2, label)
	}
	src := cvar.StreamSource{
		Name: "points.csv",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(csv.Bytes())), nil },
		CSV:  &dataset.CSVOptions{Target: "label"},
	}

	res, err := cvar.TrainStream(context.Background(), src, cvar.StreamOptions[float64]{
		Options: cvar.Options{Method: cvar.Alg1, Alpha: 0.1, Seed: 1},
	})
	if err != nil {
		panic(err)
	}
	cv, _ := res.Validation.TailAt(0.1)
	fmt.Printf("%s on %v, classes %v\n", res.Kind, res.Features, res.Classes)
	fmt.Printf("%d training rows, %d validation rows\n", res.NTrain, res.NVal)
	fmt.Printf("feature means %.0f, %.0f\n", res.Preprocessing.Mean[0], res.Preprocessing.Mean[1])
	fmt.Printf("validation: accuracy %.2f, CVaR_0.1 %.1f\n", res.Validation.Accuracy, cv)
	// Output:
	// logistic on [x1 x2], classes [0 1]
	// 2000 training rows, 1000 validation rows
	// feature means 10, 0
	// validation: accuracy 0.94, CVaR_0.1 0.7
}
