package dataset

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRunningStandardizer checks the one-pass fit against the two-pass
// FitStandardizer on the same rows: equal to within rounding, constant
// columns mapped to 0 by both.
func TestRunningStandardizer(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 500, 3
	ds := &Dataset[float64]{N: n, D: d, X: make([]float64, n*d)}
	var run RunningStandardizer[float64]
	var ys RunningTargetScaler
	y := make([]float64, n)
	for i := range n {
		row := ds.Row(i)
		row[0] = 1e6 + rng.NormFloat64() // large mean, unit spread
		row[1] = 7                       // constant
		row[2] = 3 * rng.NormFloat64()
		y[i] = 10 + 2*rng.NormFloat64()
		if err := run.Add(row); err != nil {
			t.Fatal(err)
		}
		ys.Add(y[i])
	}
	if run.N() != n {
		t.Fatalf("N = %d, want %d", run.N(), n)
	}
	got := run.Standardizer()
	want, err := FitStandardizer(ds)
	if err != nil {
		t.Fatal(err)
	}
	for j := range d {
		if math.Abs(got.Mean[j]-want.Mean[j]) > 1e-9*math.Max(1, math.Abs(want.Mean[j])) || math.Abs(got.Scale[j]-want.Scale[j]) > 1e-9*want.Scale[j] {
			t.Errorf("feature %d: running mean %v scale %v; two-pass %v, %v", j, got.Mean[j], got.Scale[j], want.Mean[j], want.Scale[j])
		}
	}
	if got.Scale[1] != 1 || got.Mean[1] != 7 {
		t.Errorf("constant column: mean %v scale %v, want 7 and 1", got.Mean[1], got.Scale[1])
	}
	tsWant := must(FitTargetScaler(&Dataset[float64]{Y: y}))
	if ts := ys.TargetScaler(); math.Abs(ts.Mean-tsWant.Mean) > 1e-12*tsWant.Mean || math.Abs(ts.Scale-tsWant.Scale) > 1e-12*tsWant.Scale {
		t.Errorf("targets: running %+v, two-pass %+v", ts, tsWant)
	}
	if err := run.Add([]float64{1, 2}); err == nil {
		t.Error("a row of another width was accepted")
	}
	var constant RunningTargetScaler
	constant.Add(4)
	constant.Add(4)
	if ts := constant.TargetScaler(); ts != (TargetScaler{Mean: 4, Scale: 1}) {
		t.Errorf("constant targets: %+v, want mean 4, scale 1", ts)
	}
}

// TestTaskInference checks the streaming inference against TaskAuto's rules
// and the class texts the in-memory readers give numeric labels.
func TestTaskInference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		values  []float64
		task    Task
		classes []string
	}{
		{[]float64{1, -1, 1, -1}, Classification, []string{"-1", "1"}},
		{[]float64{2, 0, 1, 2, 0}, Classification, []string{"0", "1", "2"}},
		{[]float64{math.Copysign(0, -1), 1}, Classification, []string{"0", "1"}},
		{[]float64{1, 2.5, 3}, Regression, nil},
		{[]float64{5, 5}, Classification, []string{"5"}},
	} {
		var ti TaskInference
		for _, v := range c.values {
			ti.Add(v)
		}
		if ti.Task() != c.task || !slices.Equal(ti.Classes(), c.classes) {
			t.Errorf("%v: task %v, classes %q; want %v, %q", c.values, ti.Task(), ti.Classes(), c.task, c.classes)
		}
		if inferTaskValues(c.values) != c.task {
			t.Errorf("%v: inferTaskValues disagrees", c.values)
		}
		if c.task == Classification {
			if _, classes := numericClasses(c.values); !slices.Equal(classes, c.classes) {
				t.Errorf("%v: in-memory classes %q, streaming %q", c.values, classes, c.classes)
			}
		}
	}
	var many TaskInference
	for i := range MaxAutoClasses + 5 {
		many.Add(float64(i))
	}
	if many.Task() != Regression || many.Classes() != nil || len(many.distinct) > MaxAutoClasses+1 {
		t.Errorf("%d distinct integers: task %v, %d kept", MaxAutoClasses+5, many.Task(), len(many.distinct))
	}
}
