package cvar

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cvarlearn/cvar/batch"
)

// Online trains with Alg1 or Alg4 on a stream, one sample at a time. It
// needs O(number of parameters) memory and never holds more than the
// current sample. It needs the stream's length n in advance, in
// Options.Steps, whatever the rule. By default (PracticalStep) η is
// DefaultLROneSample. The first sample's loss then sets the starting τ
// and, for Alg4, ε. Under TheoremStep the step sizes are functions of n.
// They need bounds on the data (Options.Scale, or Options.G), unless LR
// (and for Alg4 Eps) are given. Samples come as dense rows (Observe) or as
// their non-zeros (ObserveSparse). For the linear models and softmax, a
// sparse step costs the sample's non-zeros.
//
// An Online is safe for concurrent use. Its calls are serialised, each
// sample one whole step. Samples observed at once from several goroutines
// are taken in the order their calls get in. So only a stream observed
// from one goroutine gives a reproducible run.
type Online[T batch.Float] struct {
	mu    sync.Mutex // held by the running call
	r     *run[T]
	model batch.Model[T]
	one   batch.Data[T] // the current sample as a one-row data set
	sp    batch.Data[T] // the current sparse sample (ObserveSparse)
	ptr   [2]int64
	y     [1]T
	label [1]int32
	n     int
	steps int // Options.Steps: the samples the run takes
}

// NewOnline starts an online run of opt.Method (Alg1 or Alg4). The stream
// holds opt.Steps samples of d features. It is classification with k
// classes, or regression when k = 0.
func NewOnline[T batch.Float](model batch.Model[T], d, k int, opt Options) (*Online[T], error) {
	if !opt.Method.online() {
		return nil, fmt.Errorf("cvar: %v is not an online method (use alg1 or alg4)", opt.Method)
	}
	if opt.Steps <= 0 {
		return nil, errors.New("cvar: an online run needs the stream's length in Options.Steps")
	}
	if model == nil {
		return nil, errNoModel
	}
	if d <= 0 || d > batch.MaxDim || k < 0 || k == 1 || k > batch.MaxDim {
		return nil, fmt.Errorf("cvar: a stream of %d features and %d classes; want d ≥ 1 and k = 0 (regression) or k ≥ 2", d, k)
	}
	if err := validate(&opt); err != nil {
		return nil, err
	}
	o := &Online[T]{model: model, steps: opt.Steps}
	o.one = batch.Data[T]{X: make([]T, d), N: 1, D: d, Stride: d, K: k}
	if k > 0 {
		o.one.Labels = o.label[:]
		if k == 2 {
			o.one.Y = o.y[:]
		}
	} else {
		o.one.Y = o.y[:]
	}
	if err := model.Check(&o.one); err != nil {
		return nil, err
	}
	o.sp = batch.Data[T]{N: 1, D: d, Indptr: o.ptr[:], K: k, Y: o.one.Y, Labels: o.one.Labels}
	if opt.objective() == ObjectiveGroup {
		return nil, errors.New("cvar: objective group weighs groups of a minibatch: an online run has one sample a step (use Train)")
	}
	theta, err := initialTheta(model, opt)
	if err != nil {
		return nil, err
	}
	p := model.NumParams()
	bounds := model.Bounds(opt.Scale, opt.Domain.radius(p))
	if opt.Rule == TheoremStep && opt.LR == 0 && opt.G == 0 && opt.Scale == (batch.Scale{}) {
		return nil, errors.New("cvar: an online run with the theorem's step size needs Options.Scale (bounds on ‖x‖ and |y|) or Options.G")
	}
	opt.Sampling = batch.InOrder // a stream is taken in the order it comes
	pr, err := resolve(&opt, p, opt.Steps, bounds, model.Convex(), nil)
	if err != nil {
		return nil, err
	}
	engine, hooks, err := newEngine(model, 1)
	if err != nil {
		return nil, err
	}
	o.r, err = newRun(model, engine, hooks, opt, pr, theta)
	if err != nil {
		engine.Close()
		return nil, err
	}
	return o, nil
}

// Observe takes one sample: its features x, and its target y (regression)
// or class label (classification). It updates the parameters. It returns
// a DivergenceError if they stopped being finite. A bad sample is an error
// and is not used. So is a sample past Options.Steps, the stream's length
// that the step sizes were set for.
func (o *Online[T]) Observe(x []T, y float64, label int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.checkBudget(); err != nil {
		return err
	}
	d := &o.one
	if len(x) != d.D {
		return fmt.Errorf("cvar: sample %d has %d features, want %d", o.n+1, len(x), d.D)
	}
	for j, v := range x {
		if !finite(float64(v)) {
			return fmt.Errorf("cvar: sample %d, feature %d: %v is not finite", o.n+1, j, v)
		}
	}
	if err := o.target(y, label); err != nil {
		return err
	}
	copy(d.X, x)
	o.n++
	return o.r.step(d, nil, 1)
}

// ObserveSparse is Observe for a sample given by its non-zeros. Feature
// cols[i] has the value vals[i], and every other feature is 0. Columns are
// 0-based and below d. A column listed twice adds its values, as in
// batch.NewSparseData. For the linear models and softmax the update then
// costs the sample's non-zeros, not the number of parameters. See
// Options.WeightDecay and docs/guide.md on sparse data. The MLP reads the
// sample sparse in its first layer. Neither cols nor vals is kept. The
// result is that of Observe on the dense row, to rounding.
func (o *Online[T]) ObserveSparse(cols []uint32, vals []T, y float64, label int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.checkBudget(); err != nil {
		return err
	}
	d := &o.sp
	if len(cols) != len(vals) {
		return fmt.Errorf("cvar: sample %d has %d columns and %d values", o.n+1, len(cols), len(vals))
	}
	for p, c := range cols {
		if int(c) >= d.D {
			return fmt.Errorf("cvar: sample %d: feature %d outside the %d features (0-based)", o.n+1, c, d.D)
		}
		if !finite(float64(vals[p])) {
			return fmt.Errorf("cvar: sample %d, feature %d: %v is not finite", o.n+1, c, vals[p])
		}
	}
	if err := o.target(y, label); err != nil {
		return err
	}
	d.Cols, d.Vals = cols, vals
	o.ptr[1] = int64(len(cols))
	o.n++
	err := o.r.step(d, nil, 1)
	d.Cols, d.Vals = nil, nil
	return err
}

// checkBudget refuses a sample past Options.Steps. The step sizes and the
// output (a random iterate among Steps, the average's weights) are those
// of a stream of that length. A longer stream would be a run of another
// setting than the one asked for.
func (o *Online[T]) checkBudget() error {
	if o.n >= o.steps {
		return fmt.Errorf("cvar: sample %d is past the %d samples of Options.Steps, the stream's length the run was set for", o.n+1, o.steps)
	}
	return nil
}

// target sets the current sample's target or class.
func (o *Online[T]) target(y float64, label int) error {
	d := &o.one
	if d.K > 0 {
		if label < 0 || label >= d.K {
			return fmt.Errorf("cvar: sample %d: label %d outside the classes 0..%d", o.n+1, label, d.K-1)
		}
		o.label[0] = int32(label)
		o.y[0] = T(2*label - 1) // ±1 for binary logistic regression
	} else {
		if !finite(y) {
			return fmt.Errorf("cvar: sample %d: target %v is not finite", o.n+1, y)
		}
		o.y[0] = T(y)
	}
	return nil
}

// Seen returns the number of samples observed.
func (o *Online[T]) Seen() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// Result returns the run's output so far, by Options.Output. By default
// Alg1 returns the average of the iterates. Alg4 returns the last iterate
// under PracticalStep, and a uniformly random one under TheoremStep.
func (o *Online[T]) Result() *Result[T] {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.r.result()
}

// epochDone calls Options.OnEpoch after pass epoch over a stream.
func (o *Online[T]) epochDone(epoch int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.r.epochDone(epoch)
}

// Close releases the run's workers, after a running call has returned.
// Observe and ObserveSparse return an error after it; Result still gives
// the run's output.
func (o *Online[T]) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.r.engine.Close()
}
