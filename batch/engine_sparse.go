package batch

import (
	"errors"
	"fmt"
)

// GradientSparse: the gradient on sparse data over the coordinates the
// minibatch touches, on its compact minibatch (sparsecols.go).

// sparseGradModel is a model whose parameters are k blocks of d feature
// weights (class-major) followed by k biases. So a row of sparse data
// touches the biases and, for each of its columns c, the weights j·d + c
// (j < k). The linear models (k = 1) and softmax are such models. Its
// forward and backward are Forward and Backward on sparse data of d columns,
// with θ and the gradient laid out for d. GradientSparse runs them on its
// compact minibatch.
type sparseGradModel[T Float] interface {
	sparseLayout() (d, k int)
	forward(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int)
	backward(wk *Work[T], data *Data[T], idx []int, coef, g []T, d int)
}

func (l *Linear[T]) sparseLayout() (d, k int)  { return l.d, 1 }
func (s *Softmax[T]) sparseLayout() (d, k int) { return s.d, s.k }

// layout returns the model's sparse layout, ok false unless data is sparse
// and the model has one.
func (e *Engine[T]) layout(data *Data[T]) (d, k int, ok bool) {
	if data == nil || !data.IsSparse() {
		return 0, 0, false
	}
	sm, ok := e.model.(sparseGradModel[T])
	if !ok {
		return 0, 0, false
	}
	d, k = sm.sparseLayout()
	return d, k, true
}

// sparseParallelWork is the least work of a pass over a compact minibatch
// for GradientSparse to share its chunks out to the workers. The work is the
// multiply-adds: non-zeros × classes. Below it the chunks run on the calling
// goroutine, which built the minibatch and has it in its caches. Their work
// is then too small to pay for moving the minibatch to another core. A
// text-like minibatch of about 20 000 non-zeros (k = 1) trains slower on two
// threads than on one. The result does not depend on it (the chunks are the
// same).
const sparseParallelWork = 1 << 20

// HasSparseGradient reports whether GradientSparse applies to data. The data
// must be sparse. The model's gradient on a row must touch only the weights
// of its columns and the biases, as in the linear models and softmax.
func (e *Engine[T]) HasSparseGradient(data *Data[T]) bool {
	_, _, ok := e.layout(data)
	return ok
}

// GradientSparse is Gradient for sparse data, where HasSparseGradient(data).
// Its cost is in the non-zeros of the minibatch rather than in the number of
// parameters. It returns the gradient at the coordinates the minibatch
// touches alone: grad[i] is at θ's coordinate coords[i]. First come the
// weights j·d + c of every class j and every column c of the rows. They run
// class by class, the columns in order of first appearance (rows in order,
// entries in order). Then come the k biases. The gradient is 0 at every
// other coordinate. The values are those Gradient writes, bit for bit,
// whatever the thread count. The chunks are summed along the same tree.
//
// coords and grad are valid until the next call; the caller may change
// grad. Errors as for Gradient, and for data or a model GradientSparse does
// not apply to.
func (e *Engine[T]) GradientSparse(theta []T, data *Data[T], idx []int, n int, wt *Weighting) (losses []T, sumV float64, coords []int, grad []T, err error) {
	var before func(coords []int)
	if e.hooks != nil {
		before = e.hooks.Before
	}
	return e.gradientSparse(theta, data, idx, n, wt, before)
}

// gradientSparse is GradientSparse calling before, if not nil, with coords
// before θ is read. It runs on the calling goroutine. It is the place to
// bring those coordinates of θ up to date (a lazy update;
// engine.Hooks.Before).
func (e *Engine[T]) gradientSparse(theta []T, data *Data[T], idx []int, n int, wt *Weighting, before func(coords []int)) (losses []T, sumV float64, coords []int, grad []T, err error) {
	if err := e.acquire(); err != nil {
		return nil, 0, nil, nil, err
	}
	defer e.release()
	if idx != nil {
		n = len(idx)
	}
	if err := e.check(theta, data, idx, n, true); err != nil {
		return nil, 0, nil, nil, err
	}
	d, k, ok := e.layout(data)
	if !ok {
		if !data.IsSparse() {
			return nil, 0, nil, nil, errors.New("batch: GradientSparse needs sparse data, the data is dense (use Gradient)")
		}
		return nil, 0, nil, nil, fmt.Errorf("batch: GradientSparse needs a model with a sparse gradient (linear, softmax), not %s (use Gradient)", e.model.Name())
	}
	if wt == nil {
		return nil, 0, nil, nil, errNoWeighting
	}
	if err := wt.Validate(); err != nil {
		return nil, 0, nil, nil, err
	}
	b := &e.cb
	b.build(data, idx, n, d, k)
	if before != nil {
		before(b.coords)
	}
	b.gatherTheta(theta, k)
	b.grad = grow(b.grad, len(b.theta))
	e.sparse, e.sd = true, b.local.D
	e.inline = int64(len(b.cols))*int64(k) < e.sparseWork
	losses, sumV, err = e.gradient(b.grad, b.theta, &b.local, nil, n, wt, nil)
	e.sparse, e.inline = false, false
	if err != nil {
		return nil, 0, nil, nil, err
	}
	m := len(b.list) // local.D is 1 for a minibatch without non-zeros
	return losses, sumV, b.coords, b.grad[k*(b.local.D-m):], nil
}
