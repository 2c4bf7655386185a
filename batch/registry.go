package batch

import (
	"fmt"
	"math"
	"strings"
)

// The model registry: the kinds of model by name, as model files and the
// cvar command spell them. Each comes with its parameter count and
// constructor.

// Model kinds, as taken by NewModel and NumParams and returned by the
// models' Name methods.
const (
	KindLogistic = "logistic" // binary logistic regression, k = 2 (NewLogistic)
	KindSoftmax  = "softmax"  // multinomial logistic regression, k ≥ 2 (NewSoftmax)
	KindLinear   = "linear"   // least squares, regression (NewLeastSquares)
	KindLAD      = "lad"      // least absolute deviations, regression (NewLeastAbsolute)
	KindMLP      = "mlp"      // d → hidden → k ReLU network, k ≥ 2 (NewMLP)
)

// Kinds returns the model kinds, in a new slice.
func Kinds() []string { return []string{KindLogistic, KindSoftmax, KindLinear, KindLAD, KindMLP} }

// NumParams returns the number of parameters of a model of the given kind
// and shapes. The shapes are d features and k classes (0 for regression, 2
// for logistic). For the mlp they include the hidden units. Here those must
// be at least 1: NewModel's default does not apply. It returns an error for
// an unknown kind or impossible shapes, including more than MaxParams
// parameters.
func NumParams(kind string, d, k, hidden int) (int, error) {
	p, err := numParams(kind, d, k, hidden)
	if err == nil && int64(p) > MaxParams {
		return 0, fmt.Errorf("batch: a %s model with d = %d, k = %d, hidden = %d has %d parameters, more than %d", kind, d, k, hidden, p, int64(MaxParams))
	}
	return p, err
}

func numParams(kind string, d, k, hidden int) (int, error) {
	if d <= 0 || d > math.MaxInt32 {
		return 0, fmt.Errorf("batch: %d features; want at least 1", d)
	}
	switch kind {
	case KindLogistic:
		if k != 2 {
			return 0, fmt.Errorf("batch: logistic regression is binary; got %d classes (use softmax)", k)
		}
		return d + 1, nil
	case KindLinear, KindLAD:
		if k != 0 {
			return 0, fmt.Errorf("batch: %s regression needs real targets; got %d classes", kind, k)
		}
		return d + 1, nil
	case KindSoftmax, KindMLP:
		if k < 2 || k > math.MaxInt32 {
			return 0, fmt.Errorf("batch: %s needs at least 2 classes; got %d", kind, k)
		}
		if kind == KindSoftmax {
			if d > math.MaxInt/2/k {
				return 0, fmt.Errorf("batch: softmax with %d features and %d classes is too large", d, k)
			}
			return k*d + k, nil
		}
		h := hidden
		if h <= 0 || h > math.MaxInt32 {
			return 0, fmt.Errorf("batch: mlp hidden width %d; want at least 1", hidden)
		}
		if d > math.MaxInt/4/h || k > math.MaxInt/4/h {
			return 0, fmt.Errorf("batch: mlp %d → %d → %d is too large", d, h, k)
		}
		return h*d + h + k*h + k, nil
	}
	return 0, fmt.Errorf("batch: unknown model %q (want %s)", kind, strings.Join(Kinds(), ", "))
}

// NewModel returns the model of the given kind and shapes in precision T.
// The shapes are d features and k classes (0 for regression, 2 for
// logistic). For the mlp they include the hidden units; ≤ 0 means
// DefaultHidden. Errors as for NumParams.
func NewModel[T Float](kind string, d, k, hidden int) (Model[T], error) {
	if kind == KindMLP && hidden <= 0 {
		hidden = DefaultHidden
	}
	if _, err := NumParams(kind, d, k, hidden); err != nil {
		return nil, err
	}
	switch kind {
	case KindLogistic:
		return asModel[T](NewLogistic[T](d))
	case KindSoftmax:
		return asModel[T](NewSoftmax[T](d, k))
	case KindLinear:
		return asModel[T](NewLeastSquares[T](d))
	case KindLAD:
		return asModel[T](NewLeastAbsolute[T](d))
	}
	return asModel[T](NewMLP[T](d, hidden, k))
}

// asModel returns m as a Model, or a nil Model with the constructor's error.
// That nil is not a nil pointer in a non-nil interface.
func asModel[T Float, M Model[T]](m M, err error) (Model[T], error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}
