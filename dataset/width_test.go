package dataset

import (
	"errors"
	"strings"
	"testing"
)

// TestWidthError: an index above the width has a *WidthError as its
// cause, saying which bound it passed; MaxDim bounds only an inferred
// width, so a given Dim above it reads its indices.
func TestWidthError(t *testing.T) {
	t.Parallel()
	in := "1 3:1\n-1 150:2\n"
	for _, c := range []struct {
		opt  LIBSVMOptions
		want WidthError
	}{
		{LIBSVMOptions{MaxDim: 100}, WidthError{Index: 150, Width: 100}},
		{LIBSVMOptions{Dim: 120}, WidthError{Index: 150, Width: 120, Given: true}},
	} {
		_, err := ReadLIBSVM[float64](strings.NewReader(in), "w.svm", c.opt)
		var we *WidthError
		if !errors.As(err, &we) || *we != c.want {
			t.Errorf("%+v: error %v, want the cause %+v", c.opt, err, c.want)
		}
	}
	ds, err := ReadLIBSVM[float64](strings.NewReader(in), "w.svm", LIBSVMOptions{Dim: 200, MaxDim: 100})
	if err != nil || ds.D != 200 {
		t.Fatalf("Dim 200 with MaxDim 100: %v", err)
	}
}
