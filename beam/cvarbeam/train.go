package cvarbeam

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn4x1[context.Context, split, func(update), func(bundleSpan), error](&localFn{})
	register.Emitter1[update]()
	register.Combiner3[[]update, update, update](&sumUpdatesFn{})
	register.DoFn2x1[context.Context, update, error](&writeUpdateFn{})
	gobCoder(encUpdate, decUpdate)
	gobCoder(encMoments, decMoments)
}

// TrainOptions configures Train.
type TrainOptions struct {
	Input Input
	// Kind is the model (batch.Kinds), or "auto" or "": logistic for two
	// classes, softmax for more, linear for real targets.
	Kind   string
	Hidden int // hidden units of the mlp (0: batch.DefaultHidden)
	// Method is Alg3 (CVaR-SGD), Vanilla or MinibatchCVaR: the minibatch
	// methods, whose local steps a round averages. Zero: Alg3.
	Method cvar.Method
	// Alpha, LR, WeightDecay, Batch, Smoothing, Eps and EpsFraction mean
	// what they mean in cvar.Options, for each worker's local run.
	Alpha, LR, WeightDecay float64
	Batch                  int
	Smoothing              cvar.Smoothing
	Eps, EpsFraction       float64
	// Epochs is the number of passes over the training rows (0:
	// cvar.Method.DefaultEpochs of all training rows), RoundsPerEpoch the
	// averaging rounds in each (0: as few as keep a round to
	// MaxLocalSteps local steps).
	Epochs, RoundsPerEpoch int
	Seed                   uint64
	// Precision is cvar.F32 or cvar.F64 (default).
	Precision string
	// Scale is the feature preprocessing: "auto" or "" (zscore for data
	// held dense, maxabs for sparse), "zscore" (without centring when
	// sparse), "maxabs" or "none". ScaleTarget standardises a regression
	// target for training (the model is returned in the target's units).
	Scale       string
	ScaleTarget bool
	// Dim is the LIBSVM width; 0: the largest index in the training rows.
	// SparseBelow is the density under which LIBSVM rows are held sparse
	// (0: dataset.DefaultSparseBelow; negative: always dense).
	Dim         int
	SparseBelow float64
	// Hold is the fraction of rows held out for validation, by a hash of
	// the seed and the row's place (0: 1/3, as cvar train's split; negative:
	// none, every row trains).
	Hold float64
	// Alphas are the tail fractions of the reported metrics (default 0.05,
	// 0.1 and Alpha).
	Alphas []float64
	// OnRound, when not nil, is called after each round with its number
	// (from 1) and the number of rounds.
	OnRound func(round, rounds int)
}

// Trained is what Train returns: the model file (ordinary: cvar eval and
// cvar predict read it) and the metrics on the training and held-out rows.
type Trained struct {
	Model      *cvar.ModelFile
	Rounds     int
	Training   cvar.Metrics
	Validation *cvar.Metrics // nil without held-out rows
}

// prepared is what the first pass over the data resolves.
type prepared struct {
	splits []split
	spec   rowSpec // reads the training rows
	kind   string
	d, k   int
	prep   dataset.Preprocessing
	n      int64 // training rows
	source cvar.Provenance
	feats  []string
}

// prepare reads every training row once (a combine of running moments)
// and resolves the width, the task, the classes and the preprocessing.
func prepare(ctx context.Context, r *Runner, cfg *TrainOptions) (*prepared, error) {
	splits, format, err := expand(ctx, cfg.Input)
	if err != nil {
		return nil, err
	}
	hold := cfg.Hold
	switch {
	case hold == 0:
		hold = 1.0 / 3
	case hold < 0:
		hold = 0
	case hold >= 1:
		return nil, fmt.Errorf("cvarbeam: hold-out fraction %v must be below 1", hold)
	}
	dim := cfg.Dim
	if format == "libsvm" && dim == 0 {
		dim = dataset.DefaultMaxDim
	}
	rs := rowSpec{Format: format, Target: cfg.Input.Target, NoHeader: cfg.Input.NoHeader, Dim: dim,
		Task: dataset.Regression, Hold: hold, Seed: cfg.Seed, Keep: keepTrain}
	j, err := r.newJob(ctx, "fit")
	if err != nil {
		return nil, err
	}
	defer j.done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Fit")
	in := beam.Reshuffle(s, beam.CreateList(s, splits))
	acc := beam.Combine(s, &mergeMomentsFn{}, beam.ParDo(s, &fitFn{Spec: rs, Errs: j.dir}, in))
	beam.ParDo0(s, &writeMomentsFn{Path: j.path("moments")}, acc)
	if err := j.run(ctx, p); err != nil {
		return nil, err
	}
	var m moments
	found, err := readResult(ctx, j.path("moments"), &m)
	if err != nil {
		return nil, err
	}
	if !found || m.N < 2 {
		return nil, fmt.Errorf("cvarbeam: %s holds %d training rows; training needs at least 2", cfg.Input.Glob, m.N)
	}
	return resolve(cfg, splits, rs, &m)
}

// options checks the configuration and fills in its defaults.
func (cfg *TrainOptions) options() error {
	if cfg.Method == 0 {
		cfg.Method = cvar.Alg3
	}
	if cfg.Method != cvar.Alg3 && cfg.Method != cvar.Vanilla && cfg.Method != cvar.MinibatchCVaR {
		return fmt.Errorf("cvarbeam: %v takes one sample a step; distributed training averages minibatch methods (alg3, vanilla, minibatch)", cfg.Method)
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.1
	}
	if cfg.Precision == "" {
		cfg.Precision = cvar.F64
	}
	if cfg.Precision != cvar.F32 && cfg.Precision != cvar.F64 {
		return fmt.Errorf("cvarbeam: precision %q (want f32 or f64)", cfg.Precision)
	}
	if cfg.Epochs < 0 || cfg.RoundsPerEpoch < 0 || cfg.Batch < 0 || cfg.Hidden < 0 {
		return errors.New("cvarbeam: epochs, rounds, batch and hidden units must be ≥ 0")
	}
	if cfg.Hidden == 0 {
		cfg.Hidden = batch.DefaultHidden
	}
	return nil
}

// Train trains a model on the rows of cfg.Input by data-parallel CVaR-SGD
// in rounds (see the package documentation): a first pass fits the
// preprocessing; then each round broadcasts the parameters, every split
// runs local steps of the method from them on its training rows, and the
// parameters are averaged, weighted by the rows; each round is one
// pipeline run. Last, the metrics on the training and held-out rows are
// computed as Evaluate computes them.
func Train(ctx context.Context, cfg TrainOptions, r *Runner) (*Trained, error) {
	if err := cfg.options(); err != nil {
		return nil, err
	}
	pr, err := prepare(ctx, r, &cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Precision == cvar.F32 {
		return trainRounds[float32](ctx, r, &cfg, pr)
	}
	return trainRounds[float64](ctx, r, &cfg, pr)
}

func hiddenOf(kind string, hidden int) int {
	if kind == batch.KindMLP {
		return hidden
	}
	return 0
}

// finish builds the model file from the averaged parameters and measures
// it on the training and held-out rows.
func finish[T batch.Float](ctx context.Context, r *Runner, cfg *TrainOptions, pr *prepared, model batch.Model[T], st roundState, params cvar.Params, rounds int) (*Trained, error) {
	theta := make([]T, len(st.Theta))
	for i, v := range st.Theta {
		theta[i] = T(v)
	}
	tau := st.Tau
	params.N = int(pr.n)
	prep := pr.prep
	factor, err := cvar.UnscaleTarget(model, theta, &prep)
	if err != nil {
		return nil, err
	}
	tau *= factor
	params.Tau0 *= factor
	mf := &cvar.ModelFile{Kind: pr.kind, D: pr.d, K: pr.k, Hidden: hiddenOf(pr.kind, cfg.Hidden), Precision: cfg.Precision,
		Theta: make([]float64, len(theta)), Tau: tau, Alpha: cfg.Alpha, Method: cfg.Method, Classes: pr.spec.Classes,
		Preprocessing: prep, Params: params, Source: pr.source}
	if len(pr.feats) == pr.d {
		mf.Features = pr.feats
	}
	for i, v := range theta {
		mf.Theta[i] = float64(v)
	}
	out := &Trained{Model: mf, Rounds: rounds}
	if out.Training, out.Validation, err = measure(ctx, r, mf, pr, cfg.Alphas, cfg.Alpha); err != nil {
		return nil, err
	}
	return out, nil
}

// measure evaluates the model file on the training rows and, when some
// are held out, on those.
func measure(ctx context.Context, r *Runner, mf *cvar.ModelFile, pr *prepared, alphas []float64, alpha float64) (cvar.Metrics, *cvar.Metrics, error) {
	if len(alphas) == 0 {
		alphas = []float64{0.05, 0.1}
		if alpha != 0.05 && alpha != 0.1 {
			alphas = append(alphas, alpha)
		}
	}
	rs := pr.spec
	rs.Sparse = rs.Sparse && !mf.Preprocessing.Centres()
	rs.Keep = keepTrain
	if rs.Hold > 0 {
		rs.Keep = keepBoth
	}
	ms, err := evaluate(ctx, r, pr.splits, rs, mf, alphas, LossOptions{})
	switch {
	case err != nil:
		return cvar.Metrics{}, nil, err
	case len(ms) == 1:
		return ms[0], nil, nil
	}
	return ms[0], &ms[1], nil
}
