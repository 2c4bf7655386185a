package cvarbeam

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/report"
)

// DefaultBatch is the rows a transform gathers before it evaluates or
// preprocesses them as one batch of the library's engine.
const DefaultBatch = 4096

// EvalOptions configures Evaluate.
type EvalOptions struct {
	Model *cvar.ModelFile
	Input Input
	// Alphas are the tail fractions. Empty: 0.05 and 0.1, as cvar eval.
	Alphas []float64
	// Batch and Threads are LossOptions'.
	Batch, Threads int
}

// Evaluate computes the metrics of cfg.Model on every row of the files
// of cfg.Input, preprocessed as the model file says: the mean loss, a
// classifier's accuracy, and CVaR_α and VaR_α at each α. They are
// cvar.Evaluate's on all the rows, to the rounding of the sums' order.
// A CSV file of another width is refused before the pipeline runs. A row
// that cannot be read fails it, naming the file and the line. The
// pipeline reads the parts, computes the rows' losses (Losses) and their
// metrics (TailMetrics).
func Evaluate(ctx context.Context, cfg EvalOptions, r *Runner) (cvar.Metrics, error) {
	if cfg.Model == nil {
		return cvar.Metrics{}, errors.New("cvarbeam: no model")
	}
	if err := cfg.Model.Validate(); err != nil {
		return cvar.Metrics{}, err
	}
	alphas := cfg.Alphas
	if len(alphas) == 0 {
		alphas = report.Alphas()
	}
	if err := checkAlphas(alphas); err != nil {
		return cvar.Metrics{}, err
	}
	splits, format, err := Parts(ctx, cfg.Input)
	if err != nil {
		return cvar.Metrics{}, err
	}
	rs := specForModel(cfg.Model, cfg.Input, format)
	if err := checkWidth(ctx, splits, &rs, cfg.Model.D); err != nil {
		return cvar.Metrics{}, err
	}
	ms, err := evaluate(ctx, r, splits, rs, cfg.Model, alphas, LossOptions{Batch: cfg.Batch, Threads: cfg.Threads})
	return ms[0], err
}

// evaluate runs the evaluation pipeline of mf over splits: the metrics of
// the training rows of rs and, when it holds rows out, of the held-out
// rows. One read gives both.
func evaluate(ctx context.Context, r *Runner, splits []Part, rs rowSpec, mf *cvar.ModelFile, alphas []float64, lc LossOptions) ([]cvar.Metrics, error) {
	ms := make([]cvar.Metrics, 1, 2)
	j, err := r.newJob(ctx, "eval")
	if err != nil {
		return ms, err
	}
	defer j.done()
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, mf); err != nil {
		return ms, err
	}
	// The model travels by path, not in the job graph, which a runner
	// bounds: Dataflow's 10 MB hold about 2.6 M parameters.
	lc.Model = j.path("model.cvar")
	if err := writeFile(ctx, lc.Model, buf.Bytes()); err != nil {
		return ms, err
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Evaluate")
	rows, held := beam.ParDo2(s, &readFn{Spec: rs, Dir: j.dir}, beam.Reshuffle(s, beam.CreateList(s, splits)))
	names := []string{"metrics"}
	if rs.Hold > 0 {
		names = append(names, "held")
	}
	for i, rows := range []beam.PCollection{rows, held}[:len(names)] {
		s := s.Scope(names[i])
		j.write(s, names[i], tailMetrics(s, alphas, losses(s, lc, rows, j.dir), j.dir))
	}
	if err := j.run(ctx, p); err != nil {
		return ms, err
	}
	ms = ms[:len(names)]
	for i, name := range names {
		if _, err := readResult(ctx, j.path(name), &ms[i]); err != nil || ms[i].N == 0 {
			return ms, cmp.Or(err, errors.New("cvarbeam: the data files hold no rows"))
		}
	}
	return ms, nil
}

// specForModel reads data for model m as cvar eval does (m.FileOptions):
// its classes, width, CSV target and header, dense where it centres.
func specForModel(m *cvar.ModelFile, in Input, format string) rowSpec {
	o := m.FileOptions(format, dataset.FileOptions{Target: in.Target, NoHeader: in.NoHeader, SparseBelow: 1})
	return rowSpec{Format: format, Target: o.Target, NoHeader: o.NoHeader, Dim: o.Dim, Task: o.Task, Classes: o.Classes,
		Sparse: format == "libsvm" && o.SparseBelow > 0}
}

// checkWidth refuses CSV files whose header gives another width than d,
// reading one header a file. LIBSVM rows are checked as they are read.
func checkWidth(ctx context.Context, splits []Part, rs *rowSpec, d int) error {
	for _, sp := range splits {
		if rs.Format != "csv" || sp.Part > 0 {
			continue
		}
		st, c, err := openStream[float64](ctx, sp, rs)
		if err != nil {
			return err
		}
		c.Close()
		if st.D() != d {
			return fmt.Errorf("%s has %d features; the model was trained on %d", sp.Path, st.D(), d)
		}
	}
	return nil
}

// readFn reads the rows of the parts, each as a Row: the training rows,
// and the held-out ones to the second output. A row that does not parse,
// or a regression target that is not finite, fails it with the file and
// the line.
type readFn struct {
	Spec rowSpec
	Dir  string // the run's folder: errors, spans, results

	clock Bundle
}

func (f *readFn) StartBundle(_, _ func(Row)) { f.clock.begin() }

func (f *readFn) ProcessElement(ctx context.Context, sp Part, emit, emitHeld func(Row)) error {
	var n int64
	to := func(emit func(Row)) rowFunc[float64] {
		return func(x []float64, cols []uint32, vals []float64, y float64, label int32) error {
			if f.Spec.Task == dataset.Regression && (math.IsNaN(y) || math.IsInf(y, 0)) {
				return errors.New("the target is not finite")
			}
			n++
			emit(Row{X: slices.Clone(x), Cols: slices.Clone(cols), Vals: slices.Clone(vals), Y: y, Label: label})
			return nil
		}
	}
	err := eachRow(ctx, sp, &f.Spec, to(emit), to(emitHeld))
	f.clock.item(n)
	return record(ctx, f.Dir, err)
}

func (f *readFn) FinishBundle(ctx context.Context, _, _ func(Row)) error {
	return f.clock.save(ctx, f.Dir)
}
