package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cvarlearn/cvar/dataset"
)

// LoadFile reads a file in the format its name says: here a LIBSVM file,
// compressed or not, read with a width of 5 features.
func ExampleLoadFile() {
	dir, err := os.MkdirTemp("", "cvar-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "spam.svm")
	if err := os.WriteFile(path, []byte("+1 1:0.5 4:2\n-1 2:1\n+1 5:3\n"), 0o644); err != nil {
		panic(err)
	}
	fmt.Println(dataset.FormatOfName(path))
	ds, err := dataset.LoadFile[float64](path, dataset.FileOptions{Dim: 5})
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.N, "rows of", ds.D, "features, classes", ds.Classes)
	// Output:
	// libsvm
	// 3 rows of 5 features, classes [-1 1]
}
