package cvarbeam

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn4x1[context.Context, gridPoint, func(trialOut), func(bundleSpan), error](&tuneFn{})
	register.Emitter1[trialOut]()
	register.Combiner3[[]trialOut, trialOut, []trialOut](&collectTrialsFn{})
	register.DoFn2x1[context.Context, []trialOut, error](&writeTrialsFn{})
	gobCoder(encTrial, decTrial)
	gobCoder(encPoint, decPoint)
}

// TuneOptions configures Tune: a training configuration whose LR,
// WeightDecay and EpsFraction the grid sets, the grid (empty lists: the
// library's defaults, cvar.DefaultGridLR and so on) and the rule.
type TuneOptions struct {
	TrainOptions
	Grid   cvar.Grid
	Select cvar.Selection
}

// Tuned is what Tune returns: every setting in grid order with its
// validation metrics, the one picked, and the model it trained.
type Tuned struct {
	Trials []cvar.Trial
	Best   int
	Trained
}

// Tune trains each setting of the grid as a work item of one pipeline:
// a transform instance reads every training row and held-out row of the
// files into its own memory, trains the setting on one machine with
// cvar.Train, as cvar.Tune does, and evaluates it on the held-out rows.
// The setting with the smallest validation CVaR_α (or mean loss) is kept,
// as trained, and measured on the training and held-out rows.
func Tune(ctx context.Context, cfg TuneOptions, r *Runner) (*Tuned, error) {
	if err := cfg.options(); err != nil {
		return nil, err
	}
	if cfg.Hold < 0 {
		return nil, errors.New("cvarbeam: tuning picks by the held-out rows: the hold-out fraction must be positive")
	}
	pr, err := prepare(ctx, r, &cfg.TrainOptions)
	if err != nil {
		return nil, err
	}
	points, err := gridOf(&cfg)
	if err != nil {
		return nil, err
	}
	outs, err := runTrials(ctx, r, &cfg, pr, points)
	if err != nil {
		return nil, err
	}
	res := &Tuned{Best: -1}
	for i, o := range outs {
		tr := o.Point.trial()
		tr.Val = o.Val
		if o.Err != "" {
			tr.Err = errors.New(o.Err)
		} else if res.Best < 0 || cfg.Select.Better(o.Val, outs[res.Best].Val, cfg.Alpha) {
			res.Best = i
		}
		res.Trials = append(res.Trials, tr)
	}
	if res.Best < 0 {
		return nil, fmt.Errorf("cvarbeam: every one of the %d settings diverged; the first: %s", len(outs), outs[0].Err)
	}
	best := outs[res.Best]
	best.Params.LRFrom = "tuned"
	if best.Params.EpsFrom != "" && cfg.Eps == 0 {
		best.Params.EpsFrom = "tuned: " + best.Params.EpsFrom
	}
	st := roundState{Theta: best.Theta, Tau: best.Tau}
	var tr *Trained
	if cfg.Precision == cvar.F32 {
		tr, err = finishTuned[float32](ctx, r, &cfg, pr, st, best.Params)
	} else {
		tr, err = finishTuned[float64](ctx, r, &cfg, pr, st, best.Params)
	}
	if err != nil {
		return nil, err
	}
	res.Trained = *tr
	return res, nil
}

func finishTuned[T batch.Float](ctx context.Context, r *Runner, cfg *TuneOptions, pr *prepared, st roundState, params cvar.Params) (*Trained, error) {
	model, err := batch.NewModel[T](pr.kind, pr.d, pr.k, hiddenOf(pr.kind, cfg.Hidden))
	if err != nil {
		return nil, err
	}
	tc := cfg.TrainOptions
	return finish[T](ctx, r, &tc, pr, model, st, params, 1)
}

// gridPoint is one setting of the grid, a work item: a cvar.Trial's
// setting.
type gridPoint struct {
	Index                        int
	LR, WeightDecay, EpsFraction float64
	Trim, Rho                    float64
}

func (g *gridPoint) trial() cvar.Trial {
	return cvar.Trial{LR: g.LR, WeightDecay: g.WeightDecay, EpsFraction: g.EpsFraction, Trim: g.Trim, Rho: g.Rho}
}

// gridOf lists the grid's settings as cvar.Tune tries them
// (cvar.Grid.Trials).
func gridOf(cfg *TuneOptions) ([]gridPoint, error) {
	trials, err := cfg.Grid.Trials(cvar.Options{Method: cfg.Method, Alpha: cfg.Alpha, Eps: cfg.Eps})
	if err != nil {
		return nil, err
	}
	out := make([]gridPoint, len(trials))
	for i, tr := range trials {
		out[i] = gridPoint{Index: i, LR: tr.LR, WeightDecay: tr.WeightDecay, EpsFraction: tr.EpsFraction, Trim: tr.Trim, Rho: tr.Rho}
	}
	return out, nil
}

// trialOut is a setting's result.
type trialOut struct {
	Point  gridPoint
	Val    cvar.Metrics
	Theta  []float64
	Tau    float64
	Params cvar.Params
	Err    string // the divergence that stopped it
}

func encTrial(v trialOut) ([]byte, error)  { return gobEncode(v) }
func encPoint(v gridPoint) ([]byte, error) { return gobEncode(v) }
func decPoint(b []byte) (gridPoint, error) { return gobDecode[gridPoint](b) }
func decTrial(b []byte) (trialOut, error)  { return gobDecode[trialOut](b) }

// runTrials runs the grid's pipeline and returns the trials in grid order.
func runTrials(ctx context.Context, r *Runner, cfg *TuneOptions, pr *prepared, points []gridPoint) ([]trialOut, error) {
	j, err := r.newJob(ctx, "tune")
	if err != nil {
		return nil, err
	}
	defer j.done()
	b := cfg.Batch
	if b == 0 {
		b = 512
	}
	fn := &tuneFn{localFn: localFn{Spec: pr.spec, Prep: pr.prep, Kind: pr.kind, D: pr.d, K: pr.k, Hidden: hiddenOf(pr.kind, cfg.Hidden),
		Precision: cfg.Precision, Opt: localOptions{Method: cfg.Method, Alpha: cfg.Alpha, Batch: b, Smoothing: cfg.Smoothing,
			Eps: cfg.Eps, Seed: cfg.Seed}, Errs: j.dir}, Splits: pr.splits, Epochs: cfg.Epochs}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Tune")
	outs, spans := beam.ParDo2(s, fn, beam.Reshuffle(s, beam.CreateList(s, points)))
	j.collectSpans(s, spans)
	beam.ParDo0(s, &writeTrialsFn{Path: j.path("trials")}, beam.Combine(s, &collectTrialsFn{}, outs))
	if err := j.run(ctx, p); err != nil {
		return nil, err
	}
	var list []trialOut
	found, err := readResult(ctx, j.path("trials"), &list)
	if err != nil {
		return nil, err
	}
	if !found || len(list) != len(points) {
		return nil, fmt.Errorf("cvarbeam: %d of the %d settings reported", len(list), len(points))
	}
	slices.SortFunc(list, func(a, b trialOut) int { return a.Point.Index - b.Point.Index })
	return list, nil
}

// tuneFn trains one setting on all the training rows, which it reads.
type tuneFn struct {
	localFn
	Splits []split
	Epochs int
}

func (f *tuneFn) StartBundle(_ func(trialOut), _ func(bundleSpan)) { f.clock.begin() }

func (f *tuneFn) FinishBundle(_ func(trialOut), emitSpan func(bundleSpan)) { emitSpan(f.clock.end()) }

func (f *tuneFn) ProcessElement(ctx context.Context, g gridPoint, emit func(trialOut), _ func(bundleSpan)) error {
	var (
		o   trialOut
		err error
	)
	if f.Precision == cvar.F32 {
		o, err = trial[float32](ctx, f, g)
	} else {
		o, err = trial[float64](ctx, f, g)
	}
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	f.clock.item(int64(o.Val.N))
	emit(o)
	return nil
}

// trial reads the rows, trains the setting and evaluates it at α.
func trial[T batch.Float](ctx context.Context, f *tuneFn, g gridPoint) (trialOut, error) {
	rs := f.Spec
	rs.Keep = keepBoth
	tb, vb := newRowBuffer[T](&rs, f.D), newRowBuffer[T](&rs, f.D)
	for _, sp := range f.Splits {
		if err := eachPart(ctx, sp, &rs, tb.add, vb.add); err != nil {
			return trialOut{}, err
		}
	}
	if vb.ds.N == 0 {
		return trialOut{}, errors.New("no row is held out for validation")
	}
	if ts, ok := f.Prep.TargetScaler(); ok {
		tb.ds.Y = dataset.ScaleTargets(ts, tb.ds.Y)
	}
	td, err := tb.batchOf(&f.Prep)
	if err != nil {
		return trialOut{}, err
	}
	vd, err := vb.batchOf(&f.Prep)
	if err != nil {
		return trialOut{}, err
	}
	model, err := batch.NewModel[T](f.Kind, f.D, f.K, f.Hidden)
	if err != nil {
		return trialOut{}, err
	}
	o := f.Opt
	tr := g.trial()
	opt := tr.Apply(cvar.Options{Method: o.Method, Alpha: o.Alpha, Batch: o.Batch, Smoothing: o.Smoothing, Eps: o.Eps,
		Epochs: f.Epochs, Seed: o.Seed, Threads: 1})
	out := trialOut{Point: g}
	res, err := cvar.TrainContext(ctx, model, td, opt)
	var div *cvar.DivergenceError
	if errors.As(err, &div) {
		out.Err = err.Error()
		return out, nil
	}
	if err != nil {
		return trialOut{}, err
	}
	// The validation losses in the target's units: θ un-scaled, the
	// held-out targets as read.
	theta := slices.Clone(res.Theta)
	if _, err := cvar.UnscaleTarget(model, theta, &f.Prep); err != nil {
		return trialOut{}, err
	}
	if out.Val, err = cvar.Evaluate(model, theta, vd, o.Alpha); err != nil {
		return trialOut{}, err
	}
	out.Theta, out.Tau, out.Params = make([]float64, len(res.Theta)), res.Tau, res.Params
	for i, v := range res.Theta {
		out.Theta[i] = float64(v)
	}
	return out, nil
}

// collectTrialsFn gathers the trials into one list.
type collectTrialsFn struct{}

func (*collectTrialsFn) CreateAccumulator() []trialOut { return nil }

func (*collectTrialsFn) AddInput(a []trialOut, t trialOut) []trialOut { return append(a, t) }

func (*collectTrialsFn) MergeAccumulators(a, b []trialOut) []trialOut { return append(a, b...) }

type writeTrialsFn struct{ Path string }

func (f *writeTrialsFn) ProcessElement(ctx context.Context, list []trialOut) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, list))
}
