package cvar

import (
	"math"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// The objectives' weights are checked against brute force: each
// objective's value is computed from its definition on a small minibatch,
// and its gradient in θ (and in τ or η) by central differences of that
// value, which must match the engine's Σ c_i ∇ℓ_i and the weigher's dual
// gradient.

// smallProblem is a logistic model on n random rows of d features, with
// random labels and a random θ.
func smallProblem(t *testing.T, n, d int, seed uint64) (*batch.Linear[float64], *batch.Data[float64], []float64) {
	t.Helper()
	r := rng.New(seed, 7)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(r.IntN(2))
	}
	data, err := batch.NewData(x, n, d, nil, labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewLogistic[float64](d)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = r.NormFloat64()
	}
	return model, data, theta
}

// weighRun makes the run of opt on the problem, with ε and τ set.
func weighRun(t *testing.T, model *batch.Linear[float64], data *batch.Data[float64], theta []float64, opt Options, tau float64) *run[float64] {
	t.Helper()
	if err := validate(&opt); err != nil {
		t.Fatal(err)
	}
	pr, err := resolve(&opt, model.NumParams(), data.N, model.Bounds(data.Scale(), math.Inf(1)), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr.Eps, pr.EpsFrom = 0.2, "test"
	e, hooks, err := newEngine[float64](model, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	r, err := newRun(model, e, hooks, opt, pr, slices.Clone(theta))
	if err != nil {
		t.Fatal(err)
	}
	r.fromLosses = false
	r.wt.Eps, r.tau, r.wt.Tau = pr.Eps, tau, tau
	return r
}

// lossesAt returns the model's losses of every row at θ.
func lossesAt(t *testing.T, r *run[float64], data *batch.Data[float64], theta []float64) []float64 {
	t.Helper()
	l, err := r.engine.LossesOf(theta, data, nil, data.N)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(l)
}

// checkGradient compares the run's minibatch gradient (over every row) and
// dual gradient with central differences of value(losses, τ).
func checkGradient(t *testing.T, r *run[float64], data *batch.Data[float64], theta []float64, tau float64, value func(l []float64, tau float64) float64) {
	t.Helper()
	g := make([]float64, len(theta))
	r.setRows(nil, data.N)
	if _, _, err := r.engine.Gradient(g, theta, data, nil, data.N, &r.wt); err != nil {
		t.Fatal(err)
	}
	gTau := r.gTau
	const h = 1e-6
	for j := range theta {
		tp, tm := slices.Clone(theta), slices.Clone(theta)
		tp[j] += h
		tm[j] -= h
		fd := (value(lossesAt(t, r, data, tp), tau) - value(lossesAt(t, r, data, tm), tau)) / (2 * h)
		if math.Abs(fd-g[j]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂θ_%d: engine %.9g, central difference %.9g", j, g[j], fd)
		}
	}
	if r.opt.hasTau() {
		l := lossesAt(t, r, data, theta)
		fd := (value(l, tau+h) - value(l, tau-h)) / (2 * h)
		if math.Abs(fd-gTau) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂τ: weigher %.9g, central difference %.9g", gTau, fd)
		}
	}
}

// softplusCVaR is τ + mean(ε·log(1 + e^{(ℓ−τ)/ε}))/α, the smoothed CVaR
// objective of Alg2–3 (L = 1).
func softplusCVaR(l []float64, tau, alpha, eps float64) float64 {
	var s float64
	for _, v := range l {
		s += eps * math.Log1p(math.Exp((v-tau)/eps))
	}
	return tau + s/(float64(len(l))*alpha)
}

// exactCVaR is the mean of the worst α-fraction of l, the fractional
// definition: the k = α·n largest, the last one in part.
func exactCVaR(l []float64, alpha float64) float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	slices.Reverse(s)
	k := alpha * float64(len(s))
	var sum float64
	for i, v := range s {
		w := math.Min(1, k-float64(i))
		if w <= 0 {
			break
		}
		sum += w * v
	}
	return sum / k
}

func mean(l []float64) float64 {
	var s float64
	for _, v := range l {
		s += v
	}
	return s / float64(len(l))
}

func TestBlendGradient(t *testing.T) {
	t.Parallel()
	model, data, theta := smallProblem(t, 23, 4, 1)
	const alpha, lambda = 0.3, 0.4
	t.Run("alg3", func(t *testing.T) {
		r := weighRun(t, model, data, theta, Options{Method: Alg3, Alpha: alpha, Objective: ObjectiveBlend, Blend: lambda}, 0.5)
		checkGradient(t, r, data, theta, 0.5, func(l []float64, tau float64) float64 {
			return lambda*mean(l) + (1-lambda)*softplusCVaR(l, tau, alpha, 0.2)
		})
	})
	t.Run("minibatch", func(t *testing.T) {
		r := weighRun(t, model, data, theta, Options{Method: MinibatchCVaR, Alpha: alpha, Objective: ObjectiveBlend, Blend: lambda}, 0)
		checkGradient(t, r, data, theta, 0, func(l []float64, _ float64) float64 {
			return lambda*mean(l) + (1-lambda)*exactCVaR(l, alpha)
		})
	})
}

// trimmedLosses drops the ⌊ε·n⌋ largest losses.
func trimmedLosses(l []float64, eps float64) []float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[:len(s)-int(eps*float64(len(s)))]
}

func TestTrimmedGradient(t *testing.T) {
	t.Parallel()
	model, data, theta := smallProblem(t, 31, 3, 2)
	const alpha, eps = 0.25, 0.1 // 3 of 31 dropped
	t.Run("alg3", func(t *testing.T) {
		r := weighRun(t, model, data, theta, Options{Method: Alg3, Alpha: alpha, Objective: ObjectiveTrimmed, Trim: eps}, 0.7)
		checkGradient(t, r, data, theta, 0.7, func(l []float64, tau float64) float64 {
			return softplusCVaR(trimmedLosses(l, eps), tau, alpha, 0.2)
		})
	})
	t.Run("minibatch", func(t *testing.T) {
		r := weighRun(t, model, data, theta, Options{Method: MinibatchCVaR, Alpha: alpha, Objective: ObjectiveTrimmed, Trim: eps}, 0)
		checkGradient(t, r, data, theta, 0, func(l []float64, _ float64) float64 {
			return exactCVaR(trimmedLosses(l, eps), alpha)
		})
	})
	t.Run("doro", func(t *testing.T) {
		// DORO's estimator: ranks ⌊εn⌋ … ⌊γn⌋ of the sorted losses, γ = ε + α(1 − ε),
		// summed over α(n − ⌊εn⌋); here αm is whole, so it is the exact CVaR.
		l := []float64{9, 1, 4, 8, 2, 7, 3, 6, 5, 0}
		w := &weigher{obj: ObjectiveTrimmed, alpha: 0.5, trim: 0.2}
		c := make([]float64, len(l))
		w.weigh(c, l, nil, 0)
		want := []float64{0, 0, 0.25, 0, 0, 0.25, 0, 0.25, 0.25, 0} // 7, 6, 5, 4 of 8 kept
		for i := range c {
			if math.Abs(c[i]-want[i]) > 1e-15 {
				t.Fatalf("coefficients %v, want %v", c, want)
			}
		}
	})
}

// chi2Dual is k·√(mean((ℓ − η)_+²)) + η.
func chi2Dual(l []float64, eta, rho float64) float64 {
	var s float64
	for _, v := range l {
		r := math.Max(v-eta, 0)
		s += r * r
	}
	return math.Sqrt(1+2*rho)*math.Sqrt(s/float64(len(l))) + eta
}

func TestChi2Gradient(t *testing.T) {
	t.Parallel()
	model, data, theta := smallProblem(t, 19, 4, 3)
	const rho = 0.8
	for _, eta := range []float64{-0.5, 0.6} {
		r := weighRun(t, model, data, theta, Options{Method: Alg3, Objective: ObjectiveChi2, Rho: rho}, eta)
		checkGradient(t, r, data, theta, eta, func(l []float64, eta float64) float64 { return chi2Dual(l, eta, rho) })
	}
}

// TestChi2Risk checks the dual's minimum against the primal: the worst
// distribution q_i ∝ (ℓ_i − η*)_+ is inside the χ² ball (½·Σ p_i(q_i/p_i −
// 1)² ≤ ρ, equal where the ball binds) and E_q[ℓ] equals the risk; and no
// η on a grid does better.
func TestChi2Risk(t *testing.T) {
	t.Parallel()
	r := rng.New(4, 4)
	for _, n := range []int{2, 5, 40} {
		for _, rho := range []float64{0.05, 0.5, 3} {
			l := make([]float64, n)
			for i := range l {
				l[i] = math.Exp(r.NormFloat64())
			}
			risk, eta := chi2Risk(l, rho)
			for e := -5.0; e < 10; e += 0.01 {
				if v := chi2Dual(l, e, rho); v < risk-1e-9 {
					t.Fatalf("n %d ρ %g: dual at η %g is %g, below the minimum %g (η* %g)", n, rho, e, v, risk, eta)
				}
			}
			var z float64
			q := make([]float64, n)
			for i, v := range l {
				q[i] = math.Max(v-eta, 0)
				z += q[i]
			}
			var eq, div float64
			for i := range q {
				q[i] /= z
				eq += q[i] * l[i]
				p := 1 / float64(n)
				div += p * (q[i]/p - 1) * (q[i]/p - 1) / 2
			}
			if div > rho*(1+1e-6) {
				t.Errorf("n %d ρ %g: the worst distribution's χ² is %g > ρ", n, rho, div)
			}
			// The largest χ² of a distribution on n points is (n − 1)/2 (all
			// mass on one): below it the ball binds where q drops a point.
			if rho < float64(n-1)/2 && div < rho*(1-1e-6) && q[slices.Index(l, slices.Min(l))] == 0 {
				t.Errorf("n %d ρ %g: χ² %g below ρ though the ball binds", n, rho, div)
			}
			if rho >= float64(n-1)/2 && math.Abs(risk-slices.Max(l)) > 1e-7*risk {
				t.Errorf("n %d ρ %g: the ball holds every distribution, but the risk %g is not the largest loss %g", n, rho, risk, slices.Max(l))
			}
			if math.Abs(eq-risk) > 1e-7*risk {
				t.Errorf("n %d ρ %g: E_q[ℓ] %g, dual %g", n, rho, eq, risk)
			}
		}
	}
}

func TestGroupWeights(t *testing.T) {
	t.Parallel()
	model, data, theta := smallProblem(t, 12, 3, 5)
	groups := []int32{0, 1, 1, 2, 0, 1, 1, 1, 2, 0, 1, 1}
	const lr = 0.5
	r := weighRun(t, model, data, theta, Options{Method: Vanilla, Objective: ObjectiveGroup, Groups: groups, GroupLR: lr}, 0)
	l := lossesAt(t, r, data, theta)
	var sum [3]float64
	var cnt [3]int
	for i, g := range groups {
		sum[g] += l[i]
		cnt[g]++
	}
	// One exponentiated-gradient step from uniform weights.
	var q [3]float64
	var z float64
	for g := range q {
		q[g] = math.Exp(lr * sum[g] / float64(cnt[g]))
		z += q[g]
	}
	checkGradient(t, r, data, theta, 0, func(l []float64, _ float64) float64 {
		var v float64
		var s [3]float64
		for i, g := range groups {
			s[g] += l[i]
		}
		for g := range s {
			v += q[g] / z * s[g] / float64(cnt[g])
		}
		return v
	})
	for g := range q {
		if got := r.wg.q[g]; math.Abs(got-q[g]/z) > 1e-12 {
			t.Errorf("q_%d = %g, want %g", g, got, q[g]/z)
		}
	}
}
