package cvarbeam

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
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
	register.DoFn4x1[context.Context, split, func(lossChunk), func(bundleSpan), error](&lossFn{})
	register.Emitter1[lossChunk]()
	register.Combiner3[summary, lossChunk, summary](&summaryFn{})
	register.DoFn3x0[lossChunk, summary, func(topList)](&topFn{})
	register.Emitter1[topList]()
	register.Combiner3[topList, topList, topList](&mergeTopFn{})
	register.DoFn2x1[context.Context, summary, error](&writeSummaryFn{})
	register.DoFn2x1[context.Context, topList, error](&writeTopFn{})
	beam.RegisterCoder(reflect.TypeOf(lossChunk{}), encodeChunk, decodeChunk)
	register.Function1x2(encodeChunk)
	register.Function1x2(decodeChunk)
}

// DefaultBatch is the number of rows a transform gathers before it
// evaluates or preprocesses them as one batch of the library's engine.
const DefaultBatch = 4096

// EvalConfig configures Evaluate.
type EvalConfig struct {
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
// row that cannot be read fails it, naming the file and line.
func Evaluate(ctx context.Context, cfg EvalConfig, r *Runner) (cvar.Metrics, error) {
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
	return evaluateFile(ctx, r, splits, rs, cfg.Model, alphas, cfg.Batch, cfg.Threads)
}

// evaluateFile runs the evaluation pipeline of model file mf over splits.
func evaluateFile(ctx context.Context, r *Runner, splits []split, rs rowSpec, mf *cvar.ModelFile, alphas []float64, batchRows, threads int) (cvar.Metrics, error) {
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, mf); err != nil {
		return cvar.Metrics{}, err
	}
	return evaluate(ctx, r, splits, rs, buf.Bytes(), alphas, batchRows, threads)
}

// evaluate runs the evaluation pipeline of a serialised model over splits.
func evaluate(ctx context.Context, r *Runner, splits []split, rs rowSpec, model []byte, alphas []float64, batchRows, threads int) (cvar.Metrics, error) {
	j, err := r.newJob(ctx, "eval")
	if err != nil {
		return cvar.Metrics{}, err
	}
	defer j.done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Evaluate")
	in := beam.Reshuffle(s, beam.CreateList(s, splits))
	// The model travels by path, not in the job graph, which a runner
	// bounds (Dataflow: 10 MB, a model of about 2.6 M parameters).
	if err := writeResult(ctx, j.path("model"), model); err != nil {
		return cvar.Metrics{}, err
	}
	chunks, spans := beam.ParDo2(s, &lossFn{Model: j.path("model"), Errs: j.dir, Spec: rs, Batch: batchRows, Threads: threads}, in)
	j.collectSpans(s, spans)
	sum := beam.Combine(s, &summaryFn{}, chunks)
	beam.ParDo0(s, &writeSummaryFn{Path: j.path("summary")}, sum)
	tops := beam.ParDo(s, &topFn{Alphas: alphas}, chunks, beam.SideInput{Input: sum})
	top := beam.Combine(s, &mergeTopFn{}, tops)
	beam.ParDo0(s, &writeTopFn{Path: j.path("top")}, top)
	if err := j.run(ctx, p); err != nil {
		return cvar.Metrics{}, err
	}
	var sm summary
	found, err := readResult(ctx, j.path("summary"), &sm)
	if err != nil {
		return cvar.Metrics{}, err
	}
	if !found || sm.N == 0 {
		return cvar.Metrics{}, errors.New("cvarbeam: the data files hold no rows")
	}
	var tl topList
	if _, err := readResult(ctx, j.path("top"), &tl); err != nil {
		return cvar.Metrics{}, err
	}
	if k := topK(sm.N, alphas); len(tl.Vals) < k {
		return cvar.Metrics{}, fmt.Errorf("cvarbeam: the pipeline kept %d of the %d largest losses the tails need", len(tl.Vals), k)
	}
	m := cvar.Metrics{N: int(sm.N), MeanLoss: sm.total() / float64(sm.N), Accuracy: math.NaN(), Tails: tailsOf(&sm, tl.Vals, alphas)}
	if sm.Classifier {
		m.Accuracy = float64(sm.Correct) / float64(sm.N)
	}
	return m, nil
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

// lossChunk is the losses of a batch of rows and their summary.
type lossChunk struct {
	Losses []float64
	Sum    summary
}

func encodeChunk(c lossChunk) ([]byte, error) {
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, c.Sum); err != nil {
		return nil, err
	}
	b := binary.LittleEndian.AppendUint64(buf.Bytes(), uint64(len(c.Losses)))
	for _, x := range c.Losses {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b, nil
}

func decodeChunk(b []byte) (lossChunk, error) {
	var c lossChunk
	r := bytes.NewReader(b)
	if err := binary.Read(r, binary.LittleEndian, &c.Sum); err != nil {
		return c, err
	}
	rest := b[len(b)-r.Len():]
	if len(rest) < 8 {
		return c, errors.New("cvarbeam: a truncated loss chunk")
	}
	n := binary.LittleEndian.Uint64(rest)
	rest = rest[8:]
	if uint64(len(rest)) != 8*n {
		return c, errors.New("cvarbeam: a loss chunk of the wrong length")
	}
	c.Losses = make([]float64, n)
	for i := range c.Losses {
		c.Losses[i] = math.Float64frombits(binary.LittleEndian.Uint64(rest[8*i:]))
	}
	return c, nil
}

// lossFn reads splits and emits the losses of their rows under the model,
// a batch of rows at a time: rows are gathered across the elements of a
// bundle and the last partial batch is evaluated in FinishBundle.
type lossFn struct {
	Model          string // the path of the model file's bytes (gob)
	Errs           string // the run's folder, for an error's record
	Spec           rowSpec
	Batch, Threads int

	w     lossWorker
	clock spanClock
	held  []lossChunk
}

// lossWorker is lossFn's work in the model's precision.
type lossWorker interface {
	process(ctx context.Context, sp split, emit func(lossChunk)) (rows int64, err error)
	flush(emit func(lossChunk)) error
	close()
}

func (f *lossFn) Setup(ctx context.Context) error {
	var raw []byte
	found, err := readResult(ctx, f.Model, &raw)
	if err == nil && !found {
		err = fmt.Errorf("the model %s is missing", f.Model)
	}
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	m, err := cvar.LoadModel(bytes.NewReader(raw))
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	if m.Precision == cvar.F32 {
		f.w, err = newLossWork[float32](m, &f.Spec, f.Batch, f.Threads)
	} else {
		f.w, err = newLossWork[float64](m, &f.Spec, f.Batch, f.Threads)
	}
	return record(ctx, f.Errs, err)
}

func (f *lossFn) StartBundle(_ func(lossChunk), _ func(bundleSpan)) { f.clock.begin() }

// ProcessElement emits the losses of a split's batches when the split is
// read: a runner that sees no output for a while may then split the
// bundle, handing the splits not yet started to another worker (Prism
// does). The losses held are 8 bytes a row of one split.
func (f *lossFn) ProcessElement(ctx context.Context, sp split, emit func(lossChunk), _ func(bundleSpan)) error {
	held := f.held[:0]
	rows, err := f.w.process(ctx, sp, func(c lossChunk) { held = append(held, c) })
	f.clock.item(rows)
	for _, c := range held {
		emit(c)
	}
	clear(held)
	f.held = held[:0]
	return record(ctx, f.Errs, err)
}

func (f *lossFn) FinishBundle(ctx context.Context, emit func(lossChunk), emitSpan func(bundleSpan)) error {
	if err := f.w.flush(emit); err != nil {
		return record(ctx, f.Errs, err)
	}
	emitSpan(f.clock.end())
	return nil
}

func (f *lossFn) Teardown() {
	if f.w != nil {
		f.w.close()
	}
}

type lossWork[T batch.Float] struct {
	m     *cvar.ModelFile
	rs    *rowSpec
	theta []T
	ev    *cvar.Evaluator[T]
	buf   *rowBuffer[T]
	rows  int
}

func newLossWork[T batch.Float](m *cvar.ModelFile, rs *rowSpec, rows, threads int) (*lossWork[T], error) {
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		return nil, err
	}
	ev, err := cvar.NewEvaluator(model, max(threads, 1))
	if err != nil {
		return nil, err
	}
	if rows <= 0 {
		rows = DefaultBatch
	}
	return &lossWork[T]{m: m, rs: rs, theta: theta, ev: ev, buf: newRowBuffer[T](rs, m.D), rows: rows}, nil
}

// process reads the rows of sp, evaluating each batch as it fills.
func (w *lossWork[T]) process(ctx context.Context, sp split, emit func(lossChunk)) (int64, error) {
	var rows int64
	err := eachRow(ctx, sp, w.rs, func(x []T, cols []uint32, vals []T, y T, label int32) error {
		rows++
		if err := w.buf.add(x, cols, vals, y, label); err != nil {
			return err
		}
		if w.buf.ds.N < w.rows {
			return nil
		}
		return w.flush(emit)
	})
	return rows, err
}

// flush evaluates the rows gathered and emits their losses.
func (w *lossWork[T]) flush(emit func(lossChunk)) error {
	if w.buf.ds.N == 0 {
		return nil
	}
	defer w.buf.reset()
	data, err := w.buf.batchOf(&w.m.Preprocessing)
	if err != nil {
		return err
	}
	losses, err := w.ev.Losses(w.theta, data)
	if err != nil {
		return err
	}
	c := lossChunk{Losses: make([]float64, len(losses))}
	for i, l := range losses {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return fmt.Errorf("a loss is %v", l)
		}
		c.Losses[i] = float64(l)
		c.Sum.add(float64(l))
	}
	if data.IsClassification() {
		pred, err := w.ev.Predictions(w.theta, data)
		if err != nil {
			return err
		}
		c.Sum.Classifier = true
		for i, p := range pred {
			if p == int(data.Labels[i]) {
				c.Sum.Correct++
			}
		}
	}
	emit(c)
	return nil
}

func (w *lossWork[T]) close() { w.ev.Close() }

// summaryFn combines the summaries of the loss chunks.
type summaryFn struct{}

func (*summaryFn) CreateAccumulator() summary { return summary{} }

func (*summaryFn) AddInput(a summary, c lossChunk) summary { a.merge(&c.Sum); return a }

func (*summaryFn) MergeAccumulators(a, b summary) summary { a.merge(&b); return a }

// topList is a set of the largest losses, K of them at most.
type topList struct {
	K    int
	Vals []float64
}

// topFn emits the K largest losses of each chunk that the tails need (K
// from the count of all losses, a side input); the combine that follows
// keeps the K largest of all, its partial combines (before the shuffle)
// K of each bundle. It keeps no state across elements: a runner may
// finish a bundle that had no element, where the count of no losses
// does not exist (Flink), so FinishBundle cannot read it.
type topFn struct {
	Alphas []float64
}

func (f *topFn) ProcessElement(c lossChunk, all summary, emit func(topList)) {
	k := topK(all.N, f.Alphas)
	if k == 0 || len(c.Losses) == 0 {
		return
	}
	var h minHeap
	for _, x := range c.Losses {
		h.keep(x, k)
	}
	emit(topList{K: k, Vals: h})
}

// mergeTopFn merges the chunks' lists, keeping the K largest.
type mergeTopFn struct{}

func (*mergeTopFn) CreateAccumulator() topList { return topList{} }

func (*mergeTopFn) AddInput(a, b topList) topList { return mergeTop(a, b) }

func (*mergeTopFn) MergeAccumulators(a, b topList) topList { return mergeTop(a, b) }

// mergeTop merges two lists of the largest losses; every list of one
// pipeline has the same K.
func mergeTop(a, b topList) topList {
	k := max(a.K, b.K)
	h := minHeap(append([]float64(nil), a.Vals...))
	heap.Init(&h)
	for _, x := range b.Vals {
		h.keep(x, k)
	}
	return topList{K: k, Vals: h}
}

type writeSummaryFn struct{ Path string }

func (f *writeSummaryFn) ProcessElement(ctx context.Context, s summary) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, s))
}

type writeTopFn struct{ Path string }

func (f *writeTopFn) ProcessElement(ctx context.Context, t topList) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, t))
}
