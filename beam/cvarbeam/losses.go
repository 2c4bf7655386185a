package cvarbeam

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// Row is one row of data as Losses takes it, its features as in the data:
// Losses applies the model's preprocessing. X holds a dense row's
// features. A row without X is sparse: Cols (0-based) and Vals hold its
// non-zeros. Y is a regression target, Label the index of a class in the
// model file's Classes.
type Row struct {
	X     []float64
	Cols  []uint32
	Vals  []float64
	Y     float64
	Label int32
}

// LossBatch is the losses of a batch of rows under a model, in the rows'
// order. Correct counts the rows a classifier labels correctly.
type LossBatch struct {
	Losses     []float64
	Correct    int64
	Classifier bool
}

// LossOptions configures Losses.
type LossOptions struct {
	// Model is the path of a model file on a filesystem that Beam and the
	// workers reach. The model travels by path, not inside the job graph,
	// whose size runners bound.
	Model string
	// Batch is the rows evaluated at once (0: DefaultBatch). Threads is
	// the engine's workers in each transform instance (0: 1, as the
	// runner runs one bundle a core).
	Batch, Threads int
}

// Losses adds to s the losses of the model file at cfg.Model on a
// PCollection of Row. The result is a PCollection of LossBatch. Each
// transform instance loads the model once. It gathers its bundle's rows
// into batches, preprocesses them as the model file says and computes
// their losses with cvar.Evaluator. A row of another width, a class
// outside the model's or a loss that is not finite fails the pipeline.
func Losses(s beam.Scope, cfg LossOptions, rows beam.PCollection) beam.PCollection {
	return losses(s.Scope("cvarbeam.Losses"), cfg, rows, "")
}

// losses is Losses recording its errors in the run folder errs.
func losses(s beam.Scope, cfg LossOptions, rows beam.PCollection, errs string) beam.PCollection {
	return beam.ParDo(s, &lossFn{Cfg: cfg, Dir: errs}, rows)
}

// lossFn is Losses' transform.
type lossFn struct {
	Cfg LossOptions
	Dir string // the run's folder: errors, spans, results

	w lossWorker
}

// lossWorker is lossFn's work in the model's precision.
type lossWorker interface {
	add(r *Row, emit func(LossBatch)) error
	flush(emit func(LossBatch)) error
	close()
}

func (f *lossFn) Setup(ctx context.Context) error {
	raw, err := readFile(ctx, f.Cfg.Model)
	var m *cvar.ModelFile
	if err == nil {
		if m, err = cvar.LoadModel(bytes.NewReader(raw)); err != nil {
			err = fmt.Errorf("%s: %w", f.Cfg.Model, err)
		}
	}
	switch {
	case err != nil:
	case m.Precision == cvar.F32:
		f.w, err = newLossWork[float32](m, f.Cfg)
	default:
		f.w, err = newLossWork[float64](m, f.Cfg)
	}
	return record(ctx, f.Dir, err)
}

func (f *lossFn) ProcessElement(ctx context.Context, r Row, emit func(LossBatch)) error {
	return record(ctx, f.Dir, f.w.add(&r, emit))
}

func (f *lossFn) FinishBundle(ctx context.Context, emit func(LossBatch)) error {
	return record(ctx, f.Dir, f.w.flush(emit))
}

func (f *lossFn) Teardown() {
	if f.w != nil {
		f.w.close()
	}
}

// lossWork gathers rows, dense and sparse apart, and evaluates a full
// batch.
type lossWork[T batch.Float] struct {
	m     *cvar.ModelFile
	theta []T
	ev    *cvar.Evaluator[T]
	rows  [2]*dataset.Dataset[T] // dense, sparse
	x, v  []T                    // a row's features in the model's precision
	batch int
}

func newLossWork[T batch.Float](m *cvar.ModelFile, cfg LossOptions) (*lossWork[T], error) {
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		return nil, err
	}
	ev, err := cvar.NewEvaluator(model, max(cfg.Threads, 1))
	if err != nil {
		return nil, err
	}
	w := &lossWork[T]{m: m, theta: theta, ev: ev, batch: cmp.Or(max(cfg.Batch, 0), DefaultBatch)}
	rs := specForModel(m, Input{}, "")
	w.rows = [2]*dataset.Dataset[T]{newRows[T](&rs, m.D), newRows[T](&rs, m.D)}
	return w, nil
}

// add gathers a row, dense and sparse apart; the data set checks it
// against the model's width and classes. A full batch is evaluated.
func (w *lossWork[T]) add(r *Row, emit func(LossBatch)) error {
	w.x, w.v = w.x[:0], w.v[:0]
	for _, v := range r.X {
		w.x = append(w.x, T(v))
	}
	for _, v := range r.Vals {
		w.v = append(w.v, T(v))
	}
	rows, err := w.rows[0], error(nil)
	if r.X != nil {
		err = rows.AppendRow(w.x, T(r.Y), r.Label)
	} else {
		rows = w.rows[1]
		err = rows.AppendSparse(r.Cols, w.v, T(r.Y), r.Label)
	}
	if err != nil || rows.N < w.batch {
		return err
	}
	return w.evaluate(rows, emit)
}

// flush evaluates the rows gathered.
func (w *lossWork[T]) flush(emit func(LossBatch)) error {
	return errors.Join(w.evaluate(w.rows[0], emit), w.evaluate(w.rows[1], emit))
}

// evaluate computes the losses of b's rows and emits them.
func (w *lossWork[T]) evaluate(rows *dataset.Dataset[T], emit func(LossBatch)) error {
	if rows.N == 0 {
		return nil
	}
	defer rows.Reset()
	ds, err := rows, error(nil)
	if rows.IsSparse() && w.m.Preprocessing.Centres() { // centring makes every feature non-zero
		if ds, err = rows.Dense(-1); err != nil {
			return err
		}
	}
	data, err := batchOf(ds, &w.m.Preprocessing, false)
	if err != nil {
		return err
	}
	losses, err := w.ev.Losses(w.theta, data)
	if err != nil {
		return err
	}
	out := LossBatch{Losses: make([]float64, len(losses))}
	for i, l := range losses {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return fmt.Errorf("a loss is %v", l)
		}
		out.Losses[i] = float64(l)
	}
	if data.IsClassification() {
		pred, err := w.ev.Predictions(w.theta, data)
		if err != nil {
			return err
		}
		out.Classifier = true
		for i, p := range pred {
			if p == int(data.Labels[i]) {
				out.Correct++
			}
		}
	}
	emit(out)
	return nil
}

func (w *lossWork[T]) close() { w.ev.Close() }
