package dataset

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// Stream reads samples one at a time, for online training on data larger
// than memory. It holds O(D) memory and one line. It never reads ahead
// more than a buffer. The options' MaxBytes bounds what it holds, as for
// the batch readers: a row, and the line or record being read. MaxLine
// bounds the length of a line. Next returns a sample's dense row.
// NextSparse returns its non-zeros (CSR-style). For LIBSVM that costs the
// line's non-zeros, not D.
//
// A stream cannot look at all targets before the first sample. So its
// task must be given: Classification or Regression, not TaskAuto. For
// classification the class of a label is fixed as soon as it is read.
// With the Classes option, labels map through that list exactly as in the
// batch readers. Without it, labels must be integers and are used as is.
// The exception is -1, which becomes class 0 (the ±1 convention: -1, +1 →
// 0, 1). Both conventions agree with the batch readers when the labels are
// ±1 or 0..K-1 and every class occurs.
type Stream[T Float] struct {
	name     string
	d        int
	task     Task
	classes  []string
	features []string
	ts       *targetSpec
	labeler  streamLabeler
	x        []T
	line     int
	err      error // sticky
	next     func(x []T) (target string, line int, err error)
	// nextSparse reads the next row's non-zeros into cols and vals (LIBSVM
	// streams). It is nil for CSV streams, whose NextSparse reads a dense
	// row.
	nextSparse func() (target string, line int, err error)
	cols       []uint32
	vals       []T
}

// NewCSVStream returns a stream over CSV data. See ReadCSV for the format
// and Stream for the task and label rules. The header is read at once.
func NewCSVStream[T Float](r io.Reader, name string, opt CSVOptions) (*Stream[T], error) {
	if r == nil {
		return nil, nilReader(name)
	}
	if opt.Group != "" {
		return nil, fileError(name, "a stream does not read groups (the Group column %q); read the data in memory", clip(opt.Group))
	}
	return newCSVStream[T](r, name, opt)
}

// newCSVStream is NewCSVStream; with opt.Group, it skips the group column
// (for RowLine).
func newCSVStream[T Float](r io.Reader, name string, opt CSVOptions) (*Stream[T], error) {
	s, err := newStream[T](name, opt.Task, opt.Classes)
	if err != nil {
		return nil, err
	}
	b := newBudget(name, opt.MaxBytes)
	src, err := newCSVSource[T](r, name, opt, b, 0)
	if err != nil {
		return nil, err
	}
	s.d = len(src.features)
	s.features = src.features
	if err := s.makeBuffers(b, src.line, true); err != nil {
		return nil, err
	}
	s.next = func(x []T) (string, int, error) { return src.next(x, s.ts) }
	return s, nil
}

// NewLIBSVMStream returns a stream over LIBSVM data. See ReadLIBSVM for the
// format and Stream for the task and label rules. opt.Dim must be given:
// the width cannot be inferred without reading everything.
func NewLIBSVMStream[T Float](r io.Reader, name string, opt LIBSVMOptions) (*Stream[T], error) {
	if r == nil {
		return nil, nilReader(name)
	}
	if opt.Dim <= 0 {
		return nil, errors.New("dataset: a LIBSVM stream needs option Dim, the number of features")
	}
	s, err := newStream[T](name, opt.Task, opt.Classes)
	if err != nil {
		return nil, err
	}
	b := newBudget(name, opt.MaxBytes)
	if err := b.take(24*int64(opt.Dim), 0); err != nil { // the names
		return nil, err
	}
	p, err := newLIBSVMParser[T](r, name, opt, b)
	if err != nil {
		return nil, err
	}
	s.d = opt.Dim
	s.features = numberedNames("f", 1, opt.Dim)
	if err := s.makeBuffers(b, 0, false); err != nil {
		return nil, err
	}
	s.nextSparse = func() (string, int, error) {
		label, line, err := p.next(s.ts)
		if err != nil {
			return "", 0, err
		}
		s.cols, s.vals = s.cols[:0], s.vals[:0]
		if s.cols, err = grow(b, s.cols, len(p.idx), line); err != nil {
			return "", 0, err
		}
		if s.vals, err = appendTo(b, s.vals, line, p.val...); err != nil {
			return "", 0, err
		}
		for _, j := range p.idx {
			s.cols = append(s.cols, uint32(j-1))
		}
		return label, line, nil
	}
	s.next = func(x []T) (string, int, error) {
		label, line, err := p.next(s.ts)
		if err != nil {
			return "", 0, err
		}
		clear(x)
		for k, j := range p.idx {
			x[j-1] = p.val[k]
		}
		return label, line, nil
	}
	return s, nil
}

// makeBuffers allocates the row and, for a CSV stream (csv), the non-zeros
// of a row, within the budget.
func (s *Stream[T]) makeBuffers(b *budget, line int, csv bool) error {
	var err error
	if s.x, err = makeCounted[T](b, s.d, line); err != nil {
		return err
	}
	if csv {
		if s.cols, err = grow(b, s.cols, s.d, line); err != nil {
			return err
		}
		s.vals, err = grow(b, s.vals, s.d, line)
	}
	return err
}

func newStream[T Float](name string, task Task, classes []string) (*Stream[T], error) {
	if task == TaskAuto && classes == nil {
		return nil, errors.New("dataset: a stream cannot infer the task; set option Task to Classification or Regression")
	}
	ts, err := newTargetSpec(task, classes)
	if err != nil {
		return nil, err
	}
	s := &Stream[T]{name: name, task: ts.task, ts: ts, labeler: streamLabeler{index: ts.index}}
	if classes != nil {
		s.classes = slices.Clone(classes)
	}
	return s, nil
}

// Next returns the next sample: its features x, and its target y. For
// classification y is the class label as a number. x is an internal
// buffer, valid only until the next call; copy it to keep it. At the end
// of the input Next returns io.EOF. After any error, Next keeps returning
// that error.
func (s *Stream[T]) Next() (x []T, y T, label int32, err error) {
	if s.err != nil {
		return nil, 0, 0, s.err
	}
	target, line, err := s.next(s.x)
	if err != nil {
		s.err = err
		return nil, 0, 0, err
	}
	if y, label, err = s.target(target, line); err != nil {
		return nil, 0, 0, err
	}
	return s.x, y, label, nil
}

// NextText is Next returning the target's text. The text is trimmed and
// checked as the stream's task and classes take it. It serves a caller
// that settles the classes after reading every row. A classification
// stream without Classes takes any text but a non-finite number.
func (s *Stream[T]) NextText() ([]T, string, error) {
	if s.err != nil {
		return nil, "", s.err
	}
	target, line, err := s.next(s.x)
	if err != nil {
		s.err = err
		return nil, "", err
	}
	s.line = line
	return s.x, target, nil
}

// target returns the target and class of the sample read from line.
func (s *Stream[T]) target(target string, line int) (y T, label int32, err error) {
	s.line = line
	if s.task == Regression {
		y, _ = parseValue[T](target) // checked by the source
		return y, 0, nil
	}
	label, msg := s.labeler.label(target)
	if msg != "" {
		s.err = lineError(s.name, line, "%s", msg)
		return 0, 0, s.err
	}
	return T(label), label, nil
}

// NextSparse is Next returning the sample's non-zeros. It returns the
// 0-based columns cols, strictly increasing, and their values vals. An
// explicit 0 in a LIBSVM file is kept. A LIBSVM stream reads them from
// the line in the line's non-zeros, never touching a D-long row. A CSV
// stream reads the dense row and returns its non-zeros. cols and vals are
// internal buffers, valid only until the next call. Its errors are Next's.
// Next and NextSparse may be mixed, each reading the next sample.
func (s *Stream[T]) NextSparse() (cols []uint32, vals []T, y T, label int32, err error) {
	if s.nextSparse == nil {
		x, y, label, err := s.Next()
		if err != nil {
			return nil, nil, 0, 0, err
		}
		s.cols, s.vals = s.cols[:0], s.vals[:0]
		for j, v := range x {
			if v != 0 {
				s.cols, s.vals = append(s.cols, uint32(j)), append(s.vals, v)
			}
		}
		return s.cols, s.vals, y, label, nil
	}
	if s.err != nil {
		return nil, nil, 0, 0, s.err
	}
	target, line, err := s.nextSparse()
	if err != nil {
		s.err = err
		return nil, nil, 0, 0, err
	}
	if y, label, err = s.target(target, line); err != nil {
		return nil, nil, 0, 0, err
	}
	return s.cols, s.vals, y, label, nil
}

// D returns the number of features.
func (s *Stream[T]) D() int { return s.d }

// Task returns Classification or Regression.
func (s *Stream[T]) Task() Task { return s.task }

// Classes returns the imposed classes, or nil when labels are used as is.
func (s *Stream[T]) Classes() []string { return s.classes }

// Features returns the feature names.
func (s *Stream[T]) Features() []string { return s.features }

// Name returns the name of the input, as given.
func (s *Stream[T]) Name() string { return s.name }

// Line returns the line of the sample last returned by Next. Callers use
// it to report their own problems with it.
func (s *Stream[T]) Line() int { return s.line }

// String describes the stream, e.g. for logs.
func (s *Stream[T]) String() string {
	return fmt.Sprintf("%s: %v stream of %d features", s.name, s.task, s.d)
}
