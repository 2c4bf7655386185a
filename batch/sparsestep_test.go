package batch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// stepData returns sparse data of n rows over d columns, few enough that
// a minibatch repeats columns across its rows, with columns repeated within
// rows too, and empty rows: below perRow non-zeros a row.
func stepData(t *testing.T, rng *rand.Rand, n, d, perRow int, classify bool) *Data[float64] {
	t.Helper()
	indptr := []int64{0}
	var cols []uint32
	var vals []float64
	for i := 0; i < n; i++ {
		for range rng.IntN(perRow) {
			c := uint32(rng.IntN(d))
			if rng.IntN(5) == 0 && len(cols) > int(indptr[i]) {
				c = cols[len(cols)-1]
			}
			cols, vals = append(cols, c), append(vals, rng.NormFloat64())
		}
		indptr = append(indptr, int64(len(cols)))
	}
	y, labels, k := randomTargets(rng, n, classify)
	data, err := NewSparseData(indptr, cols, vals, n, d, y, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestStepSparse checks StepSparse against θ − η·g with g from Gradient,
// for the linear models and every objective, on rows listed (with repeats)
// and the first n: the same losses and Σ v_i, bit for bit; θ to 1e-12 of
// the coordinates' scale (the direct step adds each row's share into θ in
// turn, Gradient sums the shares first), untouched coordinates unchanged;
// the same bits on 1, 2 and 3 threads.
func TestStepSparse(t *testing.T) {
	t.Parallel()
	const n, d, b = 300, 40, 170
	const eta = 0.3
	rng := rand.New(rand.NewPCG(8, 8))
	models := []struct {
		model    Model[float64]
		classify bool
	}{
		{must(NewLogistic[float64](d)), true},
		{must(NewLeastSquares[float64](d)), false},
		{must(NewLeastAbsolute[float64](d)), false},
	}
	weightings := []Weighting{
		{Objective: Mean},
		{Objective: Softplus, Alpha: 0.2, Eps: 0.1, InvL: 1, Tau: 0.3},
		{Objective: Quadratic, Alpha: 0.2, Eps: 0.1, InvL: 1, Tau: 0.3},
		{Objective: Hinge, Alpha: 0.2, InvL: 1, Tau: 0.3},
		{Objective: TopK, Alpha: 0.2},
	}
	for _, m := range models {
		data := stepData(t, rng, n, d, 7, m.classify)
		p := m.model.NumParams()
		theta := make([]float64, p)
		for i := range theta {
			theta[i] = 0.1 * rng.NormFloat64()
		}
		idx := make([]int, b)
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		for _, rows := range [][]int{idx, nil} {
			for _, wt := range weightings {
				ref := must(newEngineWith(m.model, 1, engineOptions{chunkRows: 16}))
				g := make([]float64, p)
				wl, wsv, err := ref.Gradient(g, theta, data, rows, b, &wt)
				if err != nil {
					t.Fatal(err)
				}
				wl = slices.Clone(wl)
				ref.Close()
				var first []float64
				for _, threads := range []int{1, 2, 3} {
					// Past GOMAXPROCS, and on small data, to run the workers.
					e := must(newEngineWith(m.model, threads, engineOptions{chunkRows: 16, allThreads: true, sparseAlways: true}))
					got := slices.Clone(theta)
					var seen []float64
					accept := func(losses []float64, sv float64) error {
						seen = slices.Clone(losses)
						return nil
					}
					losses, sv, nrm2, err := e.StepSparse(got, data, rows, b, &wt, eta, accept)
					e.Close()
					if err != nil {
						t.Fatal(err)
					}
					name := m.model.Name() + " " + wt.Objective.String()
					if !slices.Equal(losses, wl) || !slices.Equal(seen, wl) || sv != wsv {
						t.Fatalf("%s: losses or Σv %v differ from Gradient's (Σv %v)", name, sv, wsv)
					}
					for i := range got {
						want := theta[i] - eta*g[i]
						if math.Abs(got[i]-want) > 1e-12*(math.Abs(theta[i])+math.Abs(want)) {
							t.Fatalf("%s: θ[%d] = %v, θ − η·g = %v", name, i, got[i], want)
						}
					}
					if !(nrm2 > 0) || math.IsInf(nrm2, 0) {
						t.Fatalf("%s: sum of squares of the written values %v", name, nrm2)
					}
					if threads == 1 {
						first = got
					} else if !slices.Equal(got, first) {
						t.Fatalf("%s: θ on %d threads differs from 1", name, threads)
					}
				}
			}
		}
	}
}

// TestStepSparseSquares checks the sum of squares StepSparse returns: on
// rows of distinct columns, Σ over the non-zeros of the updated weight
// squared, plus the bias squared; +Inf where an updated weight overflows
// (float64) or its square does (float32).
func TestStepSparseSquares(t *testing.T) {
	t.Parallel()
	indptr := []int64{0, 2, 3, 5}
	cols := []uint32{1, 4, 0, 7, 2}
	vals := []float64{0.5, -1, 2, 0.25, 1}
	data := must(NewSparseData(indptr, cols, vals, 3, 8, nil, []int32{0, 1, 1}, 2))
	model := must(NewLogistic[float64](8))
	e := must(NewEngine(model, 1))
	defer e.Close()
	wt := &Weighting{Objective: Mean}
	theta := []float64{0.1, -0.2, 0.3, 0, 0.5, 0, 0, -0.7, 0.05}
	_, _, nrm2, err := e.StepSparse(theta, data, nil, 3, wt, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, c := range cols {
		want += theta[c] * theta[c]
	}
	want += theta[8] * theta[8]
	if math.Abs(nrm2-want) > 1e-15*want {
		t.Fatalf("sum of squares %v, want %v", nrm2, want)
	}
	theta[4] = math.MaxFloat64
	if _, _, nrm2, err = e.StepSparse(theta, data, nil, 3, wt, 0.5, nil); err != nil || !math.IsInf(nrm2, 1) {
		t.Fatalf("a weight of %v: sum of squares %v, error %v; want +Inf", math.MaxFloat64, nrm2, err)
	}

	data32 := must(NewSparseData(indptr, cols, []float32{0.5, -1, 2, 0.25, 1}, 3, 8, nil, []int32{0, 1, 1}, 2))
	e32 := must(NewEngine(must(NewLogistic[float32](8)), 1))
	defer e32.Close()
	theta32 := make([]float32, 9)
	theta32[7] = 1e20
	if _, _, nrm2, err := e32.StepSparse(theta32, data32, nil, 3, wt, 0.5, nil); err != nil || !math.IsInf(float64(nrm2), 1) {
		t.Fatalf("float32 weight 1e20: sum of squares %v, error %v; want +Inf", nrm2, err)
	}
}

// TestStepSparseAccept checks that an error from accept is returned with θ
// unchanged, and that StepSparse refuses dense data, softmax and a nil
// weighting, and that HasSparseStep says so.
func TestStepSparseAccept(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	data := stepData(t, rng, 50, 10, 7, true)
	model := must(NewLogistic[float64](10))
	e := must(NewEngine(model, 1))
	defer e.Close()
	theta := make([]float64, 11)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	orig := slices.Clone(theta)
	stop := errors.New("stop")
	wt := &Weighting{Objective: Mean}
	if _, _, _, err := e.StepSparse(theta, data, nil, 50, wt, 0.5, func([]float64, float64) error { return stop }); err != stop || !slices.Equal(theta, orig) {
		t.Fatalf("accept's error: got %v, θ changed %v", err, !slices.Equal(theta, orig))
	}
	if _, _, _, err := e.StepSparse(theta, data, nil, 50, nil, 0.5, nil); err == nil || !strings.Contains(err.Error(), "weighting") {
		t.Fatalf("nil weighting: %v", err)
	}
	dense := must(NewData(make([]float64, 20), 2, 10, nil, []int32{0, 1}, 2))
	if e.HasSparseStep(dense) || !e.HasSparseStep(data) {
		t.Fatal("HasSparseStep: want false on dense data, true on sparse")
	}
	if _, _, _, err := e.StepSparse(theta, dense, nil, 2, wt, 0.5, nil); err == nil || !strings.Contains(err.Error(), "dense") {
		t.Fatalf("dense data: %v", err)
	}
	sm := must(NewEngine(must(NewSoftmax[float64](10, 2)), 1))
	defer sm.Close()
	if sm.HasSparseStep(data) {
		t.Fatal("HasSparseStep for softmax")
	}
	if _, _, _, err := sm.StepSparse(make([]float64, 22), data, nil, 50, wt, 0.5, nil); err == nil || !strings.Contains(err.Error(), "softmax") {
		t.Fatalf("softmax: %v", err)
	}
}
