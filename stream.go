package cvar

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// StreamSource is a CSV or LIBSVM file that TrainStream reads several
// times, each time from its first byte, without holding its rows.
type StreamSource struct {
	// Name names the data in errors, such as the file's path.
	Name string
	// Open returns the data from its first byte; TrainStream calls it once
	// a pass and closes what it returns. The data must not change between
	// calls.
	Open func() (io.ReadCloser, error)
	// CSV or LIBSVM, exactly one of them, is the data's format with its
	// reading options. Limit reads only the first Limit rows. MaxBytes and
	// MaxLine bound what a pass holds (see dataset.Stream). For CSV they
	// also give the target column and the header. Their Task and Classes are not used:
	// the targets are read as numbers, and the task follows from
	// StreamOptions.Kind or from the targets. A LIBSVM Dim of 0 is measured
	// on a pass of its own over all the data, whatever Limit
	// (dataset.LIBSVMDim); LIBSVM rows are handled as their non-zeros when
	// the data's density is below SparseBelow.
	CSV    *dataset.CSVOptions
	LIBSVM *dataset.LIBSVMOptions
}

// Scaling says how TrainStream scales the features; it is fitted on the
// training rows.
type Scaling int

const (
	// ScaleAuto is ScaleMaxAbs for rows handled sparse, else ScaleZScore.
	ScaleAuto Scaling = iota
	// ScaleZScore standardises each feature (dataset.FitStandardizer);
	// rows handled sparse are divided by the deviation without centring
	// (dataset.FitScaler), which keeps their zeros.
	ScaleZScore
	// ScaleMaxAbs divides each feature by its largest |x|
	// (dataset.FitMaxAbs).
	ScaleMaxAbs
	// ScaleUnit divides every value by 255 (8-bit pixel intensities).
	ScaleUnit
	// ScaleNone leaves the features as read.
	ScaleNone
)

var scalings = enum[Scaling]{kind: "scaling", typ: "Scaling", names: []string{"auto", "zscore", "maxabs", "unit", "none"}}

func (s Scaling) String() string { return scalings.str(s) }

// MarshalText returns the scaling's name, with an error for a value
// outside the constants.
func (s Scaling) MarshalText() ([]byte, error) { return scalings.marshal(s) }

// UnmarshalText sets s from a scaling's name: auto, zscore, maxabs, unit
// or none, in any case.
func (s *Scaling) UnmarshalText(b []byte) error {
	return scalings.unmarshal(s, b)
}

// StreamOptions configure TrainStream.
type StreamOptions[T batch.Float] struct {
	// Options configure the training: Method is Alg1 or Alg4; Epochs is
	// the number of passes over the training rows (0: 1), each one step a
	// row, so Steps is 0 and Batch 0 or 1; Seed also makes the split.
	// Under TheoremStep, a zero Scale is measured on the preprocessed
	// training rows when the step size needs it. Threads are the
	// evaluation's workers. OnEpoch is called after each pass, on the
	// scale of the targets training sees.
	Options Options
	// Kind is the model (one of batch.Kinds). "" or "auto" picks it from
	// the data: linear for regression, logistic for two classes, else
	// softmax.
	Kind string
	// Model, when not nil, makes the model once the data is known. It may
	// bound the model's size or set the mlp's width. Nil means
	// batch.NewModel with the default width.
	Model func(StreamInfo) (batch.Model[T], error)
	// Scaling is the features' scaling.
	Scaling Scaling
	// ScaleTarget trains a regression model on standardised targets, with
	// the training rows' mean and deviation. The model is mapped back to the
	// target's units after (see dataset.Preprocessing).
	ScaleTarget bool
	// TrainFrac is the training part of the split; 0 means
	// dataset.DefaultTrainFrac.
	TrainFrac float64
	// Alphas are the tail fractions of the metrics; nil means the run's α.
	Alphas []float64
	// Progress, when not nil, is called after each training step with the
	// steps taken and the steps of the run.
	Progress func(done, total int)
}

// StreamInfo is what TrainStream learns of the data before it trains.
type StreamInfo struct {
	Kind     string   // the model kind, resolved
	D        int      // the number of features
	Classes  []string // the class texts of classes 0..K−1; nil for regression
	Features []string // the features' names
	// NTrain and NVal are the rows of the training and validation parts.
	NTrain, NVal int
	// Sparse says that rows are handled as their non-zeros.
	Sparse bool
}

// StreamResult is what TrainStream returns.
type StreamResult[T batch.Float] struct {
	StreamInfo
	// Result is the run's output; θ and τ are in the target's units.
	Result *Result[T]
	Model  batch.Model[T]
	// Preprocessing maps raw rows to the model's inputs, as fitted.
	Preprocessing dataset.Preprocessing
	// Training and Validation are the metrics of the two parts.
	Training, Validation Metrics

	source Provenance
}

// ModelFile returns the trained model as a ModelFile, for SaveModel. Its
// Source records the format and the name. It records the CSV target
// column and header, and the number of training rows.
func (r *StreamResult[T]) ModelFile() *ModelFile {
	return modelFileOf(r.Model, r.Result, r.D, r.Classes, r.Features, r.Preprocessing, r.source)
}

// precisionOf is the model-file precision of T.
func precisionOf[T batch.Float]() string {
	if _, ok := any(T(0)).(float32); ok {
		return F32
	}
	return F64
}

// TrainStream trains a model with Alg1 or Alg4 on data read row by row,
// which it never holds. It reads the source in passes:
//
//   - once to count the rows, and once more for a LIBSVM width not given;
//   - once to fit the scaling and infer the task and the classes from the
//     training rows;
//   - once to measure the rows' norms when a theorem sets the step size;
//   - once a training pass;
//   - once to compute every row's loss for the metrics.
//
// The rows are split as dataset.Split splits them in memory, with the same
// fraction and seed (Options.Seed). So the parts are the same. Class
// labels must be integers, with at most dataset.MaxAutoClasses distinct
// values. The stream cannot name text classes before it has read them all.
//
// Memory is the model's, O(D) for the scaling, and a chunk of up to 4096
// rows. A dense chunk holds at most 64 MiB. The exact CVaR of the metrics
// adds one loss and one flag a row. Reading holds what the source's
// MaxBytes and MaxLine allow. When ctx is done, TrainStream stops at the
// next row with an error wrapping ctx.Err().
func TrainStream[T batch.Float](ctx context.Context, src StreamSource, opt StreamOptions[T]) (*StreamResult[T], error) {
	s, err := newStreamRun[T](ctx, src, opt)
	if err != nil {
		return nil, err
	}
	if err := s.count(); err != nil {
		return nil, err
	}
	if err := s.fit(); err != nil {
		return nil, err
	}
	if err := s.resolve(); err != nil {
		return nil, err
	}
	if err := s.measure(); err != nil {
		return nil, err
	}
	res, err := s.train()
	if err != nil {
		return nil, err
	}
	return s.evaluate(res)
}

// checkStream reports options TrainStream cannot use.
func checkStream[T batch.Float](ctx context.Context, src StreamSource, opt *StreamOptions[T]) error {
	o := &opt.Options
	switch {
	case ctx == nil:
		return errNoContext
	case src.Open == nil:
		return errors.New("cvar: the stream source has no Open function")
	case (src.CSV == nil) == (src.LIBSVM == nil):
		return errors.New("cvar: the stream source needs exactly one of CSV and LIBSVM options")
	case src.CSV != nil && src.CSV.Limit < 0 || src.LIBSVM != nil && src.LIBSVM.Limit < 0:
		return errors.New("cvar: the stream source's Limit must be ≥ 0")
	case !o.Method.online():
		return fmt.Errorf("cvar: %v is not an online method (use alg1 or alg4)", o.Method)
	case o.Steps != 0 || o.Batch > 1:
		return fmt.Errorf("cvar: a stream takes one step a row, Epochs times: Steps %d must be 0 and Batch %d at most 1", o.Steps, o.Batch)
	case o.Epochs < 0:
		return fmt.Errorf("cvar: Epochs %d must be ≥ 0", o.Epochs)
	case opt.Scaling < ScaleAuto || opt.Scaling > ScaleNone:
		return fmt.Errorf("cvar: unknown scaling %d", int(opt.Scaling))
	}
	for _, a := range opt.Alphas {
		if err := checkAlpha(a); err != nil {
			return err
		}
	}
	return checkThreads(o.Threads)
}
