package dataset

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"
)

// columnStats returns the mean and population standard deviation of column j.
func columnStats[T Float](ds *Dataset[T], j int) (mean, sd float64) {
	for i := range ds.N {
		mean += float64(ds.Row(i)[j])
	}
	mean /= float64(ds.N)
	for i := range ds.N {
		e := float64(ds.Row(i)[j]) - mean
		sd += e * e
	}
	return mean, math.Sqrt(sd / float64(ds.N))
}

func TestStandardizer(t *testing.T) {
	t.Parallel()
	ds, err := SyntheticRegression[float64](SynthRegOptions{N: 3000, D: 6, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Give the columns very different locations and scales, and one a
	// large offset that a naive one-pass variance would get wrong.
	for i := range ds.N {
		r := ds.Row(i)
		r[0] = 1e6 + r[0]*1e-2
		r[1] *= 1000
		r[2] = 7 // constant
	}
	train, val, err := Split(ds, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitStandardizer(train)
	if err != nil {
		t.Fatal(err)
	}
	if err := StandardizeInPlace(s, train); err != nil {
		t.Fatal(err)
	}
	for j := range train.D {
		mean, sd := columnStats(train, j)
		wantSD := 1.0
		if j == 2 {
			wantSD = 0
		}
		if math.Abs(mean) > 1e-7 || math.Abs(sd-wantSD) > 1e-7 {
			t.Errorf("column %d: mean %g, sd %g after standardizing; want 0, %g", j, mean, sd, wantSD)
		}
	}
	if s.Scale[2] != 1 || s.Mean[2] != 7 {
		t.Errorf("constant column: mean %v scale %v; want 7, 1", s.Mean[2], s.Scale[2])
	}
	// Validation data use the training statistics: close to, not exactly, 0/1.
	if err := StandardizeInPlace(s, val); err != nil {
		t.Fatal(err)
	}
	if mean, sd := columnStats(val, 1); math.Abs(mean) > 0.1 || math.Abs(sd-1) > 0.1 {
		t.Errorf("validation column 1: mean %g sd %g", mean, sd)
	}

	// A saved standardizer round-trips through JSON with the documented keys.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]float64
	if err := json.Unmarshal(b, &m); err != nil || len(m["mean"]) != 6 || len(m["scale"]) != 6 {
		t.Errorf("JSON %s", b)
	}
}

func TestStandardizeRow(t *testing.T) {
	t.Parallel()
	s := &Standardizer{Mean: []float64{1, -2}, Scale: []float64{2, 0.5}}
	x := []float32{5, -1}
	if err := StandardizeRow(s, x); err != nil || !slices.Equal(x, []float32{2, 2}) {
		t.Errorf("got %v, %v", x, err)
	}
	y := []float32{1, 2, 3}
	wantErr(t, StandardizeRow(s, y), "2 features", "3")
	if !slices.Equal(y, []float32{1, 2, 3}) {
		t.Error("a failed StandardizeRow changed its input")
	}
	ds := &Dataset[float64]{Name: "w", X: make([]float64, 3), N: 1, D: 3}
	wantErr(t, StandardizeInPlace(s, ds), "2 features", "3")
	wantErr(t, StandardizeRow(&Standardizer{Mean: []float64{0}, Scale: []float64{0}}, []float64{1}), "positive scale")
	wantErr(t, StandardizeRow(&Standardizer{Mean: []float64{0}}, []float64{1}), "1 means but 0 scales")
	wantErr(t, StandardizeRow[float64](nil, []float64{1}), "nil")
}

func TestFitStandardizerEdgeCases(t *testing.T) {
	t.Parallel()
	empty := &Dataset[float32]{D: 2, X: nil}
	s, err := FitStandardizer(empty)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Mean, []float64{0, 0}) || !slices.Equal(s.Scale, []float64{1, 1}) {
		t.Errorf("empty: %+v", s)
	}
	one := &Dataset[float32]{N: 1, D: 2, X: []float32{3, -4}}
	if s, err = FitStandardizer(one); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Mean, []float64{3, -4}) || !slices.Equal(s.Scale, []float64{1, 1}) {
		t.Errorf("one row: %+v", s)
	}
	// 0.1 is inexact in binary: the column must still be seen as constant.
	tenth := &Dataset[float64]{N: 3, D: 1, X: []float64{0.1, 0.1, 0.1}}
	if s, err = FitStandardizer(tenth); err != nil {
		t.Fatal(err)
	}
	StandardizeInPlace(s, tenth)
	if s.Scale[0] != 1 || !slices.Equal(tenth.X, []float64{0, 0, 0}) {
		t.Errorf("constant 0.1: %+v → %v", s, tenth.X)
	}
}

func TestScaleUnit(t *testing.T) {
	t.Parallel()
	ds := &Dataset[float32]{Name: "img", N: 1, D: 3, X: []float32{0, 51, 255}}
	if scaled, err := ScaleUnit(ds); err != nil || !scaled || !slices.Equal(ds.X, []float32{0, 0.2, 1}) {
		t.Errorf("scaled %v err %v X %v", scaled, err, ds.X)
	}
	if scaled, err := ScaleUnit(ds); err != nil || scaled || !slices.Equal(ds.X, []float32{0, 0.2, 1}) {
		t.Errorf("second call: scaled %v err %v X %v", scaled, err, ds.X)
	}
	bad := &Dataset[float64]{Name: "img", N: 1, D: 2, X: []float64{-1, 3}}
	_, err := ScaleUnit(bad)
	wantErr(t, err, "img:", "[-1, 3]", "[0,255]")
	if !slices.Equal(bad.X, []float64{-1, 3}) {
		t.Error("a failed ScaleUnit changed the data")
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	ds, err := SyntheticClassification[float64](SynthClassOptions{N: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, val, err := Split(ds, 0, 42)
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 200 || val.N != 100 || train.D != ds.D {
		t.Fatalf("sizes %d/%d, want 200/100", train.N, val.N)
	}
	train2, val2, _ := Split(ds, 0, 42)
	if !slices.Equal(train.X, train2.X) || !slices.Equal(val.Labels, val2.Labels) {
		t.Error("same seed, different split")
	}
	train3, _, _ := Split(ds, 0, 43)
	if slices.Equal(train.X, train3.X) {
		t.Error("different seeds, same split")
	}
	// Every row lands on exactly one side: compare the multisets of first
	// features.
	all := append(slices.Clone(column(train, 0)), column(val, 0)...)
	slices.Sort(all)
	orig := slices.Clone(column(ds, 0))
	slices.Sort(orig)
	if !slices.Equal(all, orig) {
		t.Error("split is not a partition of the rows")
	}
	if err := train.Validate(); err != nil {
		t.Error(err)
	}

	two := ds.Subset([]int{0, 1})
	if tr, va, err := Split(two, 0.99, 1); err != nil || tr.N != 1 || va.N != 1 {
		t.Errorf("n=2, frac 0.99: %v", err)
	}
	_, _, err = Split(ds.Subset([]int{0}), 0, 1)
	wantErr(t, err, "1 samples cannot be split")
	for _, f := range []float64{-0.5, 1, 1.5, math.NaN()} {
		if _, _, err := Split(ds, f, 1); err == nil {
			t.Errorf("fraction %v: no error", f)
		}
	}
}

func column[T Float](ds *Dataset[T], j int) []T {
	c := make([]T, ds.N)
	for i := range c {
		c[i] = ds.Row(i)[j]
	}
	return c
}

// TestSplitter: the splitter is a split of exactly round(frac·N) training
// rows for every N, agrees with Split row by row, and is a permutation
// (every π value taken once).
func TestSplitter(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 4, 5, 7, 16, 17, 100, 1000, 4097} {
		for seed := range uint64(3) {
			sp, err := NewSplitter(n, 0, seed)
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]bool, n)
			train := 0
			for i := range n {
				p := sp.perm(uint64(i))
				if p >= uint64(n) || seen[p] {
					t.Fatalf("n %d: π(%d) = %d is out of range or taken twice", n, i, p)
				}
				seen[p] = true
				if sp.Train(i) {
					train++
				}
			}
			want := min(max(int(math.Round(2*float64(n)/3)), 1), n-1)
			if train != want || sp.NTrain() != want {
				t.Errorf("n %d seed %d: %d training rows, want %d", n, seed, train, want)
			}
		}
	}
	ds, _ := SyntheticRegression[float64](SynthRegOptions{N: 50, D: 2, Seed: 3})
	for i := range ds.N {
		ds.Y[i] = float64(i) // the row index
	}
	tr, va, _ := Split(ds, 0, 9)
	sp, _ := NewSplitter(50, 0, 9)
	var wantTr, wantVa []float64
	for i := range 50 {
		if sp.Train(i) {
			wantTr = append(wantTr, float64(i))
		} else {
			wantVa = append(wantVa, float64(i))
		}
	}
	if !slices.Equal(tr.Y, wantTr) || !slices.Equal(va.Y, wantVa) {
		t.Errorf("Split %v / %v; the splitter says %v / %v", tr.Y, va.Y, wantTr, wantVa)
	}
	if _, err := NewSplitter(1, 0, 1); err == nil {
		t.Error("a splitter of 1 row")
	}
}

func TestPreprocess(t *testing.T) {
	t.Parallel()
	p := &Preprocessing{Divide: 2, Mean: []float64{1, 0}, Scale: []float64{2, 4}}
	x := []float64{6, 8, 2, 0}
	if err := Preprocess(p, x, 2); err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 1, 0, 0}; !reflect.DeepEqual(x, want) {
		t.Errorf("got %v, want %v", x, want)
	}
	// The z-score step is StandardizeRow's.
	y := []float32{3.5, -1, 0.25, 7}
	z := append([]float32(nil), y...)
	if err := Preprocess(&Preprocessing{Mean: []float64{0.5, -2}, Scale: []float64{3, 0.7}}, y, 2); err != nil {
		t.Fatal(err)
	}
	s := &Standardizer{Mean: []float64{0.5, -2}, Scale: []float64{3, 0.7}}
	for i := 0; i < len(z); i += 2 {
		if err := StandardizeRow(s, z[i:i+2]); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(y, z) {
		t.Errorf("Preprocess gave %v, StandardizeRow %v", y, z)
	}
	for name, err := range map[string]error{
		"ragged":         Preprocess(p, []float32{1, 2, 3}, 2),
		"wrong width":    Preprocess(&Preprocessing{Mean: []float64{0}, Scale: []float64{1}}, x, 2),
		"nil":            Preprocess[float64](nil, []float64{1, 2}, 2),
		"d = 0":          Preprocess(&Preprocessing{}, []float64{1, 2}, 0),
		"negative":       Preprocess(&Preprocessing{Divide: -1}, []float64{1, 2}, 2),
		"zero scale":     Preprocess(&Preprocessing{Mean: []float64{0}, Scale: []float64{0}}, []float64{1}, 1),
		"Validate nil":   (*Preprocessing)(nil).Validate(2),
		"NaN target":     (&Preprocessing{TargetMean: math.NaN()}).Validate(2),
		"scales missing": (&Preprocessing{Mean: []float64{0, 0}}).Validate(2),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if s := (&Preprocessing{Divide: 255}).Standardizer(); s != nil {
		t.Errorf("Standardizer of a division only = %v, want nil", s)
	}
	if ts, ok := (&Preprocessing{TargetMean: 3, TargetScale: 2}).TargetScaler(); !ok || ts != (TargetScaler{Mean: 3, Scale: 2}) {
		t.Errorf("TargetScaler = %v, %v", ts, ok)
	}
	if _, ok := (&Preprocessing{}).TargetScaler(); ok {
		t.Error("TargetScaler reported for none")
	}
}

// TestFitStandardizerBadData: sparse data and an X shorter than N×D are
// errors naming the data set, not panics.
func TestFitStandardizerBadData(t *testing.T) {
	t.Parallel()
	sp := &Dataset[float64]{Name: "s.libsvm", N: 2, D: 3, Indptr: []int64{0, 1, 2}, Cols: []uint32{0, 2}, Vals: []float64{1, 2}}
	s, err := FitStandardizer(sp)
	wantErr(t, err, "s.libsvm", "sparse")
	if s != nil {
		t.Errorf("sparse: Standardizer %+v with the error", s)
	}
	short := &Dataset[float32]{Name: "short.csv", N: 2, D: 3, X: make([]float32, 5)}
	_, err = FitStandardizer(short)
	wantErr(t, err, "short.csv", "5 values for 2 rows of 3 features")
}
