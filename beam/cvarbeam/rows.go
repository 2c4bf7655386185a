package cvarbeam

import (
	"context"
	"fmt"
	"io"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// rowSpec says how to read the rows of a split: the format and, for the
// stream readers, the task, the classes and the LIBSVM width.
type rowSpec struct {
	Format   string
	Target   string
	NoHeader bool
	Dim      int // LIBSVM: the number of features
	Task     dataset.Task
	Classes  []string
	Sparse   bool // LIBSVM rows kept sparse (CSR batches)
	// Hold is the fraction of rows held out, chosen by a hash of Seed
	// and the row's place.
	Hold float64
	Seed uint64
}

func (rs *rowSpec) header() bool { return rs.Format == "csv" && !rs.NoHeader }

// openStream opens the rows of sp with the library's stream readers.
func openStream[T batch.Float](ctx context.Context, sp Part, rs *rowSpec) (*dataset.Stream[T], io.Closer, error) {
	r, err := openSplit(ctx, sp, rs.header())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sp.Path, err)
	}
	var st *dataset.Stream[T]
	if rs.Format == "csv" {
		opt := dataset.CSVOptions{Comma: dataset.CommaOfName(sp.Path), Target: rs.Target, NoHeader: rs.NoHeader, Task: rs.Task, Classes: rs.Classes}
		st, err = dataset.NewCSVStream[T](r, sp.Path, opt)
	} else {
		st, err = dataset.NewLIBSVMStream[T](r, sp.Path, dataset.LIBSVMOptions{Dim: rs.Dim, Task: rs.Task, Classes: rs.Classes})
	}
	if err != nil {
		r.Close()
		return nil, nil, locate(ctx, sp, rs.header(), err)
	}
	return st, r, nil
}

// held reports whether the row at line of sp is held out (rounds.Held).
func (rs *rowSpec) held(sp Part, line int) bool {
	return rounds.Held(rs.Hold, rs.Seed, sp.Path, sp.Start, line)
}

// rowFunc takes a row: x when dense, else cols and vals. They are valid
// during the call only.
type rowFunc[T batch.Float] func(x []T, cols []uint32, vals []T, y T, label int32) error

// eachRow reads sp once: train gets the training rows, held the held-out
// ones; nil skips them. Errors name the file and the line.
func eachRow[T batch.Float](ctx context.Context, sp Part, rs *rowSpec, train, held rowFunc[T]) error {
	st, c, err := openStream[T](ctx, sp, rs)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		var (
			x, vals []T
			cols    []uint32
			y       T
			label   int32
		)
		if rs.Sparse {
			cols, vals, y, label, err = st.NextSparse()
		} else {
			x, y, label, err = st.Next()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return locate(ctx, sp, rs.header(), err)
		}
		row := train
		if rs.held(sp, st.Line()) {
			row = held
		}
		if row == nil {
			continue
		}
		if err := row(x, cols, vals, y, label); err != nil {
			return locate(ctx, sp, rs.header(), &dataset.Error{File: sp.Path, Line: st.Line(), Msg: err.Error()})
		}
	}
}

// newRows is an empty data set for rows read as rs says, d features wide.
func newRows[T batch.Float](rs *rowSpec, d int) *dataset.Dataset[T] {
	ds := &dataset.Dataset[T]{Name: "a row", D: d, Task: rs.Task, Classes: rs.Classes}
	if ds.Task == dataset.TaskAuto {
		ds.Task = dataset.Classification
	}
	return ds
}

// appendTo is the rowFunc that appends each row to ds.
func appendTo[T batch.Float](ds *dataset.Dataset[T]) rowFunc[T] {
	return func(x []T, cols []uint32, vals []T, y T, label int32) error {
		if x == nil {
			return ds.AppendSparse(cols, vals, y, label)
		}
		return ds.AppendRow(x, y, label)
	}
}

// batchOf preprocesses the rows of ds in place with p: the engine's data.
// For training, the targets are scaled too.
func batchOf[T batch.Float](ds *dataset.Dataset[T], p *dataset.Preprocessing, training bool) (*batch.Data[T], error) {
	if ts, ok := p.TargetScaler(); ok && training {
		ds.Y = dataset.ScaleTargets(ts, ds.Y)
	}
	if err := dataset.PreprocessDataset(p, ds); err != nil {
		return nil, err
	}
	return ds.Batch()
}
