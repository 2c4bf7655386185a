package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cvarlearn/cvar/dataset"
)

// LoadCSV reads a file with a header row, here with the target column named
// and the task given (TaskAuto would take these few integer prices for
// classes); Batch hands the result to package batch for training.
func ExampleLoadCSV() {
	dir, err := os.MkdirTemp("", "cvar-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "houses.csv")
	const content = `rooms,area,price
3,72.5,310
2,48,205
4,95,398
1,30.5,150
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}

	ds, err := dataset.LoadCSV[float64](path, dataset.CSVOptions{Target: "price", Task: dataset.Regression})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d samples, features %q, %v\n", ds.N, ds.Features, ds.Task)
	fmt.Println(ds.Row(1), ds.Y)

	data, err := ds.Batch()
	if err != nil {
		panic(err)
	}
	fmt.Println(data.N, data.D, data.K)
	// Output:
	// 4 samples, features ["rooms" "area"], regression
	// [2 48] [310 205 398 150]
	// 4 2 0
}

// LoadLIBSVM reads svmlight's "label index:value ..." lines; with
// SparseBelow a file that is mostly zeros is held as its non-zeros.
func ExampleLoadLIBSVM() {
	dir, err := os.MkdirTemp("", "cvar-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "text.svm")
	const content = `+1 3:0.5 17:1.25 500:1
-1 1:2 17:0.75
+1 250:1 500:0.5
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}

	ds, err := dataset.LoadLIBSVM[float32](path, dataset.LIBSVMOptions{SparseBelow: dataset.DefaultSparseBelow})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d samples, %d features, sparse %v, %d non-zeros, classes %q\n",
		ds.N, ds.D, ds.IsSparse(), len(ds.Vals), ds.Classes)
	fmt.Println(ds.Labels)
	// Row 0's non-zeros, with 0-based columns.
	lo, hi := ds.Indptr[0], ds.Indptr[1]
	fmt.Println(ds.Cols[lo:hi], ds.Vals[lo:hi])
	// Output:
	// 3 samples, 500 features, sparse true, 7 non-zeros, classes ["-1" "1"]
	// [1 0 1]
	// [2 16 499] [0.5 1.25 1]
}
