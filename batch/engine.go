package batch

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cvarlearn/cvar/internal/engine"
	"github.com/cvarlearn/cvar/internal/tail"
	"github.com/cvarlearn/cvar/kernel"
)

// defaultChunkRows is the most rows one task of an Engine handles. The
// minibatch is cut into chunks whatever the thread count, and their
// gradients are summed along a tree fixed by the number of chunks
// (combine.go), so results do not depend on how many threads ran them.
//
// An engine of NewEngine sizes its chunks from the minibatch alone: chunks
// of defaultChunkRows rows for a model of more than smallGradient
// parameters (each chunk writes a gradient of its own, which the reduction
// reads), and for the others ⌈b/minChunks⌉ rows, between minChunkRows and
// defaultChunkRows, so that a minibatch of 512 is 16 tasks, enough for 16
// threads.
const (
	defaultChunkRows = 64
	minChunkRows     = 16
	minChunks        = 16
	smallGradient    = 1 << 14
)

// fusedModel is a Model with a one-pass minibatch step (linear models, on
// dense data; on sparse data they run Forward, weigh and Backward).
type fusedModel[T Float] interface {
	fused(wk *Work[T], theta []T, data *Data[T], idx []int, n int, p *kernel.LinearStep[T], g []T) T
}

// chunk is the state of one task: its rows, scratch and gradient.
type chunk[T Float] struct {
	wk   Work[T]
	view Data[T] // a window of the data, for whole-data passes
	g    []T     // gradient of this chunk (chunk 0 writes the caller's g)
	// dirty: g (of a chunk past the first) may hold non-zeros; the sum
	// over the chunks (combine.go) clears it after adding it in.
	dirty  bool
	joined atomic.Int32 // the complete sums of the tree node this chunk's sum joins (combine)
	err    error        // a bad label among the chunk's rows (checkChunkLabels)
	sumV   T
	step   kernel.LinearStep[T]
	lo     int // first row of the minibatch (or data) in this chunk
	n      int
	rows   []int   // the chunk's rows in increasing order (chunkRows)
	pos    []int32 // rows[i] is the chunk's row pos[i]; empty: in order
	count  []int32 // sortRows' buckets
	screen []T     // the margins of the rows a whole-data pass checks (checkDenseRows)
	// The data and rows of the chunk's last backward pass, which the first
	// layer's column blocks read again (firstLayerModel).
	bdata *Data[T]
	bidx  []int
}

type phase int

const (
	phaseStep     phase = iota // forward, weights and backward, per chunk
	phaseForward               // forward only (TopK needs all losses first)
	phaseBackward              // backward with the engine's coefficients
	phaseLosses                // losses of a window of the data
	phaseScores                // scores of a window of the data
	phaseReduce                // sum the chunks' gradients over a block of coordinates
	numPhases
)

// firstLayerTaskCols is the number of columns of one task of a first layer's
// gradient (firstLayerModel): a multiple of the widest vector's lanes, and
// few enough that the MLP on MNIST (784 features) makes 13 tasks.
const firstLayerTaskCols = 64

// firstLayerModel is a model whose gradient begins with an h×d block, the
// first layer's weights, that the Engine computes after the chunks' passes
// by blocks of columns over the whole minibatch, the chunks in order: no
// chunk writes that block, so none is summed (the reduction covers the
// rest), and its tasks are as many as the blocks of columns, not the
// chunks. The MLP on dense float data, through the kernels.
type firstLayerModel[T Float] interface {
	// firstLayer returns h and d, and whether data is split so.
	firstLayer(data *Data[T]) (h, d int, ok bool)
	// backwardRest is Backward but for the first layer's weights, leaving
	// what firstLayerCols reads in wk.
	backwardRest(wk *Work[T], theta []T, data *Data[T], idx []int, coef, g []T)
	// firstLayerCols adds to dst, h rows of the columns [lo, lo+len(dst)/h),
	// that block of the first layer's gradient over the n rows idx of data
	// (those of a backwardRest on wk).
	firstLayerCols(dst []T, wk *Work[T], data *Data[T], idx []int, n, lo int)
}

// maxReduceBlock is the most coordinates one task of the reduction sums over
// the chunks. A gradient of fewer than threads·maxReduceBlock coordinates is
// cut into about one block a thread, in multiples of minReduceBlock, so
// that a small model's reduction is not left to one goroutine. Both are
// multiples of every vector width times the kernels' unrolling, so that
// the blocks split the vector where the kernels' main loops would.
const (
	maxReduceBlock = 2048
	minReduceBlock = 256
)

// Engine computes minibatch gradients and whole-data losses of one model,
// spread over the calling goroutine and threads−1 worker goroutines. The
// workers start on the first call that has more than one chunk to share out
// and live until Close, which stops them and waits for them to exit, so a
// closed Engine leaves no goroutine behind. An Engine whose calls never
// needed workers (one thread, or small batches) never started any. Between
// calls the workers spin for up to 50 µs (the serial part of a training
// step, so that the next call finds them awake) and then park: an idle
// Engine costs no CPU. A gradient runs in two phases, the chunks' forward
// and backward passes, each followed by as much of the sum of the chunks'
// gradients as the chunks done so far allow, then the sum's last level,
// spread over blocks of coordinates.
//
// An Engine serves one goroutine at a time: a call made while another call
// on the same Engine is running, from another goroutine or from within the
// running call (a Model's method that it runs), returns ErrConcurrentUse
// and computes nothing. It refuses rather than waits because its results
// live in its own buffers (the losses, and GradientSparse's coordinates and
// gradient, are valid until the next call): a second goroutine's call,
// queued, would overwrite them under the first one's reader. Goroutines
// that share an Engine must hold a lock of their own over each call and
// the use of its results; cvar.Evaluator does so. Threads and
// HasSparseGradient read nothing that a call changes and may be called at
// any time.
type Engine[T Float] struct {
	// The parts are embedded by value: the workers read their fields at
	// the same offsets as fields of Engine's own, with no indirection.
	engineConfig[T]
	callState[T]
	sparseState[T]
	seams

	workers *pool // nil until the workers start, and after Close

	// inUse is held by the running call (acquire); closing is set by
	// Close, which stops the workers itself or leaves them to the running
	// call's release.
	inUse   sync.Mutex
	closing atomic.Bool
}

// engineConfig is an Engine's configuration, set by NewEngine.
type engineConfig[T Float] struct {
	model    Model[T]
	ops      kernel.Ops[T]
	threads  int
	rows     int           // rows a chunk (at most, with autoRows)
	autoRows bool          // rows a chunk follow the batch (NewEngine)
	hooks    *engine.Hooks // package cvar's callbacks, nil for any other model (NewEngine)
}

// callState is the current call's arguments and state, which the workers
// read, and the buffers calls reuse.
type callState[T Float] struct {
	chunks []*chunk[T]
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
	seq    []int // LossesOf's rows 0..n−1
	nchunk int
	split  int // tasks of the current dispatch before its reduction blocks
	// A firstLayerModel's gradient call: flH×flD first-layer weights,
	// computed by flTasks tasks of firstLayerTaskCols columns (each into its
	// own flBuf) before the reduction's blocks, which start at flH·flD.
	flH, flD, flTasks int
	rblock            int         // coordinates a reduction block (reduceBlock)
	failed            atomic.Bool // a chunk of the current gradient found a bad label
	flBuf             [][]T
	inline            bool             // run the current call's tasks on the calling goroutine
	sum               []T              // the gradient the reduction writes
	then              func(lo, hi int) // run on each block of sum once it is complete
}

// sparseState is GradientSparse's: the chunks run the model's sparse
// passes (sparseGradModel) on the compact minibatch cb, of sd columns.
type sparseState[T Float] struct {
	sparse bool
	sd     int
	cb     compactBatch[T]
}

// seams are what the package's tests and benchmarks change in an Engine
// they made.
type seams struct {
	// sparseWork is sparseParallelWork (tests lower it to run the workers
	// on small data).
	sparseWork int64
	timing     bool             // measure busy
	busy       [numPhases]int64 // with timing: nanoseconds of task work, summed by phase
	busyMu     sync.Mutex
}

// NewEngine returns an engine for model on threads workers: 0 means
// runtime.GOMAXPROCS(0), and more than GOMAXPROCS are clamped to it (results
// do not depend on the thread count, and more workers than processors only
// cost memory). It cuts batches into chunks of at most 64 rows, a size
// that depends on the batch and the model, never on the threads. It
// returns an error for a nil model or a negative thread count.
func NewEngine[T Float](model Model[T], threads int) (*Engine[T], error) {
	return newEngineChunks(model, threads, 0)
}

// newEngineChunks is NewEngine with a chosen chunk size (0: NewEngine's,
// which follows the batch). Results depend on the chunk size (it fixes the
// order of the sums), never on the threads. A model that brings hooks
// (engine.Hooked: package cvar's, which no other package can make) is
// unwrapped, and its hooks kept for the calls to run.
func newEngineChunks[T Float](model Model[T], threads, chunkRows int) (*Engine[T], error) {
	var hooks *engine.Hooks
	if h, ok := model.(engine.Hooked[Model[T]]); ok {
		model, hooks = h.Unhooked(), h.EngineHooks()
	}
	if model == nil {
		return nil, errors.New("batch: no model (nil Model)")
	}
	if threads < 0 || chunkRows < 0 {
		return nil, fmt.Errorf("batch: %d threads and %d rows a chunk; want ≥ 0 (0: the default)", threads, chunkRows)
	}
	procs := runtime.GOMAXPROCS(0)
	if threads == 0 || threads > procs {
		threads = procs
	}
	e := &Engine[T]{
		engineConfig: engineConfig[T]{model: model, ops: KernelsOf(model), threads: threads, rows: chunkRows, hooks: hooks},
		seams:        seams{sparseWork: sparseParallelWork},
	}
	if chunkRows == 0 {
		e.rows, e.autoRows = defaultChunkRows, true
	}
	return e, nil
}

// Threads returns the number of workers.
func (e *Engine[T]) Threads() int { return e.threads }

// ErrConcurrentUse is the error of an Engine call made while another call
// on the same Engine is running (see Engine).
var ErrConcurrentUse = errors.New("batch: Engine called while another call on it is running (an Engine serves one goroutine at a time)")

var errClosed = errors.New("batch: the engine is closed")

// Close stops the workers and waits until they have exited. It may be
// called more than once, and from any goroutine; calls after it return an
// error. Called while a call is running (from another goroutine, or from
// within that call) it does not wait: the running call stops the workers
// as it returns.
func (e *Engine[T]) Close() {
	e.closing.Store(true)
	if e.inUse.TryLock() {
		e.stopWorkers()
		e.inUse.Unlock()
	}
}

func (e *Engine[T]) stopWorkers() {
	if e.workers != nil {
		e.workers.close()
		e.workers = nil
	}
}

// acquire claims the Engine for one call, which ends with release:
// ErrConcurrentUse while another call holds it, and an error once it is
// closed.
func (e *Engine[T]) acquire() error {
	if !e.inUse.TryLock() {
		return ErrConcurrentUse
	}
	if e.closing.Load() {
		e.release()
		return errClosed
	}
	return nil
}

// release ends a call: it stops the workers of a Close that came during
// the call, or as the call let go (Close's own TryLock then failed).
func (e *Engine[T]) release() {
	if e.closing.Load() {
		e.stopWorkers()
	}
	e.inUse.Unlock()
	if e.closing.Load() && e.inUse.TryLock() {
		e.stopWorkers()
		e.inUse.Unlock()
	}
}

// dispatch runs e.run(j) for every task j < n, on the calling goroutine
// and threads−1 workers when there are several tasks and several threads,
// and waits for all of them.
func (e *Engine[T]) dispatch(ph phase, n int) { e.dispatchThenReduce(ph, n, 0) }

// dispatchThenReduce is dispatch of n tasks of phase ph followed by nr
// blocks of the reduction (phaseReduce), in one dispatch of the workers:
// the blocks start when the n tasks are done, on whichever goroutines
// finish them, with no second wake-up.
func (e *Engine[T]) dispatchThenReduce(ph phase, n, nr int) {
	e.phase, e.split = ph, n
	if e.threads == 1 || n+nr == 1 || e.inline {
		for j := 0; j < n+nr; j++ {
			e.task(j, j+1)
		}
		return
	}
	if e.workers == nil {
		e.workers = newPool(e.threads, e.task)
	}
	e.workers.dispatch2(n, nr)
}

// task runs task j of the current dispatch, timing it when asked (a first
// layer's block as backward work: it is the model's, not the reduction's).
// next is the task the same goroutine runs after it, if any (≥ the
// dispatch's tasks or negative: none); only a chunk followed by a chunk
// hears of it.
func (e *Engine[T]) task(j, next int) {
	ph := e.phase
	if j >= e.split {
		ph, j = phaseReduce, j-e.split
	}
	if ph == phaseReduce || next < 0 || next >= e.split {
		next = -1
	}
	if !e.timing {
		e.run(ph, j, next)
		return
	}
	t0 := time.Now()
	e.run(ph, j, next)
	d := int64(time.Since(t0))
	timed := ph
	if ph == phaseReduce && j < e.flTasks {
		timed = phaseBackward
	}
	e.busyMu.Lock()
	e.busy[timed] += d
	e.busyMu.Unlock()
}

// batchRows returns the rows a chunk of a minibatch of n rows.
func (e *Engine[T]) batchRows(n int) int {
	if !e.autoRows || e.model.NumParams() > smallGradient {
		return e.rows
	}
	return min(defaultChunkRows, max(minChunkRows, (n+minChunks-1)/minChunks))
}

// setChunks cuts n rows into chunks of rows rows, making chunk state on
// first need.
func (e *Engine[T]) setChunks(n, rows int) int {
	nc := (n + rows - 1) / rows
	for len(e.chunks) < nc {
		e.chunks = append(e.chunks, &chunk[T]{})
	}
	for j := 0; j < nc; j++ {
		c := e.chunks[j]
		c.lo = j * rows
		c.n = min(rows, n-c.lo)
		c.joined.Store(0)
		c.err = nil
	}
	e.nchunk = nc
	return nc
}

// chunkRows returns the data and the rows of chunk c. A chunk of listed
// rows of dense data is visited in increasing row order (c.rows, its i-th
// row at place c.pos[i] of the chunk; c.pos empty when the rows came in
// order), so that its gathers walk memory forwards: an order that is a
// function of the sample alone, whatever the threads.
func (e *Engine[T]) chunkRows(c *chunk[T]) (*Data[T], []int) {
	c.pos = c.pos[:0]
	if e.idx == nil { // the first n rows: this chunk's window of them
		return e.window(c), nil
	}
	idx := e.idx[c.lo : c.lo+c.n]
	if e.data.IsSparse() || slices.IsSorted(idx) {
		return e.data, idx
	}
	c.rows, c.pos = grow(c.rows, c.n), grow(c.pos, c.n)
	// Whole cache lines (a size class the allocator aligns to them), so
	// that two chunks' buckets, written by two cores, never share a line.
	c.count = grow(c.count, (sortBuckets(c.n)+1+15)&^15)
	sortRows(c.rows, c.pos, idx, e.data.N, c.count)
	return e.data, c.rows
}

// putLosses copies chunk c's losses to their places in dst (the call's
// order of rows).
func putLosses[T Float](dst []T, c *chunk[T]) {
	if len(c.pos) == 0 {
		copy(dst[c.lo:c.lo+c.n], c.wk.Loss[:c.n])
		return
	}
	for i, p := range c.pos {
		dst[c.lo+int(p)] = c.wk.Loss[i]
	}
}

// window makes c.view the rows [c.lo, c.lo+c.n) of e.data.
func (e *Engine[T]) window(c *chunk[T]) *Data[T] { return e.windowAt(c, c.lo, c.n) }

// windowAt makes c.view the n rows of e.data from lo on.
func (e *Engine[T]) windowAt(c *chunk[T], lo, n int) *Data[T] {
	d := e.data
	v := &c.view
	if d.IsSparse() {
		*v = Data[T]{N: n, D: d.D, Indptr: d.Indptr[lo : lo+n+1], Cols: d.Cols, Vals: d.Vals, K: d.K}
	} else if d.IsCompact() {
		*v = Data[T]{C: d.C.From(lo), N: n, D: d.D, Stride: d.Stride, K: d.K}
	} else {
		*v = Data[T]{X: d.X[lo*d.Stride:], N: n, D: d.D, Stride: d.Stride, K: d.K}
	}
	if d.Y != nil {
		v.Y = d.Y[lo:]
	}
	if d.Labels != nil {
		v.Labels = d.Labels[lo:]
	}
	return v
}

// wholeDataPiece is the most feature values of one piece of a whole-data
// chunk of dense or compact data: a piece's rows are checked and then
// computed while they are in the core's cache, so that the check costs
// few reads of memory.
const wholeDataPiece = 1 << 15

// wholeDataChunk runs chunk c of the whole-data pass ph (phaseLosses or
// phaseScores) piece by piece, each piece's rows checked (Data.Validate's
// checks, of the features alone for scores) before they are computed. A
// piece with bad rows ends the chunk and marks the call failed.
func (e *Engine[T]) wholeDataChunk(c *chunk[T], ph phase) {
	d := e.data
	rows := c.n
	if !d.IsSparse() {
		rows = max(16, wholeDataPiece/d.D)
	}
	k := e.model.NumOutputs()
	for lo := c.lo; lo < c.lo+c.n; lo += rows {
		n := min(rows, c.lo+c.n-lo)
		c.err = d.checkFeatureRows(lo, lo+n, &c.screen)
		if c.err == nil && ph == phaseLosses {
			c.err = d.checkTargetRows(lo, lo+n)
		}
		if c.err != nil {
			e.failed.Store(true)
			return
		}
		v := e.windowAt(c, lo, n)
		if ph == phaseLosses {
			e.model.Forward(&c.wk, e.theta, v, nil, n)
			copy(e.out[lo:lo+n], c.wk.Loss[:n])
		} else {
			e.model.Scores(&c.wk, e.theta, v, nil, n, e.out[lo*k:(lo+n)*k])
		}
	}
}

// run runs task j of phase ph; next is the chunk the same goroutine runs
// after it, or −1.
func (e *Engine[T]) run(ph phase, j, next int) {
	if ph == phaseReduce { // j is a block of coordinates
		e.reduce(j)
		return
	}
	c := e.chunks[j]
	switch ph {
	case phaseStep:
		e.stepChunk(j, c, next)
	case phaseForward:
		if !e.checkChunkLabels(c) {
			return
		}
		data, idx := e.chunkRows(c)
		e.forward(c, data, idx)
		putLosses(e.loss, c)
	case phaseBackward:
		g := e.chunkGrad(j, c)
		data, idx := e.chunkRows(c)
		coef := e.coef[c.lo : c.lo+c.n]
		if len(c.pos) > 0 { // the coefficients in the order of the rows
			c.wk.coef = grow(c.wk.coef, c.n)
			for i, p := range c.pos {
				c.wk.coef[i] = coef[p]
			}
			coef = c.wk.coef
		}
		e.backward(c, data, idx, coef, g)
		e.combine(j, e.flH*e.flD)
	case phaseLosses, phaseScores:
		e.wholeDataChunk(c, ph)
	}
}

// reduce is block j of the top level of the chunks' sum (combine.go):
// the partial sum of the chunks from treeTop on added into chunk 0's (the
// caller's g) and cleared there, whichever worker runs the block.
func (e *Engine[T]) reduce(j int) {
	if e.failed.Load() { // the call returns an error: no sums, no then
		return
	}
	if j < e.flTasks {
		e.firstLayerBlock(j)
		return
	}
	lo := e.flH*e.flD + (j-e.flTasks)*e.rblock
	hi := min(lo+e.rblock, len(e.sum))
	if top := treeTop(e.nchunk); top > 0 {
		src := e.chunks[top].g[lo:hi]
		e.ops.Axpy(1, src, e.sum[lo:hi])
		clear(src)
	}
	if e.then != nil {
		e.then(lo, hi)
	}
}

// firstLayerBlock computes block j of firstLayerTaskCols columns of the first
// layer's gradient: the chunks' rows in chunk order into a scratch of h
// rows, then copied into the gradient, each unit's row run through then.
func (e *Engine[T]) firstLayerBlock(j int) {
	fl := e.model.(firstLayerModel[T])
	h, d := e.flH, e.flD
	lo := j * firstLayerTaskCols
	w := min(firstLayerTaskCols, d-lo)
	buf := grow(e.flBuf[j], h*w)
	e.flBuf[j] = buf
	clear(buf)
	for _, c := range e.chunks[:e.nchunk] {
		fl.firstLayerCols(buf, &c.wk, c.bdata, c.bidx, c.n, lo)
	}
	for u := range h {
		copy(e.sum[u*d+lo:u*d+lo+w], buf[u*w:(u+1)*w])
		if e.then != nil {
			e.then(u*d+lo, u*d+lo+w)
		}
	}
}

// chunkGrad returns the zeroed gradient buffer chunk j accumulates into:
// chunk 0 writes the call's, the others one of their own, of its length.
func (e *Engine[T]) chunkGrad(j int, c *chunk[T]) []T {
	if j > 0 {
		c.g = grow(c.g, len(e.chunks[0].g))
		if c.dirty {
			clear(c.g)
		}
		c.dirty = true
	}
	return c.g
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
	e.combine(j, e.flH*e.flD)
}

// sparseGradModel is a model whose parameters are k blocks of d feature
// weights (class-major) followed by k biases, so that a row of sparse data
// touches, for each of its columns c, the weights j·d + c (j < k), and the
// biases: the linear models (k = 1) and softmax. forward and backward are
// Forward and Backward on sparse data of d columns (the compact minibatch
// of GradientSparse) with θ and the gradient laid out for d.
type sparseGradModel[T Float] interface {
	sparseLayout() (d, k int)
	forward(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int)
	backward(wk *Work[T], data *Data[T], idx []int, coef, g []T, d int)
}

func (l *Linear[T]) sparseLayout() (d, k int)  { return l.d, 1 }
func (s *Softmax[T]) sparseLayout() (d, k int) { return s.d, s.k }

// forward runs the model's Forward on chunk c's rows, or, in
// GradientSparse, its sparse forward over the compact minibatch's columns.
func (e *Engine[T]) forward(c *chunk[T], data *Data[T], idx []int) {
	if e.sparse {
		e.model.(sparseGradModel[T]).forward(&c.wk, e.theta, data, idx, c.n, e.sd)
		return
	}
	e.model.Forward(&c.wk, e.theta, data, idx, c.n)
}

// backward runs the model's Backward of chunk c into g, or, in
// GradientSparse, its sparse backward over the compact minibatch's columns.
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
// idx (nil: the first n rows), where the coefficients follow wt with
// b = len(idx):
//
//	Mean:                 c_i = 1/b
//	Hinge, Softplus, Quadratic: v_i = ρ'(ℓ_i/L − τ), c_i = v_i/(L·α·b)
//	TopK:                 c_i = the exact CVaR_α weights of the losses
//
// It returns the minibatch's losses (valid until the next call) and Σ v_i
// (0 for Mean and TopK), from which ∂τ = 1 − Σv_i/(α·b). It returns an
// error, and computes nothing, for a closed engine, ErrConcurrentUse
// while another call on the engine runs (see Engine), data of a bad shape
// (see Data.Validate), data the model does not fit, θ or g not of
// NumParams entries, no rows or a row outside the data, or an invalid
// weighting; and an error, with g zero, for a row whose label is outside
// the classes (the chunks check their rows' labels as they start). It
// does not check the values of the features, nor the offsets and columns
// of sparse rows, which would cost a pass over the data every step: data
// not made by this package's constructors passes Validate first (as
// cvar.Train has it do), or a bad offset or column makes the kernels
// panic and a non-finite value gives non-finite losses.
func (e *Engine[T]) Gradient(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting) (losses []T, sumV float64, err error) {
	var then func(lo, hi int)
	if e.hooks != nil {
		then = e.hooks.Then
	}
	return e.gradientThen(g, theta, data, idx, n, wt, then)
}

// gradientThen is Gradient followed by then(lo, hi) on every block
// [lo, hi) of the coordinates of g, spread over the workers like the sum
// of the chunks' gradients, each block right after its sum is complete
// (while it is in cache): a step's update of θ from g, folded into the
// parallel pass (engine.Hooks.Then). The blocks are disjoint and cover g
// once: at most maxReduceBlock coordinates, a multiple of minReduceBlock
// but for the last (see maxReduceBlock) or, for the MLP's first layer, a
// hidden unit's weights over firstLayerTaskCols columns; then must be
// elementwise (the blocks are not aligned to anything else: the kernels
// give an element the same bits wherever a call starts). then runs on
// several goroutines at once, on disjoint blocks; a call of the Engine
// from then returns ErrConcurrentUse. After an error then is not run.
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
		return nil, 0, errors.New("batch: no weighting (nil *Weighting)")
	}
	if err := wt.Validate(); err != nil {
		return nil, 0, err
	}
	return e.gradient(g, theta, data, idx, n, wt, then)
}

// reduceBlock returns the block of the reduction of n coordinates on
// threads goroutines: maxReduceBlock, or for a smaller gradient about n/threads
// rounded up to a multiple of minReduceBlock.
func reduceBlock(n, threads int) int {
	b := (n + threads - 1) / max(threads, 1)
	return min(maxReduceBlock, max(minReduceBlock, (b+minReduceBlock-1)/minReduceBlock*minReduceBlock))
}

// gradient is gradientThen on checked arguments.
func (e *Engine[T]) gradient(g, theta []T, data *Data[T], idx []int, n int, wt *Weighting, then func(lo, hi int)) (losses []T, sumV float64, err error) {
	e.theta, e.data, e.idx, e.wt = theta, data, idx, wt
	e.loss = grow(e.loss, n)
	nc := e.setChunks(n, e.batchRows(n))
	e.chunks[0].g = g
	clear(g)
	// The chunks' gradients are summed, and then run, in the same dispatch,
	// after a firstLayerModel's first layer by blocks of columns.
	e.flH, e.flD, e.flTasks = 0, 0, 0
	if fl, ok := e.model.(firstLayerModel[T]); ok && !e.sparse {
		if h, d, ok := fl.firstLayer(data); ok {
			e.flH, e.flD, e.flTasks = h, d, (d+firstLayerTaskCols-1)/firstLayerTaskCols
			for len(e.flBuf) < e.flTasks {
				e.flBuf = append(e.flBuf, nil)
			}
		}
	}
	nr := 0
	if nc > 1 || then != nil || e.flTasks > 0 {
		e.sum, e.then = g, then
		rest := len(g) - e.flH*e.flD
		e.rblock = reduceBlock(rest, e.threads)
		nr = e.flTasks + (rest+e.rblock-1)/e.rblock
	}
	e.failed.Store(false)
	if wt.Objective == TopK {
		e.dispatch(phaseForward, nc)
		if e.failed.Load() {
			return e.fail(g)
		}
		e.coef = grow(e.coef, n)
		e.perm = grow(e.perm, n)
		tail.Weights(e.coef, e.loss, wt.Alpha, e.perm)
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

// fail ends a gradient call whose chunks found a bad label: g zero, and the
// chunks' buffers, which may hold partial sums, left dirty (each is cleared
// before its next use).
func (e *Engine[T]) fail(g []T) ([]T, float64, error) {
	e.sum, e.then, e.flTasks = nil, nil, 0
	clear(g)
	return nil, 0, e.chunkError()
}

// check validates the arguments of a call on the rows idx (nil: the first
// n) of data at θ, and with labels the rows' labels (a gradient leaves them
// to its chunks: checkChunkLabels).
func (e *Engine[T]) check(theta []T, data *Data[T], idx []int, n int, labels bool) error {
	if err := data.checkShape(); err != nil {
		return err
	}
	if err := checkSparse(e.model, data); err != nil {
		return err
	}
	if err := e.model.Check(data); err != nil {
		return err
	}
	if p := e.model.NumParams(); len(theta) != p {
		return fmt.Errorf("batch: θ has %d entries, the %s model has %d parameters", len(theta), e.model.Name(), p)
	}
	if n <= 0 || (idx == nil && n > data.N) {
		return fmt.Errorf("batch: %d rows asked of %d", n, data.N)
	}
	for _, r := range idx {
		if r < 0 || r >= data.N {
			return fmt.Errorf("batch: row %d outside the %d rows of the data", r, data.N)
		}
	}
	if !labels {
		return nil
	}
	return checkRowLabels(data, idx, 0, n)
}

// checkRowLabels reports the first label outside [0, data.K) of the rows
// lo ≤ i < hi of the call (idx[i], or row i when idx is nil), whose rows are
// in range.
func checkRowLabels[T Float](data *Data[T], idx []int, lo, hi int) error {
	if data.Labels == nil {
		return nil
	}
	for i := lo; i < hi; i++ {
		r := i
		if idx != nil {
			r = idx[i]
		}
		if c := data.Labels[r]; c < 0 || int(c) >= data.K {
			return fmt.Errorf("batch: row %d: label %d outside the classes 0..%d", r, c, data.K-1)
		}
	}
	return nil
}

// checkChunkLabels checks the labels of chunk c's rows, as the chunk starts:
// on its own goroutine, beside its own reads of those rows, rather than in a
// serial pass of scattered reads before the dispatch. A chunk with a bad
// label computes nothing and marks the call failed; the reduction then
// skips its sums and then, and the call returns the error of the first
// such chunk.
func (e *Engine[T]) checkChunkLabels(c *chunk[T]) bool {
	c.err = checkRowLabels(e.data, e.idx, c.lo, c.lo+c.n)
	if c.err != nil {
		e.failed.Store(true)
	}
	return c.err == nil
}

// chunkError returns the error of the first failed chunk of the call.
func (e *Engine[T]) chunkError() error {
	for _, c := range e.chunks[:e.nchunk] {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// checkFeatures validates the arguments of Scores but the features'
// values, which its chunks check (wholeDataChunk).
func (e *Engine[T]) checkFeatures(theta []T, data *Data[T]) error {
	if err := data.featureShape(); err != nil {
		return err
	}
	if err := checkSparse(e.model, data); err != nil {
		return err
	}
	if in, ok := e.model.(interface{ NumInputs() int }); ok {
		if in.NumInputs() != data.D {
			return fmt.Errorf("batch: %s model has %d features, data has %d", e.model.Name(), in.NumInputs(), data.D)
		}
	} else if err := e.model.Check(data); err != nil {
		return err
	}
	if p := e.model.NumParams(); len(theta) != p {
		return fmt.Errorf("batch: θ has %d entries, the %s model has %d parameters", len(theta), e.model.Name(), p)
	}
	return nil
}

// checkLabels reports a label outside [0, data.K) among labels, the rows
// from lo on.
func checkLabels[T Float](data *Data[T], labels []int32, lo int) error {
	for i, c := range labels {
		if c < 0 || int(c) >= data.K {
			return fmt.Errorf("batch: row %d: label %d outside the classes 0..%d", lo+i, c, data.K-1)
		}
	}
	return nil
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

// Losses writes every row's loss at θ into dst (len data.N). It returns
// an error for data that Data.Validate refuses: the whole-data pass's
// chunks check their rows piece by piece, in parallel, before computing
// them, so dst may then hold some rows' losses. It returns an error, and
// computes nothing, for a dst too short, and as Gradient does for the
// rest.
func (e *Engine[T]) Losses(dst, theta []T, data *Data[T]) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	if err := e.check(theta, data, nil, max(data.rows(), 1), false); err != nil {
		return err
	}
	if len(dst) < data.N {
		return fmt.Errorf("batch: room for %d losses, the data has %d rows", len(dst), data.N)
	}
	e.theta, e.data, e.idx, e.out = theta, data, nil, dst[:data.N]
	return e.wholeData(phaseLosses)
}

// Scores writes every row's NumOutputs scores at θ into dst
// (len data.N·NumOutputs, row-major). Scores need no targets or labels: of
// data only the features are checked (Data.ValidateFeatures, by the chunks
// as for Losses), and their number against the model's (NumInputs, for
// the models of this package; Model.Check for others). Errors otherwise as
// for Losses.
func (e *Engine[T]) Scores(dst, theta []T, data *Data[T]) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	if err := e.checkFeatures(theta, data); err != nil {
		return err
	}
	k := e.model.NumOutputs()
	if len(dst)/k < data.N {
		return fmt.Errorf("batch: room for %d scores, the data has %d rows of %d", len(dst), data.N, k)
	}
	e.theta, e.data, e.idx, e.out = theta, data, nil, dst[:data.N*k]
	return e.wholeData(phaseScores)
}

// wholeData runs the whole-data pass ph over e.data and returns the error
// of its first chunk whose rows are invalid, if any.
func (e *Engine[T]) wholeData(ph phase) error {
	e.failed.Store(false)
	e.dispatch(ph, e.setWholeData(e.data.N))
	if e.failed.Load() {
		return e.chunkError()
	}
	return nil
}

// setWholeData cuts a whole-data pass into chunks of at least 1024 rows, so
// per-chunk overhead stays small.
func (e *Engine[T]) setWholeData(n int) int {
	return e.setChunks(n, max(e.rows, 1024))
}

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

// sparseParallelWork is the least number of multiply-adds a pass
// (non-zeros × classes) of a compact minibatch must have for GradientSparse
// to share its chunks out to the workers: below it they run on the calling
// goroutine, which built the minibatch and has it in its caches. Below it
// the chunks' work is too small to pay for moving the minibatch to another
// core: a text-like minibatch of about 20 000 non-zeros (k = 1) trains
// slower on two threads than on one. The result does not depend on it (the
// chunks are the same).
const sparseParallelWork = 1 << 20

// HasSparseGradient reports whether GradientSparse applies to data: sparse
// data and a model whose gradient on a row touches only the weights of its
// columns and the biases (the linear models and softmax).
func (e *Engine[T]) HasSparseGradient(data *Data[T]) bool {
	_, _, ok := e.layout(data)
	return ok
}

// GradientSparse is Gradient for sparse data at a cost in the non-zeros of
// the minibatch rather than in the number of parameters, where
// HasSparseGradient(data). It returns the gradient at the coordinates the
// minibatch touches alone, grad[i] at θ's coordinate coords[i]: the
// weights j·d + c of every class j and every column c of the rows (class
// by class, the columns in order of first appearance: rows in order,
// entries in order), then the k biases. The gradient is 0 at every other
// coordinate. The values are those Gradient writes, bit for bit (the
// chunks are summed along the same tree), whatever the thread count.
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
// before θ is read, on the calling goroutine: the place to bring those
// coordinates of θ up to date (a lazy update; engine.Hooks.Before).
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
		return nil, 0, nil, nil, errors.New("batch: no weighting (nil *Weighting)")
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

// LossesOf returns the losses at θ of the rows idx (nil: the first n), the
// losses Gradient returns, without a gradient: no d-long buffer is cleared
// or allocated. The slice is valid until the next call. Errors as for
// Gradient, but for g and the weighting.
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
	e.theta, e.data, e.idx = theta, data, idx
	e.loss = grow(e.loss, n)
	e.dispatch(phaseForward, e.setChunks(n, e.batchRows(n)))
	return e.loss, nil
}
