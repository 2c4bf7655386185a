package cvarbeam

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/report"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// TrainOptions configures Train.
type TrainOptions struct {
	Input Input
	// Kind is the model (batch.Kinds), or "auto" or "": logistic for two
	// classes, softmax for more, linear for real targets.
	Kind   string
	Hidden int // hidden units of the mlp (0: batch.DefaultHidden)
	// Options are the method and its settings: Method (Alg3, the zero
	// value, Vanilla or MinibatchCVaR), Alpha, LR, WeightDecay, Batch,
	// Smoothing, Eps, EpsFraction, Epochs and Seed.
	cvar.Options
	// RoundsPerEpoch is the averaging rounds an epoch (0: as few as keep
	// a round to MaxLocalSteps local steps).
	RoundsPerEpoch int
	// Precision is cvar.F32 or cvar.F64 (the default).
	Precision string
	// Scale is the features' scaling, fitted on the training rows.
	// ScaleTarget standardises a regression target for training; the
	// model is returned in the target's units.
	Scale       cvar.Scaling
	ScaleTarget bool
	// Dim is the LIBSVM width (0: the largest index read). SparseBelow is
	// the density under which LIBSVM rows are held sparse (0:
	// dataset.DefaultSparseBelow; negative: always dense).
	Dim         int
	SparseBelow float64
	// Hold is the fraction of rows held out for validation, by a hash of
	// the seed and the row's place. 0: 1/3, as cvar train; negative: none.
	Hold float64
	// Alphas are the tail fractions of the metrics (default 0.05, 0.1 and
	// Alpha).
	Alphas []float64
	// OnRound, when not nil, gets each round's number (from 1) and the
	// number of rounds.
	OnRound func(round, rounds int)
}

// Trained is what Train returns: the model file and its metrics on the
// training and held-out rows. cvar eval and cvar predict read the file.
type Trained struct {
	Model      *cvar.ModelFile
	Rounds     int
	Training   cvar.Metrics
	Validation *cvar.Metrics // nil without held-out rows
}

// options checks the configuration and fills in its defaults.
func (cfg *TrainOptions) options() error {
	cfg.Method, cfg.Alpha, cfg.Precision = cmp.Or(cfg.Method, cvar.Alg3), cmp.Or(cfg.Alpha, 0.1), cmp.Or(cfg.Precision, cvar.F64)
	if cfg.Method != cvar.Alg3 && cfg.Method != cvar.Vanilla && cfg.Method != cvar.MinibatchCVaR {
		return fmt.Errorf("cvarbeam: %v takes one sample a step; distributed training averages minibatch methods (alg3, vanilla, minibatch)", cfg.Method)
	}
	if cfg.Precision != cvar.F32 && cfg.Precision != cvar.F64 {
		return fmt.Errorf("cvarbeam: precision %q (want f32 or f64)", cfg.Precision)
	}
	if cfg.Epochs < 0 || cfg.RoundsPerEpoch < 0 || cfg.Batch < 0 || cfg.Hidden < 0 {
		return errors.New("cvarbeam: epochs, rounds, batch and hidden units must be ≥ 0")
	}
	cfg.Hidden = cmp.Or(cfg.Hidden, batch.DefaultHidden)
	switch {
	case cfg.Hold == 0:
		cfg.Hold = 1.0 / 3
	case cfg.Hold < 0:
		cfg.Hold = 0
	case !(cfg.Hold < 1):
		return fmt.Errorf("cvarbeam: hold-out fraction %v must be below 1", cfg.Hold)
	}
	return nil
}

// Train trains a model on the rows of cfg.Input by data-parallel
// CVaR-SGD in rounds (see the package documentation). A first pass fits
// the preprocessing. Each round is then one pipeline run. Every part
// starts from the same parameters and runs the method's local steps on
// its training rows; the round averages the results. Last, the model is
// measured on the training and held-out rows as Evaluate measures.
func Train(ctx context.Context, cfg TrainOptions, r *Runner) (*Trained, error) {
	if err := cfg.options(); err != nil {
		return nil, err
	}
	pr, err := prepare(ctx, r, &cfg)
	if err != nil {
		return nil, err
	}
	theta, _, err := paramsOf(pr.model, nil, cfg.Seed)
	if err != nil {
		return nil, err
	}
	sch := rounds.ScheduleOf(&cfg.Options, cfg.RoundsPerEpoch, MaxLocalSteps, pr.n)
	o := cfg.Options
	o.LR, o.Batch, o.Steps = sch.LR, sch.Batch, sch.Steps
	fn := pr.localFn(o)
	fn.Run = rand.Text()
	defer rowCache.drop(fn.Run)
	st := RoundState{Round: 1, Theta: theta, Tau: math.NaN()}
	var first, last rounds.Update
	for round := 1; round <= sch.Rounds; round++ {
		u, err := runRound(ctx, r, pr.splits, fn, st)
		if err != nil {
			return nil, fmt.Errorf("round %d of %d: %w", round, sch.Rounds, err)
		}
		if st = RoundState(u.Next(rounds.State(st))); round == 1 {
			first = u
		}
		if last = u; cfg.OnRound != nil {
			cfg.OnRound(round, sch.Rounds)
		}
	}
	return finish(ctx, r, &cfg, pr, st, rounds.Params(first, last, rounds.State(st), sch), sch.Rounds)
}

// paramsOf returns parameters of model file mf in its precision: the
// model's start for the seed when theta is nil, else theta in the
// target's units (cvar.UnscaleTarget) with the losses' factor.
func paramsOf(mf *cvar.ModelFile, theta []float64, seed uint64) ([]float64, float64, error) {
	if mf.Precision == cvar.F32 {
		return paramsIn[float32](mf, theta, seed)
	}
	return paramsIn[float64](mf, theta, seed)
}

func paramsIn[T batch.Float](mf *cvar.ModelFile, theta []float64, seed uint64) ([]float64, float64, error) {
	model, err := batch.NewModel[T](mf.Kind, mf.D, mf.K, mf.Hidden)
	if err != nil {
		return nil, 0, err
	}
	t, factor := make([]T, model.NumParams()), 1.0
	if theta == nil {
		model.InitParams(t, seed)
	} else {
		for i, v := range theta {
			t[i] = T(v)
		}
		factor, err = cvar.UnscaleTarget(model, t, &mf.Preprocessing)
	}
	out := make([]float64, len(t))
	for i, v := range t {
		out[i] = float64(v)
	}
	return out, factor, err
}

// finish completes the model file from the last state and measures it on
// the training and held-out rows, as Evaluate measures.
func finish(ctx context.Context, r *Runner, cfg *TrainOptions, pr *prepared, st RoundState, params cvar.Params, nRounds int) (*Trained, error) {
	mf := *pr.model
	theta, factor, err := paramsOf(&mf, st.Theta, 0)
	if err != nil {
		return nil, err
	}
	params.N, params.Tau0 = int(pr.n), params.Tau0*factor
	mf.Theta, mf.Tau, mf.Params = theta, st.Tau*factor, params
	alphas := cfg.Alphas
	if len(alphas) == 0 {
		alphas = report.Alphas(cfg.Alpha)
	}
	rs := pr.spec
	rs.Sparse = rs.Sparse && !mf.Preprocessing.Centres()
	ms, err := evaluate(ctx, r, pr.splits, rs, &mf, alphas, LossOptions{})
	if err != nil {
		return nil, err
	}
	out := &Trained{Model: &mf, Rounds: nRounds, Training: ms[0]}
	if len(ms) > 1 {
		out.Validation = &ms[1]
	}
	return out, nil
}

// MaxLocalSteps is the most local steps a round takes when the rounds an
// epoch are not given. The parts drift apart with the steps between
// averages. Past some tens of steps the average lags one machine's run.
const MaxLocalSteps = 64
