package batch

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/cvarlearn/cvar/internal/tail"
	"github.com/cvarlearn/cvar/kernel"
)

// DefaultChunkRows is the number of rows one task of an Engine handles. The
// minibatch is cut into chunks of this size whatever the thread count, and
// their gradients are summed in chunk order, so results do not depend on how
// many threads ran them.
const DefaultChunkRows = 64

// fusedModel is a Model with a one-pass minibatch step (linear models).
type fusedModel[T Float] interface {
	fused(wk *Work[T], theta []T, data *Data[T], idx []int, n int, p *kernel.LinearStep[T], g []T) T
}

// chunk is the state of one task: its rows, scratch and gradient.
type chunk[T Float] struct {
	wk   Work[T]
	view Data[T] // a window of the data, for whole-data passes
	g    []T     // gradient of this chunk (chunk 0 writes the caller's g)
	sumV T
	step kernel.LinearStep[T]
	lo   int // first row of the minibatch (or data) in this chunk
	n    int
}

type phase int

const (
	phaseStep     phase = iota // forward, weights and backward, per chunk
	phaseForward               // forward only (TopK needs all losses first)
	phaseBackward              // backward with the engine's coefficients
	phaseLosses                // losses of a window of the data
	phaseScores                // scores of a window of the data
)

// Engine computes minibatch gradients and whole-data losses of one model,
// spread over worker goroutines that live until Close. It is not safe for
// concurrent use; one Engine serves one training run.
type Engine[T Float] struct {
	model   Model[T]
	ops     *kernel.Ops[T]
	threads int
	rows    int
	chunks  []*chunk[T]

	// The current call's arguments, read by the workers.
	phase  phase
	theta  []T
	data   *Data[T]
	idx    []int
	wt     *Weighting
	step   kernel.LinearStep[T]
	loss   []T // the minibatch's losses, gathered from the chunks
	coef   []T
	perm   []int
	out    []T
	nchunk int

	tasks chan int
	wg    sync.WaitGroup
}

// NewEngine returns an engine for model on threads workers (≤ 0: GOMAXPROCS)
// cutting batches into chunks of DefaultChunkRows rows.
func NewEngine[T Float](model Model[T], threads int) *Engine[T] {
	return NewEngineChunks(model, threads, DefaultChunkRows)
}

// NewEngineChunks is NewEngine with a chosen chunk size. Results depend on
// the chunk size (it fixes the order of the sums), never on the threads.
func NewEngineChunks[T Float](model Model[T], threads, chunkRows int) *Engine[T] {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if chunkRows <= 0 {
		chunkRows = DefaultChunkRows
	}
	e := &Engine[T]{model: model, ops: KernelsOf(model), threads: threads, rows: chunkRows}
	if threads > 1 {
		e.tasks = make(chan int, 1024)
		for range threads {
			go e.worker()
		}
	}
	return e
}

// Threads returns the number of workers.
func (e *Engine[T]) Threads() int { return e.threads }

// Close stops the workers. The Engine must not be used after.
func (e *Engine[T]) Close() {
	if e.tasks != nil {
		close(e.tasks)
		e.tasks = nil
	}
}

func (e *Engine[T]) worker() {
	for j := range e.tasks {
		e.run(j)
		e.wg.Done()
	}
}

// dispatch runs e.run(j) for every chunk j < n, on the workers when there
// are several chunks and several threads, and waits for all of them.
func (e *Engine[T]) dispatch(ph phase, n int) {
	e.phase = ph
	if e.tasks == nil || n == 1 {
		for j := 0; j < n; j++ {
			e.run(j)
		}
		return
	}
	e.wg.Add(n)
	for j := 0; j < n; j++ {
		e.tasks <- j
	}
	e.wg.Wait()
}

// setChunks cuts n rows into chunks, making chunk state on first need.
func (e *Engine[T]) setChunks(n int) int {
	nc := (n + e.rows - 1) / e.rows
	for len(e.chunks) < nc {
		e.chunks = append(e.chunks, &chunk[T]{})
	}
	for j := 0; j < nc; j++ {
		c := e.chunks[j]
		c.lo = j * e.rows
		c.n = min(e.rows, n-c.lo)
	}
	e.nchunk = nc
	return nc
}

func (e *Engine[T]) chunkIdx(c *chunk[T]) []int {
	if e.idx == nil {
		return nil
	}
	return e.idx[c.lo : c.lo+c.n]
}

// window makes c.view the rows [c.lo, c.lo+c.n) of e.data.
func (e *Engine[T]) window(c *chunk[T]) *Data[T] {
	d := e.data
	v := &c.view
	*v = Data[T]{X: d.X[c.lo*d.Stride:], N: c.n, D: d.D, Stride: d.Stride, K: d.K}
	if d.Y != nil {
		v.Y = d.Y[c.lo:]
	}
	if d.Labels != nil {
		v.Labels = d.Labels[c.lo:]
	}
	return v
}

func (e *Engine[T]) run(j int) {
	c := e.chunks[j]
	switch e.phase {
	case phaseStep:
		e.stepChunk(j, c)
	case phaseForward:
		e.model.Forward(&c.wk, e.theta, e.data, e.chunkIdx(c), c.n)
		copy(e.loss[c.lo:c.lo+c.n], c.wk.Loss[:c.n])
	case phaseBackward:
		g := e.chunkGrad(j, c)
		e.model.Backward(&c.wk, e.theta, e.data, e.chunkIdx(c), e.coef[c.lo:c.lo+c.n], g)
	case phaseLosses:
		e.model.Forward(&c.wk, e.theta, e.window(c), nil, c.n)
		copy(e.out[c.lo:c.lo+c.n], c.wk.Loss[:c.n])
	case phaseScores:
		k := e.model.NumOutputs()
		e.model.Scores(&c.wk, e.theta, e.window(c), nil, c.n, e.out[c.lo*k:(c.lo+c.n)*k])
	}
}

// chunkGrad returns the zeroed gradient buffer chunk j accumulates into.
func (e *Engine[T]) chunkGrad(j int, c *chunk[T]) []T {
	if j > 0 {
		c.g = grow(c.g, e.model.NumParams())
		clear(c.g)
	}
	return c.g
}

func (e *Engine[T]) stepChunk(j int, c *chunk[T]) {
	g := e.chunkGrad(j, c)
	idx := e.chunkIdx(c)
	if f, ok := e.model.(fusedModel[T]); ok {
		c.step = e.step // a copy per chunk: the model fills in its loss and bias
		c.sumV = f.fused(&c.wk, e.theta, e.data, idx, c.n, &c.step, g)
	} else {
		e.model.Forward(&c.wk, e.theta, e.data, idx, c.n)
		c.sumV = e.weigh(&c.wk, c.n)
		e.model.Backward(&c.wk, e.theta, e.data, idx, c.wk.coef[:c.n], g)
	}
	copy(e.loss[c.lo:c.lo+c.n], c.wk.Loss[:c.n])
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
// idx (nil: the first n rows), where the coefficients follow wt with
// b = len(idx):
//
//	Mean:                 c_i = 1/b
//	Hinge, Softplus, Quadratic: v_i = ρ'(ℓ_i/L − τ), c_i = v_i/(L·α·b)
//	TopK:                 c_i = the exact CVaR_α weights of the losses
//
// It returns the minibatch's losses (valid until the next call) and Σ v_i
// (0 for Mean and TopK), from which ∂τ = 1 − Σv_i/(α·b).
func (e *Engine[T]) Gradient(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting) (losses []T, sumV float64) {
	if idx != nil {
		n = len(idx)
	}
	e.theta, e.data, e.idx, e.wt = theta, data, idx, wt
	e.loss = grow(e.loss, n)
	nc := e.setChunks(n)
	e.chunks[0].g = g
	clear(g)
	if wt.Objective == TopK {
		e.dispatch(phaseForward, nc)
		e.coef = grow(e.coef, n)
		e.perm = grow(e.perm, n)
		tail.Weights(e.coef, e.loss, wt.Alpha, e.perm)
		e.dispatch(phaseBackward, nc)
	} else {
		e.step = e.linearStep(wt, n)
		e.dispatch(phaseStep, nc)
	}
	var sv T
	for j := 0; j < nc; j++ {
		c := e.chunks[j]
		if j > 0 {
			e.ops.Axpy(1, c.g, g)
		}
		sv += c.sumV
	}
	if wt.Objective == Mean {
		sv = 0
	}
	return e.loss, float64(sv)
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

// Losses writes every row's loss at θ into dst (len data.N).
func (e *Engine[T]) Losses(dst, theta []T, data *Data[T]) {
	e.theta, e.data, e.idx, e.out = theta, data, nil, dst[:data.N]
	e.dispatch(phaseLosses, e.setWholeData(data.N))
}

// Scores writes every row's NumOutputs scores at θ into dst
// (len data.N·NumOutputs, row-major).
func (e *Engine[T]) Scores(dst, theta []T, data *Data[T]) {
	e.theta, e.data, e.idx, e.out = theta, data, nil, dst[:data.N*e.model.NumOutputs()]
	e.dispatch(phaseScores, e.setWholeData(data.N))
}

// setWholeData cuts a whole-data pass into chunks of at least 1024 rows, so
// per-chunk overhead stays small.
func (e *Engine[T]) setWholeData(n int) int {
	saved := e.rows
	e.rows = max(saved, 1024)
	nc := e.setChunks(n)
	e.rows = saved
	return nc
}
