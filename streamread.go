package cvar

import (
	"context"
	"fmt"
	"io"
	"unsafe"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// streamReader reads a StreamSource pass after pass.
type streamReader[T batch.Float] struct {
	ctx      context.Context
	src      StreamSource
	limit    int      // rows a pass reads; 0: all
	d        int      // features, known after the first pass
	features []string // their names
}

// streamRow is one row of a stream: dense (x) or its non-zeros (cols,
// vals), with its target, its class and its line.
type streamRow[T batch.Float] struct {
	x     []T
	cols  []uint32
	vals  []T
	y     T
	label int32
	line  int
}

// width measures the width of LIBSVM data when its options do not give it.
func (s *streamReader[T]) width() error {
	opt := s.src.LIBSVM
	if s.d = opt.Dim; s.d > 0 {
		return nil
	}
	rc, err := s.src.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	s.d, err = dataset.LIBSVMDim(rc, s.src.Name, dataset.LIBSVMOptions{MaxBytes: opt.MaxBytes, MaxLine: opt.MaxLine, MaxDim: opt.MaxDim})
	return err
}

// open opens the source as a stream reading targets as task and classes
// say.
func (s *streamReader[T]) open(task dataset.Task, classes []string) (*dataset.Stream[T], io.Closer, error) {
	rc, err := s.src.Open()
	if err != nil {
		return nil, nil, err
	}
	var st *dataset.Stream[T]
	if s.src.CSV != nil {
		opt := *s.src.CSV
		opt.Task, opt.Classes = task, classes
		st, err = dataset.NewCSVStream[T](rc, s.src.Name, opt)
	} else {
		opt := *s.src.LIBSVM
		opt.Dim, opt.Task, opt.Classes = s.d, task, classes
		st, err = dataset.NewLIBSVMStream[T](rc, s.src.Name, opt)
	}
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	s.d, s.features = st.D(), st.Features()
	return st, rc, nil
}

// each calls fn on every row, dense or sparse, with its 0-based index. It
// stops when the context is done.
func (s *streamReader[T]) each(task dataset.Task, classes []string, sparse bool, fn func(i int, row *streamRow[T]) error) error {
	st, c, err := s.open(task, classes)
	if err != nil {
		return err
	}
	defer c.Close()
	done := s.ctx.Done()
	var row streamRow[T]
	for i := 0; s.limit == 0 || i < s.limit; i++ {
		select {
		case <-done:
			return fmt.Errorf("cvar: %s: stopped before row %d: %w", s.src.Name, i+1, s.ctx.Err())
		default:
		}
		if sparse {
			row.cols, row.vals, row.y, row.label, err = st.NextSparse()
		} else {
			row.x, row.y, row.label, err = st.Next()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		row.line = st.Line()
		if err := fn(i, &row); err != nil {
			return err
		}
	}
	return nil
}

// chunks reads the rows that keep admits (every row when keep is nil) in
// chunks, preprocessed, and calls fn on each. One chunk serves every pass.
func (s *streamRun[T]) chunks(keep func(int) bool, fn func(*chunk[T]) error) error {
	if s.buf == nil {
		s.buf = newChunk[T](s.r.src.Name, s.info.D, s.sparse, s.task, s.info.Classes)
	}
	c := s.buf
	c.reset()
	flush := func() error {
		if c.n() == 0 {
			return nil
		}
		if err := dataset.PreprocessDataset(&s.prep, c.dataset()); err != nil {
			return err
		}
		err := fn(c)
		c.reset()
		return err
	}
	err := s.r.each(s.task, s.info.Classes, s.sparse, func(i int, row *streamRow[T]) error {
		if keep != nil && !keep(i) {
			return nil
		}
		if c.add(i, row) {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// chunk holds rows of a stream: dense (x) or in CSR (indptr, cols, vals).
type chunk[T batch.Float] struct {
	name    string
	d, max  int // features, and rows a chunk holds
	sparse  bool
	task    dataset.Task
	classes []string
	x       []T
	indptr  []int64
	cols    []uint32
	vals    []T
	ys      []T     // targets; for classification the class as a number
	labels  []int32 // classes
	index   []int   // the rows' indices in the stream
	lines   []int
}

// A chunk holds at most chunkRows rows, and a dense chunk's features at
// most chunkBytes bytes. So wide rows take fewer rows a chunk. The results
// do not depend on the chunking.
const (
	chunkRows  = 4096
	chunkBytes = 64 << 20
)

func newChunk[T batch.Float](name string, d int, sparse bool, task dataset.Task, classes []string) *chunk[T] {
	c := &chunk[T]{name: name, d: d, max: chunkRows, sparse: sparse, task: task, classes: classes}
	if sparse {
		c.indptr = []int64{0}
	} else {
		c.max = max(1, min(chunkRows, chunkBytes/(d*int(unsafe.Sizeof(T(0))))))
		c.x = make([]T, 0, c.max*d)
	}
	return c
}

func (c *chunk[T]) n() int { return len(c.index) }

// add appends row i and reports whether the chunk is full.
func (c *chunk[T]) add(i int, row *streamRow[T]) bool {
	if c.sparse {
		c.cols, c.vals = append(c.cols, row.cols...), append(c.vals, row.vals...)
		c.indptr = append(c.indptr, int64(len(c.cols)))
	} else {
		c.x = append(c.x, row.x...)
	}
	c.ys, c.labels = append(c.ys, row.y), append(c.labels, row.label)
	c.index, c.lines = append(c.index, i), append(c.lines, row.line)
	return c.n() == c.max
}

func (c *chunk[T]) reset() {
	c.x, c.cols, c.vals, c.indptr = c.x[:0], c.cols[:0], c.vals[:0], c.indptr[:min(len(c.indptr), 1)]
	c.ys, c.labels, c.index, c.lines = c.ys[:0], c.labels[:0], c.index[:0], c.lines[:0]
}

// row returns dense row r.
func (c *chunk[T]) row(r int) []T { return c.x[r*c.d : (r+1)*c.d] }

// sparseRow returns the non-zeros of row r.
func (c *chunk[T]) sparseRow(r int) ([]uint32, []T) {
	lo, hi := c.indptr[r], c.indptr[r+1]
	return c.cols[lo:hi], c.vals[lo:hi]
}

// dataset returns the chunk as a Dataset, sharing its slices, for the
// preprocessing.
func (c *chunk[T]) dataset() *dataset.Dataset[T] {
	ds := &dataset.Dataset[T]{Name: c.name, N: c.n(), D: c.d, Task: c.task}
	if c.sparse {
		ds.Indptr, ds.Cols, ds.Vals = c.indptr, c.cols, c.vals
	} else {
		ds.X = c.x
	}
	if c.task == dataset.Classification {
		ds.Labels, ds.Classes = c.labels, c.classes
	} else {
		ds.Y = c.ys
	}
	return ds
}

// features returns the chunk's features as batch data without targets, for
// Data.Scale.
func (c *chunk[T]) features() *batch.Data[T] {
	if c.sparse {
		return &batch.Data[T]{Indptr: c.indptr, Cols: c.cols, Vals: c.vals, N: c.n(), D: c.d}
	}
	return &batch.Data[T]{X: c.x, N: c.n(), D: c.d, Stride: c.d}
}

// batch returns the chunk as batch data with k classes (0: regression).
func (c *chunk[T]) batch(k int) (*batch.Data[T], error) {
	y, labels := c.ys, c.labels
	if k > 0 {
		y = nil
	} else {
		labels = nil
	}
	if c.sparse {
		return batch.NewSparseData(c.indptr, c.cols, c.vals, c.n(), c.d, y, labels, k)
	}
	return batch.NewData(c.x, c.n(), c.d, y, labels, k)
}
