package dataset

import (
	"strings"
	"testing"
)

func TestBatch(t *testing.T) {
	t.Parallel()
	cls := &Dataset[float32]{Name: "c", N: 3, D: 2, X: []float32{1, 2, 3, 4, 5, 6}, Task: Classification,
		Labels: []int32{0, 2, 1}, Classes: []string{"a", "b", "c"}}
	d, err := cls.Batch()
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 3 || d.D != 2 || d.K != 3 || !d.IsClassification() || &d.X[0] != &cls.X[0] || d.Labels[1] != 2 {
		t.Errorf("classification: got N %d D %d K %d, labels %v; want the dataset's, sharing X", d.N, d.D, d.K, d.Labels)
	}
	reg := &Dataset[float64]{Name: "r", N: 2, D: 1, X: []float64{1, 2}, Task: Regression, Y: []float64{0.5, -1}}
	r, err := reg.Batch()
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 2 || r.K != 0 || r.IsClassification() || r.Y[1] != -1 {
		t.Errorf("regression: got N %d K %d Y %v", r.N, r.K, r.Y)
	}
	bad := &Dataset[float64]{Name: "bad.csv", N: 2, D: 1, X: []float64{1, 2}, Task: Classification,
		Labels: []int32{0, 5}, Classes: []string{"a", "b"}}
	if _, err := bad.Batch(); err == nil || !strings.HasPrefix(err.Error(), "bad.csv: ") {
		t.Errorf("label out of range: error %v, want one naming bad.csv", err)
	}
}
