package dataset

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mergeRows are rows of 4 features: a large mean, a constant, one near
// float64's limit (kept in units) and one mostly zero, given sparse from
// row 60 on.
func mergeRows(n int) [][]float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = []float64{1e6 + rng.NormFloat64(), 7, 1e300 * rng.NormFloat64(), 0}
		if i%5 == 0 {
			rows[i][3] = rng.NormFloat64()
		}
	}
	return rows
}

// addScaler adds rows[lo:hi] to s, dense before row 60, as non-zeros after.
func addScaler(t *testing.T, s *RunningScaler[float64], rows [][]float64, lo, hi int) {
	t.Helper()
	for i := lo; i < hi; i++ {
		var err error
		if i < 60 {
			err = s.Add(rows[i])
		} else {
			var cols []uint32
			var vals []float64
			for j, v := range rows[i] {
				if v != 0 {
					cols, vals = append(cols, uint32(j)), append(vals, v)
				}
			}
			err = s.AddSparse(cols, vals)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func near(a, b []float64, rel float64) bool {
	for j := range a {
		if math.Abs(a[j]-b[j]) > rel*math.Max(1, math.Abs(b[j])) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestRunningScalerMerge checks that two halves merged agree with one pass:
// MaxAbs bit for bit, the deviations to rounding; that merging an empty
// scaler changes nothing; and that the same merge gives the same bits.
func TestRunningScalerMerge(t *testing.T) {
	t.Parallel()
	rows := mergeRows(200)
	one := NewRunningScaler[float64](4)
	addScaler(t, one, rows, 0, 200)
	merged := func() *RunningScaler[float64] {
		a, b := NewRunningScaler[float64](4), &RunningScaler[float64]{}
		b.Widen(4)
		addScaler(t, a, rows, 0, 90)
		addScaler(t, b, rows, 90, 200)
		a.Merge(b)
		return a
	}
	m := merged()
	if m.N() != 200 || !slices.Equal(m.MaxAbs().Scale, one.MaxAbs().Scale) {
		t.Errorf("merged max-abs %v of %d rows; one pass %v", m.MaxAbs().Scale, m.N(), one.MaxAbs().Scale)
	}
	for _, c := range []struct{ got, want *Standardizer }{{m.Scaler(), one.Scaler()}, {m.Standardizer(), one.Standardizer()}} {
		if !near(c.got.Mean, c.want.Mean, 1e-12) || !near(c.got.Scale, c.want.Scale, 1e-9) {
			t.Errorf("merged %+v; one pass %+v", c.got, c.want)
		}
	}
	b1, _ := m.MarshalBinary()
	b2, _ := merged().MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Error("the same merge gave different bits")
	}
	empty := &RunningScaler[float64]{}
	empty.Merge(m)
	m.Merge(&RunningScaler[float64]{})
	for _, s := range []*RunningScaler[float64]{empty, m} {
		if b, _ := s.MarshalBinary(); !bytes.Equal(b, b1) {
			t.Error("merging with an empty scaler changed the bits")
		}
	}
	var back RunningScaler[float64]
	if err := back.UnmarshalBinary(b1); err != nil {
		t.Fatal(err)
	}
	if b, _ := back.MarshalBinary(); !bytes.Equal(b, b1) || !slices.Equal(back.Scaler().Scale, m.Scaler().Scale) {
		t.Error("the round trip changed the scaler")
	}
	if err := back.UnmarshalBinary([]byte("not gob")); err == nil {
		t.Error("bytes that are no encoding were accepted")
	}
}

// TestRunningScalerStandardizer checks the z-score of dense rows against
// RunningStandardizer's, bit for bit, and of rows given sparse against the
// same rows given dense, to rounding.
func TestRunningScalerStandardizer(t *testing.T) {
	t.Parallel()
	rows := mergeRows(200)
	var run RunningStandardizer[float64]
	dense := NewRunningScaler[float64](4)
	for _, r := range rows {
		if err := run.Add(r); err != nil {
			t.Fatal(err)
		}
		if err := dense.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	want, got := run.Standardizer(), dense.Standardizer()
	if !slices.Equal(got.Mean, want.Mean) || !slices.Equal(got.Scale, want.Scale) {
		t.Errorf("dense rows: %+v; RunningStandardizer %+v", got, want)
	}
	mixed := NewRunningScaler[float64](4)
	addScaler(t, mixed, rows, 0, 200)
	if s := mixed.Standardizer(); !near(s.Mean, want.Mean, 1e-12) || !near(s.Scale, want.Scale, 1e-9) || s.Scale[1] != 1 {
		t.Errorf("sparse rows: %+v; dense %+v", s, want)
	}
}

// TestRunningStandardizerMerge checks two halves merged against one pass.
func TestRunningStandardizerMerge(t *testing.T) {
	t.Parallel()
	rows := mergeRows(200)
	var one, a, b RunningStandardizer[float64]
	for i, r := range rows {
		must0(t, one.Add(r))
		if i < 70 {
			must0(t, a.Add(r))
		} else {
			must0(t, b.Add(r))
		}
	}
	must0(t, a.Merge(&b))
	got, want := a.Standardizer(), one.Standardizer()
	if a.N() != 200 || !near(got.Mean, want.Mean, 1e-12) || !near(got.Scale, want.Scale, 1e-9) {
		t.Errorf("merged %+v; one pass %+v", got, want)
	}
	var narrow RunningStandardizer[float64]
	must0(t, narrow.Add([]float64{1}))
	if err := a.Merge(&narrow); err == nil {
		t.Error("rows of another width were merged")
	}
}

func must0(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunningTargetScalerMerge checks merged targets, one near float64's
// limit, against one pass, and the encoding's round trip.
func TestRunningTargetScalerMerge(t *testing.T) {
	t.Parallel()
	ys := []float64{3, 5, -2, 1e300, 8, 0.5, -1e299}
	var one, a, b RunningTargetScaler
	for i, y := range ys {
		one.Add(y)
		if i < 3 {
			a.Add(y)
		} else {
			b.Add(y)
		}
	}
	a.Merge(&b)
	got, want := a.TargetScaler(), one.TargetScaler()
	if !near([]float64{got.Mean, got.Scale}, []float64{want.Mean, want.Scale}, 1e-12*want.Scale) {
		t.Errorf("merged %+v; one pass %+v", got, want)
	}
	enc, err := a.MarshalBinary()
	must0(t, err)
	var back RunningTargetScaler
	must0(t, back.UnmarshalBinary(enc))
	if back.TargetScaler() != got {
		t.Errorf("round trip %+v, want %+v", back.TargetScaler(), got)
	}
}

// TestTaskInferenceMerge checks that merged inferences give the task and
// classes of one pass exactly, in either order.
func TestTaskInferenceMerge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b    []float64
		task    Task
		classes []string
	}{
		{[]float64{1, -1}, []float64{2, 1}, Classification, []string{"-1", "1", "2"}},
		{[]float64{0, 1}, []float64{0.5}, Regression, nil},
		{[]float64{}, []float64{3, 4}, Classification, []string{"3", "4"}},
		{seq(0, MaxAutoClasses), seq(MaxAutoClasses, 2*MaxAutoClasses), Regression, nil},
		{seq(0, MaxAutoClasses/2), seq(MaxAutoClasses/2, MaxAutoClasses), Classification, nil},
	} {
		for _, order := range [][2][]float64{{c.a, c.b}, {c.b, c.a}} {
			var x, y TaskInference
			for _, v := range order[0] {
				x.Add(v)
			}
			for _, v := range order[1] {
				y.Add(v)
			}
			enc, err := y.MarshalBinary()
			must0(t, err)
			var back TaskInference
			must0(t, back.UnmarshalBinary(enc))
			x.Merge(&back)
			want := c.classes
			if want == nil && c.task == Classification {
				want = classTexts(seq(0, MaxAutoClasses))
			}
			if x.Task() != c.task || !slices.Equal(x.Classes(), want) {
				t.Errorf("%v then %v: %v %v, want %v %v", order[0], order[1], x.Task(), x.Classes(), c.task, want)
			}
		}
	}
	var bad TaskInference
	enc, _ := gobBytes(inferenceWire{Distinct: []float64{0.5}})
	if err := bad.UnmarshalBinary(enc); err == nil {
		t.Error("an encoding of a fractional class was accepted")
	}
}

func seq(lo, hi int) []float64 {
	var s []float64
	for v := lo; v < hi; v++ {
		s = append(s, float64(v))
	}
	return s
}
