package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/rounds"
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
		Precision: m.Precision, State: cfg.State, Opt: rounds.OptionsOf(o, cfg.Rows)}
}

// nextStateFn turns the sum of a round's updates into the next state.
type nextStateFn struct{ State string }

func (f *nextStateFn) ProcessElement(ctx context.Context, u rounds.Update, emit func(RoundState)) error {
	st, err := loadState(ctx, f.State)
	if err == nil && u.N == 0 {
		err = errors.New("cvarbeam: no part holds training rows")
	}
	if err != nil {
		return err
	}
	emit(RoundState(u.Next(rounds.State(st))))
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

// runRound runs one round's pipeline and returns the sum of the updates.
func runRound(ctx context.Context, r *Runner, splits []Part, fn *localFn, st RoundState) (rounds.Update, error) {
	j, err := r.newJob(ctx, "train")
	if err != nil {
		return rounds.Update{}, err
	}
	defer j.done()
	if err := writeResult(ctx, j.path("state"), st); err != nil {
		return rounds.Update{}, err
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope(fmt.Sprintf("cvarbeam.Round%d", st.Round))
	rf := *fn
	rf.State, rf.Dir = j.path("state"), j.dir
	j.write(s, "update", beam.Combine(s, &sumUpdatesFn{}, beam.ParDo(s, &rf, beam.Reshuffle(s, beam.CreateList(s, splits)))))
	var u rounds.Update
	if err := j.run(ctx, p); err != nil {
		return u, err
	}
	if _, err := readResult(ctx, j.path("update"), &u); err != nil || u.N == 0 {
		return u, cmp.Or(err, errors.New("cvarbeam: no Part holds training rows"))
	}
	return u, nil
}

// localFn runs one round's local steps on a part's training rows.
type localFn struct {
	Spec         rowSpec
	Prep         dataset.Preprocessing
	Kind         string
	D, K, Hidden int
	Precision    string
	Opt          rounds.Options
	State        string // the path of the round's RoundState
	Dir          string // the run's folder: errors, spans
	Run          string // the run's token in rowCache; "": rows not kept

	clock Bundle
	st    *RoundState
}

func (f *localFn) StartBundle(_ func(rounds.Update)) { f.clock.begin() }
func (f *localFn) FinishBundle(ctx context.Context, _ func(rounds.Update)) error {
	return f.clock.save(ctx, f.Dir)
}

func (f *localFn) ProcessElement(ctx context.Context, sp Part, emit func(rounds.Update)) error {
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
// round's state for the round's local steps (rounds.Local).
func localRun[T batch.Float](ctx context.Context, f *localFn, sp Part, st RoundState) (rounds.Update, error) {
	data, err := trainingRows[T](ctx, f, sp)
	if err != nil || data == nil {
		return rounds.Update{}, err
	}
	model, err := batch.NewModel[T](f.Kind, f.D, f.K, f.Hidden)
	if err != nil {
		return rounds.Update{}, err
	}
	u, err := rounds.Local(ctx, model, data, f.Opt, rounds.State(st), sp.File, sp.Part)
	if err != nil {
		return u, fmt.Errorf("%s (rows from byte %d): %w", sp.Path, sp.Start, err)
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

// sumUpdatesFn sums the parts' updates in the parts' order (rounds.Sum),
// whatever the runner's bundles, so that a seed gives the same model on
// every runner. So it keeps the updates, a θ a part, until all are in.
type sumUpdatesFn struct{}

func (*sumUpdatesFn) CreateAccumulator() []rounds.Update { return nil }
func (*sumUpdatesFn) AddInput(a []rounds.Update, u rounds.Update) []rounds.Update {
	return append(a, u)
}
func (*sumUpdatesFn) MergeAccumulators(a, b []rounds.Update) []rounds.Update {
	return append(a, b...)
}
func (*sumUpdatesFn) ExtractOutput(a []rounds.Update) rounds.Update { return rounds.Sum(a) }
