package batch

import (
	"fmt"
)

// The whole-data passes, Losses and Scores, run chunks of at least 1024
// rows. Each chunk checks its rows piece by piece before computing them.

// wholeDataPiece is the most feature values of one piece of a whole-data
// chunk of dense or compact data. A piece's rows are checked and then
// computed while they are in the core's cache. So the check costs few reads
// of memory.
const wholeDataPiece = 1 << 15

// wholeDataChunk runs chunk c of the whole-data pass ph (phaseLosses or
// phaseScores, phaseEach) piece by piece. Each piece's rows are checked
// before they are computed, by Data.Validate's checks (of the features
// alone, for scores). A piece with bad rows ends the chunk and marks the
// call failed.
func (e *Engine[T]) wholeDataChunk(c *chunk[T], ph phase) {
	d := e.data
	k := e.model.NumOutputs()
	rows := c.n
	if !d.IsSparse() {
		rows = max(16, wholeDataPiece/d.D)
	}
	rows = min(rows, max(16, wholeDataPiece/e.rowScratch()))
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
		switch ph {
		case phaseLosses:
			e.model.Forward(&c.wk, e.theta, v, nil, n)
			copy(e.out[lo:lo+n], c.wk.Loss[:n])
		case phaseScores:
			e.model.Scores(&c.wk, e.theta, v, nil, n, e.out[lo*k:(lo+n)*k])
		case phaseEach:
			c.scores = grow(c.scores, n*k)
			e.model.Scores(&c.wk, e.theta, v, nil, n, c.scores)
			e.each(lo, c.scores)
		}
	}
}

// Losses writes every row's loss at θ into dst (len data.N). It returns an
// error for data that Data.Validate refuses. The whole-data pass's chunks
// check their rows piece by piece, in parallel, before computing them. So
// dst may then hold some rows' losses. It returns an error, and computes
// nothing, for a dst too short, and as Gradient does for the rest.
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

// Scores writes every row's NumOutputs scores at θ into dst (len
// data.N·NumOutputs, row-major). Scores need no targets or labels. Of data
// only the features are checked (Data.ValidateFeatures), by the chunks as
// for Losses. Their number is checked against the model's: NumInputs for the
// models of this package, Model.Check for others. Errors otherwise as for
// Losses.
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

// EachScores computes every row's NumOutputs scores at θ, a piece of rows at
// a time. It calls fn with the first row of each piece and the piece's
// scores (rows×NumOutputs, row-major). They are valid only during the call.
// The calls come from several goroutines at once, on disjoint pieces. So fn
// writes only what belongs to its rows. It holds the scores of a few pieces
// at a time, not of the whole data. So a model of many classes is evaluated
// within the memory of its parameters. Errors as for Scores.
func (e *Engine[T]) EachScores(theta []T, data *Data[T], fn func(lo int, scores []T)) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	if err := e.checkFeatures(theta, data); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("batch: EachScores needs a function (nil)")
	}
	e.theta, e.data, e.idx, e.each = theta, data, nil, fn
	defer func() { e.each = nil }()
	return e.wholeData(phaseEach)
}

// wholeData runs the whole-data pass ph over e.data. It returns the error of
// its first chunk whose rows are invalid, if any. It runs in rounds of at
// most minChunks chunks of at least 1024 rows, so per-chunk overhead stays
// small. Each chunk keeps the scratch of its pieces. So the pass holds the
// scratch of one round, whatever the rows.
func (e *Engine[T]) wholeData(ph phase) error {
	e.failed.Store(false)
	n, rows := e.data.N, max(e.rows, 1024)
	for lo := 0; lo < n; lo += rows * minChunks {
		nc := e.setChunks(min(n-lo, rows*minChunks), rows)
		for _, c := range e.chunks[:nc] {
			c.lo += lo
		}
		e.dispatch(ph, nc)
		if e.failed.Load() {
			return e.chunkError()
		}
	}
	return nil
}

// rowScratch is the most values of scratch the model's pass writes a row:
// its outputs, an MLP's hidden units. A piece's rows are bounded by it as
// well. So a model of many classes or hidden units takes scratch of a few
// pieces, not of the whole data.
func (e *Engine[T]) rowScratch() int {
	w := e.model.NumOutputs()
	if m, ok := e.model.(interface{ Hidden() int }); ok {
		w = max(w, 2*m.Hidden())
	}
	return max(w, 1)
}
