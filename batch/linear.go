package batch

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// Linear is a linear model m = ⟨w, x⟩ + b with a loss of the margin. It is
// binary logistic regression (labels ±1), least squares (½(m − y)²) or least
// absolute deviations (|m − y|). θ = (w_1, …, w_d, b).
type Linear[T Float] struct {
	d    int
	loss kernel.LossKind
	ops  kernel.Ops[T]
}

// NewLogistic returns binary logistic regression on d features. Its loss is
// ℓ = log(1 + e^{−y·m}) for labels y = ±1, classes 0 and 1 of the data. It
// returns an error unless 1 ≤ d ≤ MaxDim (and d + 1 ≤ MaxParams).
func NewLogistic[T Float](d int) (*Linear[T], error) { return newLinear[T](d, kernel.Logistic) }

// NewLeastSquares returns linear regression with ℓ = ½(m − y)²; d as for
// NewLogistic.
func NewLeastSquares[T Float](d int) (*Linear[T], error) { return newLinear[T](d, kernel.Squared) }

// NewLeastAbsolute returns linear regression with ℓ = |m − y|; d as for
// NewLogistic.
func NewLeastAbsolute[T Float](d int) (*Linear[T], error) { return newLinear[T](d, kernel.Absolute) }

func newLinear[T Float](d int, loss kernel.LossKind) (*Linear[T], error) {
	if err := checkSize("features", d, 1); err != nil {
		return nil, err
	}
	if err := checkParams(fmt.Sprintf("a linear model of %d features", d), d, 1, 1); err != nil {
		return nil, err
	}
	return &Linear[T]{d: d, loss: loss, ops: kernel.For[T]()}, nil
}

// Name implements Model.
func (l *Linear[T]) Name() string {
	switch l.loss {
	case kernel.Logistic:
		return "logistic"
	case kernel.Squared:
		return "linear"
	}
	return "lad"
}

// NumParams implements Model: d weights and a bias.
func (l *Linear[T]) NumParams() int { return l.d + 1 }

// NumOutputs implements Model.
func (l *Linear[T]) NumOutputs() int { return 1 }

// NumInputs returns the number of features d.
func (l *Linear[T]) NumInputs() int { return l.d }

// Convex implements Model.
func (l *Linear[T]) Convex() bool { return true }

// InitParams implements Model: zeros, the usual start of a convex problem.
func (l *Linear[T]) InitParams(theta []T, _ uint64) { clear(theta[:l.d+1]) }

// readsSparse marks Linear as a model of sparse (CSR) data.
func (l *Linear[T]) readsSparse() {}

// Check implements Model.
func (l *Linear[T]) Check(data *Data[T]) error {
	if data == nil {
		return errNoData
	}
	if data.D != l.d {
		return fmt.Errorf("batch: %s model has %d features, data has %d", l.Name(), l.d, data.D)
	}
	if l.loss == kernel.Logistic && data.K != 2 {
		return fmt.Errorf("batch: binary logistic regression needs 2 classes, data has %d (use softmax)", data.K)
	}
	if l.loss != kernel.Logistic && data.IsClassification() {
		return fmt.Errorf("batch: %s regression needs real targets, data has class labels", l.Name())
	}
	return nil
}

// margins returns ⟨w, x_i⟩ + b for θ = (w, b) of d weights. A d below l.d
// means sparse data of d columns, renumbered (see sparsecols.go).
func (l *Linear[T]) margins(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int) []T {
	wk.m = grow(wk.m, n)
	if data.IsSparse() {
		l.ops.SparseMargins(wk.m, data.Indptr, data.Cols, data.Vals, idx, theta[:d])
	} else if data.IsCompact() {
		l.ops.MarginsC(wk.m, &data.c, idx, theta[:d])
	} else {
		l.ops.Margins(wk.m, data.X, data.Stride, idx, theta[:d])
	}
	b := theta[d]
	for i := range wk.m {
		wk.m[i] += b
	}
	return wk.m
}

// gather returns src's entries of the rows idx (nil: the first n). It copies
// them into *buf unless they already lie in order.
func gather[E any](buf *[]E, src []E, idx []int, n int) []E {
	if idx == nil {
		return src[:n]
	}
	*buf = grow(*buf, n)
	for i, r := range idx {
		(*buf)[i] = src[r]
	}
	return *buf
}

func gatherY[T Float](wk *Work[T], data *Data[T], idx []int, n int) []T {
	return gather(&wk.y, data.Y, idx, n)
}

// Forward implements Model.
func (l *Linear[T]) Forward(wk *Work[T], theta []T, data *Data[T], idx []int, n int) {
	l.forward(wk, theta, data, idx, n, l.d)
}

// forward is Forward with θ of d weights and the bias (see margins).
func (l *Linear[T]) forward(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int) {
	m := l.margins(wk, theta, data, idx, n, d)
	wk.Loss, wk.dloss = grow(wk.Loss, n), grow(wk.dloss, n)
	l.ops.LinearLoss(l.loss, wk.Loss, wk.dloss, m, gatherY(wk, data, idx, n))
}

// Backward implements Model: g_w += Σ c_i ℓ'(m_i) x_i, g_b += Σ c_i ℓ'(m_i).
func (l *Linear[T]) Backward(wk *Work[T], _ []T, data *Data[T], idx []int, coef, g []T) {
	l.backward(wk, data, idx, coef, g, l.d)
}

// backward is Backward into a gradient of d weights and the bias. A d below
// l.d means sparse data of d columns, renumbered (see sparsecols.go).
func (l *Linear[T]) backward(wk *Work[T], data *Data[T], idx []int, coef, g []T, d int) {
	c := grow(wk.c, len(coef))
	wk.c = c
	var sum T
	for i, ci := range coef {
		c[i] = ci * wk.dloss[i]
		sum += c[i]
	}
	if data.IsSparse() {
		l.ops.SparseAddRows(g[:d], data.Indptr, data.Cols, data.Vals, idx, c)
	} else if data.IsCompact() {
		l.ops.AddRowsC(g[:d], &data.c, idx, c)
	} else {
		l.ops.AddRows(g[:d], data.X, data.Stride, idx, c)
	}
	g[d] += sum
}

// fused runs margins, loss, weight and accumulation in one kernel pass. It
// is for dense data only; the Engine runs Forward and Backward on sparse
// data.
func (l *Linear[T]) fused(wk *Work[T], theta []T, data *Data[T], idx []int, n int, p *kernel.LinearStep[T], g []T) (sumV T) {
	wk.Loss = grow(wk.Loss, n)
	p.Loss, p.Bias = l.loss, theta[l.d]
	if data.IsCompact() {
		sumV, sumC := l.ops.FusedLinearC(g[:l.d], wk.Loss, &data.c, idx, gatherY(wk, data, idx, n), theta[:l.d], p)
		g[l.d] += sumC
		return sumV
	}
	sumV, sumC := l.ops.FusedLinear(g[:l.d], wk.Loss, data.X, data.Stride, idx, gatherY(wk, data, idx, n), theta[:l.d], p)
	g[l.d] += sumC
	return sumV
}

// Scores implements Model: the margins ⟨w, x⟩ + b.
func (l *Linear[T]) Scores(wk *Work[T], theta []T, data *Data[T], idx []int, n int, out []T) {
	copy(out[:n], l.margins(wk, theta, data, idx, n, l.d))
}

// Bounds implements Model. Let x̃ = (x, 1) for the bias, and X = max‖x̃‖.
// Then:
//
//	logistic: G = X,             β = X²/4,             L = log(1 + e^{R·X})
//	squared:  G = (R·X + Ymax)·X, β = X²,               L = ½(R·X + Ymax)²
//	absolute: G = X,             β = +Inf (not smooth), L = R·X + Ymax
func (l *Linear[T]) Bounds(sc Scale, radius float64) Bounds {
	xn, ymax := sc.MaxNorm, sc.MaxAbsY
	x := math.Sqrt(xn*xn + 1)
	switch l.loss {
	case kernel.Logistic:
		return Bounds{G: x, Beta: x * x / 4, L: softplus(radius * x)}
	case kernel.Squared:
		r := radius*x + ymax
		return Bounds{G: r * x, Beta: x * x, L: r * r / 2}
	}
	return Bounds{G: x, Beta: math.Inf(1), L: radius*x + ymax}
}

// softplus returns log(1 + e^t) without overflow.
func softplus(t float64) float64 {
	return math.Max(t, 0) + math.Log1p(math.Exp(-math.Abs(t)))
}

// UnscaleTarget rewrites θ, trained on targets standardised as
// (y − mean)/scale. It gives the parameters of the same predictor in the
// target's own units: w ← scale·w, b ← scale·b + mean. It returns the factor
// by which the losses grow in the process. That is scale² for least squares,
// and scale for least absolute deviations. The factor converts τ and any
// loss level.
func (l *Linear[T]) UnscaleTarget(theta []T, mean, scale float64) (lossFactor float64, err error) {
	if l.loss == kernel.Logistic {
		return 0, fmt.Errorf("batch: %s is a classifier; its targets are classes", l.Name())
	}
	if len(theta) != l.NumParams() {
		return 0, fmt.Errorf("batch: θ has %d parameters, the %s model %d", len(theta), l.Name(), l.NumParams())
	}
	if !(scale > 0) || !finite(scale) || !finite(mean) {
		return 0, fmt.Errorf("batch: target scale %v and mean %v must be finite, the scale positive", scale, mean)
	}
	for j := range theta[:l.d] {
		theta[j] = T(float64(theta[j]) * scale)
	}
	theta[l.d] = T(float64(theta[l.d])*scale + mean)
	if l.loss == kernel.Squared {
		return scale * scale, nil
	}
	return scale, nil
}
