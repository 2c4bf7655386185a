package dataset

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FromMat builds a dataset from a gonum matrix of features (one row per
// sample) and a target per row. For classification y holds numeric
// labels. They map to classes as in the readers: numerically sorted, and
// named by their shortest decimal text. For TaskAuto the task is inferred
// as by the readers. Every value must be finite. The data are copied.
func FromMat[T Float](name string, x mat.Matrix, y []float64, task Task) (*Dataset[T], error) {
	if x == nil {
		return nil, fileError(name, "nil feature matrix")
	}
	n, d := x.Dims()
	if len(y) != n {
		return nil, fileError(name, "%d targets for %d rows; expected one target per row", len(y), n)
	}
	for i, v := range y {
		if !finite(v) {
			return nil, fileError(name, "row %d: target %v; expected a finite number", i, v)
		}
	}
	ds := &Dataset[T]{Name: name, X: make([]T, n*d), N: n, D: d, Features: numberedNames("f", 1, d)}
	for i := range n {
		for j := range d {
			v := x.At(i, j)
			t := T(v)
			if !finite(float64(t)) {
				return nil, fileError(name, "row %d, column %d: %v is not a finite %T", i, j, v, t)
			}
			ds.X[i*d+j] = t
		}
	}
	if task == TaskAuto {
		task = inferTaskValues(y)
	}
	switch task {
	case Regression:
		ds.Task = Regression
		ds.Y = make([]T, n)
		for i, v := range y {
			ds.Y[i] = T(v)
			if !finite(float64(ds.Y[i])) {
				return nil, fileError(name, "row %d: target %v is not a finite %T", i, v, ds.Y[i])
			}
		}
	case Classification:
		ds.Task = Classification
		ds.Labels, ds.Classes = numericClasses(y)
	default:
		return nil, fmt.Errorf("dataset: task %v; expected Classification, Regression or TaskAuto", task)
	}
	return ds, nil
}

// Mat returns a float64 copy of X as an N×D matrix. An empty dataset gives
// an empty (zero-value) matrix, since gonum has no N×0 matrices. Sparse
// data is densified (repeated columns summed), with no memory bound.
func (ds *Dataset[T]) Mat() *mat.Dense {
	if ds.N == 0 || ds.D == 0 {
		return &mat.Dense{}
	}
	data := make([]float64, ds.N*ds.D)
	if ds.IsSparse() {
		for i := 0; i < ds.N; i++ {
			for p := ds.Indptr[i]; p < ds.Indptr[i+1]; p++ {
				data[i*ds.D+int(ds.Cols[p])] += float64(ds.Vals[p])
			}
		}
		return mat.NewDense(ds.N, ds.D, data)
	}
	for i, v := range ds.X[:ds.N*ds.D] {
		data[i] = float64(v)
	}
	return mat.NewDense(ds.N, ds.D, data)
}
