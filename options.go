package cvar

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
)

// Method is a training algorithm.
type Method int

const (
	Alg1          Method = iota + 1 // online projected subgradient descent
	Alg2                            // smoothed SGD, one sample per step
	Alg3                            // smoothed minibatch SGD (CVaR-SGD)
	Alg4                            // smoothed online GD, nonconvex, random iterate
	Vanilla                         // minibatch SGD on the mean loss
	MinibatchCVaR                   // SGD on each minibatch's exact CVaR
)

var methods = enum[Method]{kind: "method", typ: "Method", first: Alg1,
	names: []string{"alg1", "alg2", "alg3", "alg4", "vanilla", "minibatch"}}

func (m Method) String() string { return methods.str(m) }

// MarshalText returns the method's name, with an error for a value
// outside the constants.
func (m Method) MarshalText() ([]byte, error) { return methods.marshal(m) }

// UnmarshalText sets m from a method's name: alg1, alg2, alg3, alg4,
// vanilla or minibatch, in any case.
func (m *Method) UnmarshalText(b []byte) error { return methods.unmarshal(m, b) }

// online reports whether the method consumes samples one at a time in order.
func (m Method) online() bool { return m == Alg1 || m == Alg4 }

// usesTau reports whether the method trains the threshold τ.
func (m Method) usesTau() bool { return m >= Alg1 && m <= Alg4 }

// oneSample reports whether the method takes one sample per step.
func (m Method) oneSample() bool { return m == Alg1 || m == Alg2 || m == Alg4 }

// smoothed reports whether the method smooths the plus function with ε.
func (m Method) smoothed() bool { return m == Alg2 || m == Alg3 || m == Alg4 }

// Smoothing is the smoothed plus function of Alg2–4. The zero value is
// Softplus.
type Smoothing int

const (
	Softplus  Smoothing = iota // ε·log(1 + e^{s/ε})
	Quadratic                  // the piecewise quadratic of Alexander et al.
)

var smoothings = enum[Smoothing]{kind: "smoothing", typ: "Smoothing", names: []string{"softplus", "quadratic"}}

func (s Smoothing) String() string { return smoothings.str(s) }

// objective is the batch weighting that smooths with s.
func (s Smoothing) objective() batch.Objective {
	if s == Quadratic {
		return batch.Quadratic
	}
	return batch.Softplus
}

// MarshalText returns "softplus" or "quadratic", with an error for a
// value outside the constants.
func (s Smoothing) MarshalText() ([]byte, error) { return smoothings.marshal(s) }

// UnmarshalText sets s from "softplus" or "quadratic", in any case.
func (s *Smoothing) UnmarshalText(b []byte) error { return smoothings.unmarshal(s, b) }

// StepRule says where the step size η, the smoothing ε and the starting τ
// come from when Options leaves them 0.
type StepRule int

const (
	// PracticalStep, the default, is the setting that lowers the tail on
	// real data, on the raw losses:
	//   - η = DefaultLR (DefaultLROneSample for Alg1, Alg2 and Alg4, which
	//     take one sample a step);
	//   - τ's step η/α: τ's gradient 1 − (share above τ)/α is O(1), and
	//     with η alone τ lags far behind VaR_α as the losses fall;
	//   - ε = DefaultEpsFraction × VaR_α of the losses at the starting
	//     point: the smoothing follows the losses' own scale, never η;
	//   - τ starts at that VaR_α, where the optimum puts it;
	//   - Alg3 and Alg4 return their last iterate, Alg1 and Alg2 the
	//     average (whose noise it smooths).
	// Alg2 and Alg3 measure the VaR on up to DefaultInitSample training
	// rows. The online Alg1 and Alg4 measure it on the first sample, as
	// Online sees it.
	PracticalStep StepRule = iota
	// TheoremStep takes η and ε from the method's theorem (Theorems 3.2,
	// 3.6, 3.9, 4.1), on losses divided by their bound L. It takes τ from
	// TauMin, and the theorems' outputs. It reports the theorem's bound.
	// These are worst-case guarantees, very conservative in practice. The
	// step size η is often far too large or far too small. The smoothing ε
	// is so large that the smoothed plus is nearly linear, a copy of
	// Vanilla-SGD.
	TheoremStep
)

func (r StepRule) String() string {
	if r == TheoremStep {
		return "theorem"
	}
	return "practical"
}

// Output picks the parameters a run returns.
type Output int

const (
	// OutputDefault is the average of the iterates for Alg1 and Alg2, and
	// the last iterate for Alg3, Alg4 and the baselines. Under TheoremStep
	// it is what the theorems bound: the average for Alg1–3, a random
	// iterate for Alg4.
	OutputDefault Output = iota
	OutputAverage
	OutputLast
	OutputRandom
)

var outputNames = [...]string{"default", "average", "last", "random"}

func (o Output) String() string {
	if o >= 0 && int(o) < len(outputNames) {
		return outputNames[o]
	}
	return fmt.Sprintf("Output(%d)", int(o))
}

// domainKind names the shape of the feasible set K of the parameters.
type domainKind int

const (
	domainR    domainKind = iota // K = R^d
	domainBall                   // ‖θ‖ ≤ rad
	domainBox                    // lo ≤ θ_j ≤ hi for every j
)

// Domain is the feasible set K of the parameters: R^d, the zero value, or
// the ball or box that Ball and Box return.
type Domain struct {
	kind   domainKind
	rad    float64 // domainBall
	lo, hi float64 // domainBox
}

// Ball returns the L2 ball of radius r.
func Ball(r float64) Domain { return Domain{kind: domainBall, rad: r} }

// Box returns the box [lo, hi]^p: lo ≤ θ_j ≤ hi for every parameter.
func Box(lo, hi float64) Domain { return Domain{kind: domainBox, lo: lo, hi: hi} }

func (d Domain) validate() error {
	switch d.kind {
	case domainR:
		return nil
	case domainBall:
		if !(d.rad > 0) || math.IsInf(d.rad, 0) {
			return fmt.Errorf("cvar: ball radius %v must be positive and finite", d.rad)
		}
		return nil
	case domainBox:
		if !(d.lo <= d.hi) || math.IsInf(d.lo, 0) || math.IsInf(d.hi, 0) {
			return fmt.Errorf("cvar: box [%v, %v] must be finite with lo ≤ hi", d.lo, d.hi)
		}
		return nil
	}
	return fmt.Errorf("cvar: unknown domain kind %d", int(d.kind))
}

// Diameter is D = sup ‖θ − θ'‖ over K ⊂ R^p: 2R for a ball, (hi−lo)·√p for a
// box, +Inf for R^p.
func (d Domain) Diameter(p int) float64 {
	switch d.kind {
	case domainBall:
		return 2 * d.rad
	case domainBox:
		return (d.hi - d.lo) * math.Sqrt(float64(p))
	}
	return math.Inf(1)
}

// radius is the radius of the smallest L2 ball about 0 holding K, which the
// models' Lipschitz and loss bounds use.
func (d Domain) radius(p int) float64 {
	switch d.kind {
	case domainBall:
		return d.rad
	case domainBox:
		return math.Max(math.Abs(d.lo), math.Abs(d.hi)) * math.Sqrt(float64(p))
	}
	return math.Inf(1)
}

func (d Domain) String() string {
	switch d.kind {
	case domainBall:
		return fmt.Sprintf("ball(R=%g)", d.rad)
	case domainBox:
		return fmt.Sprintf("box[%g, %g]", d.lo, d.hi)
	}
	return "R^d"
}

// Options configure a training run. The zero value of every field means its
// documented default; only Method is required.
type Options struct {
	Method Method
	// Alpha is the tail fraction α ∈ (0, 1]; default DefaultAlpha (0.1).
	Alpha float64
	// Objective is the risk the run minimises; default the method's own
	// (ObjectiveDefault). Blend, Trim, Rho, Groups and GroupLR are the
	// parameters of the objectives that take them; 0 means the default
	// (DefaultBlend, DefaultTrim, DefaultRho, DefaultGroupLR). Groups is
	// the group id of each training row, 0 … dataset.MaxGroups−1, which only
	// ObjectiveGroup reads. See docs/algorithms.md.
	Objective Objective
	Blend     float64
	Trim      float64
	Rho       float64
	Groups    []int32
	GroupLR   float64
	// Domain is K; default R^d. The theorems' step sizes need a bounded K
	// for Alg1–3 (D < ∞).
	Domain Domain
	// TauMin and TauMax bound τ, in the losses' units. The default is
	// [0, L] when the loss bound L is known, else [0, +Inf).
	TauMin, TauMax float64
	// Smoothing and Eps set the smoothed plus function of Alg2–4. Eps is in
	// units of ℓ/L (the losses' own units unless they are normalised); 0
	// means the Rule's value.
	Smoothing Smoothing
	Eps       float64
	// EpsFraction is the practical ε as a fraction of the initial VaR_α,
	// used when Eps is 0 under PracticalStep; 0 means DefaultEpsFraction.
	EpsFraction float64
	// LR is the step size η; 0 means the Rule's value. Under PracticalStep
	// the methods with τ that take one sample a step get
	// DefaultLROneSample: Alg1, Alg2, Alg4, and Alg3 with Batch 1. The
	// others get DefaultLR. Under TheoremStep, Alg1–4 get their theorem's.
	LR float64
	// TauLR is τ's step size; 0 means LR/α under PracticalStep and LR (the
	// joint step of the theorems) under TheoremStep.
	TauLR float64
	// Rule says where LR, Eps and the starting τ come from when they are
	// not given; default PracticalStep.
	Rule StepRule
	// WeightDecay λ adds λ·θ to every gradient. On sparse data (linear
	// models and softmax) it is applied lazily. A weight the minibatch does
	// not touch is decayed when next touched or read. It is multiplied by
	// the product of the untouched steps' factors: 1 − ηλ, times the ball's
	// projection. That equals the dense step's decays to rounding.
	WeightDecay float64
	// Steps is T, the number of updates. 0 means Epochs passes.
	Steps int
	// Epochs is the number of passes over the data when Steps is 0. The
	// default is Method.DefaultEpochs. Steps, or Epochs times the steps of
	// a pass, must be at most MaxSteps.
	Epochs int
	// Batch is the minibatch size of Alg3 and the baselines; default
	// DefaultBatch (512), at most the number of samples. Alg1, Alg2 and
	// Alg4 use 1.
	Batch int
	// Sampling says how minibatches are drawn. The zero value is the
	// method's default. Alg1 and Alg4 take a stream in order. Alg2 and Alg3
	// draw with replacement, as the theorems do. The baselines shuffle each
	// epoch, as the paper's experiments do. Online takes its samples in the
	// order they come.
	Sampling batch.Sampling
	// Output picks the iterate the run returns; default the method's (see
	// OutputDefault).
	Output Output
	// Seed fixes every random choice: same seed, same data, same kernel
	// implementation ⇒ bit-identical result, whatever Threads is. The
	// draws themselves are the same on every Go version and platform.
	Seed uint64
	// LossBound (L), G and Beta override the constants the step sizes use,
	// in the losses' units. 0 means derived from the model, the data and K
	// (or estimated at the initial point for the MLP).
	LossBound, G, Beta float64
	// Scale overrides the data's measured ‖x‖ and |y| bounds (for streams);
	// its fields must be finite and ≥ 0.
	Scale batch.Scale
	// Threads is the number of workers; 0 means GOMAXPROCS. More than
	// GOMAXPROCS are clamped to it. A negative count is an error. Results do
	// not depend on it.
	Threads int
	// Init, when not nil, is the starting θ. It must be finite in the run's
	// precision, and in K to a relative 1e-6 for rounding. Anything else is
	// an error, not projected.
	Init []float64
	// InitTau, when not nil, is the starting τ of the methods with τ
	// (Alg1–4), in the losses' units. It must be finite and in
	// [TauMin, TauMax]. It is an error for the baselines, which have no τ.
	// It takes the place of the Rule's start (Params.TauFrom "given").
	// Under PracticalStep, ε still comes from the initial losses when Eps
	// is 0.
	// With Init, a run goes on from another's θ and τ, as training by
	// rounds on several machines does.
	InitTau *float64
	// OnEpoch, when not nil, is called after each pass over the data. It
	// gets the parameters the run would return if it stopped there. Returning an
	// error stops training with that error.
	OnEpoch func(EpochInfo) error

	// With denseStep the run takes the dense step on sparse data too. It is
	// the reference of the sparse step's tests and benchmarks.
	denseStep bool
	// With serialUpdate, Train updates θ after the engine's pass over the
	// gradient rather than in it. It is the reference of the folded
	// update's tests.
	serialUpdate bool
	// With compactStep the sparse step gathers the minibatch's columns
	// (GradientSparse) where it could run in θ itself (Engine.StepSparse).
	// It is the reference of the direct step's tests.
	compactStep bool
}

// EpochInfo is what OnEpoch sees. Theta is only valid during the call.
type EpochInfo struct {
	Epoch, Step int
	Theta       []float64
	Tau         float64 // in the losses' units
}
