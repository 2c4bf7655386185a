package cvar

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"

	"github.com/cvarlearn/cvar/batch"
)

// A run's parameters and their resolution: resolve turns options that
// validate has passed into Params, in steps of one concern each.

// Params are the constants, step sizes and rules a run used, as resolved
// from the options, the model, the data and K. Normalised quantities are in
// units of ℓ/L; the bound is in the losses' own units. In JSON
// (MarshalJSON) NaN and ±Inf are the strings "NaN", "+Inf" and "-Inf".
// Method, Rule, Objective, Sampling and Output are their names.
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
	Rule       StepRule `json:"rule"`
	// LRFrom, EpsFrom and TauFrom say in words where η, ε and the starting
	// τ came from: "given", "default", a theorem, or the initial losses.
	LRFrom  string  `json:"lr_from"`
	EpsFrom string  `json:"eps_from"`
	Tau0    float64 `json:"tau0"` // the starting τ, losses' units; NaN without τ
	TauFrom string  `json:"tau_from"`
	// EpsFraction is the fraction of the initial VaR_α that sets ε when the
	// run sets it from its initial losses; 0 otherwise.
	EpsFraction float64 `json:"eps_fraction"`
	// Objective is the weighting of the losses that the steps take the
	// gradient of: Hinge (Alg1), Softplus or Quadratic (Alg2–4), Mean
	// (Vanilla), TopK (MinibatchCVaR).
	Objective batch.Objective `json:"objective"`
	// Risk is the objective the run minimised. Blend, Trim, Rho and GroupLR
	// are the parameters of the one that takes them, 0 for the others.
	// Groups is the number of groups of ObjectiveGroup.
	Risk    Objective `json:"risk"`
	Blend   float64   `json:"blend"`
	Trim    float64   `json:"trim"`
	Rho     float64   `json:"rho"`
	GroupLR float64   `json:"group_lr"`
	Groups  int       `json:"groups"`
	// Sampling is how the minibatches are drawn; batch.InOrder for Online,
	// which takes its samples in the order they come.
	Sampling batch.Sampling `json:"sampling"`
	// Output is the iterate the run returns: OutputAverage, OutputLast or
	// OutputRandom.
	Output Output `json:"output"`
}

// fromInitialLosses marks in Params a value the run sets from the losses at
// its starting point.
const fromInitialLosses = "initial losses"

// resolve returns the parameters of a run of opt, which validate has
// passed. The run is over n samples of a model with p parameters. The
// model's constants, and whether its loss is convex in θ, are in bounds.
// The function est estimates G and β when the model has no closed form
// (the MLP); it is only called if needed. The steps run in order, each from the options and
// the steps before it. They are the schedule, the constants, τ's interval,
// the step sizes, the smoothing and the starting τ. The theorem's bound,
// the output and the sampling come last. opt is not changed.
func resolve(opt *Options, p, n int, bounds batch.Bounds, convex bool, est func() (g, beta float64)) (Params, error) {
	pr := Params{Method: opt.Method, Alpha: cmp.Or(opt.Alpha, DefaultAlpha), D: opt.Domain.Diameter(p), Rule: opt.Rule}
	var err error
	if pr.Batch, pr.Steps, pr.N, err = schedule(opt, n); err != nil {
		return Params{}, err
	}
	theorem := opt.Rule == TheoremStep && opt.hasTau()
	pr.G, pr.Beta, pr.L, pr.Estimated = constants(opt, bounds, theorem, est)
	norm := normalised(opt, theorem, pr.L)
	if !norm {
		pr.L = 1
	}
	pr.GAlpha = gAlphaOf(pr.G/pr.L, pr.Alpha)
	if pr.TauMin, pr.TauMax, err = tauRange(opt, pr.L, norm); err != nil {
		return Params{}, err
	}
	pr.LR, pr.LRFrom, pr.TheoremLR = stepSize(opt, &pr, theorem)
	pr.TauLR = tauStepSize(opt, pr.LR, pr.Alpha, theorem)
	pr.Eps, pr.EpsFrom, pr.TheoremEps = smoothing(opt, &pr, theorem)
	if pr.EpsFrom == fromInitialLosses {
		pr.EpsFraction = cmp.Or(opt.EpsFraction, DefaultEpsFraction)
	}
	pr.Objective = objectiveOf(opt.Method, opt.Smoothing)
	objectiveParams(opt, &pr)
	pr.Tau0, pr.TauFrom = startTau(opt.hasTau(), pr.TauMin, theorem)
	if err := givenTau(opt, &pr); err != nil {
		return Params{}, err
	}
	if err := checkStep(opt, &pr); err != nil {
		return Params{}, err
	}
	pr.Bound, pr.BoundFrom = theoremBound(&pr, convex, norm)
	pr.Output, pr.Sampling = outputOf(opt), samplingOf(opt)
	return pr, nil
}

// schedule returns the minibatch size, the number of steps T and the
// theorems' n. That n is the n samples, or the T samples that the online
// methods consume.
func schedule(opt *Options, n int) (b, steps, samples int, err error) {
	b = 1
	if !opt.Method.oneSample() {
		b = min(cmp.Or(opt.Batch, DefaultBatch), n)
	}
	steps = opt.Steps
	if steps == 0 {
		epochs := opt.Epochs
		if epochs == 0 {
			epochs = opt.Method.DefaultEpochs(n, b)
		}
		perEpoch := (n + b - 1) / b
		hi, t := bits.Mul64(uint64(epochs), uint64(perEpoch))
		if hi != 0 || t > MaxSteps {
			return 0, 0, 0, fmt.Errorf("cvar: Epochs %d of %d steps each exceed MaxSteps (%d) steps", epochs, perEpoch, uint64(MaxSteps))
		}
		steps = int(t)
	}
	samples = n
	if opt.Method.online() {
		samples = steps
	}
	return b, steps, samples, nil
}

// constants returns G, β and L in the losses' units: the options' where
// given, else the model's bounds. G and β are estimated at the initial
// point (estimated true) when two things hold. The theorem's step size or
// smoothing needs them, and the model has no closed form for them.
func constants(opt *Options, bounds batch.Bounds, theorem bool, est func() (g, beta float64)) (g, beta, l float64, estimated bool) {
	g, beta, l = bounds.G, bounds.Beta, bounds.L
	if opt.G > 0 {
		g = opt.G
	}
	if opt.Beta > 0 {
		beta = opt.Beta
	}
	if opt.LossBound > 0 {
		l = opt.LossBound
	}
	need := theorem && (opt.LR == 0 || (opt.Eps == 0 && opt.Method != Alg1))
	if need && (math.IsNaN(g) || (opt.Method == Alg4 && math.IsNaN(beta))) && est != nil {
		eg, eb := est()
		if math.IsNaN(g) {
			g = eg
		}
		if math.IsNaN(beta) {
			beta = eb
		}
		estimated = true
	}
	return g, beta, l, estimated
}

// normalised reports whether the losses are divided by L. They are when
// the options give L, or when the theorems set the step and L is known. Any other step
// acts on the raw losses, like the baselines.
func normalised(opt *Options, theorem bool, l float64) bool {
	return opt.LossBound > 0 || (theorem && opt.LR == 0 && l > 0 && !math.IsInf(l, 0))
}

// tauRange returns τ's interval in the losses' units: the options'.
// TauMax 0 means L for normalised losses, so τ ∈ [0, 1] after the
// division; otherwise it means +Inf.
func tauRange(opt *Options, l float64, norm bool) (lo, hi float64, err error) {
	lo, hi = opt.TauMin, opt.TauMax
	if hi == 0 {
		hi = math.Inf(1)
		if norm {
			hi = l
		}
	}
	if lo == 0 && opt.objective() == ObjectiveChi2 {
		// χ²'s η is not a quantile: its optimum may be below every loss.
		lo = math.Inf(-1)
		return lo, hi, nil
	}
	if !(lo <= hi) || !finite(lo) {
		return 0, 0, fmt.Errorf("cvar: tau interval [%v, %v] is empty or not finite below", lo, hi)
	}
	if !finite(lo / l) {
		return 0, 0, fmt.Errorf("cvar: tau interval [%v, %v] has no finite start", lo, hi)
	}
	return lo, hi, nil
}

// stepSize returns η, where it came from, and whether it is the theorem's.
// It is the options' LR, else the practical default (see PracticalLR).
// Under TheoremStep it is the method's theorem's formula, from pr's
// schedule and constants.
func stepSize(opt *Options, pr *Params, theorem bool) (lr float64, from string, thm bool) {
	if opt.LR > 0 || !theorem {
		lr, from = opt.PracticalLR(pr.Batch)
		return lr, from, false
	}
	d2 := pr.D*pr.D + 1
	nf, tf, bf := float64(pr.N), float64(pr.Steps), float64(pr.Batch)
	gn, betan := pr.G/pr.L, pr.Beta/pr.L
	switch opt.Method {
	case Alg1:
		lr = math.Sqrt(d2) / (pr.GAlpha * math.Sqrt(nf))
	case Alg2:
		lr = math.Sqrt(d2) * math.Sqrt(nf) / (pr.GAlpha * math.Sqrt(tf*(nf+2*tf)))
	case Alg3:
		lr = bf * math.Sqrt(d2) * math.Sqrt(nf) / (pr.GAlpha * math.Sqrt(tf*(nf+2*tf)))
	case Alg4:
		eps := math.Pow(pr.GAlpha, 2.0/3) * math.Pow(gn, 2.0/3) * math.Pow(nf, -1.0/6)
		lr = pr.Alpha / ((betan + gn*gn/eps) * pr.GAlpha * pr.GAlpha * math.Sqrt(nf))
	}
	return lr, opt.Method.Theorem(), true
}

// tauStepSize returns τ's step size: the options' TauLR if given. Under
// TheoremStep it is η, the theorems' joint step. Under PracticalStep it is
// η/α: τ's gradient is O(1), and with η alone τ lags far behind VaR_α. The
// baselines have no τ and get 0.
func tauStepSize(opt *Options, lr, alpha float64, theorem bool) float64 {
	switch {
	case opt.TauLR > 0 || !opt.hasTau():
		return opt.TauLR
	case theorem:
		return lr
	}
	return lr / alpha
}

// smoothing returns ε of the smoothed methods (Alg2–4), where it came
// from, and whether it is the theorem's. It is the options' Eps if given.
// Under PracticalStep it is 0 with fromInitialLosses: the run sets it from
// its starting losses. Under TheoremStep it is the theorem's formula. The other methods have
// no ε.
func smoothing(opt *Options, pr *Params, theorem bool) (eps float64, from string, thm bool) {
	switch {
	case !opt.Method.smoothed():
		return 0, "", false
	case opt.Eps > 0:
		return opt.Eps, "given", false
	case !theorem:
		return 0, fromInitialLosses, false
	}
	switch opt.Method {
	case Alg2:
		eps = 2 * pr.GAlpha * pr.GAlpha * pr.LR
	case Alg3:
		eps = 2 * pr.GAlpha * pr.LR
	case Alg4:
		eps = math.Pow(pr.GAlpha, 2.0/3) * math.Pow(pr.G/pr.L, 2.0/3) * math.Pow(float64(pr.N), -1.0/6)
	}
	return eps, opt.Method.Theorem(), true
}

// objectiveOf is the weighting of the losses method m takes the gradient
// of, with smoothing s for Alg2–4.
func objectiveOf(m Method, s Smoothing) batch.Objective {
	switch m {
	case Alg1:
		return batch.Hinge
	case Alg2, Alg3, Alg4:
		return s.objective()
	case Vanilla:
		return batch.Mean
	}
	return batch.TopK
}

// PracticalLR is the step size η of opt under PracticalStep on minibatches
// of b samples, and where it comes from. It is opt.LR when given. The
// methods with τ at one sample a step get DefaultLROneSample, as their
// noisier steps need it. The others get DefaultLR.
func (opt *Options) PracticalLR(b int) (lr float64, from string) {
	switch {
	case opt.LR > 0:
		return opt.LR, "given"
	case b == 1 && opt.hasTau():
		return DefaultLROneSample, "default for one sample a step"
	}
	return DefaultLR, "default"
}

// startTau returns the starting τ and where it comes from: TauMin under
// TheoremStep; under PracticalStep the run moves it to the VaR_α of its
// initial losses. NaN for the baselines, which have no τ.
func startTau(hasTau bool, tauMin float64, theorem bool) (float64, string) {
	switch {
	case !hasTau:
		return math.NaN(), ""
	case theorem:
		return tauMin, "tau_min"
	}
	return tauMin, fromInitialLosses
}

// checkStep refuses a step size or smoothing that a theorem's formula
// made zero, negative or not finite (from K = R^d, say).
func checkStep(opt *Options, pr *Params) error {
	if opt.hasTau() && (math.IsNaN(pr.LR) || math.IsInf(pr.LR, 0) || pr.LR <= 0) {
		return fmt.Errorf("cvar: %v: the theorem's step size is %v (G = %v, D = %v on %v): give LR, or bound K with a ball or box", opt.Method, pr.LR, pr.G, pr.D, opt.Domain)
	}
	if opt.Method.smoothed() && pr.EpsFrom != fromInitialLosses && (math.IsNaN(pr.Eps) || math.IsInf(pr.Eps, 0) || pr.Eps <= 0) {
		return fmt.Errorf("cvar: %v: smoothing eps is %v: give Eps", opt.Method, pr.Eps)
	}
	return nil
}

// outputOf returns the iterate a run returns: the options' Output if
// given. Else Alg1 and Alg2 return the average, which smooths their noise,
// and the others the last iterate. Under TheoremStep a run returns what
// the theorems bound: the average for Alg1–3, a random iterate for Alg4.
func outputOf(opt *Options) Output {
	switch {
	case opt.Output != OutputDefault:
		return opt.Output
	case opt.Method == Alg1 || opt.Method == Alg2:
		return OutputAverage
	case opt.Rule == TheoremStep && opt.Method == Alg3:
		return OutputAverage
	case opt.Rule == TheoremStep && opt.Method == Alg4:
		return OutputRandom
	}
	return OutputLast
}

// samplingOf returns how the minibatches are drawn: the options' Sampling
// if given. Else Alg1 and Alg4 take a stream in order. Alg2 and Alg3 draw
// with replacement, as the theorems do. The baselines shuffle each epoch,
// as the paper's experiments do.
func samplingOf(opt *Options) batch.Sampling {
	if opt.Sampling != 0 {
		return opt.Sampling
	}
	switch opt.Method {
	case Alg1, Alg4:
		return batch.InOrder
	case Alg2, Alg3:
		return batch.WithReplacement
	}
	return batch.Shuffled
}
