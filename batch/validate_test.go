package batch

import (
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// validateCase is a Data with one thing wrong, and a piece of the error
// that must name it; want "" marks a valid Data.
type validateCase struct {
	name string
	data func() *Data[float64]
	want string
}

// sparseBase is 3 rows of 4 columns in CSR, regression.
func sparseBase() *Data[float64] {
	return &Data[float64]{N: 3, D: 4, Indptr: []int64{0, 2, 3, 5}, Cols: []uint32{0, 3, 1, 2, 0}, Vals: []float64{1, 2, 3, 4, 5}, Y: []float64{1, 2, 3}}
}

// denseBase is 3 rows of 2 columns, binary classification.
func denseBase() *Data[float64] {
	return must(NewData([]float64{1, 2, 3, 4, 5, 6}, 3, 2, nil, []int32{0, 1, 1}, 2))
}

func sparseWith(f func(d *Data[float64])) func() *Data[float64] {
	return func() *Data[float64] { d := sparseBase(); f(d); return d }
}

func denseWith(f func(d *Data[float64])) func() *Data[float64] {
	return func() *Data[float64] { d := denseBase(); f(d); return d }
}

var validateCases = []validateCase{
	{"sparse valid", sparseBase, ""},
	{"sparse unsorted and repeated columns", sparseWith(func(d *Data[float64]) { d.Cols = []uint32{3, 0, 1, 2, 2} }), ""},
	{"sparse empty rows", sparseWith(func(d *Data[float64]) { d.Indptr = []int64{0, 0, 0, 0}; d.Cols, d.Vals = []uint32{}, []float64{} }), ""},
	{"sparse too few offsets", sparseWith(func(d *Data[float64]) { d.Indptr = d.Indptr[:3] }), "3 row offsets for 3 rows"},
	{"sparse too many offsets", sparseWith(func(d *Data[float64]) { d.Indptr = append(d.Indptr, 5) }), "5 row offsets for 3 rows"},
	{"sparse first offset not 0", sparseWith(func(d *Data[float64]) { d.Indptr[0] = 1 }), "run from 1 to 5"},
	{"sparse last offset short of the non-zeros", sparseWith(func(d *Data[float64]) { d.Indptr[3] = 4 }), "run from 0 to 4; want 0 to the 5"},
	{"sparse offsets fall", sparseWith(func(d *Data[float64]) { d.Indptr[1] = 4 }), "row 1: offsets 4, 3 decrease"},
	{"sparse offset past the non-zeros", sparseWith(func(d *Data[float64]) { d.Indptr[1] = 9 }), "row 0: offset 9 outside the 5 non-zeros"},
	{"sparse negative offset", sparseWith(func(d *Data[float64]) { d.Indptr[1] = -1 }), "row 0: offsets 0, -1 decrease"},
	{"sparse column outside", sparseWith(func(d *Data[float64]) { d.Cols[3] = 4 }), "row 2, entry 0: column 4 outside the 4 columns"},
	{"sparse fewer values than columns", sparseWith(func(d *Data[float64]) { d.Vals = d.Vals[:4] }), "5 column indices and 4 values"},
	{"sparse NaN value", sparseWith(func(d *Data[float64]) { d.Vals[2] = math.NaN() }), "row 1, column 1: value NaN is not finite"},
	{"sparse infinite value", sparseWith(func(d *Data[float64]) { d.Vals[4] = math.Inf(-1) }), "row 2, column 0: value -Inf is not finite"},
	{"sparse and dense", sparseWith(func(d *Data[float64]) { d.X = make([]float64, 12) }), "also holds dense"},
	{"sparse no columns", sparseWith(func(d *Data[float64]) { d.D = 0 }), "at least one"},
	{"dense valid", denseBase, ""},
	{"dense no rows", denseWith(func(d *Data[float64]) { d.N = 0 }), "at least one"},
	{"dense too few values", denseWith(func(d *Data[float64]) { d.X = d.X[:5] }), "5 values, too few for 3 rows"},
	{"dense stride below columns", denseWith(func(d *Data[float64]) { d.Stride = 1 }), "stride 1"},
	{"dense NaN", denseWith(func(d *Data[float64]) { d.X[5] = math.NaN() }), "row 2, column 1: value NaN is not finite"},
	{"dense infinity", denseWith(func(d *Data[float64]) { d.X[0] = math.Inf(1) }), "row 0, column 0: value +Inf is not finite"},
	{"dense strided, NaN between rows", func() *Data[float64] {
		d := denseBase()
		d.X, d.Stride = []float64{1, 2, math.NaN(), 3, 4, math.NaN(), 5, 6}, 3
		return d
	}, ""},
	{"dense strided infinity", func() *Data[float64] {
		d := denseBase()
		d.X, d.Stride = []float64{1, 2, 0, math.Inf(1), 4, 0, 5, 6}, 3
		return d
	}, "row 1, column 0: value +Inf"},
	{"dense wide rows", func() *Data[float64] {
		x := make([]float64, 2*5000)
		x[5000+4999] = math.NaN()
		return must(NewData(make([]float64, 2*5000), 2, 5000, []float64{1, 2}, nil, 0)).withX(x)
	}, "row 1, column 4999: value NaN"},
	{"dense many rows", func() *Data[float64] {
		x := make([]float64, 3000*3)
		d := must(NewData(x, 3000, 3, make([]float64, 3000), nil, 0))
		d.X = append([]float64(nil), x...)
		d.X[2500*3+2] = math.Inf(1)
		return d
	}, "row 2500, column 2: value +Inf"},
	{"label above the classes", denseWith(func(d *Data[float64]) { d.Labels = []int32{0, 2, 1} }), "row 1: label 2 outside the classes 0..1"},
	{"negative label", denseWith(func(d *Data[float64]) { d.Labels = []int32{0, 1, -1} }), "row 2: label -1 outside"},
	{"too few labels", denseWith(func(d *Data[float64]) { d.Labels = d.Labels[:2] }), "2 labels for 3 rows"},
	{"one class", denseWith(func(d *Data[float64]) { d.K = 1 }), "at least 2 classes"},
	{"binary target not the label's", denseWith(func(d *Data[float64]) { d.Y = []float64{-1, 1, 0.5} }), "row 2: binary target 0.5 for label 1; want 1"},
	{"binary targets missing", denseWith(func(d *Data[float64]) { d.Y = nil }), "0 ±1 targets for 3 rows"},
	{"regression NaN target", sparseWith(func(d *Data[float64]) { d.Y[0] = math.NaN() }), "row 0: target NaN is not finite"},
	{"regression with classes", sparseWith(func(d *Data[float64]) { d.K = 3 }), "no classes"},
	{"regression too few targets", sparseWith(func(d *Data[float64]) { d.Y = d.Y[:1] }), "1 targets for 3 rows"},
	{"f16 infinity", func() *Data[float64] {
		h := []uint16{kernel.F32ToF16(1), kernel.F32ToF16(2), kernel.F32ToF16(3), 0x7c00}
		d := must(NewDataF16(make([]uint16, 4), 2, 2, []float64{1, 2}, nil, 0))
		d.c.F16 = h
		return d
	}, "row 1, column 1: value +Inf is not finite"},
	{"bf16 NaN", func() *Data[float64] {
		h := []uint16{0x7fc0, kernel.F32ToBF16(2), kernel.F32ToBF16(3), kernel.F32ToBF16(4)}
		d := must(NewDataBF16(make([]uint16, 4), 2, 2, []float64{1, 2}, nil, 0))
		d.c.BF16 = h
		return d
	}, "row 0, column 0: value NaN is not finite"},
}

// withX replaces d's features (a case's one fault).
func (d *Data[T]) withX(x []T) *Data[T] { d.X = x; return d }

// modelFor returns a model of this package that fits d's task and columns.
func modelFor(d *Data[float64]) Model[float64] {
	dim := max(d.D, 1)
	switch {
	case d.Labels == nil:
		return must(NewLeastSquares[float64](dim))
	case d.K == 2:
		return must(NewLogistic[float64](dim))
	}
	return must(NewSoftmax[float64](dim, max(d.K, 2)))
}

// TestValidate gives Validate a Data with each thing that can be wrong with
// one, and wants an error naming it (the row, and the column or entry); the
// valid ones pass. Engine.Losses and Engine.Scores, which check whole data
// in their chunks, return an error for each invalid one too (never a
// panic, which on a worker would end the test program).
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range validateCases {
		err := noPanic(t, c.name+": Validate", func() error { return c.data().Validate() })
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Validate: %v, want nil", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: Validate: %v, want an error containing %q", c.name, err, c.want)
		}
		featureErr := noPanic(t, c.name+": ValidateFeatures", func() error { return c.data().ValidateFeatures() })
		if c.want == "" && featureErr != nil {
			t.Errorf("%s: ValidateFeatures: %v, want nil", c.name, featureErr)
		}
		d := c.data()
		m := modelFor(d)
		e := must(NewEngine(m, 2))
		theta := make([]float64, m.NumParams())
		lossErr := noPanic(t, c.name+": Engine.Losses", func() error { return e.Losses(make([]float64, max(d.N, 0)), theta, d) })
		if (lossErr == nil) != (err == nil) {
			t.Errorf("%s: Engine.Losses: %v; Validate: %v", c.name, lossErr, err)
		}
		scoreErr := noPanic(t, c.name+": Engine.Scores", func() error {
			return e.Scores(make([]float64, max(d.N, 0)*m.NumOutputs()), theta, d)
		})
		if (scoreErr == nil) != (featureErr == nil) {
			t.Errorf("%s: Engine.Scores: %v; ValidateFeatures: %v", c.name, scoreErr, featureErr)
		}
		e.Close()
	}
}
