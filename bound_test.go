package cvar

import (
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestTheoremBoundAssumptions checks that Params.Bound is the theorem's
// formula only where the theorem's visible assumptions hold, and NaN with
// the reason in BoundFrom otherwise: a nonconvex loss (Alg1–3), a loss that
// is not smooth (Alg2, Alg3), c = T/n below the theorem's condition, no
// finite L, Alg4's O(·) bound, and a step size not the theorem's.
func TestTheoremBoundAssumptions(t *testing.T) {
	t.Parallel()
	const n, p, alpha = 1000, 5, 0.1
	smooth := batch.Bounds{G: 2, Beta: 1, L: 4}
	ball := Ball(1)
	d2 := 4.0 + 1 // D = 2
	ga := gAlphaOf(smooth.G/smooth.L, alpha)
	base := ga * math.Sqrt(d2) / math.Sqrt(n) * smooth.L
	c2 := 4.0 // Alg2, T = 4n: η = √(D²+1)/(G_α√(c(1+2c)n)) ≈ 0.0033 ≤ α/(β/L) = 0.4
	cases := []struct {
		name   string
		opt    Options
		bounds batch.Bounds
		convex bool
		bound  float64 // NaN: none
		from   string
	}{
		{"alg1", Options{Method: Alg1, Steps: n}, smooth, true, base, "Theorem 3.2"},
		{"alg1 nonconvex", Options{Method: Alg1, Steps: n}, smooth, false, math.NaN(), "Theorem 3.2 assumes a convex loss"},
		{"alg1 no L", Options{Method: Alg1, Steps: n}, batch.Bounds{G: 2, Beta: 1, L: math.Inf(1)}, true, math.NaN(), "assumes losses in [0, 1]"},
		{"alg1 given LR", Options{Method: Alg1, Steps: n, LR: 0.1}, smooth, true, math.NaN(), "needs its step size"},
		{"alg2", Options{Method: Alg2, Steps: int(c2 * n)}, smooth, true,
			base * (math.Sqrt((1+2*c2)/c2) + 2/math.Sqrt(c2*(1+2*c2))), "Theorem 3.6"},
		{"alg2 nonconvex", Options{Method: Alg2, Steps: n}, smooth, false, math.NaN(), "Theorem 3.6 assumes a convex loss"},
		{"alg2 not smooth", Options{Method: Alg2, Steps: n}, batch.Bounds{G: 2, Beta: math.Inf(1), L: 4}, true, math.NaN(), "Theorem 3.6 assumes a smooth loss"},
		{"alg2 given eps", Options{Method: Alg2, Steps: n, Eps: 0.1}, smooth, true, math.NaN(), "needs its step size and smoothing"},
		{"alg3 not smooth", Options{Method: Alg3, Steps: n, Batch: 10}, batch.Bounds{G: 2, Beta: math.Inf(1), L: 4}, true, math.NaN(), "Theorem 3.9 assumes a smooth loss"},
		// b = 10, c = 0.01: b√(D²+1)/(G_α√(c(1+2c)n)) ≈ 2.2 > α/(β/L) = 0.4.
		{"alg3 small c", Options{Method: Alg3, Steps: n / 100, Batch: 10}, smooth, true, math.NaN(), "Theorem 3.9's condition on c = T/n fails"},
		{"alg4", Options{Method: Alg4, Steps: n}, smooth, true, math.NaN(), "Theorem 4.1 gives only an O(·) bound"},
		{"vanilla", Options{Method: Vanilla, Steps: n}, smooth, true, math.NaN(), "vanilla has no theorem"},
	}
	for _, c := range cases {
		c.opt.Alpha, c.opt.Rule = alpha, TheoremStep
		if c.opt.Method != Alg4 {
			c.opt.Domain = ball
		}
		pr, err := resolve(&c.opt, p, n, c.bounds, c.convex, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !near(pr.Bound, c.bound, 1e-12) || !strings.Contains(pr.BoundFrom, c.from) {
			t.Errorf("%s: bound %v (%s); want %v (%s)", c.name, pr.Bound, pr.BoundFrom, c.bound, c.from)
		}
	}
}

// TestTheoremBoundOfModel: Train and NewOnline (given G, which the MLP has
// no closed form for) pass the model's convexity on, so that the MLP under
// Alg1's theorem has no bound and logistic regression has one.
func TestTheoremBoundOfModel(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 200, 3, 1)
	opt := Options{Method: Alg1, Rule: TheoremStep, Domain: Ball(2), Steps: 20}
	for _, c := range []struct {
		model  batch.Model[float64]
		finite bool
	}{{must(batch.NewLogistic[float64](3)), true}, {must(batch.NewMLP[float64](3, 4, 2)), false}} {
		res, err := Train(c.model, data, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.model.Name(), err)
		}
		o, err := NewOnline(c.model, 3, 2, Options{Method: Alg1, Rule: TheoremStep, Domain: Ball(2), Steps: 20, Scale: data.Scale(), G: 5})
		if err != nil {
			t.Fatalf("%s online: %v", c.model.Name(), err)
		}
		on := o.Result().Params
		o.Close()
		for where, pr := range map[string]Params{"Train": res.Params, "Online": on} {
			if finite(pr.Bound) != c.finite || (c.finite && pr.BoundFrom != "Theorem 3.2") || (!c.finite && !strings.Contains(pr.BoundFrom, "convex")) {
				t.Errorf("%s %s: bound %v (%s)", c.model.Name(), where, pr.Bound, pr.BoundFrom)
			}
		}
	}
}
