package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// TuneOptions configures Tune: a training configuration, whose LR,
// WeightDecay and EpsFraction the grid sets, the grid and the rule. An
// empty list of the grid is the library's default (cvar.Grid).
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

// Tune trains each setting of the grid as a work item of one pipeline.
// A transform reads every training and held-out row into its memory. It
// trains the setting with cvar.Train, as cvar.Tune does, and evaluates it
// on the held-out rows. The setting cfg.Select picks is kept as trained
// and measured on the training and held-out rows.
func Tune(ctx context.Context, cfg TuneOptions, r *Runner) (*Tuned, error) {
	if cfg.Hold < 0 {
		return nil, errors.New("cvarbeam: tuning picks by the held-out rows: the hold-out fraction must be positive")
	}
	if err := cfg.options(); err != nil {
		return nil, err
	}
	pr, err := prepare(ctx, r, &cfg.TrainOptions)
	if err != nil {
		return nil, err
	}
	trials, err := cfg.Grid.Trials(cvar.Options{Method: cfg.Method, Alpha: cfg.Alpha, Eps: cfg.Eps})
	if err != nil {
		return nil, err
	}
	outs, err := runTrials(ctx, r, &cfg, pr, trials)
	if err != nil {
		return nil, err
	}
	res := &Tuned{Trials: trials}
	if res.Best, err = rounds.Pick(trials, outs, cfg.Select, cfg.Alpha, cfg.Eps > 0); err != nil {
		return nil, fmt.Errorf("cvarbeam: %w", err)
	}
	best := outs[res.Best]
	tr, err := finish(ctx, r, &cfg.TrainOptions, pr, RoundState{Theta: best.Theta, Tau: best.Tau}, best.Params, 1)
	if err != nil {
		return nil, err
	}
	res.Trained = *tr
	return res, nil
}

// runTrials runs the grid's pipeline and returns the trials in grid order.
func runTrials(ctx context.Context, r *Runner, cfg *TuneOptions, pr *prepared, trials []cvar.Trial) ([]rounds.Outcome, error) {
	j, err := r.newJob(ctx, "tune")
	if err != nil {
		return nil, err
	}
	defer j.done()
	fn := &tuneFn{localFn: *pr.localFn(cvar.Options{Method: cfg.Method, Alpha: cfg.Alpha, Batch: cmp.Or(cfg.Batch, cvar.DefaultBatch),
		Smoothing: cfg.Smoothing, Eps: cfg.Eps, Seed: cfg.Seed}), Splits: pr.splits, Epochs: cfg.Epochs}
	fn.Dir = j.dir
	for _, t := range trials {
		fn.Settings = append(fn.Settings, setting{t.LR, t.WeightDecay, t.EpsFraction, t.Trim, t.Rho})
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Tune")
	index := make([]int, len(trials))
	for i := range index {
		index[i] = i
	}
	beam.ParDo0(s, fn, beam.Reshuffle(s, beam.CreateList(s, index)))
	if err := j.run(ctx, p); err != nil {
		return nil, err
	}
	list, err := readAll[rounds.Outcome](ctx, j, "trial-")
	if err == nil && len(list) != len(trials) {
		err = fmt.Errorf("cvarbeam: %d of the %d settings reported", len(list), len(trials))
	}
	return list, err
}

// setting is a cvar.Trial's setting, which a DoFn can hold (not Err).
type setting struct{ LR, WeightDecay, EpsFraction, Trim, Rho float64 }

// tuneFn trains the setting of each index on all the training rows.
type tuneFn struct {
	localFn
	Settings []setting
	Splits   []Part
	Epochs   int
}

func (f *tuneFn) StartBundle()                           { f.clock.begin() }
func (f *tuneFn) FinishBundle(ctx context.Context) error { return f.clock.save(ctx, f.Dir) }

// ProcessElement stores the trial as the run's result "trial-<i>", in
// the order of the settings by name.
func (f *tuneFn) ProcessElement(ctx context.Context, i int) error {
	run := trial[float64]
	if f.Precision == cvar.F32 {
		run = trial[float32]
	}
	o, err := run(ctx, f, i)
	if err != nil {
		return record(ctx, f.Dir, err)
	}
	f.clock.item(int64(o.Val.N))
	return record(ctx, f.Dir, writeResult(ctx, fmt.Sprintf("%s/trial-%09d", f.Dir, i), o))
}

// trial reads the rows, trains the setting i and evaluates it at α
// (rounds.Trial).
func trial[T batch.Float](ctx context.Context, f *tuneFn, i int) (rounds.Outcome, error) {
	rows, held := newRows[T](&f.Spec, f.D), newRows[T](&f.Spec, f.D)
	for _, sp := range f.Splits {
		if err := eachRow(ctx, sp, &f.Spec, appendTo(rows), appendTo(held)); err != nil {
			return rounds.Outcome{}, err
		}
	}
	if held.N == 0 {
		return rounds.Outcome{}, errors.New("no row is held out for validation")
	}
	td, err := batchOf(rows, &f.Prep, true)
	vd, verr := batchOf(held, &f.Prep, false)
	if err = cmp.Or(err, verr); err != nil {
		return rounds.Outcome{}, err
	}
	model, err := batch.NewModel[T](f.Kind, f.D, f.K, f.Hidden)
	if err != nil {
		return rounds.Outcome{}, err
	}
	o, g := f.Opt, f.Settings[i]
	return rounds.Trial(ctx, model, td, vd, &f.Prep, cvar.Options{Method: o.Method, Alpha: o.Alpha, Batch: o.Batch,
		Smoothing: o.Smoothing, Eps: o.Eps, Epochs: f.Epochs, Seed: o.Seed},
		cvar.Trial{LR: g.LR, WeightDecay: g.WeightDecay, EpsFraction: g.EpsFraction, Trim: g.Trim, Rho: g.Rho})
}
