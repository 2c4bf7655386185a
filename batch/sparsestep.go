package batch

import (
	"errors"
	"fmt"
)

// The direct sparse step (StepSparse). The CSR kernels gather the
// minibatch's margins straight from θ, on the rows as they lie in the data.
// Then the update is scattered straight into θ, row by row. Each non-zero
// costs a read of its weight (the margin) and an update of it. The compact
// minibatch of GradientSparse (sparsecols.go) costs more. It numbers each
// column, a store and a load in a d-long array. It gathers θ, and stores the
// update at the minibatch's distinct columns.

// sparseStepModel is a model whose step StepSparse takes: a linear model.
type sparseStepModel[T Float] interface {
	// scatter adds −η·Σ_i c_i ∇ℓ_i(θ) to θ over the chunk's rows idx (nil:
	// the first n) of data. Here c_i = coef[i], and the derivatives are
	// those of the chunk's last forward pass in wk. It goes in the order of
	// the rows and of their entries. It returns the sum of the squares of
	// the values it wrote, one term a write.
	scatter(wk *Work[T], theta []T, data *Data[T], idx []int, coef []T, eta T) T
}

// HasSparseStep reports whether StepSparse applies to data: sparse data
// and a linear model.
func (e *Engine[T]) HasSparseStep(data *Data[T]) bool {
	_, ok := e.model.(sparseStepModel[T])
	return ok && data != nil && data.IsSparse()
}

// StepSparse makes the minibatch step θ ← θ − η·g in place on the rows idx
// (nil: the first n) of sparse data. Here g is the gradient Gradient writes
// at θ with the weighting wt. It computes all the minibatch's margins at θ
// first. Then it adds the update into θ row by row, entry by entry, in the
// order of the rows. A column repeated across rows gets each row's share in
// turn. Where HasSparseStep(data), it costs the minibatch's non-zeros: it
// reads and updates each one's weight once.
//
// The new θ equals θ − η·g as computed from Gradient, to rounding. Each
// non-zero's share is c_i·x_ij added to θ_j, where Gradient sums the shares
// before the update. The result does not depend on the thread count. The
// margins are computed by rows in parallel, the update on the calling
// goroutine.
//
// The hook accept, if not nil, is called with the losses and Σ v_i (as
// Gradient returns them) before θ changes. An error from it is returned with
// θ unchanged. StepSparse returns the losses, valid until the next call, and
// Σ v_i. It also returns the sum of the squares of the values written into
// θ: one term a non-zero and one for the bias. The sum is not finite when an
// updated parameter is not, or its square overflows T. Errors as for
// GradientSparse.
func (e *Engine[T]) StepSparse(theta []T, data *Data[T], idx []int, n int, wt *Weighting, eta T, accept func(losses []T, sumV float64) error) (losses []T, sumV float64, nrm2 T, err error) {
	if idx != nil {
		n = len(idx)
	}
	if err := e.check(theta, data, idx, n, true); err != nil {
		return nil, 0, 0, err
	}
	sm, ok := e.model.(sparseStepModel[T])
	switch {
	case !data.IsSparse():
		return nil, 0, 0, errors.New("batch: StepSparse needs sparse data, the data is dense (use Gradient)")
	case !ok:
		return nil, 0, 0, fmt.Errorf("batch: StepSparse needs a linear model, not %s", e.model.Name())
	case wt == nil:
		return nil, 0, 0, errNoWeighting
	}
	if err := wt.Validate(); err != nil {
		return nil, 0, 0, err
	}
	e.theta, e.data, e.idx, e.wt = theta, data, idx, wt
	e.loss = grow(e.loss, n)
	nc := e.setChunks(n, e.batchRows(n))
	e.failed.Store(false)
	e.inline = data.Indptr[data.N]/int64(max(data.N, 1))*int64(n) < e.sparseWork
	e.dispatch(phaseForward, nc)
	e.inline = false
	if e.failed.Load() {
		return nil, 0, 0, e.chunkError()
	}
	sumV = e.sparseWeights(wt, n, nc)
	if accept != nil {
		if err := accept(e.loss, sumV); err != nil {
			return nil, 0, 0, err
		}
	}
	for _, c := range e.chunks[:nc] {
		data, idx := e.chunkRows(c)
		nrm2 += sm.scatter(&c.wk, theta, data, idx, c.wk.coef[:c.n], eta)
	}
	return e.loss, sumV, nrm2, nil
}

// sparseWeights sets each chunk's coefficients (wk.coef) from the losses of
// the forward pass, as Gradient's chunks do. It returns Σ v_i.
func (e *Engine[T]) sparseWeights(wt *Weighting, n, nc int) float64 {
	if wt.wholeBatch() {
		e.batchWeights(wt, n)
		for _, c := range e.chunks[:nc] {
			c.wk.coef = append(c.wk.coef[:0], e.coef[c.lo:c.lo+c.n]...)
		}
		return 0
	}
	e.step = e.linearStep(wt, n)
	var sv T
	for _, c := range e.chunks[:nc] {
		sv += e.weigh(&c.wk, c.n)
	}
	if wt.Objective == Mean {
		return 0
	}
	return float64(sv)
}

// scatter implements sparseStepModel: θ_j += −η·c_i·ℓ'(m_i)·x_ij for each
// entry of each row. After the rows it adds the bias's share, the chunk's
// sum of c_i·ℓ'(m_i).
func (l *Linear[T]) scatter(wk *Work[T], theta []T, data *Data[T], idx []int, coef []T, eta T) T {
	w := theta[:l.d]
	var sum, s T
	for i, ci := range coef {
		c := ci * wk.dloss[i]
		sum += c
		a := -eta * c
		r := i
		if idx != nil {
			r = idx[i]
		}
		lo, hi := data.Indptr[r], data.Indptr[r+1]
		vals := data.Vals[lo:hi]
		for p, col := range data.Cols[lo:hi] {
			v := w[col] + a*vals[p]
			w[col] = v
			s += v * v
		}
	}
	b := theta[l.d] - eta*sum
	theta[l.d] = b
	return s + b*b
}
