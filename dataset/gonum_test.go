package dataset

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFromMatAndMat(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	ds, err := FromMat[float32]("m", x, []float64{1, -1, 1}, Classification)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 2 || !slices.Equal(ds.X, []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("N=%d D=%d X=%v", ds.N, ds.D, ds.X)
	}
	if !slices.Equal(ds.Classes, []string{"-1", "1"}) || !slices.Equal(ds.Labels, []int32{1, 0, 1}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
	if !mat.Equal(ds.Mat(), x) {
		t.Errorf("Mat() = %v, want %v", mat.Formatted(ds.Mat()), mat.Formatted(x))
	}
	// The result is a copy.
	m := ds.Mat()
	m.Set(0, 0, 100)
	if ds.X[0] != 1 {
		t.Error("Mat shares memory with X")
	}

	// A transposed view goes through the Matrix interface.
	reg, err := FromMat[float64]("t", x.T(), []float64{0.5, 1.5}, TaskAuto)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Task != Regression || !slices.Equal(reg.X, []float64{1, 3, 5, 2, 4, 6}) || !slices.Equal(reg.Y, []float64{0.5, 1.5}) {
		t.Errorf("task %v X %v Y %v", reg.Task, reg.X, reg.Y)
	}
	if (&Dataset[float64]{}).Mat() == nil {
		t.Error("empty dataset: nil matrix")
	}
}

func TestFromMatErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()})
	_, err := FromMat[float64]("m", x, []float64{0, 1}, Regression)
	wantErr(t, err, "m: row 1, column 1", "NaN")
	_, err = FromMat[float32]("m", mat.NewDense(1, 1, []float64{1e300}), []float64{0}, Regression)
	wantErr(t, err, "m: row 0, column 0", "float32")
	_, err = FromMat[float64]("m", mat.NewDense(2, 1, []float64{1, 2}), []float64{0}, Regression)
	wantErr(t, err, "m: 1 targets for 2 rows")
	_, err = FromMat[float64]("m", mat.NewDense(1, 1, []float64{1}), []float64{math.Inf(1)}, Regression)
	wantErr(t, err, "m: row 0: target")
	_, err = FromMat[float64]("m", nil, nil, Regression)
	wantErr(t, err, "nil")
	_, err = FromMat[float64]("m", mat.NewDense(1, 1, []float64{1}), []float64{1}, Task(5))
	wantErr(t, err, "task")
}
