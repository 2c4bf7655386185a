package batch

import (
	"errors"
	"fmt"
	"math"
)

// Model is a parametric model with a per-sample loss. Parameters live in one
// flat slice θ whose layout each model documents. A Model holds no per-call
// state: Forward saves what Backward needs in a Work, one per goroutine.
//
// InitParams, Forward, Backward and Scores are the hot path: they do not
// check their arguments. Slices of the wrong length or rows outside the data
// make them panic like a bad slice index. Call them through an Engine, whose
// methods check their arguments and return errors. A gradient step leaves
// the data's values and sparse rows to Data.Validate (see Engine.Gradient).
// Or call them after Check and Data.Validate, with θ of NumParams entries.
type Model[T Float] interface {
	// Name is the model's short name ("logistic", "softmax", "linear",
	// "lad", "mlp").
	Name() string
	// NumParams is len(θ).
	NumParams() int
	// NumOutputs is the number of scores per sample: 1, or k classes.
	NumOutputs() int
	// Convex reports whether the loss is convex in θ.
	Convex() bool
	// InitParams writes the starting parameters into theta. A model with a
	// random start (the MLP) draws it from seed. The draw is the same on
	// every platform and Go version. The others ignore seed.
	InitParams(theta []T, seed uint64)
	// Check reports whether data suits the model (dimension, task, classes).
	Check(data *Data[T]) error
	// Forward computes the losses of rows idx into wk.Loss and saves what
	// Backward needs. A nil idx means rows 0..n−1, with n = len(wk.Loss)
	// after the call.
	Forward(wk *Work[T], theta []T, data *Data[T], idx []int, n int)
	// Backward adds Σ_i coef[i]·∇ℓ_i(θ) to g, for the rows of the last
	// Forward on wk. It may overwrite the state Forward saved.
	Backward(wk *Work[T], theta []T, data *Data[T], idx []int, coef, g []T)
	// Scores writes the NumOutputs scores of each row (margin, value or
	// logits) into out, n×NumOutputs.
	Scores(wk *Work[T], theta []T, data *Data[T], idx []int, n int, out []T)
	// Bounds returns the constants of the theorems for this model on data of
	// the given scale. The parameters lie in an L2 ball of the given radius
	// (math.Inf(1) for R^d). The constants are the Lipschitz constant G,
	// smoothness β and loss bound L. NaN marks one where no closed form
	// exists.
	Bounds(scale Scale, radius float64) Bounds
}

// Bounds are a model's constants on a data set. Over the feasible set ℓ(·;
// z) is G-Lipschitz and β-smooth in θ, and bounded by L. NaN marks a
// constant with no closed form for the model (the MLP), +Inf an unbounded
// one.
type Bounds struct {
	G, Beta, L float64
}

// Scale bounds the data the constants depend on. ‖x‖ ≤ MaxNorm for every
// sample, and |y| ≤ MaxAbsY for regression targets. Data.Scale measures it;
// a stream's owner states it.
type Scale struct {
	MaxNorm, MaxAbsY float64
}

// Work is one goroutine's scratch space. Models grow its buffers on first
// use and reuse them after, so steady-state training does not allocate.
type Work[T Float] struct {
	Loss  []T // per-sample losses of the last Forward
	dloss []T // linear models: ∂ℓ/∂m; softmax/MLP: n×k logits → gradient
	m     []T // linear margins
	y     []T // gathered targets
	lab   []int32
	xb    []T // MLP: gathered rows, n×d
	h     []T // MLP: hidden pre-activations → activations, n×h
	dh    []T // MLP: hidden gradients, n×h
	s     []T // plus-function arguments
	coef  []T // per-sample coefficients of the engine
	c     []T // per-sample coefficients times the loss derivative
	tile  []T // softmax/MLP: the output biases repeated n times (addBias)
	// next lists the rows the goroutine running this Work reads next, of the
	// same data. The Engine sets it; it is nil when the Engine does not
	// know. A model may prefetch them during its own pass. It is a hint:
	// results never depend on it.
	next []int
}

// MaxDim bounds every size of a model: features, classes and hidden units.
// The kernels index rows and classes with 32-bit counts.
const MaxDim = math.MaxInt32

// MaxParams bounds the number of parameters of a model, 2³². That is 16 GiB
// of float32 parameters, before gradients and scratch. The constructors
// return an error beyond it rather than let training fail to allocate.
const MaxParams = 1 << 32

// checkParams reports a model whose parameter count r·c + b exceeds
// MaxParams or does not fit in an int. The sizes are at most MaxDim.
func checkParams(name string, r, c, b int) error {
	if p := int64(r)*int64(c) + int64(b); p > MaxParams || p > math.MaxInt {
		return fmt.Errorf("batch: %s has %d parameters, more than %d", name, p, min(int64(MaxParams), math.MaxInt))
	}
	return nil
}

// sparseModel is a Model that reads sparse (CSR) data: the linear models,
// softmax and the MLP. The Engine refuses sparse data for any other (a
// Model defined outside this package).
type sparseModel interface{ readsSparse() }

// errNotSparse is the error of a model that does not read sparse data.
func errNotSparse(name string) error {
	return fmt.Errorf("batch: the %s model does not run on sparse data; densify the data (dataset.Dataset.Dense) or use one of this package's models", name)
}

// checkSparse reports sparse data given to a model that cannot read it.
func checkSparse[T Float](model Model[T], data *Data[T]) error {
	if err := checkCompact(model, data); err != nil {
		return err
	}
	if data != nil && data.IsSparse() {
		if _, ok := model.(sparseModel); !ok {
			return errNotSparse(model.Name())
		}
	}
	return nil
}

// checkSize reports a model size v (what it counts) outside [lo, MaxDim].
func checkSize(what string, v, lo int) error {
	if v < lo || v > MaxDim {
		return fmt.Errorf("batch: %d %s; want %d to %d", v, what, lo, MaxDim)
	}
	return nil
}

func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// Objective names the per-sample weighting of a minibatch gradient.
type Objective int

const (
	// Mean is the plain mean loss (Vanilla-SGD).
	Mean Objective = iota
	// Hinge is the non-smooth CVaR objective τ + [ℓ/L − τ]_+/α (Alg 1). Its
	// subgradient takes t = 0 at ℓ/L = τ.
	Hinge
	// Softplus smooths [·]_+ by ε·log(1 + e^{s/ε}) (Alg 2–4).
	Softplus
	// Quadratic smooths [·]_+ by the piecewise quadratic (Alg 2–4).
	Quadratic
	// TopK is the exact CVaR_α of the minibatch's losses, the fractional
	// top-k weights (CVaR-on-Minibatch).
	TopK
	// Custom takes every c_i from all the minibatch's losses at once, by
	// Weighting.Weigh. It serves the objectives that are not a sum of
	// per-sample terms: a trimmed tail, χ²-DRO, group weights.
	Custom
)

var objectiveNames = [...]string{"mean", "hinge", "softplus", "quadratic", "topk", "custom"}

func (o Objective) String() string {
	if o >= 0 && int(o) < len(objectiveNames) {
		return objectiveNames[o]
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// Weighting fixes how the losses of a minibatch weight their gradients.
type Weighting struct {
	Objective Objective
	Alpha     float64 // tail fraction α ∈ (0, 1]
	Eps       float64 // smoothing ε (Softplus, Quadratic), in units of ℓ/L
	Tau       float64 // threshold τ, in units of ℓ/L
	InvL      float64 // 1/L; losses are divided by L (0 means 1)
	// Weigh sets the coefficients c of Custom from the minibatch's losses.
	// Both slices have the minibatch's length, in the rows' order. It runs
	// on one goroutine after the forward pass. It must not keep either
	// slice.
	Weigh func(c, losses []float64)
}

func (w *Weighting) invL() float64 {
	if w.InvL == 0 {
		return 1
	}
	return w.InvL
}

// wholeBatch reports whether the coefficients need all the minibatch's
// losses first. Then a forward pass runs, then the weights, then a backward
// pass.
func (w *Weighting) wholeBatch() bool { return w.Objective == TopK || w.Objective == Custom }

// Validate reports a weighting the kernels cannot use.
func (w *Weighting) Validate() error {
	if w.Objective < Mean || w.Objective > Custom {
		return fmt.Errorf("batch: unknown objective %d", int(w.Objective))
	}
	if (w.Objective == Custom) != (w.Weigh != nil) {
		return errors.New("batch: Weigh is set exactly for the Custom objective")
	}
	if w.Objective != Mean && !(w.Alpha > 0 && w.Alpha <= 1) {
		return fmt.Errorf("batch: alpha %v outside (0, 1]", w.Alpha)
	}
	if (w.Objective == Softplus || w.Objective == Quadratic) && !(w.Eps > 0 && !math.IsInf(w.Eps, 0)) {
		return fmt.Errorf("batch: smoothing eps %v must be positive and finite", w.Eps)
	}
	if math.IsNaN(w.Tau) || math.IsInf(w.Tau, 0) || w.InvL < 0 || math.IsNaN(w.InvL) || math.IsInf(w.InvL, 0) {
		return fmt.Errorf("batch: tau %v and 1/L %v must be finite, 1/L ≥ 0", w.Tau, w.InvL)
	}
	return nil
}
