package dataset

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// must returns v, and panics on an error a test did not expect.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFitBadInput: every Fit* returns an error, not a panic, for a nil data
// set and for features or targets that do not match the shape or are not
// finite.
func TestFitBadInput(t *testing.T) {
	t.Parallel()
	fits := map[string]func(*Dataset[float64]) error{
		"FitStandardizer": func(ds *Dataset[float64]) error { _, err := FitStandardizer(ds); return err },
		"FitScaler":       func(ds *Dataset[float64]) error { _, err := FitScaler(ds); return err },
		"FitMaxAbs":       func(ds *Dataset[float64]) error { _, err := FitMaxAbs(ds); return err },
		"FitTargetScaler": func(ds *Dataset[float64]) error { _, err := FitTargetScaler(ds); return err },
	}
	for name, fit := range fits {
		if err := fit(nil); !errors.Is(err, errNoDataset) {
			t.Errorf("%s(nil): %v, want %v", name, err, errNoDataset)
		}
	}
	short := &Dataset[float64]{Name: "short", N: 3, D: 2, X: []float64{1, 2, 3}}
	for _, name := range []string{"FitStandardizer", "FitScaler", "FitMaxAbs"} {
		if err := fits[name](short); err == nil || !strings.Contains(err.Error(), "3 values") {
			t.Errorf("%s of 3 values for 3×2: %v", name, err)
		}
	}
	col := &Dataset[float64]{Name: "col", N: 1, D: 2, Indptr: []int64{0, 1}, Cols: []uint32{5}, Vals: []float64{1}}
	offsets := &Dataset[float64]{Name: "offsets", N: 2, D: 2, Indptr: []int64{0, 2}, Cols: []uint32{0, 1}, Vals: []float64{1, 1}}
	for _, name := range []string{"FitScaler", "FitMaxAbs"} {
		if err := fits[name](col); err == nil || !strings.Contains(err.Error(), "column 5") {
			t.Errorf("%s of a column past D: %v", name, err)
		}
		if err := fits[name](offsets); err == nil || !strings.Contains(err.Error(), "offsets") {
			t.Errorf("%s of 2 offsets for 2 rows: %v", name, err)
		}
	}
	inf := &Dataset[float64]{Name: "inf", N: 2, D: 1, X: []float64{1, 2}, Y: []float64{1, posInf()}, Task: Regression}
	if err := fits["FitTargetScaler"](inf); err == nil || !strings.Contains(err.Error(), "row 1: target +Inf") {
		t.Errorf("FitTargetScaler of an infinite target: %v", err)
	}
}

func posInf() float64 { return math.Inf(1) }

// TestNumberHint: the hint about underscores and hexadecimal comes only
// with a cell Go would read as a number (1_000, 0x1p3), not with any text
// holding an x or an underscore.
func TestNumberHint(t *testing.T) {
	t.Parallel()
	for cell, hint := range map[string]bool{"1_000": true, "0x1p3": true, "0x10": true, "x": false, "box": false, "a_b": false, "1e5x": false} {
		_, msg := parseValue[float64](cell)
		if got := strings.Contains(msg, "hexadecimal"); got != hint || !strings.Contains(msg, "is not a number") {
			t.Errorf("cell %q: %q; want the hint %v", cell, msg, hint)
		}
	}
}
