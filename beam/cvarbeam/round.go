package cvarbeam

import (
	"context"
	"errors"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn3x1[context.Context, update, func(roundState), error](&nextStateFn{})
	register.Emitter1[roundState]()
	gobCoder(encState, decState)
}

func encState(v roundState) ([]byte, error) { return gobEncode(v) }
func decState(b []byte) (roundState, error) { return gobDecode[roundState](b) }

// Part is a work item of the transforms that read files: a data file, or
// the lines that start in a byte range of one (Input.SplitSize).
type Part = split

// Parts lists the parts of the files in.Glob names, sorted, and their
// format ("csv" or "libsvm").
func Parts(ctx context.Context, in Input) ([]Part, string, error) { return expand(ctx, in) }

// RoundState is where a training round starts: its number (from 1), the
// parameters θ, the threshold τ (NaN: each part starts τ as the library
// does, at the VaR_α of its rows' losses at θ) and ε (0: each part's from
// its initial losses).
type RoundState = roundState

// SaveState stores a round's state at path, on a filesystem that Beam
// and the workers reach, for TrainRound.
func SaveState(ctx context.Context, path string, st RoundState) error {
	return writeResult(ctx, path, st)
}

// RoundOptions configures TrainRound.
type RoundOptions struct {
	// Model describes the model trained: its kind, width, classes, hidden
	// units, precision and preprocessing (its parameters are not read).
	Model *cvar.ModelFile
	// Input says how the parts are read: Format, Target and NoHeader.
	// Sparse holds LIBSVM rows sparse.
	Input  Input
	Sparse bool
	// Options are each part's local run: Method, Alpha, LR, WeightDecay,
	// Smoothing, Eps, EpsFraction, Seed and Steps (the round's local
	// steps); Batch is the global minibatch, each part drawing its share
	// in proportion to its rows.
	Options cvar.Options
	// Rows is the number of training rows of all the parts; Hold the
	// fraction of rows held out (never trained on), by a hash of
	// Options.Seed, the file's name and the row's place.
	Rows int64
	Hold float64
	// State is the path of the round's RoundState (SaveState): the state
	// travels by path, not inside the job graph.
	State string
}

// TrainRound adds one round of training by averaging to s: each part of
// parts (a PCollection of Part) reads its training rows and runs the
// local steps of cfg.Options from the state at cfg.State, and the result,
// one RoundState for the next round, averages the parts' (θ, τ) weighted
// by the samples each drew, in the order of the parts, whatever the
// runner's bundles; ε is the one the first round's parts set. Train is a
// loop of such rounds.
func TrainRound(s beam.Scope, cfg RoundOptions, parts beam.PCollection) beam.PCollection {
	s = s.Scope("cvarbeam.TrainRound")
	sum, _ := roundUpdates(s, localFnOf(&cfg), parts)
	return beam.ParDo(s, &nextStateFn{State: cfg.State}, sum)
}

// roundUpdates adds a round's local runs: one element, the sum of the
// parts' updates, and the reading step's bundle spans.
func roundUpdates(s beam.Scope, fn *localFn, parts beam.PCollection) (sum, spans beam.PCollection) {
	ups, spans := beam.ParDo2(s, fn, parts)
	return beam.Combine(s, &sumUpdatesFn{}, ups), spans
}

// localFnOf is the local runs' transform of a round's configuration.
func localFnOf(cfg *RoundOptions) *localFn {
	m, o := cfg.Model, &cfg.Options
	rs := rowSpec{Format: cfg.Input.Format, Target: cfg.Input.Target, NoHeader: cfg.Input.NoHeader, Dim: m.D,
		Task: dataset.Regression, Sparse: cfg.Sparse, Hold: cfg.Hold, Seed: o.Seed, Keep: keepTrain}
	if m.K > 0 {
		rs.Task, rs.Classes = dataset.Classification, m.Classes
	}
	return &localFn{Spec: rs, Prep: m.Preprocessing, Kind: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden,
		Precision: m.Precision, State: cfg.State, Opt: localOptions{Method: o.Method, Alpha: o.Alpha, LR: o.LR,
			WeightDecay: o.WeightDecay, Batch: o.Batch, Smoothing: o.Smoothing, Eps: o.Eps,
			EpsFraction: o.EpsFraction, Seed: o.Seed, Steps: o.Steps, Rows: cfg.Rows}}
}

// nextStateFn turns the sum of a round's updates into the next round's
// state.
type nextStateFn struct{ State string }

func (f *nextStateFn) ProcessElement(ctx context.Context, u update, emit func(RoundState)) error {
	var st RoundState
	found, err := readResult(ctx, f.State, &st)
	if err == nil && !found {
		err = errors.New("cvarbeam: the round's state " + f.State + " is missing")
	}
	if err != nil {
		return err
	}
	if u.N == 0 {
		return errors.New("cvarbeam: no part holds training rows")
	}
	next := u.next(st)
	next.Round = st.Round + 1
	emit(next)
	return nil
}
