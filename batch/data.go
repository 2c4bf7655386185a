// Package batch holds training data in memory, draws minibatches from it, and
// computes per-model losses and CVaR-weighted minibatch gradients (binary and
// multinomial logistic regression, linear regression with squared or absolute
// loss, and a one-hidden-layer ReLU network) through package kernel, spread
// over a fixed set of worker goroutines.
package batch

import (
	"errors"
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/kernel"
)

// Float is the element type: float32 or float64.
type Float = kernel.Float

// Data is n samples of d features, held row-major, with their targets.
type Data[T Float] struct {
	// X holds row i in X[i*Stride : i*Stride+D].
	X      []T
	N, D   int
	Stride int
	Y      []T     // regression targets, or ±1 for binary classification
	Labels []int32 // classes 0..K−1 for classification, nil for regression
	K      int     // number of classes; 0 for regression
}

// NewData wraps x (n×d, row-major, not copied) with regression targets y or
// class labels in [0, k). Exactly one of y and labels is given. It checks the
// shapes, that every value is finite and that every label is in range, so the
// kernels never see bad input. For k = 2, Y is filled with the ±1 labels that
// binary logistic regression uses.
func NewData[T Float](x []T, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	switch {
	case n <= 0 || d <= 0:
		return nil, fmt.Errorf("batch: data has %d rows and %d columns; need at least one of each", n, d)
	case len(x)%d != 0 || len(x)/d != n: // len(x) = n·d, without overflowing n·d
		return nil, fmt.Errorf("batch: x has %d values, want n·d = %d·%d", len(x), n, d)
	case (y == nil) == (labels == nil):
		return nil, errors.New("batch: give either regression targets or class labels, not both or neither")
	}
	for i, v := range x {
		if !finite(float64(v)) {
			return nil, fmt.Errorf("batch: row %d, column %d: value %v is not finite", i/d, i%d, v)
		}
	}
	data := &Data[T]{X: x, N: n, D: d, Stride: d}
	if y != nil {
		if len(y) != n {
			return nil, fmt.Errorf("batch: %d targets for %d rows", len(y), n)
		}
		for i, v := range y {
			if !finite(float64(v)) {
				return nil, fmt.Errorf("batch: row %d: target %v is not finite", i, v)
			}
		}
		data.Y = y
		return data, nil
	}
	if k < 2 {
		return nil, fmt.Errorf("batch: classification needs at least 2 classes, got k = %d", k)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("batch: %d labels for %d rows", len(labels), n)
	}
	for i, c := range labels {
		if c < 0 || int(c) >= k {
			return nil, fmt.Errorf("batch: row %d: label %d outside the classes 0..%d", i, c, k-1)
		}
	}
	data.Labels, data.K = labels, k
	if k == 2 {
		data.Y = make([]T, n)
		for i, c := range labels {
			data.Y[i] = T(2*c - 1)
		}
	}
	return data, nil
}

// Validate reports a Data that the models and the Engine cannot use: its
// shapes (N, D, Stride and the lengths of X, Y and Labels, which must hold
// N rows) and its labels (each in [0, K)). NewData's result is valid; a
// Data built by hand should be validated. It does not check that values are
// finite (NewData does).
func (d *Data[T]) Validate() error {
	if err := d.checkShape(); err != nil {
		return err
	}
	return checkLabels(d, d.Labels[:min(len(d.Labels), d.N)])
}

// rows is N, or 0 for a nil Data.
func (d *Data[T]) rows() int {
	if d == nil {
		return 0
	}
	return d.N
}

// ValidateFeatures reports a Data whose features the models cannot read:
// N, D, Stride and the length of X. It is what Engine.Scores needs, which
// uses no targets or labels. O(1).
func (d *Data[T]) ValidateFeatures() error {
	switch {
	case d == nil:
		return errNoData
	case d.N <= 0 || d.D <= 0 || d.Stride < d.D:
		return fmt.Errorf("batch: data has %d rows of %d columns with stride %d; want at least one of each, stride ≥ columns", d.N, d.D, d.Stride)
	case len(d.X) < d.D || (len(d.X)-d.D)/d.Stride < d.N-1: // len(X) ≥ (N−1)·Stride + D
		return fmt.Errorf("batch: data has %d values, too few for %d rows of stride %d", len(d.X), d.N, d.Stride)
	}
	return nil
}

// checkShape is Validate without the labels: O(1).
func (d *Data[T]) checkShape() error {
	if err := d.ValidateFeatures(); err != nil {
		return err
	}
	switch {
	case d.Labels == nil && (d.K != 0 || len(d.Y) < d.N):
		return fmt.Errorf("batch: regression data has %d targets for %d rows and %d classes; want a target a row and no classes", len(d.Y), d.N, d.K)
	case d.Labels != nil && (d.K < 2 || len(d.Labels) < d.N):
		return fmt.Errorf("batch: classification data has %d labels for %d rows and %d classes; want a label a row and at least 2 classes", len(d.Labels), d.N, d.K)
	case d.K == 2 && len(d.Y) < d.N:
		return fmt.Errorf("batch: binary data has %d ±1 targets for %d rows (NewData fills them in)", len(d.Y), d.N)
	}
	return nil
}

// Row returns sample i's features. Like a slice index, it panics unless
// 0 ≤ i < N on a valid Data.
func (d *Data[T]) Row(i int) []T { return d.X[i*d.Stride : i*d.Stride+d.D] }

// IsClassification reports whether the data carries class labels.
func (d *Data[T]) IsClassification() bool { return d.Labels != nil }

// Scale returns max_i ‖x_i‖ and, for regression, max_i |y_i|: the data
// constants of the theorems' Lipschitz and smoothness bounds. d must be
// valid (NewData's result, or see Validate).
func (d *Data[T]) Scale() Scale {
	var maxNorm, maxAbsY float64
	for i := 0; i < d.N; i++ {
		var s float64
		for _, v := range d.Row(i) {
			s += float64(v) * float64(v)
		}
		maxNorm = math.Max(maxNorm, s)
	}
	if d.Labels == nil {
		for _, v := range d.Y {
			maxAbsY = math.Max(maxAbsY, math.Abs(float64(v)))
		}
	}
	return Scale{MaxNorm: math.Sqrt(maxNorm), MaxAbsY: maxAbsY}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
