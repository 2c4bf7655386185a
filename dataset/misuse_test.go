package dataset

import (
	"bytes"
	"fmt"
	"testing"
)

// TestMisuseReturnsErrors gives the package's functions that take a
// *Dataset a nil one, and a hand-built one with one thing wrong, and wants
// an error, never a panic or a silent success.
func TestMisuseReturnsErrors(t *testing.T) {
	t.Parallel()
	var none *Dataset[float64]
	sparse := func(indptr []int64, cols []uint32) *Dataset[float64] {
		return &Dataset[float64]{Name: "hand-built", N: 3, D: 4, Indptr: indptr, Cols: cols, Vals: []float64{1, 2, 3, 4, 5}, Task: Regression, Y: []float64{1, 2, 3}}
	}
	bad := map[string]*Dataset[float64]{
		"nil":                       none,
		"offsets falling":           sparse([]int64{0, 4, 3, 5}, []uint32{0, 1, 2, 3, 0}),
		"offset past the non-zeros": sparse([]int64{0, 9, 3, 5}, []uint32{0, 1, 2, 3, 0}),
		"column outside":            sparse([]int64{0, 2, 3, 5}, []uint32{0, 1, 2, 4, 0}),
		"too few values":            {Name: "hand-built", N: 3, D: 4, X: []float64{1}, Task: Regression, Y: []float64{1, 2, 3}},
		"label outside the classes": {Name: "hand-built", N: 2, D: 1, X: []float64{1, 2}, Task: Classification, Labels: []int32{0, 3}, Classes: []string{"a", "b"}},
	}
	for name, ds := range bad {
		calls := map[string]func() error{
			"Split":       func() error { _, _, err := Split(ds, 0, 1); return err },
			"Validate":    func() error { return ds.Validate() },
			"Batch":       func() error { _, err := ds.Batch(); return err },
			"BatchAs f16": func() error { _, err := ds.BatchAs(StorageF16); return err },
			"WriteLIBSVM": func() error { return WriteLIBSVM(&bytes.Buffer{}, ds) },
		}
		if ds == nil || ds.IsSparse() {
			calls["Dense"] = func() error { _, err := ds.Dense(0); return err }
		}
		if ds == nil {
			s := &Standardizer{Mean: []float64{0}, Scale: []float64{1}}
			calls["StandardizeInPlace"] = func() error { return StandardizeInPlace(s, ds) }
			calls["ScaleUnit"] = func() error { _, err := ScaleUnit(ds); return err }
			calls["PreprocessDataset"] = func() error { return PreprocessDataset(&Preprocessing{}, ds) }
		}
		for fn, f := range calls {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
						t.Errorf("%s of %s: %v", fn, name, err)
					}
				}()
				err = f()
			}()
			if err == nil {
				t.Errorf("%s of %s: no error", fn, name)
			}
		}
	}
	good := &Dataset[float64]{Name: "g", X: []float64{1, 2}, N: 2, D: 1, Task: Regression, Y: []float64{1, 2}}
	if err := WriteLIBSVM(nil, good); err == nil {
		t.Error("WriteLIBSVM to a nil writer: no error")
	}
	if err := StandardizeInPlace(&Standardizer{Mean: []float64{0}, Scale: []float64{1}}, bad["too few values"]); err == nil {
		t.Error("StandardizeInPlace of too few values: no error")
	}
}
