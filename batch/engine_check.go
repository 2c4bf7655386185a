package batch

import (
	"fmt"
)

// The checks of an Engine call's arguments, and of the labels of a
// chunk's rows as the chunk starts.

// check validates the arguments of a call on the rows idx (nil: the first n)
// of data at θ. With labels it also checks the rows' labels. A gradient
// leaves them to its chunks (checkChunkLabels).
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
// lo ≤ i < hi of the call. Row i is idx[i], or i when idx is nil. The rows
// are in range.
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

// checkChunkLabels checks the labels of chunk c's rows as the chunk starts.
// It runs on the chunk's own goroutine, beside its own reads of those rows.
// A serial pass before the dispatch would make scattered reads. A chunk with
// a bad label computes nothing and marks the call failed. The reduction then
// skips its sums and then. The call returns the error of the first such
// chunk.
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
