package batch

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cvarlearn/cvar/internal/engine"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// defaultChunkRows is the most rows one task of an Engine handles. The
// minibatch is cut into chunks whatever the thread count. Their gradients
// are summed along a tree fixed by the number of chunks (combine.go). So
// results do not depend on how many threads ran them.
//
// An engine of NewEngine sizes its chunks from the minibatch, the model and
// the data's kind alone. Each chunk writes a gradient of its own, which the
// reduction reads. Where a chunk's gradient holds more than smallGradient
// coordinates, chunks have defaultChunkRows rows. Otherwise they have
// ⌈b/minChunks⌉ rows, between minChunkRows and defaultChunkRows. So a
// minibatch of 512 is 16 tasks, enough for 16 threads. A chunk's gradient is
// the model's parameters. On dense float rows the MLP's first layer is left
// out: the reduction computes it by columns (firstLayerModel).
const (
	defaultChunkRows = 64
	minChunkRows     = 16
	minChunks        = 16
	smallGradient    = 1 << 14
)

// Engine computes minibatch gradients and whole-data losses of one model.
// The work is spread over the calling goroutine and threads−1 worker
// goroutines. The workers start on the first call that has more than one
// chunk to share out. They live until Close, which stops them and waits for
// them to exit. So a closed Engine leaves no goroutine behind. An Engine
// whose calls never needed workers (one thread, or small batches) never
// started any. Between calls the workers spin, then park, so an idle Engine
// costs no CPU. They spin a few times the recent gaps between calls, at most
// 1 ms. So the next step of a training run finds them awake. A gradient runs
// in two phases. First the chunks run their forward and backward passes.
// Each chunk's passes are followed by as much of the sum of the chunks'
// gradients as the chunks done so far allow. Then the sum's last level runs,
// spread over blocks of coordinates.
//
// An Engine serves one goroutine at a time. A call made while another call
// on the same Engine is running returns ErrConcurrentUse and computes
// nothing. This holds for a call from another goroutine, and from within the
// running call (a Model's method that it runs). It refuses rather than waits
// because its results live in its own buffers. The losses, and
// GradientSparse's coordinates and gradient, are valid until the next call.
// A second goroutine's call, queued, would overwrite them under the first
// one's reader. Goroutines that share an Engine must hold a lock of their
// own over each call and the use of its results. cvar.Evaluator does so.
// Threads and HasSparseGradient read nothing that a call changes and may be
// called at any time.
type Engine[T Float] struct {
	// The parts are embedded by value. So the workers read their fields at
	// the same offsets as fields of Engine's own, with no indirection. The
	// field seams comes first, so that its counters, added to atomically,
	// are 64-bit aligned on 32-bit platforms too.
	seams
	engineConfig[T]
	callState[T]
	sparseState[T]

	workers *pool // nil until the workers start, and after Close

	// inUse is held by the running call (acquire). closing is set by Close.
	// Close stops the workers itself, or leaves them to the running call's
	// release.
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
	// sparseWork is the least work of a sparse call whose chunks the
	// workers share: sparseParallelWork, or 0 (engineOptions.sparseAlways).
	sparseWork int64
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
	wl, wc []float64 // Custom's losses and coefficients, in float64
	out    []T
	each   func(lo int, scores []T) // EachScores' function
	seq    []int                    // LossesOf's rows 0..n−1
	nchunk int
	split  int // tasks of the current dispatch before its reduction blocks
	// A firstLayerModel's gradient call: flH×flD first-layer weights,
	// computed by flTasks tasks of firstLayerTaskCols columns. Each task
	// writes its own flBuf. They run before the reduction's blocks, which
	// start at flH·flD.
	flH, flD, flTasks int
	rblock            int         // coordinates a reduction block (reduceBlock)
	blockTree         bool        // the reduction's blocks sum every level of the chunks' tree (treeInBlocks)
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

// seams are what the package's benchmarks measure in an Engine they made
// (engineOptions.timing).
type seams struct {
	// With timing: nanoseconds of task work, summed by phase and read once
	// the calls are done. They are added to atomically. A lock would make
	// the tasks of many threads queue, and park, on it.
	busy [numPhases]int64
	// With timing: the earliest start and the latest end of a task since the
	// last resetSpan. They are nanoseconds from spanClock, kept atomically
	// (min and max by compare-and-swap). Between them lies the parallel part
	// of the calls.
	spanFrom, spanTo atomic.Int64
	spanClock        time.Time
	timing           bool // measure busy and the span
	// A cache line between busy, which every task writes with timing, and
	// the configuration, which every task reads.
	_ [64]byte
}

// resetSpan starts a new span of the tasks (seams.spanFrom).
func (s *seams) resetSpan() {
	s.spanFrom.Store(math.MaxInt64)
	s.spanTo.Store(0)
}

// span returns the time from the earliest start of a task since the last
// resetSpan to the latest end; 0 when no task ran.
func (s *seams) span() time.Duration {
	from, to := s.spanFrom.Load(), s.spanTo.Load()
	if to < from {
		return 0
	}
	return time.Duration(to - from)
}

// spanTask takes a task that ran from t0 to t1 into the span.
func (s *seams) spanTask(t0, t1 time.Time) {
	from, to := int64(t0.Sub(s.spanClock)), int64(t1.Sub(s.spanClock))
	for v := s.spanFrom.Load(); from < v && !s.spanFrom.CompareAndSwap(v, from); v = s.spanFrom.Load() {
	}
	for v := s.spanTo.Load(); to > v && !s.spanTo.CompareAndSwap(v, to); v = s.spanTo.Load() {
	}
}

// engineOptions are an Engine's choices beyond NewEngine's. The package's
// tests and benchmarks pass them to newEngineWith. The zero value is
// NewEngine's.
type engineOptions struct {
	// chunkRows is the rows a chunk; 0: NewEngine's, which follow the
	// batch. Results depend on it (it fixes the order of the sums), never
	// on the threads.
	chunkRows int
	// allThreads keeps a thread count past GOMAXPROCS, so that the workers
	// run on a machine of fewer processors.
	allThreads bool
	// sparseAlways shares the chunks of GradientSparse and StepSparse out to
	// the workers whatever their work (sparseParallelWork). So the workers
	// run on small data.
	sparseAlways bool
	// timing sums the tasks' time by phase into the Engine's busy, and
	// keeps their span (seams.span).
	timing bool
}

// NewEngine returns an engine for model on threads workers. 0 means
// runtime.GOMAXPROCS(0), and more than GOMAXPROCS are clamped to it. Results
// do not depend on the thread count, and more workers than processors only
// cost memory. It cuts batches into chunks of at most 64 rows. The size
// depends on the batch, the model and the data's kind, never on the threads.
// It returns an error for a nil model or a negative thread count.
func NewEngine[T Float](model Model[T], threads int) (*Engine[T], error) {
	return newEngineWith(model, threads, engineOptions{})
}

// newEngineWith is NewEngine with the choices of opts. A model that brings
// hooks is unwrapped, and its hooks kept for the calls to run. Such a model
// is an engine.Hooked: package cvar's, which no other package can make.
func newEngineWith[T Float](model Model[T], threads int, opts engineOptions) (*Engine[T], error) {
	var hooks *engine.Hooks
	if h, ok := model.(engine.Hooked[Model[T]]); ok {
		model, hooks = h.Unhooked(), h.EngineHooks()
	}
	if model == nil {
		return nil, errNoModel
	}
	chunkRows := opts.chunkRows
	if threads < 0 || chunkRows < 0 {
		return nil, fmt.Errorf("batch: %d threads and %d rows a chunk; want ≥ 0 (0: the default)", threads, chunkRows)
	}
	procs := runtime.GOMAXPROCS(0)
	if threads == 0 || (threads > procs && !opts.allThreads) {
		threads = procs
	}
	e := &Engine[T]{
		engineConfig: engineConfig[T]{model: model, ops: kernelsOf(model), threads: threads, rows: chunkRows, hooks: hooks, sparseWork: sparseParallelWork},
		seams:        seams{timing: opts.timing, spanClock: time.Now()},
	}
	if opts.sparseAlways {
		e.sparseWork = 0
	}
	if chunkRows == 0 {
		e.rows, e.autoRows = defaultChunkRows, true
	}
	return e, nil
}

// Threads returns the number of workers.
func (e *Engine[T]) Threads() int { return e.threads }

// Close stops the workers and waits until they have exited. It may be called
// more than once, and from any goroutine. Calls after it return an error.
// Close may come while a call is running, from another goroutine or from
// within that call. It then does not wait: the running call stops the
// workers as it returns.
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

// release ends a call. It stops the workers of a Close that came during the
// call, or as the call let go. (Close's own TryLock then failed.)
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
