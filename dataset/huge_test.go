package dataset

import (
	"math"
	"strings"
	"testing"
)

// hugeRows is a column of values near float64's limit beside an ordinary
// one, and the same data divided by 2^1000, where nothing overflows.
func hugeRows() (huge, small *Dataset[float64]) {
	big := []float64{1.79e308, -1.79e308, 1.79e308, -1.7e308, 1.79e308, 1.79e308}
	huge = &Dataset[float64]{Name: "huge.csv", N: len(big), D: 2, Task: Regression, Features: []string{"h", "o"}}
	small = &Dataset[float64]{Name: "small.csv", N: len(big), D: 2, Task: Regression}
	for i, v := range big {
		huge.X = append(huge.X, v, float64(i))
		small.X = append(small.X, math.Ldexp(v, -1000), float64(i))
		huge.Y = append(huge.Y, v)
		small.Y = append(small.Y, math.Ldexp(v, -1000))
	}
	return huge, small
}

// TestHugeValuesStandardize: values up to ±1.79e308 are standardised
// without overflow: the means and deviations are those of the data divided
// by 2^1000 (where nothing overflows) times 2^1000, exactly, in memory,
// for targets and sparse scaling; one row at a time to rounding; and the
// standardised values are finite z-scores.
func TestHugeValuesStandardize(t *testing.T) {
	t.Parallel()
	huge, small := hugeRows()
	up := func(v float64) float64 { return math.Ldexp(v, 1000) }
	st, err := FitStandardizer(huge)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := FitStandardizer(small)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mean[0] != up(ss.Mean[0]) || st.Scale[0] != up(ss.Scale[0]) || st.Mean[1] != ss.Mean[1] || st.Scale[1] != ss.Scale[1] {
		t.Errorf("FitStandardizer: %v %v; want %v×2^1000, %v×2^1000", st.Mean, st.Scale, ss.Mean, ss.Scale)
	}
	if ts, tsSmall := must(FitTargetScaler(huge)), must(FitTargetScaler(small)); ts.Mean != up(tsSmall.Mean) || ts.Scale != up(tsSmall.Scale) {
		t.Errorf("FitTargetScaler %+v; want %+v×2^1000", ts, tsSmall)
	}
	if sc, scSmall := must(FitScaler(huge)), must(FitScaler(small)); sc.Scale[0] != up(scSmall.Scale[0]) || sc.Scale[1] != scSmall.Scale[1] {
		t.Errorf("FitScaler %v; want %v×2^1000", sc.Scale, scSmall.Scale)
	}
	var rs RunningStandardizer[float64]
	var rt RunningTargetScaler
	scaler := NewRunningScaler[float64](2)
	for i := range huge.N {
		rs.Add(huge.Row(i))
		rt.Add(huge.Y[i])
		scaler.Add(huge.Row(i))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	run := rs.Standardizer()
	if !near(run.Mean[0], st.Mean[0]) || !near(run.Scale[0], st.Scale[0]) || !near(run.Scale[1], st.Scale[1]) {
		t.Errorf("RunningStandardizer %v %v; want %v %v", run.Mean, run.Scale, st.Mean, st.Scale)
	}
	if ts := rt.TargetScaler(); !near(ts.Mean, st.Mean[0]) || !near(ts.Scale, st.Scale[0]) {
		t.Errorf("RunningTargetScaler %+v", ts)
	}
	if sc := scaler.Scaler(); !near(sc.Scale[0], must(FitScaler(huge)).Scale[0]) {
		t.Errorf("RunningScaler %v", sc.Scale)
	}
	if err := StandardizeInPlace(st, huge); err != nil {
		t.Fatal(err)
	}
	var sum, sq float64
	for i := range huge.N {
		z := huge.X[2*i]
		if !finite(z) {
			t.Fatalf("row %d standardised to %v", i, z)
		}
		sum, sq = sum+z, sq+z*z
	}
	if n := float64(huge.N); math.Abs(sum/n) > 1e-12 || math.Abs(sq/n-1) > 1e-12 {
		t.Errorf("standardised column: mean %v, variance %v; want 0, 1", sum/n, sq/n)
	}
	// (x − mean)/scale cannot overflow in the subtraction either.
	if z := zscore(1.7e308, -1.7e308, 1.7e308); z != 2 {
		t.Errorf("zscore of 1.7e308 from a mean of -1.7e308: %v, want 2", z)
	}
}

// TestPreprocessingErrorsNameFeature: a preprocessing that cannot be
// applied is an error naming the data and the feature.
func TestPreprocessingErrorsNameFeature(t *testing.T) {
	t.Parallel()
	huge, _ := hugeRows()
	err := StandardizeInPlace(&Standardizer{Mean: []float64{0, math.NaN()}, Scale: []float64{1, 1}}, huge)
	wantErr(t, err, `huge.csv: feature 1 ("o"): mean NaN`)
	err = PreprocessDataset(&Preprocessing{Mean: []float64{math.Inf(1), 0}, Scale: []float64{1, 1}}, huge)
	wantErr(t, err, `huge.csv: feature 0 ("h"): mean +Inf`)
	if err := PreprocessDataset(&Preprocessing{Mean: []float64{0}, Scale: []float64{1}}, huge); err == nil || !strings.HasPrefix(err.Error(), "huge.csv: ") {
		t.Errorf("preprocessing of the wrong width: %v", err)
	}
}
