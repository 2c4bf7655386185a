package cvar

// Defaults of the options that a run resolves when they are zero.
const (
	// DefaultAlpha is the tail fraction α when Options.Alpha is 0: one of
	// the two α the paper reports (0.05, 0.1).
	DefaultAlpha = 0.1

	// DefaultBatch is the minibatch size of Alg3 and the baselines when
	// Options.Batch is 0, as in the paper's experiments. It is at most the
	// number of samples.
	DefaultBatch = 512

	// DefaultLR is the practical step size of the minibatch methods: Alg3
	// and the baselines. It is the largest of the paper's grid
	// {0.001, 0.005, 0.01}.
	DefaultLR = 0.01

	// DefaultLROneSample is the practical step size of the methods that
	// take one sample per step: Alg1, Alg2, Alg4. It is the smallest of the
	// paper's grid. A single sample's gradient is far noisier than a
	// minibatch's, and 1/α times larger in the tail.
	DefaultLROneSample = 0.001

	// DefaultEpsFraction is the practical smoothing ε as a fraction of the
	// initial VaR_α. It is small enough that ρ_ε stays close to the plus
	// function, so the weights single out the tail. It is large enough to
	// smooth it.
	DefaultEpsFraction = 0.05

	// DefaultMinSteps is the least number of steps the minibatch methods
	// take when neither Steps nor Epochs is given. On small data, 10 passes
	// of a few minibatches each leave a model far from trained.
	DefaultMinSteps = 1000

	// DefaultInitSample is the largest number of training rows whose
	// losses at the starting point are the initial losses. The rows are
	// spread evenly over the data. Their losses set the practical ε and τ
	// and the divergence bound.
	DefaultInitSample = 4096

	// The objectives' parameters.
	DefaultBlend   = 0.5  // λ of ObjectiveBlend
	DefaultTrim    = 0.05 // ε of ObjectiveTrimmed
	DefaultRho     = 1.0  // ρ of ObjectiveChi2
	DefaultGroupLR = 0.01 // η_q of ObjectiveGroup, as Sagawa et al.
)

// defaultMinEpochs is the number of passes Alg3 and the baselines make
// when neither Steps nor Epochs is given, as in the paper's experiments.
// DefaultMinSteps may ask for more.
const defaultMinEpochs = 10

// Limits of a run, beyond which it is refused or stopped.
const (
	// MaxSteps is the largest number of steps a run may take: Options.Steps,
	// or Options.Epochs times the steps of an epoch. It is 2⁵³, the largest
	// count that float64 holds exactly. The theorems' step sizes and the
	// averaging weights 1/t are computed in float64. A count beyond it is
	// refused, never wrapped.
	MaxSteps = 1 << 53

	// DivergenceFactor bounds a run's losses. A run has diverged when a
	// minibatch's mean loss exceeds DivergenceFactor times its loss scale.
	// It has also diverged when τ, which estimates a quantile of the
	// losses, passes that bound. For Train the scale is the largest of the
	// initial losses (see DefaultInitSample). For Online it is the first
	// sample's loss. A scale below 1 counts as 1. A healthy run lowers its
	// losses. A mean loss twelve orders of magnitude past the worst initial
	// loss is running away geometrically. It would go on to overflow, or
	// return garbage that stays just finite.
	DivergenceFactor = 1e12

	// MaxGridSettings is the largest number of settings Tune tries. Every
	// setting is a whole training run. Tune holds the parameters of each
	// until it has picked one.
	MaxGridSettings = 1 << 16
)

// DefaultEpochs is the number of passes method m makes over n samples in
// minibatches of batch when neither Steps nor Epochs is given. Alg1, Alg2
// and Alg4 make 1. Alg3 and the baselines make 10, or as many as make
// DefaultMinSteps steps when that is more.
func (m Method) DefaultEpochs(n, batch int) int {
	if m != Alg3 && m != Vanilla && m != MinibatchCVaR {
		return 1
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	perEpoch := max(1, (n+batch-1)/batch)
	return max(defaultMinEpochs, (DefaultMinSteps+perEpoch-1)/perEpoch)
}
