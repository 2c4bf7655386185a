package dataset

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// TestSyntheticText checks the shape of the text-like data (distinct sorted
// columns a row, unit rows, Zipf-like frequencies, both classes) and that
// WriteLIBSVM and ReadLIBSVM round-trip it.
func TestSyntheticText(t *testing.T) {
	t.Parallel()
	cfg := SynthTextOptions{N: 3000, D: 5000, NNZ: 20, Seed: 7}
	ds, err := SyntheticText[float32](cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !ds.IsSparse() || ds.N != 3000 || ds.D != 5000 || len(ds.Cols) != 3000*20 {
		t.Fatalf("N %d, D %d, %d non-zeros, sparse %v", ds.N, ds.D, len(ds.Cols), ds.IsSparse())
	}
	freq := make([]int, ds.D)
	ones := 0
	for i := range ds.N {
		cs := ds.Cols[ds.Indptr[i]:ds.Indptr[i+1]]
		if !slices.IsSorted(cs) || hasRepeat(cs) {
			t.Fatalf("row %d: columns %v", i, cs)
		}
		var n2 float64
		for p, c := range cs {
			freq[c]++
			v := float64(ds.Vals[ds.Indptr[i]+int64(p)])
			n2 += v * v
		}
		if math.Abs(n2-1) > 1e-5 {
			t.Fatalf("row %d: ‖x‖² = %v", i, n2)
		}
		ones += int(ds.Labels[i])
	}
	slices.Sort(freq)
	slices.Reverse(freq)
	if freq[0] < ds.N/3 || freq[ds.D/2] > 20 {
		t.Errorf("frequencies: top %d, median %d; want a heavy head and a long tail", freq[0], freq[ds.D/2])
	}
	if ones < ds.N/5 || ones > 4*ds.N/5 {
		t.Errorf("%d of %d rows in class +1", ones, ds.N)
	}
	again, _ := SyntheticText[float32](cfg)
	if !slices.Equal(again.Vals, ds.Vals) || !slices.Equal(again.Labels, ds.Labels) {
		t.Error("the same seed gave other data")
	}
	var b bytes.Buffer
	if err := WriteLIBSVM(&b, ds); err != nil {
		t.Fatal(err)
	}
	rd, err := ReadLIBSVM[float32](&b, "t.svm", LIBSVMOptions{Dim: ds.D, SparseBelow: DefaultSparseBelow})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rd.Indptr, ds.Indptr) || !slices.Equal(rd.Cols, ds.Cols) || !slices.Equal(rd.Vals, ds.Vals) || !slices.Equal(rd.Labels, ds.Labels) {
		t.Error("WriteLIBSVM then ReadLIBSVM changed the data")
	}
	for _, bad := range []SynthTextOptions{{N: -1}, {D: 10, NNZ: 11}, {Zipf: math.Inf(1)}, {Noise: 0.5}} {
		if _, err := SyntheticText[float64](bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
