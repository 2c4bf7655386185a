package cvar

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/cvarlearn/cvar/batch"
)

// Grid is the set of settings Tune tries: every combination of its lists.
// An empty list means its default (see WithDefaults). Every value must be
// finite. The step sizes and ε fractions must be positive, and the weight
// decays ≥ 0. The lists may make at most MaxGridSettings settings.
type Grid struct {
	// LR are the step sizes.
	LR []float64
	// WeightDecay are the weight decays.
	WeightDecay []float64
	// EpsFraction are the practical ε as fractions of the initial VaR_α
	// (Options.EpsFraction), tried for the smoothed methods Alg2–4 only.
	EpsFraction []float64
	// Trim are the fractions of each minibatch's largest losses left out
	// (Options.Trim), each in [0, 1). They are tried for ObjectiveBlend and
	// ObjectiveTrimmed only. A 0 is tried only for the blend, which it
	// leaves untrimmed.
	Trim []float64
	// Rho are the χ² radii (Options.Rho), each positive, tried for
	// ObjectiveChi2 only.
	Rho []float64
}

// WithDefaults returns g with each empty list set to its default, in a
// new slice; Grid{}.WithDefaults() is the default grid. The step sizes are
// the paper's {0.001, 0.005, 0.01} widened upwards by a factor of 10:
// {0.001, 0.003, 0.01, 0.03, 0.1}. The weight decays are the paper's
// {0, 1e-4, 1e-3}. The ε fractions go from a sharp to a soft plus
// function: {0.01, 0.05, 0.25}. The trims go from none to the label noise
// of hard real data: {0, 0.05, 0.1, 0.2}. The χ² radii lie a factor of 4
// apart about the default: {0.25, 1, 4}.
func (g Grid) WithDefaults() Grid {
	or := func(list []float64, def ...float64) []float64 {
		if len(list) == 0 {
			return def
		}
		return list
	}
	return Grid{
		LR:          or(g.LR, 0.001, 0.003, 0.01, 0.03, 0.1),
		WeightDecay: or(g.WeightDecay, 0, 1e-4, 1e-3),
		EpsFraction: or(g.EpsFraction, 0.01, 0.05, 0.25),
		Trim:        or(g.Trim, 0, 0.05, 0.1, 0.2),
		Rho:         or(g.Rho, 0.25, 1, 4),
	}
}

// Selection is the rule Tune picks a setting by.
type Selection int

const (
	// SelectCVaR picks the smallest validation CVaR_α (α of Options), ties
	// broken by the mean loss: what a tail-safe model is for.
	SelectCVaR Selection = iota
	// SelectLoss picks the smallest validation mean loss, the paper's rule.
	SelectLoss
	// SelectAccuracy picks the largest validation accuracy, ties broken by
	// CVaR_α, then the mean loss; for regression, the smallest mean loss.
	// Unlike a tail, accuracy is not owned by the few wrong labels of a
	// validation split. So it picks the trim that fits the noise.
	SelectAccuracy
)

var selectionNames = [...]string{"cvar", "loss", "accuracy"}

func (s Selection) String() string {
	if s >= 0 && int(s) < len(selectionNames) {
		return selectionNames[s]
	}
	return fmt.Sprintf("Selection(%d)", int(s))
}

// TuneOptions configure Tune.
type TuneOptions struct {
	Grid   Grid
	Select Selection
	// Threads is the number of settings trained at once, each on one
	// thread; 0 means GOMAXPROCS, and a negative count is an error.
	// Results do not depend on it.
	Threads int
}

// Trial is one setting of the grid and how it did on the validation data.
type Trial struct {
	LR, WeightDecay float64
	EpsFraction     float64 // 0 for the methods without smoothing
	Trim            float64 // 0 for the objectives without a trim
	Rho             float64 // 0 but for ObjectiveChi2
	Val             Metrics // CVaR and VaR at α, accuracy, mean loss
	Err             error   // a DivergenceError when the setting diverged
}

// Tuned is what Tune returns. It holds every trial, in grid order: LR,
// then weight decay, then ε. It holds the index of the one picked and its
// training result.
type Tuned[T batch.Float] struct {
	Trials []Trial
	Best   int
	Result *Result[T]
}

// Tune trains opt.Method on train once for every setting of the grid. The
// setting overrides opt.LR, opt.WeightDecay and opt.EpsFraction; the other
// fields of opt are as given. Tune evaluates each on val. It returns them
// all with the one that did best by to.Select. The winner is kept as
// trained on train alone, so its validation metrics stay an honest
// estimate. Settings that diverge are reported in their Trial and left out
// of the choice. Tune fails only when every setting diverged, or on an
// error that no setting can avoid (bad options, bad data). The field
// opt.OnEpoch must be nil. The settings train at once, and a callback
// could not tell them apart.
func Tune[T batch.Float](model batch.Model[T], train, val *batch.Data[T], opt Options, to TuneOptions) (*Tuned[T], error) {
	return TuneContext(context.Background(), model, train, val, opt, to)
}

// TuneContext is Tune under ctx. Once ctx is done, the settings still
// training stop before their next step. Tune then returns ctx's error. A
// nil ctx is an error.
func TuneContext[T batch.Float](ctx context.Context, model batch.Model[T], train, val *batch.Data[T], opt Options, to TuneOptions) (*Tuned[T], error) {
	switch {
	case ctx == nil:
		return nil, errNoContext
	case model == nil:
		return nil, errNoModel
	case train == nil:
		return nil, errors.New("cvar: Tune: no training data (nil train)")
	case val == nil:
		return nil, errors.New("cvar: Tune: no validation data (nil val)")
	case opt.OnEpoch != nil:
		return nil, errors.New("cvar: Tune does not support Options.OnEpoch (its settings train at once); leave it nil")
	}
	if err := checkModelData(model, val); err != nil {
		return nil, fmt.Errorf("cvar: validation data: %w", err)
	}
	if to.Select < SelectCVaR || to.Select > SelectAccuracy {
		return nil, fmt.Errorf("cvar: unknown selection %d", int(to.Select))
	}
	if to.Threads < 0 {
		return nil, fmt.Errorf("cvar: TuneOptions.Threads %d; want ≥ 0 (0: GOMAXPROCS)", to.Threads)
	}
	if err := checkThreads(opt.Threads); err != nil {
		return nil, err
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	trials, err := to.Grid.Trials(opt)
	if err != nil {
		return nil, err
	}
	results := make([]*Result[T], len(trials))
	threads := to.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(threads, len(trials)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], trials[i].Val, trials[i].Err = tryOne(ctx, model, train, val, opt, &trials[i], alpha)
			}
		}()
	}
	for i := range trials {
		next <- i
	}
	close(next)
	wg.Wait()

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cvar: tuning stopped: %w", err)
	}
	best := -1
	for i, tr := range trials {
		var div *DivergenceError
		if tr.Err != nil && !errors.As(tr.Err, &div) {
			return nil, tr.Err // the same for every setting
		}
		if tr.Err == nil && (best < 0 || better(tr.Val, trials[best].Val, to.Select, alpha)) {
			best = i
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("cvar: every one of the %d settings diverged; the first: %w", len(trials), trials[0].Err)
	}
	res := results[best]
	res.Params.LRFrom = "tuned"
	if res.Params.EpsFrom != "" && opt.Eps == 0 {
		res.Params.EpsFrom = "tuned: " + res.Params.EpsFrom
	}
	return &Tuned[T]{Trials: trials, Best: best, Result: res}, nil
}

// checkGrid reports a grid value that is not finite. It reports a step
// size or ε fraction of 0: Options would read it as its default, so the
// setting would not be the one reported. It reports a grid of more than
// MaxGridSettings settings as a *GridSizeError. The method tries nEps ε.
func checkGrid(g Grid, nEps, nObj int) error {
	for _, l := range []struct {
		name     string
		values   []float64
		positive bool
	}{{"Grid.LR", g.LR, true}, {"Grid.WeightDecay", g.WeightDecay, false}, {"Grid.EpsFraction", g.EpsFraction, true}, {"Grid.Trim", g.Trim, false}, {"Grid.Rho", g.Rho, true}} {
		for _, v := range l.values {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("cvar: %s value %v must be finite and ≥ 0", l.name, v)
			}
			if v == 0 && l.positive {
				return fmt.Errorf("cvar: %s value 0 must be positive (0 in Options means the default)", l.name)
			}
		}
	}
	for _, v := range g.Trim {
		if v >= 1 {
			return fmt.Errorf("cvar: Grid.Trim value %v must be below 1", v)
		}
	}
	e := &GridSizeError{LR: len(g.LR), WeightDecay: len(g.WeightDecay), EpsFraction: nEps, Objective: nObj}
	e.Settings = 1
	for _, c := range []int{e.LR, e.WeightDecay, e.EpsFraction, e.Objective} {
		hi, lo := bits.Mul64(e.Settings, uint64(c))
		if hi != 0 {
			lo = math.MaxUint64 // past every limit: the count saturates
		}
		e.Settings = lo
	}
	if e.Settings > MaxGridSettings {
		return e
	}
	return nil
}

// Trials lists the settings Tune tries for opt, in its order. Each empty
// list of the grid takes its default. Only the smoothed methods Alg2–4
// without a given Eps try ε fractions. Only the objectives that take them
// try trims and χ² radii (see Grid). A program may train the settings
// elsewhere, such as a pipeline or a cluster. It expands the grid here and
// applies a setting to its options with Trial.Apply. A grid of more than
// MaxGridSettings settings fails with a *GridSizeError naming its size.
func (g Grid) Trials(opt Options) ([]Trial, error) {
	g = g.WithDefaults()
	eps := g.EpsFraction
	if opt.Method != Alg2 && opt.Method != Alg3 && opt.Method != Alg4 || opt.Eps > 0 {
		eps = []float64{0} // no smoothing, or ε given
	}
	trims, rhos := gridTrims(g.Trim, &opt), gridRhos(g.Rho, &opt)
	if err := checkGrid(g, len(eps), len(trims)*len(rhos)); err != nil {
		return nil, err
	}
	var trials []Trial
	for _, lr := range g.LR {
		for _, wd := range g.WeightDecay {
			for _, e := range eps {
				for _, tr := range trims {
					for _, rho := range rhos {
						trials = append(trials, Trial{LR: lr, WeightDecay: wd, EpsFraction: e, Trim: tr, Rho: rho})
					}
				}
			}
		}
	}
	return trials, nil
}

// Apply returns opt with the trial's setting: its step size, weight decay
// and ε fraction. It sets the trim and χ² radius where the trial has them.
func (tr *Trial) Apply(opt Options) Options {
	opt.LR, opt.WeightDecay, opt.EpsFraction = tr.LR, tr.WeightDecay, tr.EpsFraction
	if tr.Trim > 0 {
		opt.Trim = tr.Trim
	}
	if tr.Rho > 0 {
		opt.Rho = tr.Rho
	}
	return opt
}

// Better reports whether metrics a beat b by the rule at α, as Tune
// picks; NaN never wins.
func (s Selection) Better(a, b Metrics, alpha float64) bool { return better(a, b, s, alpha) }

// tryOne trains one setting on one thread and evaluates it on val.
func tryOne[T batch.Float](ctx context.Context, model batch.Model[T], train, val *batch.Data[T], opt Options, tr *Trial, alpha float64) (*Result[T], Metrics, error) {
	opt = tr.Apply(opt)
	opt.Threads = 1
	res, err := TrainContext(ctx, model, train, opt)
	if err != nil {
		return nil, Metrics{}, err
	}
	m, err := evaluateOn(model, res.Theta, val, 1, alpha)
	if err != nil {
		return nil, Metrics{}, err
	}
	return res, m, nil
}

// gridTrims returns the trims Tune tries. The blend tries the grid's, or
// the default ones. The trimmed objective tries them less 0, since its 0
// means its default. The others, or a given opt.Trim, try none: one
// setting, the given Trim.
func gridTrims(trims []float64, opt *Options) []float64 {
	o := opt.objective()
	if o != ObjectiveBlend && o != ObjectiveTrimmed || opt.Trim > 0 {
		return []float64{0}
	}
	if len(trims) == 0 {
		trims = Grid{}.WithDefaults().Trim
	}
	var out []float64
	for _, t := range trims {
		if t > 0 || o == ObjectiveBlend {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		out = []float64{0} // the trimmed objective's default
	}
	return out
}

// gridRhos returns the χ² radii Tune tries. ObjectiveChi2 tries the
// grid's, or the default ones, when opt.Rho is 0. Otherwise it tries none:
// one setting, 0 in the Trial.
func gridRhos(rhos []float64, opt *Options) []float64 {
	if opt.objective() != ObjectiveChi2 || opt.Rho > 0 {
		return []float64{0}
	}
	if len(rhos) == 0 {
		return Grid{}.WithDefaults().Rho
	}
	return rhos
}

// better reports whether a beats b by the selection rule; NaN never wins.
func better(a, b Metrics, sel Selection, alpha float64) bool {
	if sel == SelectAccuracy && !math.IsNaN(a.Accuracy) && !math.IsNaN(b.Accuracy) && a.Accuracy != b.Accuracy {
		return a.Accuracy > b.Accuracy
	}
	ka, kb := a.MeanLoss, b.MeanLoss
	if sel == SelectCVaR || sel == SelectAccuracy && !math.IsNaN(a.Accuracy) {
		ka, _ = a.TailAt(alpha)
		kb, _ = b.TailAt(alpha)
		if ka == kb {
			ka, kb = a.MeanLoss, b.MeanLoss
		}
	}
	return ka < kb
}
