package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func trainRounds[T batch.Float](ctx context.Context, r *Runner, cfg *TrainOptions, pr *prepared) (*Trained, error) {
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
	fn.Run = newRunToken()
	defer rowCache.drop(fn.Run)
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
func scheduleOf(cfg *TrainOptions, n int64) schedule {
	b := int64(cfg.Batch)
	if b == 0 {
		b = cvar.DefaultBatch
	}
	b = min(b, n)
	epochs := cfg.Epochs
	if epochs == 0 {
		epochs = cfg.Method.DefaultEpochs(int(n), int(b))
	}
	perEpoch := int((n + b - 1) / b)
	rpe := cfg.RoundsPerEpoch
	if rpe == 0 {
		rpe = (perEpoch + MaxLocalSteps - 1) / MaxLocalSteps
	}
	steps := max(1, (perEpoch+rpe-1)/rpe)
	sch := schedule{batch: int(b), steps: steps, rounds: epochs * rpe}
	sch.lr, sch.lrFrom = (&cvar.Options{Method: cfg.Method, LR: cfg.LR}).PracticalLR(int(b))
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

// runRound runs one round's pipeline and returns the sum of the updates.
func runRound(ctx context.Context, r *Runner, splits []split, fn *localFn, st roundState) (update, error) {
	j, err := r.newJob(ctx, "train")
	if err != nil {
		return update{}, err
	}
	defer j.done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope(fmt.Sprintf("cvarbeam.Round%d", st.Round))
	// The round's state travels by path, not in the job graph: θ may be
	// larger than a runner takes a graph (Dataflow: 10 MB).
	if err := writeResult(ctx, j.path("state"), st); err != nil {
		return update{}, err
	}
	rf := *fn
	rf.State, rf.Errs = j.path("state"), j.dir
	in := beam.Reshuffle(s, beam.CreateList(s, splits))
	sum, spans := roundUpdates(s, &rf, in)
	j.collectSpans(s, spans)
	beam.ParDo0(s, &writeUpdateFn{Path: j.path("update")}, sum)
	if err := j.run(ctx, p); err != nil {
		return update{}, err
	}
	var u update
	found, err := readResult(ctx, j.path("update"), &u)
	if err != nil {
		return update{}, err
	}
	if !found || u.N == 0 {
		return update{}, errors.New("cvarbeam: no split holds training rows")
	}
	return u, nil
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
	State        string // the path of the round's roundState
	Errs         string // the run's folder, for an error's record
	Run          string // the run's token in rowCache; "": rows not kept

	clock spanClock
	st    *roundState
}

func (f *localFn) StartBundle(_ func(update), _ func(bundleSpan)) { f.clock.begin() }

func (f *localFn) FinishBundle(_ func(update), emitSpan func(bundleSpan)) {
	emitSpan(f.clock.end())
}

func (f *localFn) ProcessElement(ctx context.Context, sp split, emit func(update), _ func(bundleSpan)) error {
	if f.st == nil {
		var st roundState
		found, err := readResult(ctx, f.State, &st)
		if err == nil && !found {
			err = fmt.Errorf("the round's state %s is missing", f.State)
		}
		if err != nil {
			return record(ctx, f.Errs, err)
		}
		f.st = &st
	}
	st := *f.st
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
		return record(ctx, f.Errs, err)
	}
	f.clock.item(u.N)
	if u.N > 0 {
		emit(u)
	}
	return nil
}

// localRun reads the split's training rows and runs the method from the
// broadcast parameters for ⌈rows / (batch · rounds per epoch)⌉ steps.
func localRun[T batch.Float](ctx context.Context, f *localFn, sp split, st roundState) (update, error) {
	data, err := trainingRows[T](ctx, f, sp)
	if err != nil || data == nil {
		return update{}, err
	}
	n := data.N
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
		Params: res.Params, PN: int64(n), Key: sp.key()}
	for i, v := range res.Theta {
		u.Theta[i] = float64(v) * w
	}
	if !math.IsNaN(res.Tau) {
		u.Tau, u.Tau0, u.HasTau = res.Tau*w, res.Params.Tau0*w, true
	}
	u.Eps = res.Params.Eps * w
	return u, nil
}

// trainingRows are the training rows of sp, preprocessed: those an
// earlier round of the run kept (rowCache), or read and kept; nil when
// the split has none.
func trainingRows[T batch.Float](ctx context.Context, f *localFn, sp split) (*batch.Data[T], error) {
	key, keep := keyOf(ctx, f.Run, sp)
	if keep {
		if d := cachedRows[T](rowCache, key); d != nil {
			return d, nil
		}
	}
	buf := newRowBuffer[T](&f.Spec, f.D)
	if err := eachRow(ctx, sp, &f.Spec, buf.add); err != nil {
		return nil, err
	}
	if buf.ds.N == 0 {
		return nil, nil
	}
	if ts, ok := f.Prep.TargetScaler(); ok {
		buf.ds.Y = dataset.ScaleTargets(ts, buf.ds.Y)
	}
	d, err := buf.batchOf(&f.Prep)
	if err != nil || !keep {
		return d, err
	}
	// Kept for the run's rounds: without the spare capacity of the appends.
	d.X, d.Cols, d.Vals, d.Indptr = slices.Clone(d.X), slices.Clone(d.Cols), slices.Clone(d.Vals), slices.Clone(d.Indptr)
	d.Y, d.Labels = slices.Clone(d.Y), slices.Clone(d.Labels)
	keepRows(rowCache, key, d)
	return d, nil
}

// localBatch is a worker's share of the global minibatch b, in proportion
// to its n of all rows: the workers' local minibatches together draw b
// samples a step, as one machine's minibatch does.
func localBatch(b, n int, all int64) int {
	return max(1, int(math.Round(float64(b)*float64(n)/float64(all))))
}

// sumUpdatesFn sums the workers' updates in the order of their splits,
// whatever the runner's bundles and merges, so that a seed gives the same
// model on every run and runner: the accumulator is the updates
// themselves (a θ a split), summed once all are in.
type sumUpdatesFn struct{}

func (*sumUpdatesFn) CreateAccumulator() []update { return nil }

func (*sumUpdatesFn) AddInput(a []update, u update) []update { return append(a, u) }

func (*sumUpdatesFn) MergeAccumulators(a, b []update) []update { return append(a, b...) }

func (*sumUpdatesFn) ExtractOutput(a []update) update {
	slices.SortFunc(a, func(x, y update) int { return cmp.Compare(x.Key, y.Key) })
	var sum update
	for _, u := range a {
		sum = addUpdates(sum, u)
	}
	return sum
}

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
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, u))
}
