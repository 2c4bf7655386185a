package dataset

import (
	"math"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/internal/rng"
)

func TestSyntheticClassification(t *testing.T) {
	t.Parallel()
	ds, minority, err := SyntheticClassificationGroups[float64](SynthClassOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 6000 || ds.D != 20 || ds.K() != 2 || len(minority) != 6000 || ds.Name != "synthetic-classification" {
		t.Fatalf("N=%d D=%d K=%d", ds.N, ds.D, ds.K())
	}
	var nMin, shifted, pos int
	for i, m := range minority {
		if m {
			nMin++
			if ds.Row(i)[ds.D-1] > 1.5 {
				shifted++
			}
		}
		pos += int(ds.Labels[i])
	}
	// Binomial(6000, 0.1): sd ≈ 23, so ±100 is a >4σ tolerance.
	if nMin < 500 || nMin > 700 {
		t.Errorf("%d minority rows, want about 600", nMin)
	}
	if float64(shifted) < 0.9*float64(nMin) {
		t.Errorf("only %d of %d minority rows are shifted in the last feature", shifted, nMin)
	}
	if pos < 2800 || pos > 3200 {
		t.Errorf("%d positive labels of 6000, want balanced classes", pos)
	}

	again, _ := SyntheticClassification[float64](SynthClassOptions{Seed: 7})
	if !slices.Equal(ds.X, again.X) || !slices.Equal(ds.Labels, again.Labels) {
		t.Error("same seed, different data")
	}
	other, _ := SyntheticClassification[float64](SynthClassOptions{Seed: 8})
	if slices.Equal(ds.X, other.X) {
		t.Error("different seeds, same data")
	}
	f32, _ := SyntheticClassification[float32](SynthClassOptions{Seed: 7})
	for i, v := range f32.X {
		if v != float32(ds.X[i]) {
			t.Fatalf("float32 X[%d] = %v, float64 %v", i, v, ds.X[i])
		}
	}
	if !slices.Equal(f32.Labels, ds.Labels) {
		t.Error("float32 and float64 labels differ")
	}
}

func TestSyntheticClassificationConfig(t *testing.T) {
	t.Parallel()
	ds, minority, err := SyntheticClassificationGroups[float32](SynthClassOptions{N: 4000, D: 9, Classes: 4, Minority: 0.3, Noise: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 4000 || ds.D != 9 || ds.K() != 4 || !slices.Equal(ds.Classes, []string{"0", "1", "2", "3"}) {
		t.Fatalf("N=%d D=%d classes %q", ds.N, ds.D, ds.Classes)
	}
	frac := 0.0
	for _, m := range minority {
		if m {
			frac++
		}
	}
	if frac /= 4000; math.Abs(frac-0.3) > 0.03 {
		t.Errorf("minority fraction %v, want 0.3", frac)
	}
	// Without label noise, the core features predict every majority label
	// far better than chance.
	correct := 0
	for i := range ds.N {
		if argmax(toFloat64(ds.Row(i)[:4])) == int(ds.Labels[i]) {
			correct++
		}
	}
	if correct < 3000 {
		t.Errorf("core features predict %d of 4000 labels", correct)
	}
	for _, bad := range []SynthClassOptions{
		{N: -1}, {D: 4}, {Classes: 1}, {Classes: 10}, {Minority: 1}, {Minority: -0.1},
		{Noise: 1}, {Noise: math.NaN()}, {Shift: math.Inf(1)},
	} {
		if _, err := SyntheticClassification[float64](bad); err == nil {
			t.Errorf("config %+v: no error", bad)
		}
	}
}

func toFloat64[T Float](x []T) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

func TestSyntheticRegression(t *testing.T) {
	t.Parallel()
	ds, group, err := SyntheticRegressionGroups[float64](SynthRegOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 6000 || ds.D != 20 || ds.Task != Regression || len(ds.Y) != 6000 || ds.Labels != nil {
		t.Fatalf("N=%d D=%d task %v", ds.N, ds.D, ds.Task)
	}
	// Fit least squares on the majority to recover β, then compare the
	// residuals of the two groups: the subgroup's must be much larger, and
	// the majority's heavy-tailed (kurtosis well above the normal's 3).
	beta := leastSquares(ds, group, false)
	var res [2][]float64
	for i := range ds.N {
		r := ds.Y[i]
		for j, v := range ds.Row(i) {
			r -= beta[j] * v
		}
		g := 0
		if group[i] {
			g = 1
		}
		res[g] = append(res[g], r)
	}
	frac := float64(len(res[1])) / float64(ds.N)
	if math.Abs(frac-0.1) > 0.02 {
		t.Errorf("subgroup fraction %v, want 0.1", frac)
	}
	mad := func(r []float64) float64 {
		a := make([]float64, len(r))
		for i, v := range r {
			a[i] = math.Abs(v)
		}
		slices.Sort(a)
		return a[len(a)/2]
	}
	if ratio := mad(res[1]) / mad(res[0]); ratio < 3 || ratio > 8 {
		t.Errorf("subgroup/majority residual ratio %v, want about 5", ratio)
	}
	var m2, m4 float64
	for _, r := range res[0] {
		m2 += r * r
		m4 += r * r * r * r
	}
	n := float64(len(res[0]))
	if kurt := (m4 / n) / ((m2 / n) * (m2 / n)); kurt < 4 {
		t.Errorf("majority residual kurtosis %v; want heavy tails", kurt)
	}

	again, _ := SyntheticRegression[float64](SynthRegOptions{Seed: 3})
	if !slices.Equal(ds.Y, again.Y) || !slices.Equal(ds.X, again.X) {
		t.Error("same seed, different data")
	}
	none, g0, err := SyntheticRegressionGroups[float32](SynthRegOptions{N: 100, D: 3, Minority: -1, Seed: 3})
	if err != nil || none.N != 100 || none.D != 3 || slices.Contains(g0, true) {
		t.Errorf("no subgroup: %v %v", err, g0)
	}
	for _, bad := range []SynthRegOptions{
		{N: -5}, {D: -1}, {Dof: -1}, {Noise: math.Inf(1)}, {Minority: 1}, {Hetero: -2}, {Shift: math.NaN()},
	} {
		if _, err := SyntheticRegression[float64](bad); err == nil {
			t.Errorf("config %+v: no error", bad)
		}
	}
}

// leastSquares solves the normal equations on the rows whose group is g.
func leastSquares(ds *Dataset[float64], group []bool, g bool) []float64 {
	d := ds.D
	a := make([]float64, d*d)
	b := make([]float64, d)
	for i := range ds.N {
		if group[i] != g {
			continue
		}
		x := ds.Row(i)
		for j := range d {
			b[j] += x[j] * ds.Y[i]
			for k := range d {
				a[j*d+k] += x[j] * x[k]
			}
		}
	}
	// Gaussian elimination; the matrix is well conditioned.
	for c := range d {
		for r := c + 1; r < d; r++ {
			f := a[r*d+c] / a[c*d+c]
			for k := c; k < d; k++ {
				a[r*d+k] -= f * a[c*d+k]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, d)
	for r := d - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < d; k++ {
			s -= a[r*d+k] * x[k]
		}
		x[r] = s / a[r*d+r]
	}
	return x
}

// TestSyntheticClassificationFavoursCVaR checks the property the generator
// is designed for, with the paper's protocol: logistic regression trained
// by minibatch SGD (batch 512, step 0.01, 100 epochs) on the mean loss and
// on CVaR_0.1 (the subgradient of each minibatch's CVaR), evaluated on
// fresh data.
func TestSyntheticClassificationFavoursCVaR(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("trains two models")
	}
	train, err := SyntheticClassification[float64](SynthClassOptions{N: 4000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	test, minority, err := SyntheticClassificationGroups[float64](SynthClassOptions{N: 6000, Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	wMean := trainLogistic(train, 1, 11)
	wCVaR := trainLogistic(train, 0.1, 11)
	majMean, minMean := groupAccuracy(test, minority, wMean)
	majCVaR, minCVaR := groupAccuracy(test, minority, wCVaR)
	t.Logf("mean loss: majority %.3f, minority %.3f", majMean, minMean)
	t.Logf("CVaR_0.1:  majority %.3f, minority %.3f", majCVaR, minCVaR)
	if minMean > 0.8 {
		t.Errorf("the mean-loss model reaches %.3f on the minority; the subgroup should be sacrificed", minMean)
	}
	if minCVaR < minMean+0.08 {
		t.Errorf("CVaR model: minority accuracy %.3f, mean-loss model %.3f; want a clear gain", minCVaR, minMean)
	}
	if majCVaR < 0.95 || majMean < 0.95 {
		t.Errorf("majority accuracy %.3f (mean loss), %.3f (CVaR); want both high", majMean, majCVaR)
	}
}

// trainLogistic runs minibatch SGD on a binary logistic model w·x + b; for
// alpha < 1 each step follows the mean gradient of the ⌈alpha·batch⌉
// largest losses of the minibatch.
func trainLogistic(ds *Dataset[float64], alpha float64, seed uint64) []float64 {
	const (
		epochs = 100
		batch  = 512
		step   = 0.01
	)
	d := ds.D
	w := make([]float64, d+1)
	grad := make([]float64, d+1)
	margin := make([]float64, batch)
	order := make([]int, batch)
	r := rng.New(seed, 99)
	top := int(math.Ceil(alpha * batch))
	for range epochs {
		perm := r.Perm(ds.N)
		for s := 0; s+batch <= ds.N; s += batch {
			rows := perm[s : s+batch]
			for k, i := range rows {
				margin[k] = (2*float64(ds.Labels[i]) - 1) * score(w, ds.Row(i))
				order[k] = k
			}
			// The largest logistic losses are the smallest margins.
			slices.SortFunc(order, func(a, b int) int {
				switch {
				case margin[a] < margin[b]:
					return -1
				case margin[a] > margin[b]:
					return 1
				}
				return a - b
			})
			clear(grad)
			for _, k := range order[:top] {
				i := rows[k]
				y := 2*float64(ds.Labels[i]) - 1
				c := -y / (1 + math.Exp(margin[k])) / float64(top)
				for j, v := range ds.Row(i) {
					grad[j] += c * v
				}
				grad[d] += c
			}
			for j := range w {
				w[j] -= step * grad[j]
			}
		}
	}
	return w
}

func score(w, x []float64) float64 {
	s := w[len(x)]
	for j, v := range x {
		s += w[j] * v
	}
	return s
}

func groupAccuracy(ds *Dataset[float64], minority []bool, w []float64) (maj, min float64) {
	var n, ok [2]float64
	for i := range ds.N {
		g := 0
		if minority[i] {
			g = 1
		}
		n[g]++
		if (score(w, ds.Row(i)) > 0) == (ds.Labels[i] == 1) {
			ok[g]++
		}
	}
	return ok[0] / n[0], ok[1] / n[1]
}
