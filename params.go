package cvar

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// Params are the constants and step sizes a run used, as resolved from the
// options, the model, the data and K. Normalised quantities are in units of
// ℓ/L; the bound is in the losses' own units. In JSON (MarshalJSON) NaN and
// ±Inf are the strings "NaN", "+Inf" and "-Inf"; Rule is not written.
type Params struct {
	Method     Method   `json:"method"`
	Alpha      float64  `json:"alpha"`
	N          int      `json:"n"`     // samples (Alg1/Alg4: samples consumed)
	Steps      int      `json:"steps"` // T
	Batch      int      `json:"batch"`
	G          float64  `json:"g"`          // Lipschitz constant of ℓ, losses' units
	Beta       float64  `json:"beta"`       // smoothness of ℓ, losses' units
	L          float64  `json:"loss_bound"` // L: losses are divided by it
	D          float64  `json:"diameter"`
	GAlpha     float64  `json:"g_alpha"` // max{√(G̃² + (1−α)²)/α, 1} with G̃ = G/L
	LR         float64  `json:"lr"`
	TauLR      float64  `json:"tau_lr"` // τ's step size
	Eps        float64  `json:"eps"`    // in units of ℓ/L
	TauMin     float64  `json:"tau_min"`
	TauMax     float64  `json:"tau_max"`
	Bound      float64  `json:"bound"`      // the theorem's excess-CVaR bound, losses' units; NaN if none
	BoundFrom  string   `json:"bound_from"` // the theorem Bound comes from, or why there is none
	Estimated  bool     `json:"estimated"`  // G and β were estimated at the initial point
	TheoremLR  bool     `json:"theorem_lr"`
	TheoremEps bool     `json:"theorem_eps"`
	Rule       StepRule `json:"-"`
	// LRFrom, EpsFrom and TauFrom say in words where η, ε and the starting
	// τ came from: "given", "default", a theorem, or the initial losses.
	LRFrom  string  `json:"lr_from"`
	EpsFrom string  `json:"eps_from"`
	Tau0    float64 `json:"tau0"` // the starting τ, losses' units; NaN without τ
	TauFrom string  `json:"tau_from"`
}

// DefaultLR is the step size of the minibatch methods (Alg3 and the
// baselines) when none is given and the rule is PracticalStep: the largest
// of the paper's grid {0.001, 0.005, 0.01}.
const DefaultLR = 0.01

// DefaultLROneSample is the practical step size of the methods that take one
// sample per step (Alg1, Alg2, Alg4): the smallest of the paper's grid, as a
// single sample's gradient is far noisier than a minibatch's, and 1/α times
// larger in the tail.
const DefaultLROneSample = 0.001

// DefaultEpsFraction is the practical smoothing ε as a fraction of the
// initial VaR_α: small enough that ρ_ε stays close to the plus function (so
// the weights single out the tail), large enough to smooth it.
const DefaultEpsFraction = 0.05

// fromInitialLosses marks in Params a value the run sets from the losses at
// its starting point.
const fromInitialLosses = "initial losses"

// DefaultMinSteps is the least number of steps the minibatch methods take
// when neither Steps nor Epochs is given: on small data 10 passes of a few
// minibatches each leave a model far from trained.
const DefaultMinSteps = 1000

// DefaultInitSample is the largest number of training rows, spread evenly
// over the data, whose losses at the starting point — the initial losses —
// set the practical ε and τ and the divergence bound.
const DefaultInitSample = 4096

// MaxSteps is the largest number of steps a run may take (Options.Steps,
// or Options.Epochs times the steps of an epoch): 2⁵³, the largest count
// that float64 holds exactly, in which the theorems' step sizes and the
// averaging weights 1/t are computed. A count beyond it is refused, never
// wrapped.
const MaxSteps = 1 << 53

// GAlphaOf returns G_α = max{√(G² + (1−α)²)/α, 1}, the Lipschitz constant of
// the auxiliary objective f(w, τ) (Lemma 2.2), for a loss with range [0, 1].
func GAlphaOf(g, alpha float64) float64 {
	return math.Max(math.Sqrt(g*g+(1-alpha)*(1-alpha))/alpha, 1)
}

// resolve fills in every default of opt for a run over n samples of a model
// with p parameters, the constants bounds and a loss convex in θ or not, and
// returns the run's parameters. est estimates G and β when the model has no
// closed form (the MLP); it is only called if needed.
func resolve(opt *Options, p int, n int, bounds batch.Bounds, convex bool, est func() (g, beta float64)) (Params, error) {
	o := opt
	if o.Method < Alg1 || o.Method > MinibatchCVaR {
		return Params{}, fmt.Errorf("cvar: unknown method %d", int(o.Method))
	}
	if o.Alpha == 0 {
		o.Alpha = 0.1
	}
	if !(o.Alpha > 0 && o.Alpha <= 1) {
		return Params{}, fmt.Errorf("cvar: alpha %v outside (0, 1]", o.Alpha)
	}
	if err := o.Domain.validate(); err != nil {
		return Params{}, err
	}
	if o.Method == Alg4 && o.Domain.Kind != DomainR {
		return Params{}, fmt.Errorf("cvar: alg4 is unconstrained (K = R^d); got domain %v", o.Domain)
	}
	for name, v := range map[string]float64{
		"LR": o.LR, "TauLR": o.TauLR, "EpsFraction": o.EpsFraction, "Eps": o.Eps, "WeightDecay": o.WeightDecay,
		"LossBound": o.LossBound, "G": o.G, "Beta": o.Beta, "Scale.MaxNorm": o.Scale.MaxNorm, "Scale.MaxAbsY": o.Scale.MaxAbsY,
	} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Params{}, fmt.Errorf("cvar: %s %v must be finite and ≥ 0", name, v)
		}
	}
	if o.Steps < 0 || o.Epochs < 0 || o.Batch < 0 {
		return Params{}, fmt.Errorf("cvar: Steps %d, Epochs %d and Batch %d must be ≥ 0", o.Steps, o.Epochs, o.Batch)
	}
	switch {
	case uint64(o.Steps) > MaxSteps:
		return Params{}, fmt.Errorf("cvar: Steps %d exceeds MaxSteps (%d)", o.Steps, uint64(MaxSteps))
	case uint64(o.Epochs) > MaxSteps:
		return Params{}, fmt.Errorf("cvar: Epochs %d exceeds MaxSteps (%d)", o.Epochs, uint64(MaxSteps))
	}
	pr := Params{Method: o.Method, Alpha: o.Alpha, N: n, D: o.Domain.Diameter(p), Rule: o.Rule}

	// Batch size and number of steps.
	switch o.Method {
	case Alg1, Alg2, Alg4:
		if o.Batch > 1 {
			return Params{}, fmt.Errorf("cvar: %v takes one sample per step; batch %d given (use alg3)", o.Method, o.Batch)
		}
		pr.Batch = 1
	default:
		pr.Batch = o.Batch
		if pr.Batch == 0 {
			pr.Batch = 512
		}
		pr.Batch = min(pr.Batch, n)
	}
	epochs := o.Epochs
	if epochs == 0 {
		epochs = DefaultEpochs(o.Method, n, pr.Batch)
	}
	pr.Steps = o.Steps
	if pr.Steps == 0 {
		perEpoch := (n + pr.Batch - 1) / pr.Batch
		hi, steps := bits.Mul64(uint64(epochs), uint64(perEpoch))
		if hi != 0 || steps > MaxSteps {
			return Params{}, fmt.Errorf("cvar: Epochs %d of %d steps each exceed MaxSteps (%d) steps", epochs, perEpoch, uint64(MaxSteps))
		}
		pr.Steps = int(steps)
	}
	if o.Method.online() {
		pr.N = pr.Steps // the theorems' n is the number of samples consumed
	}

	// Constants: G, β, L in the losses' units.
	pr.G, pr.Beta, pr.L = bounds.G, bounds.Beta, bounds.L
	if o.G > 0 {
		pr.G = o.G
	}
	if o.Beta > 0 {
		pr.Beta = o.Beta
	}
	if o.LossBound > 0 {
		pr.L = o.LossBound
	}
	if o.Smoothing != Softplus && o.Smoothing != Quadratic {
		return Params{}, fmt.Errorf("cvar: smoothing %v is not a smoothed plus function (want Softplus or Quadratic)", o.Smoothing)
	}
	if o.Rule != PracticalStep && o.Rule != TheoremStep {
		return Params{}, fmt.Errorf("cvar: unknown step rule %d", int(o.Rule))
	}
	theorem := o.Rule == TheoremStep && o.Method.usesTau()
	needTheorem := theorem && (o.LR == 0 || (o.Eps == 0 && o.Method != Alg1))
	if needTheorem && (math.IsNaN(pr.G) || (o.Method == Alg4 && math.IsNaN(pr.Beta))) && est != nil {
		g, beta := est()
		if math.IsNaN(pr.G) {
			pr.G = g
		}
		if math.IsNaN(pr.Beta) {
			pr.Beta = beta
		}
		pr.Estimated = true
	}
	// Losses are divided by L when the user states L, or when the theorems
	// set the step and L is known. Any other step acts on the raw losses,
	// like the baselines.
	normalise := o.LossBound > 0 || (theorem && o.LR == 0 && pr.L > 0 && !math.IsInf(pr.L, 0))
	if !normalise {
		pr.L = 1
	}
	gn, betan := pr.G/pr.L, pr.Beta/pr.L
	pr.GAlpha = GAlphaOf(gn, o.Alpha)

	// τ's interval, in the losses' units: [0, L] for normalised losses.
	pr.TauMin, pr.TauMax = o.TauMin, o.TauMax
	if pr.TauMax == 0 {
		pr.TauMax = math.Inf(1)
		if normalise {
			pr.TauMax = pr.L
		}
	}
	if !(pr.TauMin <= pr.TauMax) || math.IsNaN(pr.TauMin) || math.IsInf(pr.TauMin, 0) {
		return Params{}, fmt.Errorf("cvar: tau interval [%v, %v] is empty or not finite below", pr.TauMin, pr.TauMax)
	}

	// Step size and smoothing.
	d2 := pr.D*pr.D + 1
	nf, tf, bf := float64(pr.N), float64(pr.Steps), float64(pr.Batch)
	pr.LR, pr.Eps = o.LR, o.Eps
	pr.LRFrom, pr.EpsFrom = "given", "given"
	switch {
	case pr.LR > 0:
	case !theorem && pr.Batch == 1 && o.Method.usesTau():
		pr.LR, pr.LRFrom = DefaultLROneSample, "default for one sample a step"
	case !theorem:
		pr.LR, pr.LRFrom = DefaultLR, "default"
	default:
		pr.TheoremLR, pr.LRFrom = true, o.Method.Theorem()
		switch o.Method {
		case Alg1:
			pr.LR = math.Sqrt(d2) / (pr.GAlpha * math.Sqrt(nf))
		case Alg2:
			pr.LR = math.Sqrt(d2) * math.Sqrt(nf) / (pr.GAlpha * math.Sqrt(tf*(nf+2*tf)))
		case Alg3:
			pr.LR = bf * math.Sqrt(d2) * math.Sqrt(nf) / (pr.GAlpha * math.Sqrt(tf*(nf+2*tf)))
		case Alg4:
			eps := math.Pow(pr.GAlpha, 2.0/3) * math.Pow(gn, 2.0/3) * math.Pow(nf, -1.0/6)
			pr.LR = o.Alpha / ((betan + gn*gn/eps) * pr.GAlpha * pr.GAlpha * math.Sqrt(nf))
		}
	}
	pr.TauLR = o.TauLR
	if pr.TauLR == 0 && o.Method.usesTau() {
		pr.TauLR = pr.LR
		if !theorem {
			pr.TauLR = pr.LR / o.Alpha
		}
	}
	smoothed := o.Method == Alg2 || o.Method == Alg3 || o.Method == Alg4
	switch {
	case !smoothed:
		pr.Eps, pr.EpsFrom = 0, ""
	case pr.Eps > 0:
	case !theorem:
		pr.EpsFrom = fromInitialLosses // set by the run from its starting losses
	default:
		pr.TheoremEps, pr.EpsFrom = true, o.Method.Theorem()
		switch o.Method {
		case Alg2:
			pr.Eps = 2 * pr.GAlpha * pr.GAlpha * pr.LR
		case Alg3:
			pr.Eps = 2 * pr.GAlpha * pr.LR
		case Alg4:
			pr.Eps = math.Pow(pr.GAlpha, 2.0/3) * math.Pow(gn, 2.0/3) * math.Pow(nf, -1.0/6)
		}
	}
	pr.Tau0, pr.TauFrom = math.NaN(), ""
	if o.Method.usesTau() {
		pr.Tau0, pr.TauFrom = pr.TauMin, "tau_min"
		if !theorem {
			pr.TauFrom = fromInitialLosses // set by the run
		}
	}
	if o.Method.usesTau() && (math.IsNaN(pr.LR) || math.IsInf(pr.LR, 0) || pr.LR <= 0) {
		return Params{}, fmt.Errorf("cvar: %v: the theorem's step size is %v (G = %v, D = %v on %v): give LR, or bound K with a ball or box", o.Method, pr.LR, pr.G, pr.D, o.Domain)
	}
	if smoothed && pr.EpsFrom != fromInitialLosses && (math.IsNaN(pr.Eps) || math.IsInf(pr.Eps, 0) || pr.Eps <= 0) {
		return Params{}, fmt.Errorf("cvar: %v: smoothing eps is %v: give Eps", o.Method, pr.Eps)
	}

	pr.Bound, pr.BoundFrom = theoremBound(&pr, convex, normalise)
	return pr, nil
}

// theoremBound returns the bound of pr.Method's theorem on the expected
// excess CVaR, in the losses' units, and the theorem's name; or NaN and why
// there is none: the theorem gives no number (Alg4), the step size or
// smoothing is not the theorem's, or an assumption of the theorem fails
// that the run can see — a convex loss with values in [0, 1] after the
// division by L (Alg1–3), and for Alg2 and Alg3 a smooth loss and the
// condition on c = T/n.
func theoremBound(pr *Params, convex, normalised bool) (float64, string) {
	thm := pr.Method.Theorem()
	nan := math.NaN()
	switch {
	case thm == "":
		return nan, fmt.Sprintf("%v has no theorem", pr.Method)
	case pr.Method == Alg4:
		return nan, thm + " gives only an O(·) bound"
	case pr.Method == Alg1 && !pr.TheoremLR:
		return nan, thm + "'s bound needs its step size"
	case pr.Method != Alg1 && !(pr.TheoremLR && pr.TheoremEps):
		return nan, thm + "'s bound needs its step size and smoothing"
	case !convex:
		return nan, thm + " assumes a convex loss; this one is not"
	case !normalised:
		return nan, thm + " assumes losses in [0, 1]; these have no finite bound L to divide them by"
	}
	d2, nf, bf := pr.D*pr.D+1, float64(pr.N), float64(pr.Batch)
	base := pr.GAlpha * math.Sqrt(d2) / math.Sqrt(nf) * pr.L
	if pr.Method == Alg1 {
		return base, thm
	}
	betan := pr.Beta / pr.L
	if !(betan < math.Inf(1)) {
		return nan, fmt.Sprintf("%s assumes a smooth loss; this one has β = %v", thm, pr.Beta)
	}
	// The condition on c: b√(D²+1)/(G_α √(c(1+2c)n)) ≤ α/β, b = 1 for Alg2.
	c, b := float64(pr.Steps)/nf, 1.0
	if pr.Method == Alg3 {
		b = bf
	}
	lhs := b * math.Sqrt(d2) / (pr.GAlpha * math.Sqrt(c*(1+2*c)*nf))
	if !(lhs <= pr.Alpha/betan) {
		return nan, fmt.Sprintf("%s's condition on c = T/n fails: c = %.4g gives %.4g > α/β = %.4g", thm, c, lhs, pr.Alpha/betan)
	}
	if pr.Method == Alg2 {
		return base * (math.Sqrt((1+2*c)/c) + 2/math.Sqrt(c*(1+2*c))), thm
	}
	return base / math.Sqrt(bf) * (math.Sqrt((1+2*c)/c) + 2/math.Sqrt(1+2*c)), thm
}

// DefaultEpochs is the number of passes a method makes over n samples in
// minibatches of batch when neither Steps nor Epochs is given: 1 for Alg1,
// Alg2 and Alg4; for Alg3 and the baselines 10, or as many as make
// DefaultMinSteps steps when that is more.
func DefaultEpochs(m Method, n, batch int) int {
	if m != Alg3 && m != Vanilla && m != MinibatchCVaR {
		return 1
	}
	if batch <= 0 {
		batch = 512
	}
	perEpoch := max(1, (n+batch-1)/batch)
	return max(10, (DefaultMinSteps+perEpoch-1)/perEpoch)
}

// Theorem names the paper's theorem whose step size, smoothing and bound
// the method has ("" for the baselines).
func (m Method) Theorem() string {
	switch m {
	case Alg1:
		return "Theorem 3.2"
	case Alg2:
		return "Theorem 3.6"
	case Alg3:
		return "Theorem 3.9"
	case Alg4:
		return "Theorem 4.1"
	}
	return ""
}

// estimateConstants estimates G and β of a model without closed-form bounds
// at θ₀: G as the largest per-sample gradient norm over up to 256 samples, β
// as the largest ratio ‖∇ℓ(θ₀ + δu) − ∇ℓ(θ₀)‖/δ over random unit directions u.
func estimateConstants[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], seed uint64) (g, beta float64) {
	// One-sample gradients: a single worker of its own, so that the run's
	// workers are made only after every option is resolved.
	e, err := batch.NewEngine(model, 1)
	if err != nil {
		return math.NaN(), math.NaN() // resolve reports the step size it cannot set
	}
	defer e.Close()
	r := rng.New(seed, 0xe57)
	p := len(theta)
	g0, g1 := make([]T, p), make([]T, p)
	moved := make([]T, p)
	u := make([]float64, p)
	mean := &batch.Weighting{Objective: batch.Mean}
	var nrm float64
	for _, v := range theta {
		nrm += float64(v) * float64(v)
	}
	delta := 1e-3 * math.Max(1, math.Sqrt(nrm))
	for s := 0; s < min(256, data.N); s++ {
		idx := []int{r.IntN(data.N)}
		if _, _, err := e.Gradient(g0, theta, data, idx, 0, mean); err != nil {
			return math.NaN(), math.NaN() // resolve reports the step size it cannot set
		}
		g = math.Max(g, norm(g0))
		if s >= 32 {
			continue // a few directions suffice for β
		}
		var un float64
		for i := range u {
			u[i] = r.NormFloat64()
			un += u[i] * u[i]
		}
		un = math.Sqrt(un)
		for i := range moved {
			moved[i] = theta[i] + T(delta*u[i]/un)
		}
		if _, _, err := e.Gradient(g1, moved, data, idx, 0, mean); err != nil {
			return math.NaN(), math.NaN()
		}
		for i := range g1 {
			g1[i] -= g0[i]
		}
		beta = math.Max(beta, norm(g1)/delta)
	}
	return g, beta
}

func norm[T batch.Float](x []T) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}
