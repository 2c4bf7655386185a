package cvar

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// ladData draws n samples of y = ⟨w*, x⟩ + b* + noise with x uniform in
// [−1, 1]^d and Laplace noise whose scale doubles for x_1 > 0.5: the tail of
// the absolute losses comes from a region a CVaR solution treats differently.
func ladData(t testing.TB, n, d int, seed uint64) *batch.Data[float64] {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 77))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		s := 0.5
		for j := range row {
			row[j] = 2*rng.Float64() - 1
			s += float64(j+1) * 0.4 * row[j]
		}
		scale := 0.3
		if row[0] > 0.5 {
			scale = 1.2
		}
		noise := rng.ExpFloat64() * scale
		if rng.IntN(2) == 0 {
			noise = -noise
		}
		y[i] = s + noise
	}
	data, err := batch.NewData(x, n, d, y, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ladMinCVaR solves min over θ in the box [lo, hi]^{d+1} of the empirical
// CVaR_α of |⟨w, x_i⟩ + b − y_i| exactly, as the linear program
//
//	min τ + Σ u_i/(α n)  s.t.  ±(⟨w, x_i⟩ + b − y_i) − τ − u_i ≤ 0 … ≤ ±y_i,
//	u ≥ 0, lo ≤ θ ≤ hi.
func ladMinCVaR(t testing.TB, data *batch.Data[float64], alpha, lo, hi float64) float64 {
	t.Helper()
	n, d := data.N, data.D
	nv := d + 2 + n // w, b, τ, u
	tauCol, uCol := d+1, d+2
	c := make([]float64, nv)
	c[tauCol] = 1
	for i := 0; i < n; i++ {
		c[uCol+i] = 1 / (alpha * float64(n))
	}
	rows := 3*n + 2*(d+1)
	g := mat.NewDense(rows, nv, nil)
	h := make([]float64, rows)
	r := 0
	for i := 0; i < n; i++ {
		for _, sgn := range []float64{1, -1} {
			for j, v := range data.Row(i) {
				g.Set(r, j, sgn*v)
			}
			g.Set(r, d, sgn)
			g.Set(r, tauCol, -1)
			g.Set(r, uCol+i, -1)
			h[r] = sgn * data.Y[i]
			r++
		}
		g.Set(r, uCol+i, -1) // u_i ≥ 0
		r++
	}
	for j := 0; j <= d; j++ {
		g.Set(r, j, 1)
		h[r] = hi
		g.Set(r+1, j, -1)
		h[r+1] = -lo
		r += 2
	}
	cNew, aNew, bNew := lp.Convert(c, g, h, nil, nil)
	opt, _, err := lp.Simplex(cNew, aNew, bNew, 1e-10, nil)
	if err != nil {
		t.Fatalf("LP: %v", err)
	}
	return opt
}

// TestAlg1ExcessCVaRWithinTheorem checks Theorem 3.2 on least absolute
// deviations: Alg1's average excess CVaR over seeds stays under
// G_α √(D²+1)/√n, with the optimum found independently by linear
// programming. The population is stood for by a large held-out sample.
func TestAlg1ExcessCVaRWithinTheorem(t *testing.T) {
	t.Parallel()
	const (
		d      = 2
		alpha  = 0.1
		lo, hi = -2.0, 2.0
	)
	n, nEval, seeds := 40000, 100, uint64(4)
	if testing.Short() { // CI's emulated arm64 leg: a smaller LP, fewer seeds
		n, nEval, seeds = 20000, 60, 3
	}
	eval := ladData(t, nEval, d, 999)
	best := ladMinCVaR(t, eval, alpha, lo, hi)
	model := must(batch.NewLeastAbsolute[float64](d))
	zero, _ := Evaluate(model, make([]float64, d+1), eval, alpha)
	var excess, bound float64
	for s := uint64(1); s <= seeds; s++ {
		train := ladData(t, n, d, s)
		res, err := Train(model, train, Options{Method: Alg1, Alpha: alpha, Domain: Box(lo, hi), Seed: s, Rule: TheoremStep})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range res.Theta {
			if v < lo || v > hi {
				t.Fatalf("seed %d: θ[%d] = %v outside K = [%v, %v]", s, i, v, lo, hi)
			}
		}
		if res.Tau < res.Params.TauMin || res.Tau > res.Params.TauMax {
			t.Errorf("seed %d: τ = %v outside [%v, %v]", s, res.Tau, res.Params.TauMin, res.Params.TauMax)
		}
		m, err := Evaluate(model, res.Theta, eval, alpha)
		if err != nil {
			t.Fatal(err)
		}
		cv, _ := m.TailAt(alpha)
		if cv < best-1e-9 {
			t.Fatalf("seed %d: CVaR %v below the LP optimum %v: the LP or the metric is wrong", s, cv, best)
		}
		excess += (cv - best) / float64(seeds)
		bound = res.Params.Bound
	}
	zcv, _ := zero.TailAt(alpha)
	t.Logf("alg1 LAD, n = %d, α = %v: min CVaR (LP) %.4f, mean excess %.4f over %d seeds, theorem bound %.4f; θ = 0 has excess %.4f",
		n, alpha, best, excess, seeds, bound, zcv-best)
	if !(excess <= bound) {
		t.Errorf("mean excess CVaR %.4f exceeds the theorem's bound %.4f", excess, bound)
	}
	// The bound is loose; also require real progress from the start θ = 0.
	if excess > 0.3*(zcv-best) {
		t.Errorf("mean excess CVaR %.4f is more than 30%% of θ = 0's %.4f", excess, zcv-best)
	}
}

// subgroupData draws a binary problem where 90 % of samples have label
// sign(x_1 + noise) and a rare subgroup, marked by x_2 ≈ 3, has the opposite
// rule: a mean-loss linear model sacrifices the subgroup.
func subgroupData(t testing.TB, n, d int, seed uint64) *batch.Data[float64] {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		score := 2*row[0] + 0.5*rng.NormFloat64()
		if rng.Float64() < 0.1 {
			row[1] = 3 + 0.3*rng.NormFloat64()
			score = -score
		}
		if score > 0 {
			lab[i] = 1
		}
	}
	data, err := batch.NewData(x, n, d, nil, lab, 2)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAlg3BeatsVanillaOnTail trains CVaR-SGD (Alg3) and Vanilla-SGD on the
// rare-subgroup problem and requires Alg3's validation CVaR_0.1 to be at
// most 60 % of Vanilla's.
func TestAlg3BeatsVanillaOnTail(t *testing.T) {
	t.Parallel()
	const d = 5
	train, val := subgroupData(t, 6000, d, 1), subgroupData(t, 3000, d, 2)
	model := must(batch.NewLogistic[float64](d))
	common := Options{Alpha: 0.1, Epochs: 30, Batch: 128, LR: 0.05, Seed: 3}
	van := common
	van.Method = Vanilla
	alg3 := common
	alg3.Method, alg3.Eps = Alg3, 0.05
	rv, err := Train(model, train, van)
	if err != nil {
		t.Fatal(err)
	}
	r3, err := Train(model, train, alg3)
	if err != nil {
		t.Fatal(err)
	}
	mv, _ := Evaluate(model, rv.Theta, val, 0.1)
	m3, _ := Evaluate(model, r3.Theta, val, 0.1)
	cv, _ := mv.TailAt(0.1)
	c3, _ := m3.TailAt(0.1)
	t.Logf("validation CVaR_0.1: vanilla %.4f, alg3 %.4f (ratio %.3f); accuracy %.3f vs %.3f; mean loss %.4f vs %.4f; τ = %.4f",
		cv, c3, c3/cv, mv.Accuracy, m3.Accuracy, mv.MeanLoss, m3.MeanLoss, r3.Tau)
	if !(c3 <= 0.6*cv) {
		t.Errorf("alg3 CVaR_0.1 %.4f is not ≤ 60%% of vanilla's %.4f", c3, cv)
	}
}

// TestOutputsInDomain checks that every method's output lies in K and its
// τ in its interval, for a ball and a box.
func TestOutputsInDomain(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 600, 4, 9)
	model := must(batch.NewLogistic[float64](4))
	for _, dom := range []Domain{Ball(0.7), Box(-0.2, 0.3)} {
		for _, m := range []Method{Alg1, Alg2, Alg3, Vanilla, MinibatchCVaR} {
			res, err := Train(model, data, Options{Method: m, Domain: dom, LR: 0.5, Eps: 0.1, Epochs: 2, Batch: 0, Seed: 1, TauMax: 0.9})
			if err != nil {
				t.Fatalf("%v on %v: %v", m, dom, err)
			}
			switch dom.kind {
			case domainBall:
				if nrm := norm(res.Theta); nrm > dom.rad*(1+1e-12) {
					t.Errorf("%v: ‖θ‖ = %v > R = %v", m, nrm, dom.rad)
				}
			case domainBox:
				for i, v := range res.Theta {
					if v < dom.lo || v > dom.hi {
						t.Errorf("%v: θ[%d] = %v outside [%v, %v]", m, i, v, dom.lo, dom.hi)
					}
				}
			}
			if m.usesTau() && (res.Tau < 0 || res.Tau > 0.9) {
				t.Errorf("%v: τ = %v outside [0, 0.9]", m, res.Tau)
			}
		}
	}
}

// TestAlg4ReturnsAnIterate checks that Alg4's output is exactly one of the
// iterates x_1 … x_n, the one its Iterate field names.
func TestAlg4ReturnsAnIterate(t *testing.T) {
	t.Parallel()
	const d, k, n = 3, 3, 200
	rng := rand.New(rand.NewPCG(4, 4))
	model := must(batch.NewMLP[float64](d, 5, k))
	on, err := NewOnline(model, d, k, Options{Method: Alg4, Steps: n, Seed: 8, Scale: batch.Scale{MaxNorm: 4}, G: 3, Beta: 5, LossBound: 3, Rule: TheoremStep})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	iterates := [][]float64{append([]float64(nil), on.r.theta...)}
	x := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		if err := on.Observe(x, 0, rng.IntN(k)); err != nil {
			t.Fatal(err)
		}
		iterates = append(iterates, append([]float64(nil), on.r.theta...))
	}
	res := on.Result()
	if res.Iterate < 1 || res.Iterate > n {
		t.Fatalf("Iterate = %d, want 1..%d", res.Iterate, n)
	}
	want := iterates[res.Iterate-1]
	for i := range want {
		if res.Theta[i] != want[i] {
			t.Fatalf("output differs from iterate %d at %d: %v vs %v", res.Iterate, i, res.Theta[i], want[i])
		}
	}
	// Different seeds pick different iterates (not always the last).
	picks := map[int]bool{}
	for s := uint64(0); s < 20; s++ {
		on2, _ := NewOnline(model, d, k, Options{Method: Alg4, Steps: 50, Seed: s, LR: 0.01, Eps: 0.1, Output: OutputRandom})
		for i := 0; i < 50; i++ {
			on2.Observe(x, 0, i%k)
		}
		picks[on2.Result().Iterate] = true
		on2.Close()
	}
	if len(picks) < 5 {
		t.Errorf("20 seeds picked only %d distinct iterates: %v", len(picks), picks)
	}
}

// TestDeterminism checks bit-identical results for the same seed, across
// thread counts, and that the streaming and in-memory Alg1 agree.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 1500, 6, 3)
	mlp := must(batch.NewMLP[float64](6, 8, 2))
	for _, m := range []Method{Alg3, MinibatchCVaR, Vanilla} {
		var ref []float64
		for _, threads := range []int{1, 2, 3, 1} {
			res, err := Train(mlp, data, Options{Method: m, Epochs: 2, Batch: 200, LR: 0.05, Eps: 0.1, Seed: 42, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res.Theta
				continue
			}
			for i := range ref {
				if math.Float64bits(ref[i]) != math.Float64bits(res.Theta[i]) {
					t.Fatalf("%v, %d threads: θ[%d] = %v, first run %v", m, threads, i, res.Theta[i], ref[i])
				}
			}
		}
	}
	// Alg1 through Online equals Alg1 through Train on the same order.
	model := must(batch.NewLogistic[float64](6))
	opt := Options{Method: Alg1, Domain: Ball(3), Seed: 1, Scale: data.Scale()}
	res, err := Train(model, data, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Steps = data.N
	on, err := NewOnline(model, 6, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < data.N; i++ {
		if err := on.Observe(data.Row(i), 0, int(data.Labels[i])); err != nil {
			t.Fatal(err)
		}
	}
	got := on.Result()
	for i := range res.Theta {
		if res.Theta[i] != got.Theta[i] {
			t.Fatalf("online θ[%d] = %v, in-memory %v", i, got.Theta[i], res.Theta[i])
		}
	}
	if res.Tau != got.Tau {
		t.Errorf("online τ %v, in-memory %v", got.Tau, res.Tau)
	}
}

// TestDivergenceStops checks that a step size that blows up stops training
// with an error naming the step.
func TestDivergenceStops(t *testing.T) {
	t.Parallel()
	data := ladData(t, 500, 3, 1)
	for i := range data.Y {
		data.Y[i] *= 1e30
	}
	_, err := Train(must(batch.NewLeastSquares[float64](3)), data, Options{Method: Vanilla, LR: 1e10, Epochs: 50, Batch: 10})
	var de *DivergenceError
	if !errors.As(err, &de) {
		t.Fatalf("error %v, want a DivergenceError", err)
	}
	if de.Step < 1 {
		t.Errorf("divergence at step %d", de.Step)
	}
	t.Log(err)
}

// TestTheoremParams checks the step sizes against the paper's formulas.
func TestTheoremParams(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 1000, 4, 1)
	model := must(batch.NewLogistic[float64](4))
	sc := data.Scale()
	x := math.Sqrt(sc.MaxNorm*sc.MaxNorm + 1)
	const R, alpha = 2.0, 0.1
	L := math.Log1p(math.Exp(R * x))
	ga := gAlphaOf(x/L, alpha)
	d2 := 4*R*R + 1
	cases := []struct {
		m        Method
		lr, eps  float64
		steps, b int
	}{
		{Alg1, math.Sqrt(d2) / (ga * math.Sqrt(1000)), 0, 1000, 1},
		{Alg2, math.Sqrt(d2) * math.Sqrt(1000) / (ga * math.Sqrt(3000*(1000+6000))), 0, 3000, 1},
		{Alg3, 50 * math.Sqrt(d2) * math.Sqrt(1000) / (ga * math.Sqrt(200*(1000+400))), 0, 200, 50},
	}
	cases[1].eps = 2 * ga * ga * cases[1].lr
	cases[2].eps = 2 * ga * cases[2].lr
	for _, c := range cases {
		res, err := Train(model, data, Options{Method: c.m, Alpha: alpha, Domain: Ball(R), Steps: c.steps, Batch: c.b, Rule: TheoremStep})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Params
		if math.Abs(p.LR-c.lr) > 1e-12*c.lr || (c.eps > 0 && math.Abs(p.Eps-c.eps) > 1e-12*c.eps) {
			t.Errorf("%v: η = %v, ε = %v; want %v, %v", c.m, p.LR, p.Eps, c.lr, c.eps)
		}
		if math.Abs(p.L-L) > 1e-12*L || p.D != 2*R || !p.TheoremLR {
			t.Errorf("%v: L = %v (want %v), D = %v", c.m, p.L, L, p.D)
		}
	}
	if _, err := Train(model, data, Options{Method: Alg3, Rule: TheoremStep}); err == nil {
		t.Error("alg3 on R^d without LR: no error")
	}
	if _, err := Train(model, data, Options{Method: Alg1, Alpha: 1.5, LR: 1}); err == nil {
		t.Error("alpha 1.5 accepted")
	}
}

// TestDivergenceStopsFinite checks blow-ups that stay finite: linear
// regression on raw targets in the hundreds with step size 1, and an MLP
// with step size 1e6, both stop with a DivergenceError naming the step
// instead of returning parameters with losses of 1e100.
func TestDivergenceStopsFinite(t *testing.T) {
	t.Parallel()
	reg := ladData(t, 2000, 3, 4)
	for i := range reg.Y {
		reg.Y[i] = 300 + 100*reg.Y[i]
	}
	for i := range reg.X {
		reg.X[i] *= 10
	}
	cls := subgroupData(t, 2000, 6, 5)
	for _, c := range []struct {
		name  string
		train func() error
	}{
		{"linear lr 1", func() error {
			_, err := Train(must(batch.NewLeastSquares[float64](3)), reg, Options{Method: Vanilla, LR: 1, Steps: 30, Batch: 64})
			return err
		}},
		{"linear f32 lr 1", func() error {
			x32, y32 := make([]float32, len(reg.X)), make([]float32, len(reg.Y))
			for i, v := range reg.X {
				x32[i] = float32(v)
			}
			for i, v := range reg.Y {
				y32[i] = float32(v)
			}
			d32, err := batch.NewData(x32, reg.N, reg.D, y32, nil, 0)
			if err != nil {
				return err
			}
			_, err = Train(must(batch.NewLeastSquares[float32](3)), d32, Options{Method: Alg3, LR: 1, Eps: 0.1, Steps: 8, Batch: 64})
			return err
		}},
		{"mlp lr 1e6", func() error {
			_, err := Train(must(batch.NewMLP[float64](6, 16, 2)), cls, Options{Method: Vanilla, LR: 1e6, Steps: 8, Batch: 64})
			return err
		}},
	} {
		err := c.train()
		var de *DivergenceError
		if !errors.As(err, &de) || de.Step < 1 {
			t.Errorf("%s: error %v, want a DivergenceError naming a step", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestNoDivergenceOnHealthyRuns checks that the divergence bound leaves
// sound runs alone, large steps on separable data included.
func TestNoDivergenceOnHealthyRuns(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 2000, 4, 6)
	for _, opt := range []Options{
		{Method: Vanilla, LR: 100, Epochs: 30, Batch: 32},
		{Method: Alg3, LR: 10, Eps: 0.01, Epochs: 30, Batch: 32},
		{Method: Alg1, LR: 1, Epochs: 3},
	} {
		if _, err := Train(must(batch.NewLogistic[float64](4)), data, opt); err != nil {
			t.Errorf("%v lr %v: %v", opt.Method, opt.LR, err)
		}
	}
	reg := ladData(t, 2000, 3, 7)
	if _, err := Train(must(batch.NewLeastAbsolute[float64](3)), reg, Options{Method: Alg3, LR: 0.5, Eps: 0.1, Epochs: 20, Batch: 16}); err != nil {
		t.Errorf("lad: %v", err)
	}
}
