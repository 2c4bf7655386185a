package batch

import (
	"fmt"

	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/tail"
)

// The minibatch calls: Gradient (one pass per chunk, or TopK's forward
// and backward) and LossesOf.

// fusedModel is a Model with a one-pass minibatch step. The linear models
// are such models on dense data. On sparse data they run Forward, weigh and
// Backward.
type fusedModel[T Float] interface {
	fused(wk *Work[T], theta []T, data *Data[T], idx []int, n int, p *kernel.LinearStep[T], g []T) T
}

func (e *Engine[T]) stepChunk(j int, c *chunk[T], next int) {
	if !e.checkChunkLabels(c) {
		return
	}
	if next >= 0 && e.idx != nil && !e.data.IsSparse() {
		// This goroutine runs chunk next after this one: its rows, in
		// the sample's order, are the model's prefetch hint.
		nx := e.chunks[next]
		c.wk.next = e.idx[nx.lo : nx.lo+nx.n]
	}
	g := e.chunkGrad(j, c)
	data, idx := e.chunkRows(c)
	if f, ok := e.model.(fusedModel[T]); ok && !e.data.IsSparse() {
		c.step = e.step // a copy per chunk: the model fills in its loss and bias
		c.sumV = f.fused(&c.wk, e.theta, data, idx, c.n, &c.step, g)
	} else {
		e.forward(c, data, idx)
		c.sumV = e.weigh(&c.wk, c.n)
		e.backward(c, data, idx, c.wk.coef[:c.n], g)
	}
	c.wk.next = nil // the hint is this step's: no later pass reads it, nor keeps the caller's rows
	putLosses(e.loss, c)
	if !e.blockTree {
		e.combine(j, e.flH*e.flD)
	}
}

// forward runs the model's Forward on chunk c's rows. In GradientSparse it
// runs its sparse forward over the compact minibatch's columns.
func (e *Engine[T]) forward(c *chunk[T], data *Data[T], idx []int) {
	if e.sparse {
		e.model.(sparseGradModel[T]).forward(&c.wk, e.theta, data, idx, c.n, e.sd)
		return
	}
	e.model.Forward(&c.wk, e.theta, data, idx, c.n)
}

// backward runs the model's Backward of chunk c into g. In GradientSparse it
// runs its sparse backward over the compact minibatch's columns.
func (e *Engine[T]) backward(c *chunk[T], data *Data[T], idx []int, coef, g []T) {
	switch {
	case e.sparse:
		e.model.(sparseGradModel[T]).backward(&c.wk, data, idx, coef, g, e.sd)
	case e.flTasks > 0: // the first layer's weights come after, by columns
		c.bdata, c.bidx = data, idx
		e.model.(firstLayerModel[T]).backwardRest(&c.wk, e.theta, data, idx, coef, g)
	default:
		e.model.Backward(&c.wk, e.theta, data, idx, coef, g)
	}
}

// weigh turns the chunk's losses into coefficients (in wk.coef) and
// returns their Σ v_i.
func (e *Engine[T]) weigh(wk *Work[T], n int) T {
	p := &e.step
	wk.s, wk.coef = grow(wk.s, n), grow(wk.coef, n)
	for i, l := range wk.Loss[:n] {
		wk.s[i] = l*p.InvL - p.Tau
	}
	e.ops.Plus(p.Plus, p.Eps, nil, wk.coef, wk.s)
	var sumV T
	for i, v := range wk.coef {
		sumV += v
		wk.coef[i] = v * p.Scale
	}
	return sumV
}

// Gradient overwrites g (len NumParams) with Σ_i c_i ∇ℓ_i(θ) over the rows
// idx. A nil idx means the first n rows. With b = len(idx), the coefficients
// follow wt:
//
//	Mean:                 c_i = 1/b
//	Hinge, Softplus, Quadratic: v_i = ρ'(ℓ_i/L − τ), c_i = v_i/(L·α·b)
//	TopK:                 c_i = the exact CVaR_α weights of the losses
//	Custom:               c_i as Weigh sets them from all the losses
//
// It returns the minibatch's losses, valid until the next call. It also
// returns Σ v_i (0 for Mean, TopK and Custom), from which
// ∂τ = 1 − Σv_i/(α·b).
//
// It returns an error, and computes nothing, for:
//
//   - a closed engine;
//   - ErrConcurrentUse while another call on the engine runs (see Engine);
//   - data of a bad shape (see Data.Validate), or data the model does not fit;
//   - θ or g not of NumParams entries;
//   - no rows, or a row outside the data;
//   - an invalid weighting.
//
// It returns an error, with g zero, for a row whose label is outside the
// classes. The chunks check their rows' labels as they start. It does not
// check the values of the features, nor the offsets and columns of sparse
// rows. That would cost a pass over the data every step. Data not made by
// this package's constructors passes Validate first, as cvar.Train has it
// do. Else a bad offset or column makes the kernels panic, and a non-finite
// value gives non-finite losses.
func (e *Engine[T]) Gradient(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting) (losses []T, sumV float64, err error) {
	var then func(lo, hi int)
	if e.hooks != nil {
		then = e.hooks.Then
	}
	return e.gradientThen(g, theta, data, idx, n, wt, then)
}

// gradientThen is Gradient followed by then(lo, hi) on every block [lo, hi)
// of the coordinates of g. It is a step's update of θ from g, folded into
// the parallel pass (engine.Hooks.Then). The blocks are spread over the
// workers like the sum of the chunks' gradients. Each runs right after its
// sum is complete, while it is in cache. The blocks are disjoint and cover g
// once. A block is at most maxReduceBlock coordinates, a multiple of
// minReduceBlock but for the last (see maxReduceBlock). For the MLP's first
// layer it is a hidden unit's weights over firstLayerTaskCols columns. The
// function then must be elementwise, as the blocks are not aligned to
// anything else. The kernels give an element the same bits wherever a call
// starts. It runs on several goroutines at once, on disjoint blocks. A call
// of the Engine from then returns ErrConcurrentUse. After an error then is
// not run.
func (e *Engine[T]) gradientThen(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting, then func(lo, hi int)) (losses []T, sumV float64, err error) {
	if err := e.acquire(); err != nil {
		return nil, 0, err
	}
	defer e.release()
	if idx != nil {
		n = len(idx)
	}
	if err := e.check(theta, data, idx, n, false); err != nil {
		return nil, 0, err
	}
	if len(g) != len(theta) {
		return nil, 0, fmt.Errorf("batch: gradient has %d entries, the %s model has %d parameters", len(g), e.model.Name(), len(theta))
	}
	if wt == nil {
		return nil, 0, errNoWeighting
	}
	if err := wt.Validate(); err != nil {
		return nil, 0, err
	}
	return e.gradient(g, theta, data, idx, n, wt, then)
}

// gradient is gradientThen on checked arguments.
func (e *Engine[T]) gradient(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting, then func(lo, hi int)) (losses []T, sumV float64, err error) {
	e.theta, e.data, e.idx, e.wt = theta, data, idx, wt
	e.loss = grow(e.loss, n)
	nc := e.setChunks(n, e.batchRows(n))
	// The chunks' gradients are summed, and then run, in the same dispatch.
	// For a firstLayerModel they run after the first layer's blocks of
	// columns.
	e.flH, e.flD, e.flTasks = 0, 0, 0
	if fl, ok := e.model.(firstLayerModel[T]); ok && !e.sparse {
		if h, d, ok := fl.firstLayer(data); ok {
			e.flH, e.flD, e.flTasks = h, d, (d+firstLayerTaskCols-1)/firstLayerTaskCols
			for len(e.flBuf) < e.flTasks {
				e.flBuf = append(e.flBuf, nil)
			}
		}
	}
	e.chunks[0].g = g
	clear(g[e.flH*e.flD:]) // the chunks add into the rest; the first layer's blocks overwrite theirs
	nr := 0
	e.blockTree = false
	if nc > 1 || then != nil || e.flTasks > 0 {
		e.sum, e.then = g, then
		rest := len(g) - e.flH*e.flD
		e.rblock = reduceBlock(rest, e.threads)
		nr = e.flTasks + (rest+e.rblock-1)/e.rblock
		e.blockTree = e.treeInBlocks(nc)
	}
	e.failed.Store(false)
	if wt.wholeBatch() {
		e.dispatch(phaseForward, nc)
		if e.failed.Load() {
			return e.fail(g)
		}
		e.batchWeights(wt, n)
		e.dispatchThenReduce(phaseBackward, nc, nr)
	} else {
		e.step = e.linearStep(wt, n)
		e.dispatchThenReduce(phaseStep, nc, nr)
	}
	if e.failed.Load() {
		return e.fail(g)
	}
	var sv T
	for j := 0; j < nc; j++ {
		sv += e.chunks[j].sumV
	}
	e.flTasks = 0
	if nr > 0 {
		e.sum, e.then = nil, nil
		for _, c := range e.chunks[1:nc] {
			c.dirty = false
		}
	}
	if wt.Objective == Mean {
		sv = 0
	}
	return e.loss, float64(sv), nil
}

// batchWeights sets e.coef from all n losses of the forward pass: TopK's
// exact CVaR weights, or Custom's Weigh (in float64, whatever T is).
func (e *Engine[T]) batchWeights(wt *Weighting, n int) {
	e.coef = grow(e.coef, n)
	if wt.Objective == TopK {
		e.perm = grow(e.perm, n)
		tail.Weights(e.coef, e.loss, wt.Alpha, e.perm)
		return
	}
	e.wl, e.wc = grow(e.wl, n), grow(e.wc, n)
	for i, l := range e.loss[:n] {
		e.wl[i] = float64(l)
	}
	clear(e.wc)
	wt.Weigh(e.wc, e.wl)
	for i, c := range e.wc {
		e.coef[i] = T(c)
	}
}

// fail ends a gradient call whose chunks found a bad label. It leaves g
// zero. The chunks' buffers may hold partial sums and are left dirty: each
// is cleared before its next use.
func (e *Engine[T]) fail(g []T) ([]T, float64, error) {
	e.sum, e.then, e.flTasks = nil, nil, 0
	clear(g)
	return nil, 0, e.chunkError()
}

func (e *Engine[T]) linearStep(wt *Weighting, n int) kernel.LinearStep[T] {
	invL := wt.invL()
	p := kernel.LinearStep[T]{Tau: T(wt.Tau), InvL: T(invL), Eps: T(wt.Eps)}
	switch wt.Objective {
	case Mean:
		p.Plus, p.Scale = kernel.PlusNone, T(1/float64(n))
	case Hinge:
		p.Plus = kernel.PlusHinge
	case Softplus:
		p.Plus = kernel.PlusSoftplus
	case Quadratic:
		p.Plus = kernel.PlusQuadratic
	default:
		panic(fmt.Sprintf("batch: objective %v has no per-sample weight", wt.Objective))
	}
	if wt.Objective != Mean {
		p.Scale = T(invL / (wt.Alpha * float64(n)))
	}
	return p
}

// LossesOf returns the losses at θ of the rows idx (nil: the first n). They
// are the losses Gradient returns, without a gradient. No d-long buffer is
// cleared or allocated. The slice is valid until the next call. Errors as
// for Gradient, but for g and the weighting.
func (e *Engine[T]) LossesOf(theta []T, data *Data[T], idx []int, n int) ([]T, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	defer e.release()
	if idx != nil {
		n = len(idx)
	}
	if err := e.check(theta, data, idx, n, true); err != nil {
		return nil, err
	}
	if idx == nil { // the rows 0..n−1, listed (chunks past the first need their offsets)
		e.seq = grow(e.seq, n)
		for i := range e.seq {
			e.seq[i] = i
		}
		idx = e.seq
	}
	// Rounds of at most minChunks chunks: each chunk keeps the scratch of
	// its rows, a row of scores a class. So a long list of rows of a model
	// of many classes takes the scratch of a round, not of the list. A row's
	// loss does not depend on the chunks it is computed in.
	e.theta, e.data = theta, data
	all, rows := grow(e.loss, n), e.batchRows(n)
	for lo := 0; lo < n; lo += rows * minChunks {
		hi := min(n, lo+rows*minChunks)
		e.idx, e.loss = idx[lo:hi], all[lo:hi]
		e.dispatch(phaseForward, e.setChunks(hi-lo, rows))
	}
	e.idx, e.loss = idx, all
	return e.loss, nil
}
