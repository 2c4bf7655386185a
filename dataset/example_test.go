package dataset_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/cvarlearn/cvar/dataset"
)

func Example() {
	const data = `age,income,churned
34,52000,no
51,61000,yes
29,38000,no
45,75000,no
62,41000,yes
38,58000,no
`
	ds, err := dataset.ReadCSV[float64](strings.NewReader(data), "customers.csv",
		dataset.CSVOptions{Target: "churned", Task: dataset.TaskAuto})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d samples, %d features %q, %v with classes %q\n", ds.N, ds.D, ds.Features, ds.Task, ds.Classes)

	train, val, err := dataset.Split(ds, 0, 1) // the paper's 2/3–1/3 split
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := dataset.FitStandardizer(train)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := dataset.StandardizeInPlace(s, train); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("train %d, validation %d\n", train.N, val.N)

	// Bad input is reported with its position.
	_, err = dataset.ReadCSV[float64](strings.NewReader("age,income,churned\n34,n/a,no\n"), "customers.csv",
		dataset.CSVOptions{})
	fmt.Println(err)
	// Output:
	// 6 samples, 2 features ["age" "income"], classification with classes ["no" "yes"]
	// train 4, validation 2
	// customers.csv:2: column 2 ("income"): "n/a" is not a number
}

func ExampleSyntheticClassificationGroups() {
	ds, minority, err := dataset.SyntheticClassificationGroups[float32](dataset.SynthClassOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	n := 0
	for _, m := range minority {
		if m {
			n++
		}
	}
	fmt.Printf("%s: %d×%d, %d classes, minority fraction %.2f\n", ds.Name, ds.N, ds.D, ds.K(), float64(n)/float64(ds.N))
	// Output:
	// synthetic-classification: 6000×20, 2 classes, minority fraction 0.10
}

func ExampleNewLIBSVMStream() {
	const data = "+1 1:0.5 3:2\n-1 2:1.5\n"
	s, err := dataset.NewLIBSVMStream[float64](strings.NewReader(data), "train.svm",
		dataset.LIBSVMOptions{Dim: 3, Task: dataset.Classification})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		x, _, label, err := s.Next() // x is reused by the next call
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(x, label)
	}
	// Output:
	// [0.5 0 2] 1
	// [0 1.5 0] 0
}
