package batch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// must returns v, failing the test program on a setup error.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// testData makes a random classification (k ≥ 2) or regression (k = 0) set.
func testData[T Float](t testing.TB, n, d, k int, seed uint64) *Data[T] {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]T, n*d)
	for i := range x {
		x[i] = T(rng.NormFloat64())
	}
	var data *Data[T]
	var err error
	if k == 0 {
		y := make([]T, n)
		for i := range y {
			y[i] = T(3 * rng.NormFloat64())
		}
		data, err = NewData(x, n, d, y, nil, 0)
	} else {
		lab := make([]int32, n)
		for i := range lab {
			lab[i] = int32(rng.IntN(k))
		}
		data, err = NewData(x, n, d, nil, lab, k)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

type modelCase struct {
	name string
	k    int // classes, 0 for regression
	make func(d, k int) Model[float64]
}

var modelCases = []modelCase{
	{"logistic", 2, func(d, _ int) Model[float64] { return must(NewLogistic[float64](d)) }},
	{"linear", 0, func(d, _ int) Model[float64] { return must(NewLeastSquares[float64](d)) }},
	{"lad", 0, func(d, _ int) Model[float64] { return must(NewLeastAbsolute[float64](d)) }},
	{"softmax", 4, func(d, k int) Model[float64] { return must(NewSoftmax[float64](d, k)) }},
	{"mlp", 3, func(d, k int) Model[float64] { return must(NewMLP[float64](d, 7, k)) }},
	{"mlp-blas", 3, func(d, k int) Model[float64] { return must(NewMLPBLAS[float64](d, 7, k)) }},
}

// objective evaluates, in float64, the scalar whose gradient Engine.Gradient
// returns: the weighted loss of the minibatch.
func objective(e *Engine[float64], theta []float64, data *Data[float64], idx []int, wt *Weighting) float64 {
	wk := &Work[float64]{}
	e.model.Forward(wk, theta, data, idx, len(idx))
	loss := wk.Loss
	b := float64(len(idx))
	invL := wt.invL()
	var f float64
	switch wt.Objective {
	case Mean:
		for _, l := range loss {
			f += l / b
		}
	case TopK:
		f = bruteCVaR(loss, wt.Alpha)
	default:
		kind := map[Objective]kernel.PlusKind{Hinge: kernel.PlusHinge, Softplus: kernel.PlusSoftplus, Quadratic: kernel.PlusQuadratic}[wt.Objective]
		for _, l := range loss {
			rho := []float64{0}
			s := []float64{l*invL - wt.Tau}
			kernel.Generic().F64().Plus(kind, wt.Eps, rho, nil, s)
			f += rho[0] / (wt.Alpha * b)
		}
	}
	return f
}

// bruteCVaR is the sort-based definition: mean of the worst α-fraction with
// the boundary sample weighted fractionally.
func bruteCVaR(loss []float64, alpha float64) float64 {
	s := append([]float64(nil), loss...)
	for i := range s { // insertion sort, descending: tiny inputs
		for j := i; j > 0 && s[j] > s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	m := alpha * float64(len(s))
	k := int(math.Floor(m))
	var sum float64
	for i := 0; i < k; i++ {
		sum += s[i]
	}
	if k < len(s) {
		sum += (m - float64(k)) * s[k]
	}
	return sum / m
}

// TestGradientFiniteDifferences checks every model's analytic gradient,
// under every weighting, against central differences of the objective.
func TestGradientFiniteDifferences(t *testing.T) {
	t.Parallel()
	const n, d = 37, 5
	weightings := []Weighting{
		{Objective: Mean},
		{Objective: Hinge, Alpha: 0.3, Tau: 0.4, InvL: 0.5},
		{Objective: Softplus, Alpha: 0.2, Eps: 0.3, Tau: 0.5, InvL: 0.7},
		{Objective: Quadratic, Alpha: 0.25, Eps: 0.4, Tau: 0.6},
		{Objective: Quadratic, Alpha: 1, Eps: 0.05, Tau: 0.1},
		{Objective: TopK, Alpha: 0.1},
		{Objective: TopK, Alpha: 0.35},
	}
	for _, mc := range modelCases {
		for _, wt := range weightings {
			t.Run(mc.name+"/"+wt.Objective.String(), func(t *testing.T) {
				data := testData[float64](t, n, d, mc.k, 7)
				model := mc.make(d, mc.k)
				e := must(newEngineWith(model, 2, engineOptions{chunkRows: 8}))
				defer e.Close()
				rng := rand.New(rand.NewPCG(3, 4))
				theta := make([]float64, model.NumParams())
				for i := range theta {
					theta[i] = 0.3 * rng.NormFloat64()
				}
				idx := make([]int, 29)
				for i := range idx {
					idx[i] = rng.IntN(n)
				}
				g := make([]float64, len(theta))
				_, sumV, _ := e.Gradient(g, theta, data, idx, 0, &wt)
				const h = 1e-6
				var worst float64
				for p := range theta {
					save := theta[p]
					theta[p] = save + h
					fp := objective(e, theta, data, idx, &wt)
					theta[p] = save - h
					fm := objective(e, theta, data, idx, &wt)
					theta[p] = save
					num := (fp - fm) / (2 * h)
					err := math.Abs(num-g[p]) / math.Max(1, math.Abs(num))
					worst = math.Max(worst, err)
					if err > 2e-5 {
						t.Errorf("∂/∂θ[%d]: analytic %.9g, numeric %.9g", p, g[p], num)
					}
				}
				// τ's derivative: ∂F/∂τ = −Σv_i/(α·b) for the CVaR objectives.
				if wt.Objective == Softplus || wt.Objective == Quadratic || wt.Objective == Hinge {
					w2 := wt
					w2.Tau += h
					fp := objective(e, theta, data, idx, &w2)
					w2.Tau -= 2 * h
					fm := objective(e, theta, data, idx, &w2)
					num := (fp - fm) / (2 * h)
					got := -sumV / (wt.Alpha * float64(len(idx)))
					if math.Abs(num-got) > 2e-5*math.Max(1, math.Abs(num)) {
						t.Errorf("∂/∂τ: from Σv %.9g, numeric %.9g", got, num)
					}
				}
				if testing.Verbose() {
					t.Logf("worst relative error %.2g", worst)
				}
			})
		}
	}
}

// TestFloat32MatchesFloat64 runs each model in float32 and float64 on the
// same data and compares losses and gradients.
func TestFloat32MatchesFloat64(t *testing.T) {
	t.Parallel()
	const n, d = 200, 9
	for _, mc := range modelCases {
		t.Run(mc.name, func(t *testing.T) {
			d64 := testData[float64](t, n, d, mc.k, 11)
			x32 := make([]float32, len(d64.X))
			for i, v := range d64.X {
				x32[i] = float32(v)
			}
			var d32 *Data[float32]
			var err error
			if mc.k == 0 {
				y := make([]float32, n)
				for i, v := range d64.Y {
					y[i] = float32(v)
				}
				d32, err = NewData(x32, n, d, y, nil, 0)
			} else {
				d32, err = NewData(x32, n, d, nil, d64.Labels, mc.k)
			}
			if err != nil {
				t.Fatal(err)
			}
			m64 := mc.make(d, mc.k)
			var m32 Model[float32]
			switch mc.name {
			case "logistic":
				m32 = must(NewLogistic[float32](d))
			case "linear":
				m32 = must(NewLeastSquares[float32](d))
			case "lad":
				m32 = must(NewLeastAbsolute[float32](d))
			case "softmax":
				m32 = must(NewSoftmax[float32](d, mc.k))
			case "mlp":
				m32 = must(NewMLP[float32](d, 7, mc.k))
			case "mlp-blas":
				m32 = must(NewMLPBLAS[float32](d, 7, mc.k))
			}
			rng := rand.New(rand.NewPCG(5, 6))
			th64 := make([]float64, m64.NumParams())
			th32 := make([]float32, len(th64))
			for i := range th64 {
				th32[i] = float32(0.3 * rng.NormFloat64())
				th64[i] = float64(th32[i])
			}
			wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.05, Tau: 0.5, InvL: 0.25}
			e64, e32 := must(NewEngine(m64, 1)), must(NewEngine(m32, 1))
			g64, g32 := make([]float64, len(th64)), make([]float32, len(th64))
			l64, s64, _ := e64.Gradient(g64, th64, d64, nil, n, &wt)
			l32, s32, _ := e32.Gradient(g32, th32, d32, nil, n, &wt)
			for i := range l64 {
				if math.Abs(l64[i]-float64(l32[i])) > 1e-4*math.Max(1, l64[i]) {
					t.Fatalf("loss %d: f64 %g, f32 %g", i, l64[i], l32[i])
				}
			}
			var gn float64
			for _, v := range g64 {
				gn = math.Max(gn, math.Abs(v))
			}
			for i := range g64 {
				if math.Abs(g64[i]-float64(g32[i])) > 2e-3*math.Max(gn, 1e-3) {
					t.Fatalf("gradient %d: f64 %g, f32 %g (max |g| %g)", i, g64[i], g32[i], gn)
				}
			}
			if math.Abs(s64-s32) > 1e-3*math.Max(1, s64) {
				t.Errorf("Σv: f64 %g, f32 %g", s64, s32)
			}
		})
	}
}

// TestThreadsBitIdentical checks the engine's promise: the same gradient,
// bit for bit, whatever the number of threads.
func TestThreadsBitIdentical(t *testing.T) {
	t.Parallel()
	const n, d = 700, 13
	for _, mc := range modelCases {
		t.Run(mc.name, func(t *testing.T) {
			data := testData[float64](t, n, d, mc.k, 21)
			model := mc.make(d, mc.k)
			theta := make([]float64, model.NumParams())
			model.InitParams(theta, 1)
			for i := range theta {
				theta[i] += 0.01 * float64(i%7)
			}
			sampler, err := NewSampler(n, 512, WithReplacement, 9)
			if err != nil {
				t.Fatal(err)
			}
			idx := append([]int(nil), sampler.Next()...)
			weightings := []Weighting{{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.3}, {Objective: TopK, Alpha: 0.1}, {Objective: Mean}}
			for _, wt := range weightings {
				var ref []float64
				var refV float64
				for _, threads := range []int{1, 2, 3} {
					e := must(NewEngine(model, threads))
					g := make([]float64, len(theta))
					_, sv, _ := e.Gradient(g, theta, data, idx, 0, &wt)
					e.Close()
					if ref == nil {
						ref, refV = g, sv
						continue
					}
					for i := range g {
						if math.Float64bits(g[i]) != math.Float64bits(ref[i]) {
							t.Fatalf("%v, threads=%d: g[%d] = %v, threads=1 gave %v", wt.Objective, threads, i, g[i], ref[i])
						}
					}
					if sv != refV {
						t.Fatalf("%v, threads=%d: Σv = %v, want %v", wt.Objective, threads, sv, refV)
					}
				}
			}
		})
	}
}

// TestGradientDoesNotAllocate checks the hot path's zero-allocation promise
// once the engine's buffers exist.
func TestGradientDoesNotAllocate(t *testing.T) {
	for _, mc := range modelCases {
		t.Run(mc.name, func(t *testing.T) {
			data := testData[float64](t, 600, 16, mc.k, 2)
			model := mc.make(16, mc.k)
			theta := make([]float64, model.NumParams())
			model.InitParams(theta, 1)
			g := make([]float64, len(theta))
			e := must(NewEngine(model, 2))
			defer e.Close()
			sampler, _ := NewSampler(600, 128, Shuffled, 1)
			for _, wt := range []Weighting{{Objective: Mean}, {Objective: Quadratic, Alpha: 0.1, Eps: 0.1}, {Objective: TopK, Alpha: 0.1}} {
				e.Gradient(g, theta, data, sampler.Next(), 0, &wt) // warm the buffers
				if a := testing.AllocsPerRun(20, func() { e.Gradient(g, theta, data, sampler.Next(), 0, &wt) }); a != 0 {
					t.Errorf("%v: %v allocations per step, want 0", wt.Objective, a)
				}
			}
		})
	}
}

// TestWholeDataPasses checks Losses and Scores against per-row Forward calls.
func TestWholeDataPasses(t *testing.T) {
	t.Parallel()
	for _, mc := range modelCases {
		data := testData[float64](t, 2500, 6, mc.k, 4)
		model := mc.make(6, mc.k)
		theta := make([]float64, model.NumParams())
		model.InitParams(theta, 1)
		for i := range theta {
			theta[i] += 0.05
		}
		e := must(NewEngine(model, 2))
		losses := make([]float64, data.N)
		if err := e.Losses(losses, theta, data); err != nil {
			t.Fatal(err)
		}
		scores := make([]float64, data.N*model.NumOutputs())
		if err := e.Scores(scores, theta, data); err != nil {
			t.Fatal(err)
		}
		e.Close()
		wk := &Work[float64]{}
		// A SIMD kernel may sum a row in another order depending on where
		// it falls in a block of rows, so compare to rounding, not bits.
		same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(a)) }
		for _, r := range []int{0, 1, 1023, 1024, 2499} {
			model.Forward(wk, theta, data, []int{r}, 1)
			if !same(wk.Loss[0], losses[r]) {
				t.Errorf("%s: row %d loss %v, whole pass %v", mc.name, r, wk.Loss[0], losses[r])
			}
			out := make([]float64, model.NumOutputs())
			model.Scores(wk, theta, data, []int{r}, 1, out)
			for j, v := range out {
				if !same(v, scores[r*len(out)+j]) {
					t.Errorf("%s: row %d score %d: %v, whole pass %v", mc.name, r, j, v, scores[r*len(out)+j])
				}
			}
		}
	}
}

func TestSampler(t *testing.T) {
	t.Parallel()
	s, err := NewSampler(10, 4, Shuffled, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, 10)
	sizes := []int{}
	for range s.BatchesPerEpoch() {
		b := s.Next()
		sizes = append(sizes, len(b))
		for _, i := range b {
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("row %d seen %d times in one shuffled epoch", i, c)
		}
	}
	if len(sizes) != 3 || sizes[2] != 2 {
		t.Errorf("batch sizes %v, want [4 4 2]", sizes)
	}
	a, _ := NewSampler(1000, 16, WithReplacement, 5)
	b, _ := NewSampler(1000, 16, WithReplacement, 5)
	for range 10 {
		x, y := a.Next(), b.Next()
		for i := range x {
			if x[i] != y[i] {
				t.Fatal("same seed, different batches")
			}
		}
	}
	o, _ := NewSampler(5, 2, InOrder, 0)
	got := append(append(append([]int{}, o.Next()...), o.Next()...), o.Next()...)
	if want := []int{0, 1, 2, 3, 4}; len(got) != 5 || got[4] != want[4] || got[0] != 0 {
		t.Errorf("in-order batches %v, want %v", got, want)
	}
	if _, err := NewSampler(0, 3, Shuffled, 1); err == nil {
		t.Error("NewSampler accepted n = 0")
	}
}

func TestNewDataRejectsBadInput(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"nan feature", func() error { _, e := NewData([]float64{1, nan}, 1, 2, []float64{0}, nil, 0); return e }, "row 0, column 1"},
		{"inf target", func() error { _, e := NewData([]float64{1, 2}, 2, 1, []float64{0, math.Inf(1)}, nil, 0); return e }, "row 1: target"},
		{"label range", func() error { _, e := NewData([]float64{1, 2}, 2, 1, nil, []int32{0, 3}, 3); return e }, "label 3 outside"},
		{"shape", func() error { _, e := NewData([]float64{1, 2, 3}, 2, 2, []float64{0, 1}, nil, 0); return e }, "want n·d"},
		{"both", func() error { _, e := NewData([]float64{1}, 1, 1, []float64{0}, []int32{0}, 2); return e }, "either"},
	}
	for _, c := range cases {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	data := testData[float64](t, 10, 3, 4, 1)
	if err := must(NewLogistic[float64](3)).Check(data); err == nil {
		t.Error("logistic accepted 4 classes")
	}
	if err := must(NewSoftmax[float64](2, 4)).Check(data); err == nil {
		t.Error("softmax accepted the wrong dimension")
	}
}

// TestMLPProductsAgree checks that the kernel and gonum-BLAS matrix products
// of the MLP give the same losses and gradient to rounding.
func TestMLPProductsAgree(t *testing.T) {
	t.Parallel()
	data := testData[float64](t, 300, 20, 5, 8)
	kern, blas := must(NewMLP[float64](20, 16, 5)), must(NewMLPBLAS[float64](20, 16, 5))
	theta := make([]float64, kern.NumParams())
	kern.InitParams(theta, 2)
	idx := []int{5, 3, 299, 3, 0, 17, 120, 121, 64, 65, 66}
	wt := Weighting{Objective: Softplus, Alpha: 0.2, Eps: 0.1, Tau: 1}
	gk, gb := make([]float64, len(theta)), make([]float64, len(theta))
	ek, eb := must(NewEngine[float64](kern, 1)), must(NewEngine[float64](blas, 1))
	lk, _, _ := ek.Gradient(gk, theta, data, idx, 0, &wt)
	lb, _, _ := eb.Gradient(gb, theta, data, idx, 0, &wt)
	for i := range lk {
		if math.Abs(lk[i]-lb[i]) > 1e-12 {
			t.Fatalf("loss %d: kernels %v, BLAS %v", i, lk[i], lb[i])
		}
	}
	for i := range gk {
		if math.Abs(gk[i]-gb[i]) > 1e-12 {
			t.Fatalf("gradient %d: kernels %v, BLAS %v", i, gk[i], gb[i])
		}
	}
}

// TestGradientFirstRows checks that a gradient over the first n rows (idx
// nil) is the gradient over the rows 0…n−1 listed, for every objective, when
// n spans several chunks.
func TestGradientFirstRows(t *testing.T) {
	t.Parallel()
	const n, d, k = 200, 6, 3
	data := testData[float64](t, n, d, k, 11)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	model.InitParams(theta, 2)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for _, obj := range []Objective{Mean, Softplus, TopK} {
		wt := Weighting{Objective: obj, Alpha: 0.1, Eps: 0.1, Tau: 0.5}
		e := must(NewEngine(model, 2))
		gNil, gIdx := make([]float64, len(theta)), make([]float64, len(theta))
		lNil, _, err := e.Gradient(gNil, theta, data, nil, n, &wt)
		if err != nil {
			t.Fatal(err)
		}
		lNil = append([]float64(nil), lNil...)
		lIdx, _, err := e.Gradient(gIdx, theta, data, all, 0, &wt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range lIdx {
			if lNil[i] != lIdx[i] {
				t.Fatalf("%v: loss of row %d: %v with idx nil, %v listed", obj, i, lNil[i], lIdx[i])
			}
		}
		for i := range gIdx {
			if gNil[i] != gIdx[i] {
				t.Fatalf("%v: gradient[%d]: %v with idx nil, %v listed", obj, i, gNil[i], gIdx[i])
			}
		}
		e.Close()
	}
}
