package cvarbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn4x1[context.Context, split, roundState, func(update), error](&localFn{})
	register.Emitter1[update]()
	register.Combiner3[update, update, update](&sumUpdatesFn{})
	register.DoFn2x1[context.Context, update, error](&writeUpdateFn{})
	// Each coder's functions are registered by name: one plain function a
	// type, since the instances of a generic function share theirs.
	beam.RegisterCoder(reflect.TypeOf(update{}), encUpdate, decUpdate)
	beam.RegisterCoder(reflect.TypeOf(roundState{}), encRoundState, decRoundState)
	beam.RegisterCoder(reflect.TypeOf(moments{}), encMoments, decMoments)
	beam.RegisterCoder(reflect.TypeOf(summary{}), encSummary, decSummary)
	beam.RegisterCoder(reflect.TypeOf(topList{}), encTopList, decTopList)
	register.Function1x2(encUpdate)
	register.Function1x2(decUpdate)
	register.Function1x2(encRoundState)
	register.Function1x2(decRoundState)
	register.Function1x2(encMoments)
	register.Function1x2(decMoments)
	register.Function1x2(encSummary)
	register.Function1x2(decSummary)
	register.Function1x2(encTopList)
	register.Function1x2(decTopList)
}

// TrainConfig configures Train.
type TrainConfig struct {
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
	// cvar.DefaultEpochs of all training rows), RoundsPerEpoch the
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
func prepare(ctx context.Context, r *Runner, cfg *TrainConfig) (*prepared, error) {
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
	dir, done, err := r.workDir()
	if err != nil {
		return nil, err
	}
	defer done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Fit")
	in := beam.CreateList(s, splits)
	labels := beam.Combine(s, &mergeLabelsFn{}, beam.ParDo(s, &labelsFn{Spec: rs}, in))
	acc := beam.Combine(s, &mergeMomentsFn{}, beam.ParDo(s, &fitFn{Spec: rs}, in, beam.SideInput{Input: labels}))
	beam.ParDo0(s, &writeMomentsFn{Path: dir + "/moments"}, acc)
	if err := r.run(ctx, p); err != nil {
		return nil, err
	}
	var m moments
	found, err := readResult(ctx, dir+"/moments", &m)
	if err != nil {
		return nil, err
	}
	if !found || m.N < 2 {
		return nil, fmt.Errorf("cvarbeam: %s holds %d training rows; training needs at least 2", cfg.Input.Glob, m.N)
	}
	return resolve(cfg, splits, rs, &m)
}

// resolve turns the moments into the run's data description.
func resolve(cfg *TrainConfig, splits []split, rs rowSpec, m *moments) (*prepared, error) {
	pr := &prepared{splits: splits, n: m.N, feats: m.Features}
	pr.d = m.Width
	if cfg.Dim > 0 {
		pr.d = cfg.Dim
	}
	if pr.d < 1 {
		return nil, fmt.Errorf("cvarbeam: %s: the rows have no features", cfg.Input.Glob)
	}
	kind := cfg.Kind
	var ti dataset.TaskInference
	for _, y := range m.Distinct {
		ti.Add(y)
	}
	if m.Fractional {
		ti.Add(0.5)
	}
	classes := ti.Classes()
	if m.Classes != nil {
		classes = m.Classes
	}
	switch kind {
	case "", "auto":
		switch {
		case classes == nil:
			kind = batch.KindLinear
		case len(classes) == 2:
			kind = batch.KindLogistic
		default:
			kind = batch.KindSoftmax
		}
	case batch.KindLinear, batch.KindLAD:
		if m.Classes != nil {
			return nil, fmt.Errorf("cvarbeam: a %s model needs numeric targets; the targets are class texts (%s, …)", kind, m.Classes[0])
		}
		classes = nil
	default:
		if classes == nil {
			return nil, fmt.Errorf("cvarbeam: a %s model needs integer class labels (at most %d of them); the targets are not", kind, dataset.MaxAutoClasses)
		}
		if kind == batch.KindLogistic && len(classes) != 2 {
			return nil, fmt.Errorf("cvarbeam: the data has %d classes; logistic regression is binary (use softmax or mlp)", len(classes))
		}
	}
	if classes != nil && len(classes) < 2 {
		return nil, fmt.Errorf("cvarbeam: every label is %s; classification needs at least two classes", classes[0])
	}
	pr.kind, pr.k = kind, len(classes)
	if classes != nil {
		rs.Task, rs.Classes = dataset.Classification, classes
	}
	if rs.Format == "libsvm" {
		rs.Dim = pr.d
		below := cfg.SparseBelow
		if below == 0 {
			below = dataset.DefaultSparseBelow
		}
		rs.Sparse = float64(m.NNZ)/(float64(m.N)*float64(pr.d)) < below
	}
	switch mode := cfg.Scale; {
	case mode == "none":
	case mode == "maxabs" || (mode == "" || mode == "auto") && rs.Sparse:
		pr.prep = m.maxAbs(pr.d)
	case mode == "zscore" || mode == "" || mode == "auto":
		pr.prep = m.zscore(pr.d, !rs.Sparse)
	default:
		return nil, fmt.Errorf("cvarbeam: unknown scaling %q (want auto, zscore, maxabs or none)", mode)
	}
	if classes == nil && cfg.ScaleTarget {
		pr.prep.TargetMean, pr.prep.TargetScale = m.YMean, 1
		if sd := math.Sqrt(m.YM2 / float64(m.YN)); sd > 0 && !math.IsInf(sd, 0) {
			pr.prep.TargetScale = sd
		}
	}
	pr.spec = rs
	pr.source = cvar.Provenance{Kind: rs.Format, Name: cfg.Input.Glob, N: int(m.N)}
	if rs.Format == "csv" {
		pr.source.Target, pr.source.NoHeader = cfg.Input.Target, cfg.Input.NoHeader
	}
	return pr, nil
}

// options checks the configuration and fills in its defaults.
func (cfg *TrainConfig) options() error {
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
func Train(ctx context.Context, cfg TrainConfig, r *Runner) (*Trained, error) {
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

func trainRounds[T batch.Float](ctx context.Context, r *Runner, cfg *TrainConfig, pr *prepared) (*Trained, error) {
	model, err := batch.NewModel[T](pr.kind, pr.d, pr.k, hiddenOf(pr.kind, cfg.Hidden))
	if err != nil {
		return nil, err
	}
	theta := make([]T, model.NumParams())
	model.InitParams(theta, cfg.Seed) // the shared start of every worker
	st := roundState{Theta: make([]float64, len(theta)), Tau: math.NaN()}
	for i, v := range theta {
		st.Theta[i] = float64(v)
	}
	sch := scheduleOf(cfg, pr.n)
	fn := &localFn{Spec: pr.spec, Prep: pr.prep, Kind: pr.kind, D: pr.d, K: pr.k, Hidden: hiddenOf(pr.kind, cfg.Hidden),
		Precision: cfg.Precision, Opt: localOptions{Method: cfg.Method, Alpha: cfg.Alpha, LR: sch.lr, WeightDecay: cfg.WeightDecay,
			Batch: sch.batch, Smoothing: cfg.Smoothing, Eps: cfg.Eps, EpsFraction: cfg.EpsFraction, Seed: cfg.Seed,
			Steps: sch.steps, Rows: pr.n}}
	var first, last update
	for round := 1; round <= sch.rounds; round++ {
		st.Round = round
		u, err := runRound(ctx, r, pr.splits, fn, st)
		if err != nil {
			return nil, fmt.Errorf("round %d of %d: %w", round, sch.rounds, err)
		}
		st = u.next(st)
		if round == 1 {
			first = u
		}
		last = u
		if cfg.OnRound != nil {
			cfg.OnRound(round, sch.rounds)
		}
	}
	return finish[T](ctx, r, cfg, pr, model, st, runParams(first, last, st, sch), sch.rounds)
}

// runParams are the parameters of a run by rounds: the first round's
// largest worker's (where its ε and τ came from), with the global
// minibatch, the steps along the average and the shared ε and starting τ.
func runParams(first, last update, st roundState, sch schedule) cvar.Params {
	p := first.Params
	p.Batch, p.Steps, p.LRFrom = last.Batch, sch.rounds*sch.steps, sch.lrFrom
	if st.Eps > 0 {
		p.Eps = st.Eps
	}
	if first.HasTau {
		p.Tau0 = first.Tau0 / first.W
		p.TauFrom = fmt.Sprintf("VaR_%g of each part's initial losses, averaged", p.Alpha)
	}
	if p.EpsFrom != "" && p.EpsFrom != "given" {
		p.EpsFrom = fmt.Sprintf("%g × VaR_%g of each part's initial losses, averaged", p.EpsFraction, p.Alpha)
	}
	return p
}

// MaxLocalSteps is the most local steps a round takes when the rounds an
// epoch are not given: the workers' drift from one another grows with the
// steps between averages, and past some tens of steps the average lags
// one machine's run (see the package documentation).
const MaxLocalSteps = 64

// schedule is what every round of a run shares.
type schedule struct {
	batch  int     // the global minibatch: the sum of the workers' local ones
	lr     float64 // η, resolved as one machine resolves it for batch
	lrFrom string
	steps  int // local steps a round
	rounds int
}

// scheduleOf resolves the global minibatch b, the step size, and the
// rounds and local steps of a run on n training rows: an epoch is the
// ⌈n/b⌉ steps of one machine's epoch, cut into RoundsPerEpoch rounds, or
// into as few rounds as keep each to MaxLocalSteps steps.
func scheduleOf(cfg *TrainConfig, n int64) schedule {
	b := int64(cfg.Batch)
	if b == 0 {
		b = cvar.DefaultBatch
	}
	b = min(b, n)
	epochs := cfg.Epochs
	if epochs == 0 {
		epochs = cvar.DefaultEpochs(cfg.Method, int(n), int(b))
	}
	perEpoch := int((n + b - 1) / b)
	rpe := cfg.RoundsPerEpoch
	if rpe == 0 {
		rpe = (perEpoch + MaxLocalSteps - 1) / MaxLocalSteps
	}
	steps := max(1, (perEpoch+rpe-1)/rpe)
	sch := schedule{batch: int(b), lr: cfg.LR, lrFrom: "given", steps: steps, rounds: epochs * rpe}
	switch {
	case cfg.LR > 0:
	case b == 1 && cfg.Method == cvar.Alg3:
		sch.lr, sch.lrFrom = cvar.DefaultLROneSample, "default"
	default:
		sch.lr, sch.lrFrom = cvar.DefaultLR, "default"
	}
	return sch
}

// next is the state the round after u starts from: the workers' θ and τ
// averaged, weighted by the samples each drew, and ε, which the first
// round's workers set from their initial losses, for every later round,
// as one run keeps its ε.
func (u *update) next(st roundState) roundState {
	out := roundState{Theta: make([]float64, len(u.Theta)), Tau: math.NaN(), Eps: st.Eps}
	for i, v := range u.Theta {
		out.Theta[i] = v / u.W
	}
	if u.HasTau {
		out.Tau = u.Tau / u.W
	}
	if out.Eps == 0 && u.Eps > 0 {
		out.Eps = u.Eps / u.W
	}
	return out
}

func hiddenOf(kind string, hidden int) int {
	if kind == batch.KindMLP {
		return hidden
	}
	return 0
}

// runRound runs one round's pipeline and returns the sum of the updates.
func runRound(ctx context.Context, r *Runner, splits []split, fn *localFn, st roundState) (update, error) {
	dir, done, err := r.workDir()
	if err != nil {
		return update{}, err
	}
	defer done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope(fmt.Sprintf("cvarbeam.Round%d", st.Round))
	state := beam.Create(s, st)
	ups := beam.ParDo(s, fn, beam.CreateList(s, splits), beam.SideInput{Input: state})
	beam.ParDo0(s, &writeUpdateFn{Path: dir + "/update"}, beam.Combine(s, &sumUpdatesFn{}, ups))
	if err := r.run(ctx, p); err != nil {
		return update{}, err
	}
	var u update
	found, err := readResult(ctx, dir+"/update", &u)
	if err != nil {
		return update{}, err
	}
	if !found || u.N == 0 {
		return update{}, errors.New("cvarbeam: no split holds training rows")
	}
	return u, nil
}

// finish builds the model file from the averaged parameters and measures
// it on the training and held-out rows.
func finish[T batch.Float](ctx context.Context, r *Runner, cfg *TrainConfig, pr *prepared, model batch.Model[T], st roundState, params cvar.Params, rounds int) (*Trained, error) {
	theta := make([]T, len(st.Theta))
	for i, v := range st.Theta {
		theta[i] = T(v)
	}
	tau := st.Tau
	params.N = int(pr.n)
	prep := pr.prep
	if prep.TargetScale != 0 {
		u, ok := model.(interface {
			UnscaleTarget(theta []T, mean, scale float64) (float64, error)
		})
		if !ok {
			return nil, fmt.Errorf("cvarbeam: the %s model cannot be trained on standardised targets", model.Name())
		}
		factor, err := u.UnscaleTarget(theta, prep.TargetMean, prep.TargetScale)
		if err != nil {
			return nil, err
		}
		tau *= factor
		params.Tau0 *= factor
	}
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
	var err error
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
	rs.Sparse = rs.Sparse && !centres(&mf.Preprocessing)
	rs.Keep = keepTrain
	train, err := evaluateFile(ctx, r, pr.splits, rs, mf, alphas, 0, 0)
	if err != nil {
		return cvar.Metrics{}, nil, err
	}
	if rs.Hold == 0 {
		return train, nil, nil
	}
	rs.Keep = keepHeld
	val, err := evaluateFile(ctx, r, pr.splits, rs, mf, alphas, 0, 0)
	if err != nil {
		return cvar.Metrics{}, nil, err
	}
	return train, &val, nil
}

// roundState is what a round broadcasts: its number, the parameters θ and
// the threshold τ (NaN: each worker starts τ as the library does, at the
// VaR_α of its rows' losses at θ), and ε (0: each worker's from its
// initial losses).
type roundState struct {
	Round int
	Theta []float64
	Tau   float64
	Eps   float64
}

// update is a worker's contribution to a round: its parameters, τ and ε
// multiplied by W, the samples its local steps drew (summed over workers
// by the combine), its rows, and the resolved parameters of the run with
// the most rows.
type update struct {
	N      int64
	W      float64
	Theta  []float64
	Tau    float64
	Tau0   float64 // the starting τ
	HasTau bool
	Eps    float64
	Steps  int
	Batch  int // the local minibatches' sum
	Params cvar.Params
	PN     int64 // the rows of the split whose Params these are
	Key    int64 // that split: File<<20 | Part, for a stable choice
}

// localOptions are the cvar.Options of a worker's local run that the
// round's configuration fixes.
type localOptions struct {
	Method                 cvar.Method
	Alpha, LR, WeightDecay float64
	Batch                  int // the global minibatch
	Smoothing              cvar.Smoothing
	Eps, EpsFraction       float64
	Seed                   uint64
	Steps                  int   // local steps a round
	Rows                   int64 // training rows of all workers
}

// localFn runs one round's local steps on a split's training rows.
type localFn struct {
	Spec         rowSpec
	Prep         dataset.Preprocessing
	Kind         string
	D, K, Hidden int
	Precision    string
	Opt          localOptions
}

func (f *localFn) ProcessElement(ctx context.Context, sp split, st roundState, emit func(update)) error {
	var (
		u   update
		err error
	)
	if f.Precision == cvar.F32 {
		u, err = localRun[float32](ctx, f, sp, st)
	} else {
		u, err = localRun[float64](ctx, f, sp, st)
	}
	if err != nil {
		return marked(err)
	}
	if u.N > 0 {
		emit(u)
	}
	return nil
}

// localRun reads the split's training rows and runs the method from the
// broadcast parameters for ⌈rows / (batch · rounds per epoch)⌉ steps.
func localRun[T batch.Float](ctx context.Context, f *localFn, sp split, st roundState) (update, error) {
	buf := newRowBuffer[T](&f.Spec, f.D)
	if err := eachRow(ctx, sp, &f.Spec, buf.add); err != nil {
		return update{}, err
	}
	n := buf.ds.N
	if n == 0 {
		return update{}, nil
	}
	if ts, ok := f.Prep.TargetScaler(); ok {
		buf.ds.Y = dataset.ScaleTargets(ts, buf.ds.Y)
	}
	data, err := buf.batchOf(&f.Prep)
	if err != nil {
		return update{}, err
	}
	model, err := batch.NewModel[T](f.Kind, f.D, f.K, f.Hidden)
	if err != nil {
		return update{}, err
	}
	o := f.Opt
	opt := cvar.Options{Method: o.Method, Alpha: o.Alpha, LR: o.LR, WeightDecay: o.WeightDecay, Batch: localBatch(o.Batch, n, o.Rows),
		Smoothing: o.Smoothing, Eps: o.Eps, EpsFraction: o.EpsFraction, Steps: o.Steps, Threads: 1,
		Seed: mix(o.Seed ^ mix(uint64(st.Round)<<32|uint64(sp.File)<<12|uint64(sp.Part))), Init: st.Theta}
	if st.Eps > 0 {
		opt.Eps = st.Eps
	}
	if !math.IsNaN(st.Tau) {
		opt.InitTau = &st.Tau
	}
	res, err := cvar.TrainContext(ctx, model, data, opt)
	if err != nil {
		return update{}, fmt.Errorf("%s (rows from byte %d): %w", sp.Path, sp.Start, err)
	}
	w := float64(res.Params.Batch) * float64(res.Params.Steps)
	u := update{N: int64(n), W: w, Theta: make([]float64, len(res.Theta)), Steps: res.Params.Steps, Batch: res.Params.Batch,
		Params: res.Params, PN: int64(n), Key: int64(sp.File)<<20 | int64(sp.Part)}
	for i, v := range res.Theta {
		u.Theta[i] = float64(v) * w
	}
	if !math.IsNaN(res.Tau) {
		u.Tau, u.Tau0, u.HasTau = res.Tau*w, res.Params.Tau0*w, true
	}
	u.Eps = res.Params.Eps * w
	return u, nil
}

// localBatch is a worker's share of the global minibatch b, in proportion
// to its n of all rows: the workers' local minibatches together draw b
// samples a step, as one machine's minibatch does.
func localBatch(b, n int, all int64) int {
	return max(1, int(math.Round(float64(b)*float64(n)/float64(all))))
}

// sumUpdatesFn sums the workers' updates.
type sumUpdatesFn struct{}

func (*sumUpdatesFn) CreateAccumulator() update { return update{} }

func (*sumUpdatesFn) AddInput(a, b update) update { return addUpdates(a, b) }

func (*sumUpdatesFn) MergeAccumulators(a, b update) update { return addUpdates(a, b) }

func addUpdates(a, b update) update {
	if b.N == 0 {
		return a
	}
	if a.N == 0 {
		b.Theta = append([]float64(nil), b.Theta...)
		return b
	}
	for i, v := range b.Theta {
		a.Theta[i] += v
	}
	if b.PN > a.PN || b.PN == a.PN && b.Key < a.Key { // the largest split's parameters
		a.Params, a.Steps, a.PN, a.Key = b.Params, b.Steps, b.PN, b.Key
	}
	a.N += b.N
	a.W += b.W
	a.Tau += b.Tau
	a.Tau0 += b.Tau0
	a.HasTau = a.HasTau || b.HasTau
	a.Eps += b.Eps
	a.Batch += b.Batch
	return a
}

type writeUpdateFn struct{ Path string }

func (f *writeUpdateFn) ProcessElement(ctx context.Context, u update) error {
	return marked(writeResult(ctx, f.Path, u))
}
