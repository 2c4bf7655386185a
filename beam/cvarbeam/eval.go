package cvarbeam

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn5x1[context.Context, split, func(Row), func(Row), func(bundleSpan), error](&readFn{})
	register.Emitter1[Row]()
	register.DoFn2x1[context.Context, cvar.Metrics, error](&writeMetricsFn{})
}

// DefaultBatch is the number of rows a transform gathers before it
// evaluates or preprocesses them as one batch of the library's engine.
const DefaultBatch = 4096

// EvalOptions configures Evaluate.
type EvalOptions struct {
	Model *cvar.ModelFile
	Input Input
	// Alphas are the tail fractions; empty: 0.05 and 0.1, as cvar eval.
	Alphas []float64
	// Batch is the number of rows evaluated at once (0: DefaultBatch);
	// Threads the engine's workers in each transform instance (0: 1, the
	// runner running one bundle per core).
	Batch, Threads int
}

// Evaluate computes the metrics of cfg.Model on every row of the files
// cfg.Input names, each preprocessed as the model file says: the mean
// loss, the accuracy of a classifier and CVaR_α and VaR_α at each α,
// exactly as cvar.Evaluate computes them on the rows of the files taken
// one after another (to the rounding of the sums' order). A CSV file of
// another width than the model's is refused before the pipeline runs; a
// row that cannot be read fails it, naming the file and line. The
// pipeline reads the files' parts, computes their rows' losses (Losses)
// and their metrics (TailMetrics).
func Evaluate(ctx context.Context, cfg EvalOptions, r *Runner) (cvar.Metrics, error) {
	if cfg.Model == nil {
		return cvar.Metrics{}, errors.New("cvarbeam: no model")
	}
	if err := cfg.Model.Validate(); err != nil {
		return cvar.Metrics{}, err
	}
	alphas := cfg.Alphas
	if len(alphas) == 0 {
		alphas = []float64{0.05, 0.1}
	}
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			return cvar.Metrics{}, fmt.Errorf("cvarbeam: alpha %v outside (0, 1]", a)
		}
	}
	splits, format, err := expand(ctx, cfg.Input)
	if err != nil {
		return cvar.Metrics{}, err
	}
	rs := specForModel(cfg.Model, cfg.Input, format)
	if err := checkWidth(ctx, splits, &rs, cfg.Model.D, "the model was trained on"); err != nil {
		return cvar.Metrics{}, err
	}
	ms, err := evaluate(ctx, r, splits, rs, cfg.Model, alphas, LossOptions{Batch: cfg.Batch, Threads: cfg.Threads})
	if err != nil {
		return cvar.Metrics{}, err
	}
	return ms[0], nil
}

// evaluate runs the evaluation pipeline of model file mf over splits: the
// metrics of the rows rs keeps and, when it keeps both, of the held-out
// rows after them, in the same read.
func evaluate(ctx context.Context, r *Runner, splits []split, rs rowSpec, mf *cvar.ModelFile, alphas []float64, lc LossOptions) ([]cvar.Metrics, error) {
	j, err := r.newJob(ctx, "eval")
	if err != nil {
		return nil, err
	}
	defer j.done()
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, mf); err != nil {
		return nil, err
	}
	// The model travels by path, not in the job graph, which a runner
	// bounds (Dataflow: 10 MB, a model of about 2.6 M parameters).
	lc.Model = j.path("model.cvar")
	if err := writeFile(ctx, lc.Model, buf.Bytes()); err != nil {
		return nil, err
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Evaluate")
	rows, held, spans := beam.ParDo3(s, &readFn{Spec: rs, Errs: j.dir}, beam.Reshuffle(s, beam.CreateList(s, splits)))
	j.collectSpans(s, spans)
	names := []string{"metrics"}
	if rs.Keep == keepBoth {
		names = append(names, "held")
	}
	for i, rows := range []beam.PCollection{rows, held}[:len(names)] {
		s := s.Scope(names[i])
		metrics := tailMetrics(s, alphas, losses(s, lc, rows, j.dir), j.dir)
		beam.ParDo0(s, &writeMetricsFn{Path: j.path(names[i])}, metrics)
	}
	if err := j.run(ctx, p); err != nil {
		return nil, err
	}
	ms := make([]cvar.Metrics, len(names))
	for i, name := range names {
		if found, err := readResult(ctx, j.path(name), &ms[i]); err != nil || !found {
			return nil, cmp.Or(err, errors.New("cvarbeam: the data files hold no rows"))
		}
	}
	return ms, nil
}

// specForModel reads data for model m as cvar eval does: its classes, its
// width, its CSV target and header, dense where it centres.
func specForModel(m *cvar.ModelFile, in Input, format string) rowSpec {
	rs := rowSpec{Format: format, Target: in.Target, NoHeader: in.NoHeader, Task: dataset.Regression}
	if m.K > 0 {
		rs.Task, rs.Classes = dataset.Classification, m.Classes
	}
	if format == "libsvm" {
		rs.Dim = m.D
		rs.Sparse = !m.Preprocessing.Centres()
	}
	if format == "csv" && m.Source.Kind == "csv" {
		if rs.Target == "" {
			rs.Target = m.Source.Target
		}
		rs.NoHeader = rs.NoHeader || m.Source.NoHeader
	}
	return rs
}

// checkWidth refuses CSV files whose header gives another number of
// features than d, reading one header a file; LIBSVM rows are checked as
// they are read (an index above d fails the pipeline, naming the line).
func checkWidth(ctx context.Context, splits []split, rs *rowSpec, d int, what string) error {
	if rs.Format != "csv" {
		return nil
	}
	for _, sp := range splits {
		if sp.Part > 0 {
			continue
		}
		st, c, err := openStream[float64](ctx, sp, rs)
		if err != nil {
			return err
		}
		c.Close()
		if st.D() != d {
			return fmt.Errorf("%s has %d features; %s %d", sp.Path, st.D(), what, d)
		}
	}
	return nil
}

// readFn reads the rows of the parts of files that rs keeps, each as a
// Row, the held-out ones to the second output when it keeps both; a row
// that does not parse, or a regression target that is not finite, fails
// it with the file and line.
type readFn struct {
	Spec rowSpec
	Errs string // the run's folder, for an error's record

	clock spanClock
}

func (f *readFn) StartBundle(_, _ func(Row), _ func(bundleSpan)) { f.clock.begin() }

func (f *readFn) ProcessElement(ctx context.Context, sp split, emit, emitHeld func(Row), _ func(bundleSpan)) error {
	var n int64
	to := func(emit func(Row)) rowFunc[float64] {
		return func(x []float64, cols []uint32, vals []float64, y float64, label int32) error {
			if f.Spec.Task == dataset.Regression && (math.IsNaN(y) || math.IsInf(y, 0)) {
				return errors.New("the target is not finite")
			}
			n++
			emit(Row{X: clone(x), Cols: clone(cols), Vals: clone(vals), Y: y, Label: label})
			return nil
		}
	}
	var err error
	if f.Spec.Keep == keepBoth {
		err = eachPart(ctx, sp, &f.Spec, to(emit), to(emitHeld))
	} else {
		err = eachRow(ctx, sp, &f.Spec, to(emit))
	}
	f.clock.item(n)
	return record(ctx, f.Errs, err)
}

func (f *readFn) FinishBundle(_, _ func(Row), emitSpan func(bundleSpan)) { emitSpan(f.clock.end()) }

// clone copies a slice the reader reuses; nil stays nil.
func clone[E any](s []E) []E {
	if s == nil {
		return nil
	}
	return append(make([]E, 0, len(s)), s...)
}

type writeMetricsFn struct{ Path string }

func (f *writeMetricsFn) ProcessElement(ctx context.Context, m cvar.Metrics) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, m))
}
