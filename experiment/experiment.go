// Package experiment reproduces the comparison of Soma & Yoshida (Section
// 5, and Appendix B with the mlp). Vanilla-SGD, CVaR-on-Minibatch and
// CVaR-SGD (cvar.Alg3) are each trained on a grid of step sizes × weight
// decays, for several seeds. Each method's setting is selected on the
// validation split. The selected runs' validation CVaRs, accuracy and mean
// loss are summarised over the seeds. They are divided by Vanilla-SGD's on
// the same seed, as in the paper's Figure 1.
//
// [Run] runs the grid on one data set. The caller splits and preprocesses
// it for each seed ([Data]). The [Result] holds a [Row] per method and α.
// [WriteText], [WriteMarkdown] and [WriteCSV] lay the rows out as tables;
// encoding/json writes them as they are. With [Options.Curves] the Result
// also draws the figures ([Result.Curves], [Result.Tails]).
package experiment

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// Options says what to compare.
type Options struct {
	// Alphas are the tail fractions in (0, 1] that CVaR-on-Minibatch and
	// CVaR-SGD minimise, one run of the grid each. Vanilla-SGD runs once.
	// The tables report CVaR at 0.05, 0.1 and each of Alphas.
	Alphas []float64
	// SelectCVaR selects the CVaR methods' settings by their validation
	// CVaR at their α. False selects every method by its validation mean
	// loss (the paper's rule). Vanilla-SGD is always selected by its mean
	// loss.
	SelectCVaR bool
	// LRs (each positive) and WeightDecays (each ≥ 0) are the grid.
	LRs, WeightDecays []float64
	// Seeds is the number of seeds, 1 to Seeds. Each splits the data and
	// trains the runs.
	Seeds int
	// Epochs and Batch are every run's passes over the training split and
	// minibatch size.
	Epochs, Batch int
	// Eps is CVaR-SGD's smoothing ε. 0 takes the practical ε: 0.05 × the
	// VaR_α of the losses at the start.
	Eps float64
	// Threads is the number of runs trained at once, each on one thread.
	// 0 means GOMAXPROCS.
	Threads int
	// Objectives adds, at each α, a CVaR-SGD row per objective (blend,
	// trimmed, chi2) with its default parameter. CVaR-SGD's own row
	// minimises CVaR_α, as in the paper.
	Objectives []cvar.Objective
	// Flip is the fraction of the training split's labels replaced by
	// another class drawn at random, on each seed (classification only).
	// The validation split has no such label noise, so its metrics are on
	// clean labels.
	Flip float64
	// Curves records what the figures need. That is each run's training
	// and validation metrics after every epoch, and the first seed's
	// validation losses.
	Curves bool
	// Progress, when not nil, is called with a number of epochs run: 1
	// after each epoch, and the epochs left when a run stops early. It is
	// called from several goroutines at once.
	Progress func(epochs int)
}

// check refuses a configuration that Run cannot run.
func (cfg *Options) check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case len(cfg.Alphas) == 0 || len(cfg.LRs) == 0 || len(cfg.WeightDecays) == 0:
		return errors.New("experiment: Alphas, LRs and WeightDecays must each hold a value")
	case cfg.Seeds < 1 || cfg.Epochs < 1 || cfg.Batch < 1:
		return fmt.Errorf("experiment: Seeds %d, Epochs %d and Batch %d must each be at least 1", cfg.Seeds, cfg.Epochs, cfg.Batch)
	case cfg.Eps < 0 || !finite(cfg.Eps):
		return fmt.Errorf("experiment: Eps %v must be finite and ≥ 0", cfg.Eps)
	case cfg.Threads < 0:
		return fmt.Errorf("experiment: Threads %d must be ≥ 0", cfg.Threads)
	case !(cfg.Flip >= 0 && cfg.Flip < 1):
		return fmt.Errorf("experiment: Flip %v is outside [0, 1)", cfg.Flip)
	}
	for _, o := range cfg.Objectives {
		if o != cvar.ObjectiveBlend && o != cvar.ObjectiveTrimmed && o != cvar.ObjectiveChi2 {
			return fmt.Errorf("experiment: objective %v: want blend, trimmed or chi2", o)
		}
	}
	for _, a := range cfg.Alphas {
		if !(a > 0 && a <= 1) {
			return fmt.Errorf("experiment: α %v is outside (0, 1]", a)
		}
	}
	for _, lr := range cfg.LRs {
		if !(lr > 0) || !finite(lr) {
			return fmt.Errorf("experiment: step size %v must be finite and positive", lr)
		}
	}
	for _, wd := range cfg.WeightDecays {
		if !(wd >= 0) || !finite(wd) {
			return fmt.Errorf("experiment: weight decay %v must be finite and ≥ 0", wd)
		}
	}
	return nil
}

// methods are the methods compared, in the paper's order.
var methods = [...]struct {
	method cvar.Method
	name   string // the rows' Method
	title  string // the paper's name
}{
	{cvar.Vanilla, "vanilla", "Vanilla-SGD"},
	{cvar.MinibatchCVaR, "minibatch", "CVaR-on-Minibatch"},
	{cvar.Alg3, "alg3", "CVaR-SGD"},
}

// arm is one row of the comparison: a method, and the α it minimises.
type arm struct {
	method    int // index in methods
	alpha     float64
	objective cvar.Objective // CVaR-SGD's, when not CVaR_α
}

// title is the arm's name in tables. It is the paper's, with α when the
// CVaR methods run at several.
func (a arm) title(multi bool) string {
	t := methods[a.method].title
	if a.objective != cvar.ObjectiveDefault {
		t += " " + a.objective.String()
	}
	if multi && methods[a.method].method != cvar.Vanilla {
		t += " (α = " + alphaKey(a.alpha) + ")"
	}
	return t
}

// arms lists the arms: Vanilla-SGD, then each CVaR method at each α,
// followed by CVaR-SGD on each of Objectives.
func (cfg *Options) arms() []arm {
	arms := []arm{{method: 0, alpha: cfg.Alphas[0]}}
	for _, a := range cfg.Alphas {
		for m := 1; m < len(methods); m++ {
			arms = append(arms, arm{method: m, alpha: a})
		}
		for _, o := range cfg.Objectives {
			arms = append(arms, arm{method: len(methods) - 1, alpha: a, objective: o})
		}
	}
	return arms
}

// reported are the α at which the tables report CVaR: 0.05, 0.1 and the
// others of Alphas.
func (cfg *Options) reported() []float64 {
	out := []float64{0.05, 0.1}
	for _, a := range cfg.Alphas {
		if !contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func contains(xs []float64, x float64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// alphaKey formats α for keys and headings: 0.05, 0.1.
func alphaKey(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }

// Data is the data of one seed, as the function given to Run returns it.
type Data[T batch.Float] struct {
	// Model is the model every run trains (its parameters are not
	// modified: each run keeps its own).
	Model batch.Model[T]
	// Fit is the training split the model is fitted on.
	Fit *batch.Data[T]
	// Train and Val are the training and validation splits the runs are
	// measured on. They may differ from Fit in the targets' units.
	Train, Val *batch.Data[T]
	// Unscale, when not nil, maps parameters fitted on Fit to the units of
	// Train and Val, in place (see dataset.Preprocessing).
	Unscale func(theta []T) error
}

// run is one training run of the grid.
type run struct {
	seed, arm int // 0-based indexes
	lr, wd    float64
	err       error
	val       cvar.Metrics
	losses    []float64       // validation losses of the final model (first seed, with Curves)
	curves    [3][2][]float64 // CVaR_0.1, accuracy, mean loss × training, validation, per epoch
}

// Run runs the grid on one data set, named name in the rows. For each
// seed s in 1..cfg.Seeds it calls data(s). It trains every method at every
// setting on that data. A run that diverges (cvar.DivergenceError) is left
// out of the selection and listed in the Result. Any other error stops
// Run.
func Run[T batch.Float](name string, cfg Options, data func(seed uint64) (*Data[T], error)) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Threads == 0 {
		cfg.Threads = runtime.GOMAXPROCS(0)
	}
	res := &Result{Name: name, cfg: cfg, arms: cfg.arms()}
	best := make([]*run, 0, cfg.Seeds*len(res.arms)) // [seed][arm]
	var all []*run
	for s := range cfg.Seeds {
		d, err := data(uint64(s + 1))
		if err != nil {
			return nil, err
		}
		if d, err = flipped(d, cfg.Flip, uint64(s+1)); err != nil {
			return nil, err
		}
		var jobs []*run
		for m := range res.arms {
			for _, lr := range cfg.LRs {
				for _, wd := range cfg.WeightDecays {
					jobs = append(jobs, &run{seed: s, arm: m, lr: lr, wd: wd})
				}
			}
		}
		runJobs(cfg.Threads, jobs, func(j *run) { train(res, j, d, cfg.Curves && s == 0) })
		sel, err := res.selectBest(jobs)
		if err != nil {
			return nil, err
		}
		best = append(best, sel...)
		all = append(all, jobs...)
	}
	res.best, res.Runs = best, len(all)
	for _, j := range all {
		if j.err != nil {
			res.Diverged = append(res.Diverged, res.diverged(j))
		}
	}
	res.Rows = res.rows(best, all)
	return res, nil
}

// selectBest picks each arm's run of one seed with the smallest criterion.
// It picks nil for an arm whose runs all diverged.
func (res *Result) selectBest(jobs []*run) ([]*run, error) {
	best := make([]*run, len(res.arms))
	for _, j := range jobs {
		if j.err != nil {
			var div *cvar.DivergenceError
			if !errors.As(j.err, &div) {
				return nil, j.err
			}
			continue
		}
		if b := best[j.arm]; b == nil || res.criterion(j) < res.criterion(b) {
			best[j.arm] = j
		}
	}
	return best, nil
}

// criterion is what the selection minimises for a run: the validation
// mean loss. With SelectCVaR the CVaR methods minimise the validation CVaR
// at the arm's α.
func (res *Result) criterion(j *run) float64 {
	a := res.arms[j.arm]
	if res.cfg.SelectCVaR && methods[a.method].method != cvar.Vanilla {
		c, _ := j.val.TailAt(a.alpha)
		return c
	}
	return j.val.MeanLoss
}

// runJobs runs f on every job with the given number of workers.
func runJobs(workers int, jobs []*run, f func(*run)) {
	next := make(chan *run)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				f(j)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}

// progress reports n epochs run.
func (cfg *Options) progress(n int) {
	if cfg.Progress != nil && n > 0 {
		cfg.Progress(n)
	}
}

// train trains one grid point on d.Fit, on one thread. It measures it on
// d.Val, in the target's units. With Curves it records the metrics after
// every epoch. With keepLosses it keeps the final validation losses.
func train[T batch.Float](res *Result, j *run, d *Data[T], keepLosses bool) {
	cfg := &res.cfg
	a := res.arms[j.arm]
	m := methods[a.method]
	opt := cvar.Options{
		Method: m.method, Objective: a.objective, Alpha: a.alpha, LR: j.lr, WeightDecay: j.wd, Epochs: cfg.Epochs,
		Batch: cfg.Batch, Seed: uint64(j.seed + 1), Threads: 1,
	}
	if m.method == cvar.Alg3 {
		opt.Eps = cfg.Eps // 0: the practical ε, from the losses at the start
	}
	ev, err := cvar.NewEvaluator(d.Model, 1)
	if err != nil {
		j.err = err
		return
	}
	defer ev.Close()
	unscale := func(theta []T) error {
		if d.Unscale == nil {
			return nil
		}
		return d.Unscale(theta)
	}
	theta := make([]T, d.Model.NumParams())
	done := 0
	opt.OnEpoch = func(info cvar.EpochInfo) error {
		done++
		cfg.progress(1)
		if !cfg.Curves {
			return nil
		}
		for i, v := range info.Theta {
			theta[i] = T(v)
		}
		if err := unscale(theta); err != nil {
			return err
		}
		return record(j, ev, theta, d.Train, d.Val)
	}
	fitted, err := cvar.Train(d.Model, d.Fit, opt)
	if err != nil {
		cfg.progress(cfg.Epochs - done)
		j.err = fmt.Errorf("%s with lr %g, wd %g: %w", a.title(true), j.lr, j.wd, err)
		return
	}
	if err := unscale(fitted.Theta); err != nil {
		j.err = err
		return
	}
	if j.val, err = ev.Metrics(fitted.Theta, d.Val, cfg.reported()...); err != nil {
		j.err = err
		return
	}
	if keepLosses {
		losses, err := ev.Losses(fitted.Theta, d.Val)
		if err != nil {
			j.err = err
			return
		}
		j.losses = make([]float64, len(losses))
		for i, l := range losses {
			j.losses[i] = float64(l)
		}
	}
}

// record appends the metrics of theta on the training and the validation
// split to j's curves.
func record[T batch.Float](j *run, ev *cvar.Evaluator[T], theta []T, train, val *batch.Data[T]) error {
	for k, data := range []*batch.Data[T]{train, val} {
		m, err := ev.Metrics(theta, data, 0.1)
		if err != nil {
			return err
		}
		c, _ := m.TailAt(0.1)
		j.curves[0][k] = append(j.curves[0][k], c)
		j.curves[1][k] = append(j.curves[1][k], m.Accuracy)
		j.curves[2][k] = append(j.curves[2][k], m.MeanLoss)
	}
	return nil
}

// Rows is the number of rows of each data set: Vanilla-SGD, and
// CVaR-on-Minibatch and CVaR-SGD at each of Alphas. Each row trains every
// setting of the grid on every seed.
func (cfg *Options) Rows() int { return 1 + (len(methods)-1+len(cfg.Objectives))*len(cfg.Alphas) }

// flipped returns d with a fraction flip of its Fit split's labels
// replaced by another class, drawn with seed. It returns d itself when
// flip is 0.
func flipped[T batch.Float](d *Data[T], flip float64, seed uint64) (*Data[T], error) {
	if flip == 0 {
		return d, nil
	}
	if d.Fit.Labels == nil || d.Fit.K < 2 {
		return nil, errors.New("experiment: Flip needs classification data")
	}
	r := rng.New(seed, 0xf11b)
	fit := *d.Fit
	fit.Labels = slices.Clone(d.Fit.Labels)
	if fit.Y != nil { // a binary target, 2·label − 1
		fit.Y = slices.Clone(d.Fit.Y)
	}
	for i, y := range fit.Labels {
		if r.Float64() < flip {
			fit.Labels[i] = int32((int(y) + 1 + r.IntN(fit.K-1)) % fit.K)
			if fit.Y != nil {
				fit.Y[i] = T(2*fit.Labels[i] - 1)
			}
		}
	}
	out := *d
	out.Fit = &fit
	return &out, nil
}
