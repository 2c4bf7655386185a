package batch

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// The Engine's tasks: the chunks a call's rows are cut into. This file also
// dispatches their passes to the calling goroutine and the workers.

// chunk is the state of one task: its rows, scratch and gradient.
type chunk[T Float] struct {
	wk   Work[T]
	view Data[T] // a window of the data, for whole-data passes
	g    []T     // gradient of this chunk (chunk 0 writes the caller's g)
	// dirty: g (of a chunk past the first) may hold non-zeros. The sum over
	// the chunks (combine.go) clears it after adding it in.
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
	scores []T     // a piece's scores, for EachScores' function
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
	phaseEach                  // scores of a window of the data, piece by piece to EachScores' function
	phaseReduce                // sum the chunks' gradients over a block of coordinates
	numPhases
)

// dispatch runs e.run(j) for every task j < n and waits for all of them.
// With several tasks and several threads, it runs them on the calling
// goroutine and threads−1 workers.
func (e *Engine[T]) dispatch(ph phase, n int) { e.dispatchThenReduce(ph, n, 0) }

// dispatchThenReduce is dispatch of n tasks of phase ph followed by nr
// blocks of the reduction (phaseReduce). Both run in one dispatch of the
// workers. The blocks start when the n tasks are done, on whichever
// goroutines finish them, with no second wake-up.
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

// task runs task j of the current dispatch, timing it when asked. A first
// layer's block is timed as backward work: it is the model's, not the
// reduction's. The argument next is the task the same goroutine runs after
// it, if any. A next of at least the dispatch's tasks, or negative, means
// none. Only a chunk followed by a chunk hears of it.
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
	t1 := time.Now()
	e.spanTask(t0, t1)
	d := int64(t1.Sub(t0))
	timed := ph
	if ph == phaseReduce && j < e.flTasks {
		timed = phaseBackward
	}
	atomic.AddInt64(&e.busy[timed], d)
}

// batchRows returns the rows a chunk of a minibatch of n rows of e.data.
func (e *Engine[T]) batchRows(n int) int {
	if !e.autoRows || e.chunkGradient() > smallGradient {
		return e.rows
	}
	return min(defaultChunkRows, max(minChunkRows, (n+minChunks-1)/minChunks))
}

// chunkGradient returns the coordinates a chunk's gradient holds on e.data.
// They are the model's parameters but a first layer's, which no chunk writes
// (firstLayerModel).
func (e *Engine[T]) chunkGradient() int {
	p := e.model.NumParams()
	if fl, ok := e.model.(firstLayerModel[T]); ok && !e.sparse {
		if h, d, ok := fl.firstLayer(e.data); ok {
			p -= h * d
		}
	}
	return p
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

// chunkRows returns the data and the rows of chunk c. A chunk of listed rows
// of dense data is visited in increasing row order. Its i-th row is c.rows
// at place c.pos[i] of the chunk; c.pos is empty when the rows came in
// order. So its gathers walk memory forwards. The order is a function of the
// sample alone, whatever the threads.
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
	// Whole cache lines, a size class the allocator aligns to them. So two
	// chunks' buckets, written by two cores, never share a line.
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
		*v = Data[T]{c: d.c.From(lo), N: n, D: d.D, Stride: d.Stride, K: d.K}
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
		if !e.blockTree {
			e.combine(j, e.flH*e.flD)
		}
	case phaseLosses, phaseScores, phaseEach:
		e.wholeDataChunk(c, ph)
	}
}

// chunkGrad returns the zeroed gradient buffer chunk j accumulates into.
// Chunk 0 writes the call's. The others each write one of their own, of its
// length.
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
