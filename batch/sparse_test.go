package batch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// sparseTwin returns n random sparse rows of d features, with empty rows and
// repeated columns, as CSR and as the dense matrix they stand for.
func sparseTwin(rng *rand.Rand, n, d int) (indptr []int64, cols []uint32, vals, x []float64) {
	indptr = []int64{0}
	x = make([]float64, n*d)
	for i := 0; i < n; i++ {
		nnz := 0
		if i%7 != 2 {
			nnz = 1 + rng.IntN(d/3+1)
		}
		for range nnz {
			c := uint32(rng.IntN(d))
			if len(cols) > int(indptr[i]) && rng.IntN(5) == 0 {
				c = cols[len(cols)-1]
			}
			v := math.Round((2*rng.Float64()-1)*64) / 64 // exact sums
			cols, vals = append(cols, c), append(vals, v)
			x[i*d+int(c)] += v
		}
		indptr = append(indptr, int64(len(cols)))
	}
	return indptr, cols, vals, x
}

// randomTargets draws n targets for a model's task: binary labels (k = 2)
// or standard normal values.
func randomTargets(rng *rand.Rand, n int, classify bool) (y []float64, labels []int32, k int) {
	if classify {
		labels = make([]int32, n)
		for i := range labels {
			labels[i] = int32(rng.IntN(2))
		}
		return nil, labels, 2
	}
	y = make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	return y, nil, 0
}

// twins returns a sparse data set and its dense twin for a model's task.
func twins(t *testing.T, rng *rand.Rand, n, d int, classify bool) (sp, de *Data[float64]) {
	t.Helper()
	indptr, cols, vals, x := sparseTwin(rng, n, d)
	y, labels, k := randomTargets(rng, n, classify)
	var err error
	if sp, err = NewSparseData(indptr, cols, vals, n, d, y, labels, k); err != nil {
		t.Fatal(err)
	}
	if de, err = NewData(x, n, d, y, labels, k); err != nil {
		t.Fatal(err)
	}
	return sp, de
}

func closeTo(a, b []float64, tol float64) (int, bool) {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return i, false
		}
	}
	return 0, true
}

func TestSparseLinearMatchesDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 300, 23
	ctors := map[string]func(int) (*Linear[float64], error){
		"logistic": NewLogistic[float64], "linear": NewLeastSquares[float64], "lad": NewLeastAbsolute[float64],
	}
	weightings := []Weighting{
		{Objective: Mean},
		{Objective: Hinge, Alpha: 0.3, Tau: 0.2},
		{Objective: Softplus, Alpha: 0.3, Eps: 0.1, Tau: 0.2, InvL: 0.5},
		{Objective: Quadratic, Alpha: 0.3, Eps: 0.1, Tau: 0.2},
		{Objective: TopK, Alpha: 0.3},
	}
	for name, ctor := range ctors {
		model, err := ctor(d)
		if err != nil {
			t.Fatal(err)
		}
		sp, de := twins(t, rng, n, d, name == "logistic")
		theta := make([]float64, d+1)
		for j := range theta {
			theta[j] = rng.NormFloat64() / 4
		}
		idx := make([]int, 200) // several chunks, rows repeated
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		for _, wt := range weightings {
			var first []float64
			for _, threads := range []int{1, 2, 3} {
				e, err := newEngineWith[float64](model, threads, engineOptions{chunkRows: 16})
				if err != nil {
					t.Fatal(err)
				}
				gs, gd := make([]float64, d+1), make([]float64, d+1)
				ls, vs, err := e.Gradient(gs, theta, sp, idx, 0, &wt)
				if err != nil {
					t.Fatal(err)
				}
				ls = append([]float64(nil), ls...)
				ld, vd, err := e.Gradient(gd, theta, de, idx, 0, &wt)
				if err != nil {
					t.Fatal(err)
				}
				if j, ok := closeTo(gs, gd, 1e-12); !ok || math.Abs(vs-vd) > 1e-12*(1+math.Abs(vd)) {
					t.Fatalf("%s %v: sparse gradient[%d] %v, dense %v (Σv %v, %v)", name, wt.Objective, j, gs[j], gd[j], vs, vd)
				}
				if j, ok := closeTo(ls, ld, 1e-12); !ok {
					t.Fatalf("%s %v: sparse loss[%d] %v, dense %v", name, wt.Objective, j, ls[j], ld[j])
				}
				if first == nil {
					first = gs
				} else if j, ok := closeTo(gs, first, 0); !ok {
					t.Fatalf("%s %v: %d threads' gradient[%d] %v differs from 1 thread's %v", name, wt.Objective, threads, j, gs[j], first[j])
				}
				// Whole-data passes.
				ss, sd := make([]float64, n), make([]float64, n)
				if err := e.Scores(ss, theta, sp); err != nil {
					t.Fatal(err)
				}
				if err := e.Scores(sd, theta, de); err != nil {
					t.Fatal(err)
				}
				if j, ok := closeTo(ss, sd, 1e-12); !ok {
					t.Fatalf("%s: sparse score[%d] %v, dense %v", name, j, ss[j], sd[j])
				}
				if err := e.Losses(ss, theta, sp); err != nil {
					t.Fatal(err)
				}
				if err := e.Losses(sd, theta, de); err != nil {
					t.Fatal(err)
				}
				if j, ok := closeTo(ss, sd, 1e-12); !ok {
					t.Fatalf("%s: sparse loss[%d] %v, dense %v", name, j, ss[j], sd[j])
				}
				e.Close()
			}
		}
	}
}

func TestSparseFloat32(t *testing.T) {
	t.Parallel()
	// float32 CSR through the Engine: bit-identical across thread counts.
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 200, 9
	indptr, cols, v64, _ := sparseTwin(rng, n, d)
	vals := make([]float32, len(v64))
	for i, v := range v64 {
		vals[i] = float32(v)
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(rng.NormFloat64())
	}
	data, err := NewSparseData(indptr, cols, vals, n, d, y, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := NewLeastSquares[float32](d)
	theta := make([]float32, d+1)
	for j := range theta {
		theta[j] = float32(rng.NormFloat64())
	}
	var first []float32
	for _, threads := range []int{1, 2, 3} {
		e, _ := newEngineWith[float32](model, threads, engineOptions{chunkRows: 16})
		g := make([]float32, d+1)
		if _, _, err := e.Gradient(g, theta, data, nil, n, &Weighting{Objective: Softplus, Alpha: 0.2, Eps: 0.1}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		if first == nil {
			first = g
		}
		for j := range g {
			if g[j] != first[j] {
				t.Fatalf("%d threads: g[%d] = %v, 1 thread %v", threads, j, g[j], first[j])
			}
		}
	}
}

func TestNewSparseDataErrors(t *testing.T) {
	t.Parallel()
	y := []float64{1, 2}
	cases := []struct {
		name   string
		indptr []int64
		cols   []uint32
		vals   []float64
		n, d   int
		want   string
	}{
		{"no rows", []int64{0}, nil, nil, 0, 3, "at least one"},
		{"short offsets", []int64{0, 1}, []uint32{0}, []float64{1}, 2, 3, "row offsets"},
		{"lengths", []int64{0, 1, 2}, []uint32{0, 1}, []float64{1}, 2, 3, "column indices"},
		{"start", []int64{1, 1, 2}, []uint32{0, 1}, []float64{1, 2}, 2, 3, "run from"},
		{"end", []int64{0, 1, 1}, []uint32{0, 1}, []float64{1, 2}, 2, 3, "run from"},
		{"decreasing", []int64{0, 2, 1, 2}, []uint32{0, 1}, []float64{1, 2}, 3, 3, "decrease"},
		{"column", []int64{0, 1, 2}, []uint32{0, 3}, []float64{1, 2}, 2, 3, "column 3 outside"},
		{"nan", []int64{0, 1, 2}, []uint32{0, 1}, []float64{1, math.NaN()}, 2, 3, "not finite"},
	}
	for _, c := range cases {
		yy := y
		if c.n == 3 {
			yy = []float64{1, 2, 3}
		}
		if c.n == 0 {
			yy = nil
		}
		_, err := NewSparseData(c.indptr, c.cols, c.vals, c.n, c.d, yy, nil, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := NewSparseData([]int64{0, 1, 2}, []uint32{0, 1}, []float64{1, 2}, 2, 3, []float64{1}, nil, 0); err == nil {
		t.Error("one target for two rows: no error")
	}
	if _, err := NewSparseData([]int64{0, 1, 2}, []uint32{0, 1}, []float64{1, 2}, 2, 3, nil, []int32{0, 2}, 2); err == nil {
		t.Error("label out of range: no error")
	}
	// Validate catches what a hand-built Data gets wrong.
	bad := &Data[float64]{N: 3, D: 3, Indptr: []int64{0, 2, 1, 2}, Cols: []uint32{0, 1}, Vals: []float64{1, 2}, Y: []float64{1, 2, 3}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "decrease") {
		t.Errorf("Validate of falling offsets: %v", err)
	}
	bad.N, bad.Y = 2, y
	bad.Indptr = []int64{0, 1, 2}
	bad.Cols = []uint32{0, 7}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("Validate of a column beyond D: %v", err)
	}
	bad.Indptr = []int64{0, 1, 5}
	if err := bad.ValidateFeatures(); err == nil {
		t.Error("ValidateFeatures of offsets past the values: no error")
	}
}

func TestSparseScaleAndRows(t *testing.T) {
	t.Parallel()
	// Row 0: columns 2, 0 (unsorted); row 1: column 1 twice (3 + 4 = 7);
	// row 2 empty.
	data, err := NewSparseData([]int64{0, 2, 4, 4}, []uint32{2, 0, 1, 1}, []float64{3, 4, 3, 4}, 3, 3, []float64{1, -5, 2}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !data.IsSparse() {
		t.Fatal("IsSparse false")
	}
	if sc := data.Scale(); sc.MaxNorm != 7 || sc.MaxAbsY != 5 {
		t.Errorf("Scale %+v, want MaxNorm 7, MaxAbsY 5", sc)
	}
	if cols, vals := data.SparseRow(1); len(cols) != 2 || vals[1] != 4 {
		t.Errorf("SparseRow(1) = %v, %v", cols, vals)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Row of sparse data did not panic")
			}
		}()
		data.Row(0)
	}()
}

func TestSparseSoftmaxMatchesDense(t *testing.T) {
	t.Parallel()
	softmax, _ := NewSoftmax[float64](17, 4)
	sparseMatchesDense(t, softmax)
}

// TestSparseMLPMatchesDense: the MLP's first layer on CSR rows (the kernel
// and the BLAS networks) gives the dense twin's gradient and scores.
func TestSparseMLPMatchesDense(t *testing.T) {
	t.Parallel()
	mlp, _ := NewMLP[float64](17, 6, 4)
	sparseMatchesDense(t, mlp)
	blas, _ := NewMLPBLAS[float64](17, 6, 4)
	sparseMatchesDense(t, blas)
}

// sparseMatchesDense checks a model of 17 features and 4 classes: its
// gradients and scores on sparse data and the dense twin to 1e-12, the
// sparse gradient bit-identical on 1, 2 and 3 threads.
func sparseMatchesDense(t *testing.T, model Model[float64]) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d, k = 250, 17, 4
	indptr, cols, vals, x := sparseTwin(rng, n, d)
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(k))
	}
	sp, err := NewSparseData(indptr, cols, vals, n, d, nil, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	de, err := NewData(x, n, d, nil, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, model.NumParams())
	for j := range theta {
		theta[j] = rng.NormFloat64() / 4
	}
	idx := make([]int, 150)
	for i := range idx {
		idx[i] = rng.IntN(n)
	}
	for _, wt := range []Weighting{{Objective: Mean}, {Objective: Softplus, Alpha: 0.2, Eps: 0.1}, {Objective: TopK, Alpha: 0.2}} {
		var first []float64
		for _, threads := range []int{1, 2, 3} {
			e, _ := newEngineWith[float64](model, threads, engineOptions{chunkRows: 16})
			gs, gd := make([]float64, len(theta)), make([]float64, len(theta))
			if _, _, err := e.Gradient(gs, theta, sp, idx, 0, &wt); err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.Gradient(gd, theta, de, idx, 0, &wt); err != nil {
				t.Fatal(err)
			}
			if j, ok := closeTo(gs, gd, 1e-12); !ok {
				t.Fatalf("%v: sparse gradient[%d] %v, dense %v", wt.Objective, j, gs[j], gd[j])
			}
			if first == nil {
				first = gs
			} else if j, ok := closeTo(gs, first, 0); !ok {
				t.Fatalf("%v: %d threads' gradient[%d] differs", wt.Objective, threads, j)
			}
			ss, sd := make([]float64, n*k), make([]float64, n*k)
			if err := e.Scores(ss, theta, sp); err != nil {
				t.Fatal(err)
			}
			if err := e.Scores(sd, theta, de); err != nil {
				t.Fatal(err)
			}
			if j, ok := closeTo(ss, sd, 1e-12); !ok {
				t.Fatalf("sparse score[%d] %v, dense %v", j, ss[j], sd[j])
			}
			e.Close()
		}
	}
}
