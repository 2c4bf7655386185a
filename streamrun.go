package cvar

import (
	"context"
	"fmt"
	"math"
	"strings"

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
	fitted  *Fit[T]
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
	// non-zeros. Every pass, the training step (Online.ObserveSparse) and
	// the metrics' chunks then cost the non-zeros, not D a row.
	s.sparse = lib != nil && float64(s.nnz) < lib.SparseBelow*float64(s.n)*float64(s.r.d)
	if s.n < 2 {
		return fmt.Errorf("%s: %d samples cannot be split into non-empty training and validation sets", s.r.src.Name, s.n)
	}
	s.split, err = dataset.NewSplitter(s.n, s.opt.TrainFrac, s.opt.Options.Seed)
	return err
}

// fit reads the training rows' scaling and every row's target (Fit).
func (s *streamRun[T]) fit() error {
	f := NewFit[T](s.r.d)
	err := s.r.each(dataset.Regression, nil, s.sparse, func(i int, row *streamRow[T]) error {
		var err error
		switch {
		case !s.split.Train(i):
			err = f.AddHeld(row.y)
		case s.sparse:
			err = f.AddSparse(row.cols, row.vals, row.y)
		default:
			err = f.Add(row.x, row.y)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", s.r.src.Name, row.line, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n := f.x.N() + f.held; n != s.n || f.x.N() != s.split.NTrain() {
		return fmt.Errorf("%s: %d rows on one pass, %d on the next; the data changed while it was read", s.r.src.Name, s.n, n)
	}
	s.fitted = f
	return nil
}

// resolve settles the task, the classes, the model kind and the
// preprocessing (Fit.Resolve), and makes the model.
func (s *streamRun[T]) resolve() error {
	name, f := s.r.src.Name, s.fitted
	fo := FitOptions{Kind: s.opt.Kind, Scaling: s.opt.Scaling, ScaleTarget: s.opt.ScaleTarget, Sparse: s.sparse}
	info, prep, err := f.Resolve(fo)
	if err != nil {
		return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "cvar: "))
	}
	info.Features = s.r.features
	s.info, s.prep, s.task = info, prep, dataset.Regression
	if info.Classes != nil {
		s.task = dataset.Classification
	}
	if err := s.newModel(); err != nil {
		return err
	}
	if passes := max(s.opt.Options.Epochs, 1); uint64(info.NTrain) > MaxSteps/uint64(passes) {
		return fmt.Errorf("cvar: Epochs %d of %d steps each exceed MaxSteps (%d) steps", passes, info.NTrain, uint64(MaxSteps))
	}
	s.maxAbsY = f.maxAbsY
	if prep.TargetScale > 0 {
		if _, ok := s.model.(targetUnscaler[T]); !ok {
			return fmt.Errorf("cvar: the %s model cannot be trained on standardised targets", s.model.Name())
		}
		s.maxAbsY = (s.maxAbsY + math.Abs(prep.TargetMean)) / prep.TargetScale // a bound on the standardised |y|
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
