package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// Streaming training (train -stream) reads a CSV or LIBSVM file row by row
// and never holds the features of more than a few thousand rows:
//
//  0. a first pass counts the rows, N, from which dataset.Splitter assigns
//     each row to the training (2/3) or validation split exactly as
//     dataset.Split does for in-memory training with the same -seed;
//  1. a pass collects the training rows' feature means and variances (the
//     z-score, dataset.RunningStandardizer) and the targets' values, from
//     which the task and the classes follow as the in-memory readers infer
//     them from numeric targets (dataset.TaskInference: integers with at
//     most 20 distinct values are classes), and the training targets' mean
//     and deviation (dataset.RunningTargetScaler; regression targets are
//     standardised for training, the model mapped back after);
//  2. when the step size comes from a theorem, a pass measures max ‖x‖ of
//     the standardised training rows (and max |y|), which the theorems'
//     constants need;
//  3. -epochs passes train Alg1 or Alg4 with cvar.Online, one row at a time;
//
// A LIBSVM file whose density (counted on pass 0) is below -sparse streams
// its rows' non-zeros (dataset.Stream.NextSparse) instead: pass 1 fits a
// scaling without centring (dataset.RunningScaler: max-abs by default, the
// deviation with -scale zscore, as in memory), pass 3 trains with Online.ObserveSparse and pass 4
// holds its chunks of rows in CSR, so memory is O(D) for the model and the
// scaling plus the non-zeros of a chunk, never a D-long row per sample.
//
//  4. a last pass computes every row's loss for the metrics (one number per
//     row is kept, for the exact CVaR).
//
// The splitter decides a row from its index alone, so no per-row state is
// kept between passes. The file is read several times, so it must be a
// regular file, not a pipe.

// streamSource opens the -data file as a stream, again for every pass.
type streamSource[T batch.Float] struct {
	path, format string
	target       string
	noHeader     bool
	dim          int
	limit        int
	maxBytes     int64 // the readers' MaxBytes and MaxLine options
	maxLine      int64
	maxDim       int // -max-dim: the largest index that sets the width
}

func (s *streamSource[T]) open(task dataset.Task, classes []string) (*dataset.Stream[T], func() error, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, err
	}
	var st *dataset.Stream[T]
	if s.format == "csv" {
		st, err = dataset.NewCSVStream[T](f, s.path, dataset.CSVOptions{Comma: delimiterOf(s.path), Target: s.target, NoHeader: s.noHeader, Task: task, Classes: classes, MaxBytes: s.maxBytes, MaxLine: s.maxLine})
	} else {
		st, err = dataset.NewLIBSVMStream[T](f, s.path, dataset.LIBSVMOptions{Dim: s.dim, MaxDim: s.maxDim, Task: task, Classes: classes, MaxBytes: s.maxBytes, MaxLine: s.maxLine})
	}
	if err != nil {
		f.Close()
		return nil, nil, tooLarge(err)
	}
	return st, f.Close, nil
}

// each calls fn on every row (up to -limit), with its 0-based index.
func (s *streamSource[T]) each(task dataset.Task, classes []string, fn func(i int, x []T, y T, label int32) error) error {
	st, closeFn, err := s.open(task, classes)
	if err != nil {
		return err
	}
	defer closeFn()
	for i := 0; s.limit == 0 || i < s.limit; i++ {
		x, y, label, err := st.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return tooWide(tooLarge(err), "", s.maxDim)
		}
		if err := fn(i, x, y, label); err != nil {
			return fmt.Errorf("%s:%d: %w", s.path, st.Line(), err)
		}
	}
	return nil
}

// eachSparse is each with the rows' non-zeros (dataset.Stream.NextSparse).
func (s *streamSource[T]) eachSparse(task dataset.Task, classes []string, fn func(i int, cols []uint32, vals []T, y T, label int32) error) error {
	st, closeFn, err := s.open(task, classes)
	if err != nil {
		return err
	}
	defer closeFn()
	for i := 0; s.limit == 0 || i < s.limit; i++ {
		cols, vals, y, label, err := st.NextSparse()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return tooWide(tooLarge(err), "", s.maxDim)
		}
		if err := fn(i, cols, vals, y, label); err != nil {
			return fmt.Errorf("%s:%d: %w", s.path, st.Line(), err)
		}
	}
	return nil
}

// streamLabelError restates a target that is not a number, where the model
// may classify, as the label it is: the stream reads class labels as
// numbers, which text labels are not.
func streamLabelError(err error, kind string) error {
	var de *dataset.Error
	if taskOf(kind) == dataset.Regression || !errors.As(err, &de) || !strings.HasPrefix(de.Msg, "target ") || !strings.HasSuffix(de.Msg, " is not a number") {
		return err
	}
	e := *de
	e.Msg = fmt.Sprintf("label%s; -stream needs numeric class labels (integers, at most %d distinct values): train without -stream for text labels",
		strings.TrimPrefix(de.Msg, "target"), dataset.MaxAutoClasses)
	return &e
}

// libsvmWidth returns the largest feature index of a LIBSVM file (see
// dataset.LIBSVMDim).
func libsvmWidth(path string, maxBytes, maxLine int64, maxDim int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	d, err := dataset.LIBSVMDim(f, path, dataset.LIBSVMOptions{MaxDim: maxDim, MaxBytes: maxBytes, MaxLine: maxLine})
	return d, tooLarge(err)
}

func streamTrain[T batch.Float](e *env, f *trainFlags, opt cvar.Options) error {
	start := time.Now()
	df := f.data
	format, err := formatOf(df.data, df.format.value)
	if err != nil {
		return err
	}
	if format != "csv" && format != "libsvm" {
		return usagef("-stream reads CSV or LIBSVM files, not %s", format)
	}
	if df.test != "" {
		return usagef("-stream evaluates on its validation split; -test is not supported")
	}
	if st, err := os.Stat(df.data); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; -stream reads its data several times", df.data)
	}
	src := &streamSource[T]{path: df.data, format: format, target: df.target, noHeader: df.noHeader, limit: df.limit, maxBytes: df.maxMemory.option(), maxLine: df.maxLine.option(), maxDim: df.maxDim}
	if format == "libsvm" {
		if src.dim, err = libsvmWidth(df.data, src.maxBytes, src.maxLine, src.maxDim); err != nil {
			return err
		}
	}

	// Pass 0: the number of rows (and of non-zeros), and the split.
	nRows, nnz := 0, 0
	if format == "libsvm" {
		err = src.eachSparse(dataset.Regression, nil, func(_ int, cols []uint32, _ []T, _ T, _ int32) error {
			nRows, nnz = nRows+1, nnz+len(cols)
			return nil
		})
	} else {
		err = src.each(dataset.Regression, nil, func(int, []T, T, int32) error { nRows++; return nil })
	}
	if err != nil {
		return streamLabelError(err, f.model.value)
	}
	// A LIBSVM file below the -sparse density streams its rows' non-zeros:
	// every pass, the training step (Online.ObserveSparse) and the chunks of
	// the metrics cost the non-zeros, not N×D or D a row.
	sparse := format == "libsvm" && float64(nnz) < df.sparse*float64(nRows)*float64(src.dim)
	if nRows < 2 {
		return fmt.Errorf("%s: %d samples cannot be split into non-empty training and validation sets", df.data, nRows)
	}
	split, err := dataset.NewSplitter(nRows, 0, f.seed)
	if err != nil {
		return err
	}

	// Pass 1: the training rows' moments and the targets.
	var (
		nAll     int
		moments  dataset.RunningStandardizer[T]
		yMoments dataset.RunningTargetScaler
		targets  dataset.TaskInference
		maxAbsY  float64
		features []string
	)
	target := func(i int, y T) bool {
		nAll++
		yv := float64(y)
		targets.Add(yv)
		if !split.Train(i) {
			return false
		}
		maxAbsY = math.Max(maxAbsY, math.Abs(yv))
		yMoments.Add(yv) // for the target's standardisation
		return true
	}
	mode := scaleMode(df.scale.value, format, sparse)
	var scaler *dataset.RunningScaler[T] // sparse, or maxabs: scaling without centring
	if sparse || mode == "maxabs" {
		scaler = dataset.NewRunningScaler[T](src.dim)
	}
	if sparse {
		err = src.eachSparse(dataset.Regression, nil, func(i int, cols []uint32, vals []T, y T, _ int32) error {
			if !target(i, y) {
				return nil
			}
			return scaler.AddSparse(cols, vals)
		})
	} else {
		err = src.each(dataset.Regression, nil, func(i int, x []T, y T, _ int32) error {
			if !target(i, y) {
				return nil
			}
			if scaler != nil {
				if err := scaler.Add(x); err != nil {
					return err
				}
			}
			return moments.Add(x)
		})
	}
	if err != nil {
		return err
	}
	nTrain := moments.N()
	if sparse {
		nTrain = scaler.N()
	}
	if nAll != nRows || nTrain != split.NTrain() {
		return fmt.Errorf("%s: %d rows on one pass, %d on the next; the file changed while it was read", df.data, nRows, nAll)
	}
	st, closeFn, err := src.open(dataset.Regression, nil)
	if err != nil {
		return err
	}
	features = st.Features()
	d := st.D()
	closeFn()
	var z *dataset.Standardizer
	switch {
	case mode == "maxabs":
		z = scaler.MaxAbs()
	case sparse:
		z = scaler.Scaler()
	default:
		z = moments.Standardizer()
	}
	prep := dataset.Preprocessing{Mean: z.Mean, Scale: z.Scale}
	if mode == "none" {
		prep = dataset.Preprocessing{}
	} else if mode == "unit" {
		prep = dataset.Preprocessing{Divide: 255}
	}

	// The task and the classes, as the in-memory readers infer them from
	// numeric targets.
	task := taskOf(f.model.value)
	if task == dataset.TaskAuto {
		task = targets.Task()
	}
	var classes []string
	if task == dataset.Classification {
		if classes = targets.Classes(); classes == nil {
			return fmt.Errorf("%s: -stream needs numeric class labels (integers, at most %d distinct values)", df.data, dataset.MaxAutoClasses)
		}
		if len(classes) < 2 {
			return fmt.Errorf("%s: every label is %s; classification needs at least two classes", df.data, classes[0])
		}
	}
	kind := f.model.value
	if kind == "auto" {
		switch {
		case task == dataset.Regression:
			kind = batch.KindLinear
		case len(classes) == 2:
			kind = batch.KindLogistic
		default:
			kind = batch.KindSoftmax
		}
	}
	if err := checkModel[T](kind, d, len(classes), f.hidden, f.threads, 1, df.maxMemory); err != nil {
		return err
	}
	model, err := batch.NewModel[T](kind, d, len(classes), f.hidden)
	if err != nil {
		return fmt.Errorf("%s: %w", df.data, err)
	}
	pre := func(x []T) error { return dataset.Preprocess(&prep, x, d) }
	// preSparse scales a row's non-zeros in place as PreprocessDataset
	// scales sparse data (no centring: prep's means are 0).
	preSparse := func(cols []uint32, vals []T) {
		if prep.Divide > 0 {
			inv := 1 / prep.Divide
			for p, v := range vals {
				vals[p] = T(float64(v) * inv)
			}
		}
		if prep.Scale != nil {
			for p, c := range cols {
				vals[p] = T((float64(vals[p]) - 0) / prep.Scale[c])
			}
		}
	}
	fitY := func(y T) float64 { return float64(y) }
	if task == dataset.Regression && df.scaleY.value == "zscore" {
		ts := yMoments.TargetScaler()
		prep.TargetMean, prep.TargetScale = ts.Mean, ts.Scale
		maxAbsY = (maxAbsY + math.Abs(ts.Mean)) / prep.TargetScale // a bound on the standardised |y|
		fitY = func(y T) float64 { return (float64(y) - prep.TargetMean) / prep.TargetScale }
	}

	// Pass 2: max ‖x‖ of the standardised training rows, for the theorems.
	if opt.Rule == cvar.TheoremStep && (opt.LR == 0 || (opt.Method == cvar.Alg4 && opt.Eps == 0)) {
		var maxNorm2 float64
		norm := func(x []T) {
			var s float64
			for _, v := range x {
				s += float64(v) * float64(v)
			}
			maxNorm2 = math.Max(maxNorm2, s)
		}
		if sparse {
			err = src.eachSparse(task, classes, func(i int, cols []uint32, vals []T, _ T, _ int32) error {
				if split.Train(i) {
					preSparse(cols, vals)
					norm(vals)
				}
				return nil
			})
		} else {
			err = src.each(task, classes, func(i int, x []T, _ T, _ int32) error {
				if !split.Train(i) {
					return nil
				}
				if err := pre(x); err != nil {
					return err
				}
				norm(x)
				return nil
			})
		}
		if err != nil {
			return err
		}
		opt.Scale = batch.Scale{MaxNorm: math.Sqrt(maxNorm2), MaxAbsY: maxAbsY}
	}

	// Pass 3: training.
	passes := max(f.epochs, 1)
	if err := checkEpochs(passes, nTrain); err != nil {
		return err
	}
	opt.Steps, opt.Epochs, opt.Batch = nTrain*passes, 0, 0
	k := len(classes)
	online, err := cvar.NewOnline(model, d, k, opt)
	if err != nil {
		return trainError(err)
	}
	defer online.Close()
	bar := newProgress(e, "training", nTrain*passes)
	for range passes {
		if sparse {
			err = src.eachSparse(task, classes, func(i int, cols []uint32, vals []T, y T, label int32) error {
				if !split.Train(i) {
					return nil
				}
				preSparse(cols, vals)
				bar.add(1)
				return online.ObserveSparse(cols, vals, fitY(y), int(label))
			})
		} else {
			err = src.each(task, classes, func(i int, x []T, y T, label int32) error {
				if !split.Train(i) {
					return nil
				}
				if err := pre(x); err != nil {
					return err
				}
				bar.add(1)
				return online.Observe(x, fitY(y), int(label))
			})
		}
		if err != nil {
			bar.finish()
			return trainError(err)
		}
	}
	bar.finish()
	res := online.Result()
	td := &trainingData[T]{kind: kind, prep: prep, source: cvar.Provenance{Kind: format, Name: df.data, N: nTrain}}
	factor, err := td.unscale(model, res.Theta)
	if err != nil {
		return err
	}
	res.Tau *= factor
	res.Params.Tau0 *= factor

	// Pass 4: every row's loss, in chunks.
	alphas := unionAlphas(res.Params.Alpha)
	ev, err := cvar.NewEvaluator(model, f.threads)
	if err != nil {
		return err
	}
	defer ev.Close()
	// Up to 4096 rows a chunk, and dense chunks of at most 64 MiB: a wide
	// file read dense takes fewer rows a chunk (the losses do not depend on
	// the chunking).
	chunk := 4096
	if !sparse {
		chunk = max(1, min(chunk, (64<<20)/(d*int(unsafe.Sizeof(T(0))))))
	}
	var (
		buf     []T
		indptr  = []int64{0} // sparse: the chunk's rows in CSR
		cols    []uint32
		ys      []T
		labels  []int32
		rows    []bool // in the training split
		losses  [2][]float64
		correct [2][]bool
	)
	flush := func() error {
		n := len(rows)
		if n == 0 {
			return nil
		}
		var data *batch.Data[T]
		var err error
		yv, lv := ys, labels
		if k > 0 {
			yv = nil
		} else {
			lv = nil
		}
		if sparse {
			data, err = batch.NewSparseData(indptr, cols, buf, n, d, yv, lv, k)
		} else {
			data, err = batch.NewData(buf, n, d, yv, lv, k)
		}
		if err != nil {
			return err
		}
		ls, err := ev.Losses(res.Theta, data)
		if err != nil {
			return err
		}
		var pred []int
		if k > 0 {
			if pred, err = ev.Predictions(res.Theta, data); err != nil {
				return err
			}
		}
		for r, tr := range rows {
			s := 1
			if tr {
				s = 0
			}
			losses[s] = append(losses[s], float64(ls[r]))
			if k > 0 {
				correct[s] = append(correct[s], pred[r] == int(labels[r]))
			}
		}
		buf, ys, labels, rows = buf[:0], ys[:0], labels[:0], rows[:0]
		indptr, cols = indptr[:1], cols[:0]
		return nil
	}
	add := func(i int, y T, label int32) error {
		ys, labels, rows = append(ys, y), append(labels, label), append(rows, split.Train(i))
		if len(rows) == chunk {
			return flush()
		}
		return nil
	}
	if sparse {
		err = src.eachSparse(task, classes, func(i int, c []uint32, vals []T, y T, label int32) error {
			preSparse(c, vals)
			buf, cols = append(buf, vals...), append(cols, c...)
			indptr = append(indptr, int64(len(cols)))
			return add(i, y, label)
		})
	} else {
		buf = make([]T, 0, chunk*d)
		err = src.each(task, classes, func(i int, x []T, y T, label int32) error {
			buf = append(buf, x...)
			if err := pre(buf[len(buf)-d:]); err != nil {
				return err
			}
			return add(i, y, label)
		})
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	if format == "csv" {
		td.source.Target, td.source.NoHeader = df.target, df.noHeader
	}
	td.train = &dataset.Dataset[T]{D: d, Classes: classes, Features: features}
	rep := &trainReport{
		Model:  modelInfo{Kind: kind, D: d, K: k, Precision: f.precision.value, Classes: classes, Data: df.data + " (streamed)"},
		Method: opt.Method.String(), Alpha: res.Params.Alpha, Tau: jsonfloat.Lossy(res.Tau), Domain: opt.Domain.String(),
		Params: paramsJSON(res.Params), Metrics: map[string]metrics{}, params: res.Params, alphas: alphas,
	}
	if kind == batch.KindMLP {
		rep.Model.Hidden = f.hidden
	}
	for s, name := range []string{"training", "validation"} {
		m, err := cvar.MetricsOf(losses[s], correct[s], alphas...)
		if err != nil {
			return err
		}
		rep.Metrics[name] = metrics(m)
		rep.order = append(rep.order, name)
	}
	return finishTraining(e, f, td, model, res, rep, start)
}
