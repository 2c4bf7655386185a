package cvar

import (
	"reflect"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
)

// TestModelFileOptions: the model's task, classes and width are imposed;
// a centring model reads dense; a CSV model's target and header apply to
// CSV files only, unless the caller names a target.
func TestModelFileOptions(t *testing.T) {
	t.Parallel()
	clf := &ModelFile{K: 3, D: 7, Classes: []string{"a", "b", "c"}, Source: Provenance{Kind: "csv", Target: "label", NoHeader: true},
		Preprocessing: dataset.Preprocessing{Mean: []float64{0, 2}, Scale: []float64{1, 1}}}
	given := dataset.FileOptions{Limit: 9, SparseBelow: 0.1, Task: dataset.Regression, Dim: 3, MaxBytes: 5}
	got := clf.FileOptions("csv", given)
	want := dataset.FileOptions{Format: "csv", Limit: 9, Task: dataset.Classification, Classes: clf.Classes, Dim: 3, MaxBytes: 5, Target: "label", NoHeader: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("csv:\n got %+v\nwant %+v", got, want)
	}
	given.Target = "y"
	if got := clf.FileOptions("csv", given); got.Target != "y" {
		t.Errorf("the caller's target %q, want y", got.Target)
	}
	reg := &ModelFile{K: 0, D: 7, Source: Provenance{Kind: "libsvm"}, Preprocessing: dataset.Preprocessing{Mean: []float64{0, 0}, Scale: []float64{2, 3}}}
	got = reg.FileOptions("libsvm", dataset.FileOptions{SparseBelow: 0.1, Classes: []string{"x"}})
	if got.Task != dataset.Regression || got.Classes != nil || got.Dim != 7 || got.SparseBelow != 0.1 || got.Target != "" || got.NoHeader {
		t.Errorf("libsvm regression: %+v", got)
	}
	if got := clf.FileOptions("libsvm", dataset.FileOptions{}); got.Dim != 7 || got.Target != "" || got.NoHeader {
		t.Errorf("a CSV model reading LIBSVM: %+v", got)
	}
}
