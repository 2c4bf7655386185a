package dataset

import (
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestLIBSVMSparse: with SparseBelow, a sparse file is held in CSR form,
// in memory proportional to its non-zeros, and matches the dense reading.
func TestLIBSVMSparse(t *testing.T) {
	t.Parallel()
	in := "1 1:0.5 4:2\n-1 2:1 # comment\n1\n-1 3:-1 5:3 6:1\n"
	sp, err := ReadLIBSVM[float64](strings.NewReader(in), "s.svm", LIBSVMOptions{SparseBelow: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !sp.IsSparse() || sp.X != nil {
		t.Fatalf("density 6/24 below 0.5 gave a dense result")
	}
	if !slices.Equal(sp.Indptr, []int64{0, 2, 3, 3, 6}) || !slices.Equal(sp.Cols, []uint32{0, 3, 1, 2, 4, 5}) ||
		!slices.Equal(sp.Vals, []float64{0.5, 2, 1, -1, 3, 1}) {
		t.Fatalf("CSR %v %v %v", sp.Indptr, sp.Cols, sp.Vals)
	}
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	de, err := ReadLIBSVM[float64](strings.NewReader(in), "s.svm", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if de.IsSparse() {
		t.Fatal("no SparseBelow gave a sparse result")
	}
	conv, err := sp.Dense(0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(conv.X, de.X) || conv.N != de.N || conv.D != de.D || !slices.Equal(conv.Labels, de.Labels) {
		t.Fatalf("Dense() %v, dense reading %v", conv.X, de.X)
	}
	if _, err := sp.Dense(8); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Dense under a bound of 8 bytes: %v", err)
	}
	// A subset keeps the rows, empty ones included.
	sub := sp.Subset([]int{3, 2, 0})
	if !sub.IsSparse() || !slices.Equal(sub.Indptr, []int64{0, 3, 3, 5}) || !slices.Equal(sub.Cols, []uint32{2, 4, 5, 0, 3}) || sub.Labels[0] != de.Labels[3] {
		t.Fatalf("Subset %v %v %v", sub.Indptr, sub.Cols, sub.Labels)
	}
	if err := sub.Validate(); err != nil {
		t.Fatal(err)
	}
	// Batch gives sparse batch data.
	bd, err := sp.Batch()
	if err != nil {
		t.Fatal(err)
	}
	if !bd.IsSparse() || bd.N != 4 || bd.D != 6 || bd.K != 2 {
		t.Fatalf("Batch: sparse %v, %d×%d, k %d", bd.IsSparse(), bd.N, bd.D, bd.K)
	}
	// A dense file stays dense under the threshold.
	ds, err := ReadLIBSVM[float64](strings.NewReader("1 1:1 2:2\n0 1:3 2:4\n"), "d.svm", LIBSVMOptions{SparseBelow: DefaultSparseBelow})
	if err != nil || ds.IsSparse() {
		t.Fatalf("a dense file: sparse %v, %v", ds != nil && ds.IsSparse(), err)
	}
	// Validate catches a column beyond D.
	bad := *sp
	bad.Cols = slices.Clone(sp.Cols)
	bad.Cols[0] = 6
	if err := bad.Validate(); err == nil {
		t.Error("Validate passed a column beyond D")
	}
}

// TestLIBSVMSparseMemory: the file of TestLIBSVMMemoryBound, whose rows
// densify to 12 GB, is read sparse in memory proportional to the file.
func TestLIBSVMSparseMemory(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		if i%2 == 0 {
			b.WriteString("0 1048576:1\n")
		} else {
			b.WriteString("1 1:1\n")
		}
	}
	in := b.String()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ds, err := ReadLIBSVM[float64](strings.NewReader(in), "wide.svm", LIBSVMOptions{SparseBelow: DefaultSparseBelow})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading a %d-byte file sparse allocated %d bytes", len(in), got)
	}
	if !ds.IsSparse() || ds.N != 1500 || ds.D != 1<<20 || len(ds.Vals) != 1500 {
		t.Fatalf("sparse %v, %d×%d, %d non-zeros", ds.IsSparse(), ds.N, ds.D, len(ds.Vals))
	}
	// MaxBytes bounds the CSR arrays: 1501 offsets and 1500 non-zeros of
	// 12 bytes need 30 008 bytes.
	if _, err := ReadLIBSVM[float64](strings.NewReader(in), "wide.svm", LIBSVMOptions{SparseBelow: DefaultSparseBelow, MaxBytes: 30007}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "CSR") {
		t.Errorf("CSR over the bound: %v", err)
	}
	if _, err := ReadLIBSVM[float64](strings.NewReader(in), "wide.svm", LIBSVMOptions{SparseBelow: DefaultSparseBelow, MaxBytes: 30008}); err != nil {
		t.Errorf("CSR at the bound: %v", err)
	}
}

func TestSparseRefusedByDensePreprocessing(t *testing.T) {
	t.Parallel()
	sp, err := ReadLIBSVM[float64](strings.NewReader("1 1:1\n0 3:2\n"), "s.svm", LIBSVMOptions{SparseBelow: 1.5})
	if err != nil || !sp.IsSparse() {
		t.Fatalf("sparse %v, %v", sp != nil && sp.IsSparse(), err)
	}
	if err := StandardizeInPlace(&Standardizer{Mean: make([]float64, 3), Scale: []float64{1, 1, 1}}, sp); err == nil {
		t.Error("StandardizeInPlace of sparse data: no error")
	}
	if _, err := ScaleUnit(sp); err == nil {
		t.Error("ScaleUnit of sparse data: no error")
	}
	if m := sp.Mat(); m.At(1, 2) != 2 || m.At(0, 0) != 1 || m.At(0, 2) != 0 {
		t.Errorf("Mat of sparse data: %v", m)
	}
}

// TestFitScalerSparseLikeDense: scaling without centring fitted and applied
// on sparse data matches the dense twin's.
func TestFitScalerSparseLikeDense(t *testing.T) {
	t.Parallel()
	in := "1 1:0.5 4:2\n-1 2:1 4:7\n1 2:3\n-1 3:-1 5:3 6:1\n1 1:2 6:1\n"
	sp, err := ReadLIBSVM[float64](strings.NewReader(in), "s.svm", LIBSVMOptions{SparseBelow: 2})
	if err != nil {
		t.Fatal(err)
	}
	de, err := ReadLIBSVM[float64](strings.NewReader(in), "s.svm", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss, sd := must(FitScaler(sp)), must(FitScaler(de))
	for j := range sd.Scale {
		if ss.Mean[j] != 0 || sd.Mean[j] != 0 || math.Abs(ss.Scale[j]-sd.Scale[j]) > 1e-15*sd.Scale[j] {
			t.Fatalf("feature %d: sparse %v/%v, dense %v/%v", j, ss.Mean[j], ss.Scale[j], sd.Mean[j], sd.Scale[j])
		}
	}
	// Feature 2 (index 3) is -1 once and 0 four times: sd = sqrt(0.16).
	if math.Abs(sd.Scale[2]-0.4) > 1e-15 {
		t.Errorf("scale of feature 2: %v, want 0.4", sd.Scale[2])
	}
	// Max-abs scaling: the same of both, the largest |x| of each feature.
	ms, md := must(FitMaxAbs(sp)), must(FitMaxAbs(de))
	if want := []float64{2, 3, 1, 7, 3, 1}; !slices.Equal(ms.Scale, want) || !slices.Equal(md.Scale, want) {
		t.Errorf("max-abs scales: sparse %v, dense %v, want %v", ms.Scale, md.Scale, want)
	}
	if slices.ContainsFunc(ms.Mean, func(m float64) bool { return m != 0 }) {
		t.Errorf("max-abs means %v, want 0", ms.Mean)
	}
	zero, err := ReadLIBSVM[float64](strings.NewReader("1 1:-4 3:0\n-1 1:2\n"), "z.svm", LIBSVMOptions{Dim: 3, SparseBelow: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := must(FitMaxAbs(zero)).Scale; !slices.Equal(got, []float64{4, 1, 1}) {
		t.Errorf("max-abs of a negative feature, an absent one and a stored zero: %v, want [4 1 1]", got)
	}
	p := &Preprocessing{Divide: 2, Mean: sd.Mean, Scale: sd.Scale}
	if err := PreprocessDataset(p, sp); err != nil {
		t.Fatal(err)
	}
	if err := PreprocessDataset(p, de); err != nil {
		t.Fatal(err)
	}
	dd, err := sp.Dense(0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dd.X, de.X) {
		t.Fatalf("preprocessed sparse %v, dense %v", dd.X, de.X)
	}
	centred := &Preprocessing{Mean: make([]float64, 6), Scale: sd.Scale}
	centred.Mean[1] = 0.5
	if err := PreprocessDataset(centred, sp); err == nil || !strings.Contains(err.Error(), "centres") {
		t.Errorf("centring sparse data: %v", err)
	}
}

// TestStreamSparse reads LIBSVM and CSV streams with NextSparse: the
// non-zeros of Next's rows, and a RunningScaler over them equal to
// FitScaler of the whole file to rounding.
func TestStreamSparse(t *testing.T) {
	t.Parallel()
	in := "1 1:0.5 4:2\n-1 2:1 4:7\n1 2:3\n-1 3:-1 5:3 6:1\n1 1:2 6:1\n-1 2:0\n"
	opt := LIBSVMOptions{Dim: 6, Task: Classification}
	de, err := ReadLIBSVM[float64](strings.NewReader(in), "s.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewLIBSVMStream[float64](strings.NewReader(in), "s.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	rs := NewRunningScaler[float64](6)
	for i := 0; ; i++ {
		cols, vals, y, label, err := st.NextSparse()
		if err == io.EOF {
			if i != de.N {
				t.Fatalf("%d sparse rows, %d in the file", i, de.N)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		row := make([]float64, 6)
		for p, c := range cols {
			if p > 0 && c <= cols[p-1] {
				t.Fatalf("row %d: columns %v", i, cols)
			}
			row[c] = vals[p]
		}
		if !slices.Equal(row, de.Row(i)) || label != de.Labels[i] || y != float64(label) {
			t.Fatalf("row %d: sparse %v (label %d), dense %v (%d)", i, row, label, de.Row(i), de.Labels[i])
		}
		if err := rs.AddSparse(cols, vals); err != nil {
			t.Fatal(err)
		}
	}
	want, got := must(FitScaler(de)), rs.Scaler()
	for j := range want.Scale {
		if got.Mean[j] != 0 || math.Abs(got.Scale[j]-want.Scale[j]) > 1e-14*want.Scale[j] {
			t.Fatalf("feature %d: running scale %v, FitScaler %v", j, got.Scale[j], want.Scale[j])
		}
	}
	if ma, want := rs.MaxAbs(), must(FitMaxAbs(de)); !slices.Equal(ma.Scale, want.Scale) || !slices.Equal(ma.Mean, want.Mean) {
		t.Fatalf("running max-abs %v/%v, FitMaxAbs %v/%v", ma.Mean, ma.Scale, want.Mean, want.Scale)
	}
	// The dense rows give the same scalings.
	rd := NewRunningScaler[float64](6)
	for i := range de.N {
		if err := rd.Add(de.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if ma, want := rd.MaxAbs(), must(FitMaxAbs(de)); !slices.Equal(ma.Scale, want.Scale) {
		t.Fatalf("running max-abs of dense rows %v, FitMaxAbs %v", ma.Scale, want.Scale)
	}
	for j, v := range rd.Scaler().Scale {
		if w := must(FitScaler(de)).Scale[j]; math.Abs(v-w) > 1e-14*w {
			t.Fatalf("feature %d: running scale of dense rows %v, FitScaler %v", j, v, w)
		}
	}
	if err := rd.Add(make([]float64, 5)); err == nil {
		t.Error("a row of 5 features accepted of 6")
	}
	if err := rs.AddSparse([]uint32{6}, []float64{1}); err == nil {
		t.Error("column 6 of 6 features accepted")
	}
	// A bad line is an error naming it.
	st, _ = NewLIBSVMStream[float64](strings.NewReader("1 1:2\n1 3:1 2:1\n"), "b.svm", opt)
	if _, _, _, _, err := st.NextSparse(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := st.NextSparse(); err == nil || !strings.Contains(err.Error(), "b.svm:2") {
		t.Errorf("decreasing indices: %v", err)
	}
	// CSV: the non-zeros of the dense row.
	cs, err := NewCSVStream[float64](strings.NewReader("a,b,c,y\n0,2,0,1\n3,0,4,0\n"), "s.csv", CSVOptions{Task: Classification})
	if err != nil {
		t.Fatal(err)
	}
	cols, vals, _, label, err := cs.NextSparse()
	if err != nil || !slices.Equal(cols, []uint32{1}) || !slices.Equal(vals, []float64{2}) || label != 1 {
		t.Fatalf("CSV row 1: %v %v %d %v", cols, vals, label, err)
	}
}
