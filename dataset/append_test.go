package dataset

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Rows appended one by one make the data set that holds them, dense or
// sparse; Reset empties it for the next rows.
func TestAppendRows(t *testing.T) {
	t.Parallel()
	dense := &Dataset[float64]{Name: "d", D: 2, Task: Classification, Classes: []string{"a", "b"}}
	for i, x := range [][]float64{{1, 2}, {0, 3}} {
		if err := dense.AppendRow(x, 0, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := dense.Validate(); err != nil || dense.N != 2 || !slices.Equal(dense.X, []float64{1, 2, 0, 3}) || !slices.Equal(dense.Labels, []int32{0, 1}) {
		t.Fatalf("dense: %+v, %v", dense, err)
	}
	sparse := &Dataset[float32]{Name: "s", D: 3, Task: Regression}
	if err := sparse.AppendSparse([]uint32{0, 2}, []float32{1, 2}, 5, 0); err != nil {
		t.Fatal(err)
	}
	if err := sparse.AppendSparse(nil, nil, -1, 0); err != nil {
		t.Fatal(err)
	}
	if err := sparse.Validate(); err != nil || !slices.Equal(sparse.Indptr, []int64{0, 2, 2}) || !slices.Equal(sparse.Y, []float32{5, -1}) {
		t.Fatalf("sparse: %+v, %v", sparse, err)
	}
	if _, err := sparse.Batch(); err != nil {
		t.Fatal(err)
	}
	c := cap(sparse.Cols)
	sparse.Reset()
	if sparse.N != 0 || len(sparse.Cols) != 0 || cap(sparse.Cols) != c || !slices.Equal(sparse.Indptr, []int64{0}) {
		t.Errorf("after Reset: %+v", sparse)
	}
}

// A row that breaks Validate's rules is refused, by a message naming the
// data set and the fault, and leaves the data set as it was.
func TestAppendRefuses(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	cases := []struct {
		name string
		add  func(ds *Dataset[float64]) error
		want string
	}{
		{"width", func(ds *Dataset[float64]) error { return ds.AppendRow([]float64{1}, 0, 0) }, "f.csv: 1 features; expected D = 2"},
		{"feature", func(ds *Dataset[float64]) error { return ds.AppendRow([]float64{1, nan}, 0, 0) }, "f.csv: feature 1: NaN"},
		{"label", func(ds *Dataset[float64]) error { return ds.AppendRow([]float64{1, 2}, 0, 2) }, "label 2; expected a class in 0..1"},
		{"negative label", func(ds *Dataset[float64]) error { return ds.AppendRow([]float64{1, 2}, 0, -1) }, "label -1"},
		{"mixed", func(ds *Dataset[float64]) error { return ds.AppendSparse([]uint32{0}, []float64{1}, 0, 0) }, "dense and sparse rows cannot mix"},
		{"groups", func(ds *Dataset[float64]) error {
			ds.Groups, ds.GroupNames = []int32{0}, []string{"g"}
			return ds.AppendRow([]float64{1, 2}, 0, 0)
		}, "groups"},
	}
	for _, c := range cases {
		ds := &Dataset[float64]{Name: "f.csv", D: 2, Task: Classification, Classes: []string{"a", "b"}}
		if err := ds.AppendRow([]float64{5, 6}, 0, 1); err != nil {
			t.Fatal(err)
		}
		err := c.add(ds)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.csv") {
			t.Errorf("%s: error %v, want one naming f.csv and %q", c.name, err, c.want)
		}
		if ds.N != 1 || len(ds.X) != 2 || len(ds.Labels) != 1 || ds.Indptr != nil {
			t.Errorf("%s: the refused row changed the data: %+v", c.name, ds)
		}
	}
	reg := &Dataset[float64]{Name: "r", D: 3, Task: Regression}
	for _, err := range []error{
		reg.AppendRow([]float64{1, 2, 3}, math.Inf(1), 0),
		reg.AppendSparse([]uint32{2, 1}, []float64{1, 1}, 0, 0),
		reg.AppendSparse([]uint32{3}, []float64{1}, 0, 0),
		reg.AppendSparse([]uint32{0}, []float64{1, 2}, 0, 0),
	} {
		if err == nil || reg.N != 0 {
			t.Errorf("regression row accepted: %v, %d rows", err, reg.N)
		}
	}
}
