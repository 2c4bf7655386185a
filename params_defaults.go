package cvar

// The defaults of the options that a run resolves when they are zero, and
// the limit on its number of steps.

// DefaultAlpha is the tail fraction α when Options.Alpha is 0: one of the
// two α the paper reports (0.05, 0.1).
const DefaultAlpha = 0.1

// DefaultBatch is the minibatch size of Alg3 and the baselines when
// Options.Batch is 0 (at most the number of samples): the paper's
// experiments.
const DefaultBatch = 512

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

// DefaultMinSteps is the least number of steps the minibatch methods take
// when neither Steps nor Epochs is given: on small data 10 passes of a few
// minibatches each leave a model far from trained.
const DefaultMinSteps = 1000

// defaultMinEpochs is the number of passes Alg3 and the baselines make when
// neither Steps nor Epochs is given and DefaultMinSteps asks for fewer: the
// paper's experiments.
const defaultMinEpochs = 10

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

// DefaultEpochs is the number of passes a method makes over n samples in
// minibatches of batch when neither Steps nor Epochs is given: 1 for Alg1,
// Alg2 and Alg4; for Alg3 and the baselines 10, or as many as make
// DefaultMinSteps steps when that is more.
func DefaultEpochs(m Method, n, batch int) int {
	if m != Alg3 && m != Vanilla && m != MinibatchCVaR {
		return 1
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	perEpoch := max(1, (n+batch-1)/batch)
	return max(defaultMinEpochs, (DefaultMinSteps+perEpoch-1)/perEpoch)
}
