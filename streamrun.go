package cvar

import (
	"context"
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// The passes of TrainStream.

// streamRun is the state of TrainStream from pass to pass.
type streamRun[T batch.Float] struct {
	opt     StreamOptions[T]
	r       *streamReader[T]
	split   *dataset.Splitter
	n       int // rows
	nnz     int // non-zeros, of LIBSVM rows
	sparse  bool
	scaling Scaling
	fitted  streamFit[T]
	info    StreamInfo
	task    dataset.Task
	prep    dataset.Preprocessing
	model   batch.Model[T]
	maxAbsY float64   // a bound on the training targets' |y| as fitted
	buf     *chunk[T] // the chunk of rows (see chunks)
}

func newStreamRun[T batch.Float](ctx context.Context, src StreamSource, opt StreamOptions[T]) (*streamRun[T], error) {
	if err := checkStream(ctx, src, &opt); err != nil {
		return nil, err
	}
	r := &streamReader[T]{ctx: ctx, src: src}
	if src.CSV != nil {
		r.limit = src.CSV.Limit
	} else {
		r.limit = src.LIBSVM.Limit
	}
	return &streamRun[T]{opt: opt, r: r}, nil
}

// count reads the rows' number (and non-zeros), and makes the split.
func (s *streamRun[T]) count() error {
	lib := s.r.src.LIBSVM
	if lib != nil {
		if err := s.r.width(); err != nil {
			return err
		}
	}
	err := s.r.each(dataset.Regression, nil, lib != nil, func(_ int, row *streamRow[T]) error {
		s.n, s.nnz = s.n+1, s.nnz+len(row.cols)
		return nil
	})
	if err != nil {
		return err
	}
	// LIBSVM rows below the density SparseBelow are handled as their
	// non-zeros: every pass, the training step (Online.ObserveSparse) and
	// the metrics' chunks cost the non-zeros, not D a row.
	s.sparse = lib != nil && float64(s.nnz) < lib.SparseBelow*float64(s.n)*float64(s.r.d)
	if s.n < 2 {
		return fmt.Errorf("%s: %d samples cannot be split into non-empty training and validation sets", s.r.src.Name, s.n)
	}
	s.split, err = dataset.NewSplitter(s.n, s.opt.TrainFrac, s.opt.Options.Seed)
	s.scaling = s.opt.Scaling
	if s.scaling == ScaleAuto {
		s.scaling = ScaleZScore
		if s.sparse {
			s.scaling = ScaleMaxAbs
		}
	}
	return err
}

// streamFit is what the fitting pass gathers from the rows.
type streamFit[T batch.Float] struct {
	n, nTrain int
	targets   dataset.TaskInference // of every row
	yMoments  dataset.RunningTargetScaler
	maxAbsY   float64
	moments   dataset.RunningStandardizer[T] // dense z-score
	scaler    *dataset.RunningScaler[T]      // max-abs, or the sparse z-score
	zscore    bool                           // dense z-score
}

// add accumulates row i.
func (f *streamFit[T]) add(i int, row *streamRow[T], split *dataset.Splitter, sparse bool) error {
	f.n++
	y := float64(row.y)
	f.targets.Add(y)
	if !split.Train(i) {
		return nil
	}
	f.nTrain++
	f.maxAbsY = math.Max(f.maxAbsY, math.Abs(y))
	f.yMoments.Add(y)
	switch {
	case f.scaler != nil && sparse:
		return f.scaler.AddSparse(row.cols, row.vals)
	case f.scaler != nil:
		return f.scaler.Add(row.x)
	case f.zscore:
		return f.moments.Add(row.x)
	}
	return nil
}

// fit reads the training rows' scaling and every row's target.
func (s *streamRun[T]) fit() error {
	f := &s.fitted
	switch {
	case s.scaling == ScaleMaxAbs || s.scaling == ScaleZScore && s.sparse:
		f.scaler = dataset.NewRunningScaler[T](s.r.d)
	case s.scaling == ScaleZScore:
		f.zscore = true
	}
	err := s.r.each(dataset.Regression, nil, s.sparse, func(i int, row *streamRow[T]) error {
		if err := f.add(i, row, s.split, s.sparse); err != nil {
			return fmt.Errorf("%s:%d: %w", s.r.src.Name, row.line, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if f.n != s.n || f.nTrain != s.split.NTrain() {
		return fmt.Errorf("%s: %d rows on one pass, %d on the next; the data changed while it was read", s.r.src.Name, s.n, f.n)
	}
	s.prep = f.preprocessing(s.scaling)
	return nil
}

// preprocessing returns the fitted scaling of the features.
func (f *streamFit[T]) preprocessing(mode Scaling) dataset.Preprocessing {
	var st *dataset.Standardizer
	switch {
	case mode == ScaleUnit:
		return dataset.Preprocessing{Divide: 255}
	case mode == ScaleNone:
		return dataset.Preprocessing{}
	case f.zscore:
		st = f.moments.Standardizer()
	case mode == ScaleMaxAbs:
		st = f.scaler.MaxAbs()
	default: // sparse z-score
		st = f.scaler.Scaler()
	}
	return dataset.Preprocessing{Mean: st.Mean, Scale: st.Scale}
}

// resolve settles the task, the classes and the model kind, makes the
// model, and fits the targets' standardisation.
func (s *streamRun[T]) resolve() error {
	name, f := s.r.src.Name, &s.fitted
	s.task = ModelTask(s.opt.Kind)
	if s.task == dataset.TaskAuto {
		s.task = f.targets.Task()
	}
	var classes []string
	if s.task == dataset.Classification {
		if classes = f.targets.Classes(); classes == nil {
			return fmt.Errorf("%s: a stream needs numeric class labels (integers, at most %d distinct values)", name, dataset.MaxAutoClasses)
		}
		if len(classes) < 2 {
			return fmt.Errorf("%s: every label is %s; classification needs at least two classes", name, classes[0])
		}
	}
	kind := s.opt.Kind
	if kind == "" || kind == "auto" {
		kind = ModelKindFor(s.task, len(classes))
	}
	s.info = StreamInfo{Kind: kind, D: s.r.d, Classes: classes, Features: s.r.features, NTrain: f.nTrain, NVal: s.n - f.nTrain, Sparse: s.sparse}
	if err := s.newModel(); err != nil {
		return err
	}
	if passes := max(s.opt.Options.Epochs, 1); uint64(f.nTrain) > MaxSteps/uint64(passes) {
		return fmt.Errorf("cvar: Epochs %d of %d steps each exceed MaxSteps (%d) steps", passes, f.nTrain, uint64(MaxSteps))
	}
	s.maxAbsY = f.maxAbsY
	if s.task == dataset.Regression && s.opt.ScaleTarget {
		if _, ok := s.model.(targetUnscaler[T]); !ok {
			return fmt.Errorf("cvar: the %s model cannot be trained on standardised targets", s.model.Name())
		}
		ts := f.yMoments.TargetScaler()
		s.prep.TargetMean, s.prep.TargetScale = ts.Mean, ts.Scale
		s.maxAbsY = (s.maxAbsY + math.Abs(ts.Mean)) / ts.Scale // a bound on the standardised |y|
	}
	return nil
}

// newModel makes the model of s.info.
func (s *streamRun[T]) newModel() error {
	var err error
	if s.opt.Model != nil {
		s.model, err = s.opt.Model(s.info)
	} else if s.model, err = batch.NewModel[T](s.info.Kind, s.info.D, len(s.info.Classes), 0); err != nil {
		err = fmt.Errorf("%s: %w", s.r.src.Name, err)
	}
	if err == nil && s.model == nil {
		err = errNoModel
	}
	return err
}

// targetUnscaler is a regression model whose parameters can be mapped from
// standardised targets back to the target's units.
type targetUnscaler[T batch.Float] interface {
	UnscaleTarget(theta []T, mean, scale float64) (lossFactor float64, err error)
}

// measure sets Options.Scale, the bounds on ‖x‖ of the preprocessed
// training rows and on their |y|, when a theorem's step size needs them.
func (s *streamRun[T]) measure() error {
	o := &s.opt.Options
	if o.Scale != (batch.Scale{}) || o.Rule != TheoremStep || o.LR != 0 && (o.Method != Alg4 || o.Eps != 0) {
		return nil
	}
	var maxNorm float64
	err := s.chunks(s.split.Train, func(c *chunk[T]) error {
		maxNorm = math.Max(maxNorm, c.features().Scale().MaxNorm)
		return nil
	})
	o.Scale = batch.Scale{MaxNorm: maxNorm, MaxAbsY: s.maxAbsY}
	return err
}

// fitY is a target as training sees it.
func (s *streamRun[T]) fitY(y T) float64 {
	if s.prep.TargetScale > 0 {
		return (float64(y) - s.prep.TargetMean) / s.prep.TargetScale
	}
	return float64(y)
}

// train makes the training passes and returns the result in the target's
// units.
func (s *streamRun[T]) train() (*Result[T], error) {
	passes, nTrain := max(s.opt.Options.Epochs, 1), s.info.NTrain
	o := s.opt.Options
	o.Steps, o.Epochs, o.Batch = nTrain*passes, 0, 0
	online, err := NewOnline(s.model, s.info.D, len(s.info.Classes), o)
	if err != nil {
		return nil, err
	}
	defer online.Close()
	done := 0
	observe := func(c *chunk[T]) error {
		for r := range c.n() {
			var err error
			if s.sparse {
				cols, vals := c.sparseRow(r)
				err = online.ObserveSparse(cols, vals, s.fitY(c.ys[r]), int(c.labels[r]))
			} else {
				err = online.Observe(c.row(r), s.fitY(c.ys[r]), int(c.labels[r]))
			}
			if err != nil {
				return fmt.Errorf("%s:%d: %w", s.r.src.Name, c.lines[r], err)
			}
			if done++; s.opt.Progress != nil {
				s.opt.Progress(done, o.Steps)
			}
		}
		return nil
	}
	for pass := 1; pass <= passes; pass++ {
		if err := s.chunks(s.split.Train, observe); err != nil {
			return nil, err
		}
		if err := online.epochDone(pass); err != nil {
			return nil, err
		}
	}
	res := online.Result()
	factor, err := UnscaleTarget(s.model, res.Theta, &s.prep)
	if err != nil {
		return nil, err
	}
	res.Tau *= factor
	res.Params.Tau0 *= factor
	return res, nil
}

// evaluate computes every row's loss, chunk by chunk, and the metrics of
// the two parts.
func (s *streamRun[T]) evaluate(res *Result[T]) (*StreamResult[T], error) {
	alphas := s.opt.Alphas
	if alphas == nil {
		alphas = []float64{res.Params.Alpha}
	}
	ev, err := NewEvaluator(s.model, s.opt.Options.Threads)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	k := len(s.info.Classes)
	var (
		losses  [2][]float64 // training, validation
		correct [2][]bool
	)
	err = s.chunks(nil, func(c *chunk[T]) error {
		data, err := c.batch(k)
		if err != nil {
			return fmt.Errorf("%s: %w", s.r.src.Name, err)
		}
		ls, err := ev.Losses(res.Theta, data)
		if err != nil {
			return err
		}
		var pred []int
		if k > 0 {
			if pred, err = ev.Predictions(res.Theta, data); err != nil {
				return err
			}
		}
		for r, i := range c.index {
			p := 1
			if s.split.Train(i) {
				p = 0
			}
			losses[p] = append(losses[p], float64(ls[r]))
			if k > 0 {
				correct[p] = append(correct[p], pred[r] == int(c.labels[r]))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &StreamResult[T]{StreamInfo: s.info, Result: res, Model: s.model, Preprocessing: s.prep, source: s.provenance()}
	if out.Training, err = MetricsOf(losses[0], correct[0], alphas...); err != nil {
		return nil, err
	}
	out.Validation, err = MetricsOf(losses[1], correct[1], alphas...)
	return out, err
}

// provenance records the source in a model file.
func (s *streamRun[T]) provenance() Provenance {
	src := s.r.src
	if src.CSV != nil {
		return Provenance{Kind: "csv", Name: src.Name, N: s.info.NTrain, Target: src.CSV.Target, NoHeader: src.CSV.NoHeader}
	}
	return Provenance{Kind: "libsvm", Name: src.Name, N: s.info.NTrain}
}
