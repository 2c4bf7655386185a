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
	"github.com/cvarlearn/cvar/internal/rng"
)

// RoundState is where a training round starts: its number (from 1), the
// parameters θ, the threshold τ and ε. A NaN τ makes each part start τ
// as the library does, at the VaR_α of its rows' losses at θ. A zero ε
// makes each part set its own from its first losses.
type RoundState struct {
	Round int
	Theta []float64
	Tau   float64
	Eps   float64
}

// SaveState stores a round's state at path, on a filesystem that Beam
// and the workers reach, for TrainRound.
func SaveState(ctx context.Context, path string, st RoundState) error {
	return writeResult(ctx, path, st)
}

// RoundOptions configures TrainRound.
type RoundOptions struct {
	// Model is the model trained; its parameters are not read.
	Model *cvar.ModelFile
	// Input's Format, Target and NoHeader say how the parts are read.
	// Sparse holds LIBSVM rows sparse.
	Input  Input
	Sparse bool
	// Options are each part's local run: Method, Alpha, LR, WeightDecay,
	// Smoothing, Eps, EpsFraction, Seed and Steps. Batch is the global
	// minibatch; each part draws its share, in proportion to its rows.
	Options cvar.Options
	// Rows is the training rows of all the parts. Hold is the fraction
	// of rows held out (TrainOptions.Hold).
	Rows int64
	Hold float64
	// State is the path of the round's RoundState (SaveState).
	State string
}

// TrainRound adds one round of training by averaging to s. Each Part of
// parts reads its training rows and runs the local steps of cfg.Options
// from the state at cfg.State. The result is the next RoundState: the
// parts' (θ, τ) averaged, weighted by the samples each drew, in the
// parts' order. Train is a loop of such rounds.
func TrainRound(s beam.Scope, cfg RoundOptions, parts beam.PCollection) beam.PCollection {
	s = s.Scope("cvarbeam.TrainRound")
	sum := beam.Combine(s, &sumUpdatesFn{}, beam.ParDo(s, localFnOf(&cfg), parts))
	return beam.ParDo(s, &nextStateFn{State: cfg.State}, sum)
}

// localFnOf is the local runs' transform of a round's configuration.
func localFnOf(cfg *RoundOptions) *localFn {
	m, o := cfg.Model, &cfg.Options
	rs := specForModel(m, cfg.Input, cfg.Input.Format)
	rs.Dim, rs.Sparse, rs.Hold, rs.Seed = m.D, cfg.Sparse, cfg.Hold, o.Seed
	return &localFn{Spec: rs, Prep: m.Preprocessing, Kind: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden,
		Precision: m.Precision, State: cfg.State, Opt: localOptions{Method: o.Method, Alpha: o.Alpha, LR: o.LR,
			WeightDecay: o.WeightDecay, Batch: o.Batch, Smoothing: o.Smoothing, Eps: o.Eps,
			EpsFraction: o.EpsFraction, Seed: o.Seed, Steps: o.Steps, Rows: cfg.Rows}}
}

// nextStateFn turns the sum of a round's updates into the next state.
type nextStateFn struct{ State string }

func (f *nextStateFn) ProcessElement(ctx context.Context, u update, emit func(RoundState)) error {
	st, err := loadState(ctx, f.State)
	if err == nil && u.N == 0 {
		err = errors.New("cvarbeam: no part holds training rows")
	}
	if err != nil {
		return err
	}
	emit(u.next(st))
	return nil
}

// loadState reads the round's state at path.
func loadState(ctx context.Context, path string) (RoundState, error) {
	var st RoundState
	found, err := readResult(ctx, path, &st)
	if err == nil && !found {
		err = fmt.Errorf("cvarbeam: the round's state %s is missing", path)
	}
	return st, err
}

// next is the state of the round after st and its updates u: the parts'
// θ and τ averaged, weighted by the samples each drew. The ε the first
// round's parts set stays for every later round, as in one run.
func (u *update) next(st RoundState) RoundState {
	out := RoundState{Round: st.Round + 1, Theta: make([]float64, len(u.Theta)), Tau: math.NaN(), Eps: st.Eps}
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
func runRound(ctx context.Context, r *Runner, splits []Part, fn *localFn, st RoundState) (update, error) {
	j, err := r.newJob(ctx, "train")
	if err != nil {
		return update{}, err
	}
	defer j.done()
	if err := writeResult(ctx, j.path("state"), st); err != nil {
		return update{}, err
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope(fmt.Sprintf("cvarbeam.Round%d", st.Round))
	rf := *fn
	rf.State, rf.Dir = j.path("state"), j.dir
	j.write(s, "update", beam.Combine(s, &sumUpdatesFn{}, beam.ParDo(s, &rf, beam.Reshuffle(s, beam.CreateList(s, splits)))))
	var u update
	if err := j.run(ctx, p); err != nil {
		return u, err
	}
	if _, err := readResult(ctx, j.path("update"), &u); err != nil || u.N == 0 {
		return u, cmp.Or(err, errors.New("cvarbeam: no Part holds training rows"))
	}
	return u, nil
}

// update is a part's contribution to a round. Its θ, τ and ε are
// multiplied by W, the samples its local steps drew; the combine sums
// them over the parts. Params are those of the part with the most rows.
type update struct {
	N      int64
	W      float64
	Theta  []float64
	Tau    float64
	Tau0   float64 // the first τ
	HasTau bool
	Eps    float64
	Batch  int // the local minibatches' sum
	Params cvar.Params
	PN     int64 // the rows of the part whose Params these are
	Key    int64 // that part's key, for a stable choice
}

// localOptions are the round's cvar.Options for a part's local run.
type localOptions struct {
	Method                 cvar.Method
	Alpha, LR, WeightDecay float64
	Batch                  int // the global minibatch
	Smoothing              cvar.Smoothing
	Eps, EpsFraction       float64
	Seed                   uint64
	Steps                  int   // local steps a round
	Rows                   int64 // training rows of all parts
}

// localFn runs one round's local steps on a part's training rows.
type localFn struct {
	Spec         rowSpec
	Prep         dataset.Preprocessing
	Kind         string
	D, K, Hidden int
	Precision    string
	Opt          localOptions
	State        string // the path of the round's RoundState
	Dir          string // the run's folder: errors, spans
	Run          string // the run's token in rowCache; "": rows not kept

	clock Bundle
	st    *RoundState
}

func (f *localFn) StartBundle(_ func(update)) { f.clock.begin() }
func (f *localFn) FinishBundle(ctx context.Context, _ func(update)) error {
	return f.clock.save(ctx, f.Dir)
}

func (f *localFn) ProcessElement(ctx context.Context, sp Part, emit func(update)) error {
	if f.st == nil {
		st, err := loadState(ctx, f.State)
		if err != nil {
			return record(ctx, f.Dir, err)
		}
		f.st = &st
	}
	run := localRun[float64]
	if f.Precision == cvar.F32 {
		run = localRun[float32]
	}
	u, err := run(ctx, f, sp, *f.st)
	if err != nil {
		return record(ctx, f.Dir, err)
	}
	if f.clock.item(u.N); u.N > 0 {
		emit(u)
	}
	return nil
}

// localRun reads the part's training rows and runs the method from the
// round's state for the round's local steps.
func localRun[T batch.Float](ctx context.Context, f *localFn, sp Part, st RoundState) (update, error) {
	data, err := trainingRows[T](ctx, f, sp)
	if err != nil || data == nil {
		return update{}, err
	}
	n := data.N
	model, err := batch.NewModel[T](f.Kind, f.D, f.K, f.Hidden)
	if err != nil {
		return update{}, err
	}
	// The part's share of the global minibatch is in proportion to its
	// rows, so that together the parts draw o.Batch samples a step.
	o := f.Opt
	b := max(1, int(math.Round(float64(o.Batch)*float64(n)/float64(o.Rows))))
	opt := cvar.Options{Method: o.Method, Alpha: o.Alpha, LR: o.LR, WeightDecay: o.WeightDecay, Batch: b,
		Smoothing: o.Smoothing, Eps: o.Eps, EpsFraction: o.EpsFraction, Steps: o.Steps, Threads: 1,
		Seed: rng.Mix(o.Seed ^ rng.Mix(uint64(st.Round)<<32|uint64(sp.File)<<12|uint64(sp.Part))), Init: st.Theta}
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
	u := update{N: int64(n), W: w, Theta: floats(res.Theta, w), Batch: res.Params.Batch,
		Params: res.Params, PN: int64(n), Key: sp.key(), Eps: res.Params.Eps * w}
	if !math.IsNaN(res.Tau) {
		u.Tau, u.Tau0, u.HasTau = res.Tau*w, res.Params.Tau0*w, true
	}
	return u, nil
}

// trainingRows are the training rows of sp, preprocessed, from rowCache
// or read and kept there. Nil when the part has none.
func trainingRows[T batch.Float](ctx context.Context, f *localFn, sp Part) (*batch.Data[T], error) {
	key, keep := keyOf(ctx, f.Run, sp)
	if d := cachedRows[T](rowCache, key); keep && d != nil {
		return d, nil
	}
	rows := newRows[T](&f.Spec, f.D)
	if err := eachRow(ctx, sp, &f.Spec, appendTo(rows), nil); err != nil || rows.N == 0 {
		return nil, err
	}
	d, err := batchOf(rows, &f.Prep, true)
	if err != nil || !keep {
		return d, err
	}
	// Kept without the spare capacity of the appends.
	d.X, d.Cols, d.Vals, d.Indptr = slices.Clone(d.X), slices.Clone(d.Cols), slices.Clone(d.Vals), slices.Clone(d.Indptr)
	d.Y, d.Labels = slices.Clone(d.Y), slices.Clone(d.Labels)
	keepRows(rowCache, key, d)
	return d, nil
}

// sumUpdatesFn sums the parts' updates in the parts' order, whatever the
// runner's bundles, so that a seed gives the same model on every runner.
// So it keeps the updates, a θ a part, until all are in.
type sumUpdatesFn struct{}

func (*sumUpdatesFn) CreateAccumulator() []update              { return nil }
func (*sumUpdatesFn) AddInput(a []update, u update) []update   { return append(a, u) }
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
		b.Theta = slices.Clone(b.Theta)
		return b
	}
	for i, v := range b.Theta {
		a.Theta[i] += v
	}
	if b.PN > a.PN || b.PN == a.PN && b.Key < a.Key { // the largest part's parameters
		a.Params, a.PN, a.Key = b.Params, b.PN, b.Key
	}
	a.N, a.W, a.Tau, a.Tau0, a.Eps, a.Batch = a.N+b.N, a.W+b.W, a.Tau+b.Tau, a.Tau0+b.Tau0, a.Eps+b.Eps, a.Batch+b.Batch
	a.HasTau = a.HasTau || b.HasTau
	return a
}
