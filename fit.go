package cvar

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// Fit gathers, one row at a time, what training must know before it
// starts of data it does not hold. That is the features' running moments
// and extremes (the scalings) and the training targets' moments. It is
// also every target's distinct values, while they may be class labels.
// Resolve turns it into the model kind, the classes and the
// preprocessing, as TrainStream and the cvar command decide them. Fits of
// parts of the data merge (Merge). They cross process boundaries as bytes
// (MarshalBinary), so workers can fit their parts. Merged in a fixed
// order, the parts give the same bits.
//
// Memory is O(D) and at most dataset.MaxAutoClasses + 1 distinct targets.
// The zero value is ready to use: its width grows to the largest column
// seen; NewFit fixes the width.
type Fit[T batch.Float] struct {
	fixed   bool // the width is D's, not the columns seen
	x       dataset.RunningScaler[T]
	y       dataset.RunningTargetScaler
	labels  dataset.TaskInference // of the training and held-out targets
	maxAbsY float64
	held    int
	nnz     int64 // the entries listed by the training rows
}

// FitOptions say how Resolve settles a Fit.
type FitOptions struct {
	// Kind is the model (one of batch.Kinds). "" or "auto" picks it from
	// the data: linear for regression, logistic for two classes, else
	// softmax.
	Kind string
	// Scaling is the features' scaling, ScaleTarget whether a regression
	// target is standardised (see StreamOptions).
	Scaling     Scaling
	ScaleTarget bool
	// Sparse says that the rows are handled as their non-zeros: the
	// z-score then scales without centring, and ScaleAuto is ScaleMaxAbs.
	Sparse bool
	// Classes, when not nil, are the class texts, which the targets index
	// (text labels); nil means the targets' own values say.
	Classes []string
}

// NewFit returns a Fit of rows of d features.
func NewFit[T batch.Float](d int) *Fit[T] {
	f := &Fit[T]{fixed: true}
	f.x.Widen(d)
	return f
}

// D returns the number of features: NewFit's, or the widest row's.
func (f *Fit[T]) D() int { return f.x.D() }

// Density returns the fraction of the training rows' entries that they
// list: every one of a dense row, the non-zeros of a sparse one.
func (f *Fit[T]) Density() float64 {
	return float64(f.nnz) / (float64(f.x.N()) * float64(f.D()))
}

// Add accumulates a training row, dense.
func (f *Fit[T]) Add(x []T, y T) error {
	if !f.fixed && f.x.N() == 0 {
		f.x.Widen(len(x))
	}
	if err := f.target(y); err != nil {
		return err
	}
	if err := f.x.Add(x); err != nil {
		return err
	}
	f.addY(y, len(x))
	return nil
}

// AddSparse accumulates a training row given by its non-zeros: columns
// below D (any, for the zero Fit), none repeated.
func (f *Fit[T]) AddSparse(idx []uint32, val []T, y T) error {
	if err := f.target(y); err != nil {
		return err
	}
	if !f.fixed {
		for _, c := range idx {
			if int(c) >= batch.MaxDim {
				return fmt.Errorf("cvar: column %d exceeds the most features, %d", c, batch.MaxDim)
			}
			f.x.Widen(int(c) + 1)
		}
	}
	if err := f.x.AddSparse(idx, val); err != nil {
		return err
	}
	f.addY(y, len(idx))
	return nil
}

// AddHeld accumulates the target of a held-out row, which counts for the
// task and the classes only.
func (f *Fit[T]) AddHeld(y T) error {
	if err := f.target(y); err != nil {
		return err
	}
	f.labels.Add(float64(y))
	f.held++
	return nil
}

// target checks a target.
func (f *Fit[T]) target(y T) error {
	if v := float64(y); math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("cvar: the target %v is not finite", v)
	}
	return nil
}

// addY accumulates a training row's target and its listed entries.
func (f *Fit[T]) addY(y T, listed int) {
	v := float64(y)
	f.labels.Add(v)
	f.y.Add(v)
	f.maxAbsY = math.Max(f.maxAbsY, math.Abs(v))
	f.nnz += int64(listed)
}

// Merge adds the rows of o to f. Two fits of fixed widths must have the
// same; a zero Fit's width grows to the other's.
func (f *Fit[T]) Merge(o *Fit[T]) error {
	switch {
	case f.fixed && o.D() > f.D(), o.fixed && f.D() > o.D():
		return fmt.Errorf("cvar: merging fits of %d and %d features", f.D(), o.D())
	case o.fixed:
		f.fixed = true
	}
	f.x.Merge(&o.x)
	f.y.Merge(&o.y)
	f.labels.Merge(&o.labels)
	f.maxAbsY = math.Max(f.maxAbsY, o.maxAbsY)
	f.held += o.held
	f.nnz += o.nnz
	return nil
}

// Resolve settles what training needs. That is the model kind, the
// classes (nil for regression), the width and the parts' sizes; Features
// are left to the caller. It is also the preprocessing fitted on the
// training rows. Class labels
// must be integers, at most dataset.MaxAutoClasses distinct values, unless
// opt.Classes names them.
func (f *Fit[T]) Resolve(opt FitOptions) (StreamInfo, dataset.Preprocessing, error) {
	info := StreamInfo{D: f.D(), NTrain: f.x.N(), NVal: f.held, Sparse: opt.Sparse}
	if info.NTrain == 0 {
		return info, dataset.Preprocessing{}, errors.New("cvar: no training rows")
	}
	task := modelkind.Task(opt.Kind)
	if task == dataset.TaskAuto {
		task = f.labels.Task()
		if opt.Classes != nil {
			task = dataset.Classification
		}
	}
	if task == dataset.Classification {
		var err error
		if info.Classes, err = f.classes(opt.Classes); err != nil {
			return info, dataset.Preprocessing{}, err
		}
	}
	info.Kind = opt.Kind
	if info.Kind == "" || info.Kind == "auto" {
		info.Kind = modelkind.For(task, len(info.Classes))
	}
	prep, err := f.preprocessing(opt)
	if err == nil && task == dataset.Regression && opt.Classes != nil {
		err = fmt.Errorf("cvar: a %s model needs numeric targets; the targets are class texts (%s, …)", info.Kind, opt.Classes[0])
	}
	if err == nil && task == dataset.Regression && opt.ScaleTarget {
		ts := f.y.TargetScaler()
		prep.TargetMean, prep.TargetScale = ts.Mean, ts.Scale
	}
	return info, prep, err
}

// classes returns the classes of the targets, or the imposed ones.
func (f *Fit[T]) classes(imposed []string) ([]string, error) {
	classes := imposed
	if classes == nil {
		if classes = f.labels.Classes(); classes == nil {
			return nil, fmt.Errorf("cvar: classification needs numeric class labels (integers, at most %d distinct values); the targets are not", dataset.MaxAutoClasses)
		}
	}
	if len(classes) < 2 {
		return nil, fmt.Errorf("cvar: every label is %s; classification needs at least two classes", classes[0])
	}
	return classes, nil
}

// preprocessing returns the fitted scaling of the features.
func (f *Fit[T]) preprocessing(opt FitOptions) (dataset.Preprocessing, error) {
	var st *dataset.Standardizer
	switch mode := opt.Scaling; {
	case mode == ScaleUnit:
		return dataset.Preprocessing{Divide: 255}, nil
	case mode == ScaleNone:
		return dataset.Preprocessing{}, nil
	case mode == ScaleMaxAbs || mode == ScaleAuto && opt.Sparse:
		st = f.x.MaxAbs()
	case mode == ScaleZScore && opt.Sparse:
		st = f.x.Scaler()
	case mode == ScaleZScore || mode == ScaleAuto:
		st = f.x.Standardizer()
	default:
		return dataset.Preprocessing{}, fmt.Errorf("cvar: unknown scaling %d", int(mode))
	}
	return dataset.Preprocessing{Mean: st.Mean, Scale: st.Scale}, nil
}

// fitWire is a Fit's state on the wire.
type fitWire struct {
	Fixed        bool
	X, Y, Labels []byte
	MaxAbsY      float64
	Held         int
	NNZ          int64
}

// MarshalBinary encodes f exactly, for another process to merge.
func (f *Fit[T]) MarshalBinary() ([]byte, error) {
	w := fitWire{Fixed: f.fixed, MaxAbsY: f.maxAbsY, Held: f.held, NNZ: f.nnz}
	var err [3]error
	w.X, err[0] = f.x.MarshalBinary()
	w.Y, err[1] = f.y.MarshalBinary()
	w.Labels, err[2] = f.labels.MarshalBinary()
	if e := errors.Join(err[:]...); e != nil {
		return nil, e
	}
	var b bytes.Buffer
	e := gob.NewEncoder(&b).Encode(w)
	return b.Bytes(), e
}

// UnmarshalBinary sets f to the fit MarshalBinary encoded, with an error
// for bytes it did not write.
func (f *Fit[T]) UnmarshalBinary(b []byte) error {
	var w fitWire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return fmt.Errorf("cvar: not a fit's encoding: %w", err)
	}
	g := Fit[T]{fixed: w.Fixed, maxAbsY: w.MaxAbsY, held: w.Held, nnz: w.NNZ}
	err := errors.Join(g.x.UnmarshalBinary(w.X), g.y.UnmarshalBinary(w.Y), g.labels.UnmarshalBinary(w.Labels))
	if err == nil && (w.Held < 0 || w.NNZ < 0 || !(w.MaxAbsY >= 0) || g.x.D() > batch.MaxDim) {
		err = errors.New("cvar: a fit's encoding has negative counts")
	}
	if err != nil {
		return err
	}
	*f = g
	return nil
}
