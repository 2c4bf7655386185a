package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/modelkind"
	"github.com/cvarlearn/cvar/internal/report"
)

// Streaming training (train -stream) reads a CSV or LIBSVM file row by row
// with cvar.TrainStream. It never holds the file's rows. It reads the file
// several times: to count the rows, fit the scaling and measure the bounds
// a theorem needs. It reads it once a training pass, and once for the
// metrics. So the file must be a regular file, not a pipe. The split is
// the in-memory one: the same -seed puts the same rows in each part.

// streamLabelError restates a target that is not a number, where the model
// may classify, as the label it is. The stream reads class labels as
// numbers, which text labels are not.
func streamLabelError(err error, kind string) error {
	var de *dataset.Error
	if modelkind.Task(kind) == dataset.Regression || !errors.As(err, &de) || !strings.HasPrefix(de.Msg, "target ") || !strings.HasSuffix(de.Msg, " is not a number") {
		return err
	}
	e := *de
	e.Msg = fmt.Sprintf("label%s; -stream needs numeric class labels (integers, at most %d distinct values): train without -stream for text labels",
		strings.TrimPrefix(de.Msg, "target"), dataset.MaxAutoClasses)
	return &e
}

// streamSource is the -data file as a cvar.StreamSource.
func streamSource(df *dataFlags, format string) cvar.StreamSource {
	src := cvar.StreamSource{Name: df.data, Open: func() (io.ReadCloser, error) { return os.Open(df.data) }}
	maxBytes, maxLine := df.maxMemory.option(), df.maxLine.option()
	if format == "csv" {
		src.CSV = &dataset.CSVOptions{Comma: dataset.CommaOfName(df.data), Target: df.target, NoHeader: df.noHeader, Limit: df.limit, MaxBytes: maxBytes, MaxLine: maxLine}
	} else {
		src.LIBSVM = &dataset.LIBSVMOptions{MaxDim: df.maxDim, Limit: df.limit, MaxBytes: maxBytes, MaxLine: maxLine, SparseBelow: df.sparse}
	}
	return src
}

// streamModel makes the model once the stream's shape is known. It keeps
// within -max-memory and the most steps a run may take.
func streamModel[T batch.Float](f *trainFlags) func(cvar.StreamInfo) (batch.Model[T], error) {
	return func(info cvar.StreamInfo) (batch.Model[T], error) {
		k := len(info.Classes)
		if err := checkModel[T](f.data, info.Kind, info.D, k, f.Hidden, f.threads, 1); err != nil {
			return nil, err
		}
		if err := checkEpochs(max(f.Epochs, 1), info.NTrain); err != nil {
			return nil, err
		}
		model, err := batch.NewModel[T](info.Kind, info.D, k, f.Hidden)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.data.data, err)
		}
		return model, nil
	}
}

func streamTrain[T batch.Float](e *env, f *trainFlags, opt cvar.Options) error {
	start := time.Now()
	df := f.data
	format, err := formatOf(df.data, df.format.Value)
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
	opt.Steps, opt.Batch = 0, 0 // one step a row, -epochs times
	var bar *progress
	so := cvar.StreamOptions[T]{
		Options: opt, Kind: f.Model.Value, Model: streamModel[T](f),
		Scaling: df.scale.For(format), ScaleTarget: df.scale.Target(),
		Alphas: report.Alphas(float64(f.Alpha)),
		Progress: func(_, total int) {
			if bar == nil {
				bar = newProgress(e, "training", total)
			}
			bar.add(1)
		},
	}
	sr, err := cvar.TrainStream(context.Background(), streamSource(df, format), so)
	bar.finish()
	if err != nil {
		return trainError(streamLabelError(tooWide(tooLarge(err), "", df.maxDim), f.Model.Value))
	}
	res := sr.Result
	rep := &trainReport{
		Model:  modelInfo{Kind: sr.Kind, D: sr.D, K: len(sr.Classes), Precision: f.Precision.Value, Classes: sr.Classes, Data: df.data + " (streamed)"},
		Method: opt.Method.String(), Alpha: res.Params.Alpha, Tau: jsonfloat.Lossy(res.Tau), Domain: opt.Domain.String(),
		Params: paramsJSON(res.Params), Metrics: map[string]metrics{"training": metrics(sr.Training), "validation": metrics(sr.Validation)},
		params: res.Params, alphas: report.Alphas(res.Params.Alpha), order: []string{"training", "validation"},
	}
	if sr.Kind == batch.KindMLP {
		rep.Model.Hidden = f.Hidden
	}
	return finishTraining(e, f, sr.ModelFile, rep, start)
}
