package main

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// -storage: how the features are held in memory for training and
// evaluation. They are dense in the model's precision, or compact. Compact
// features are bytes with the 1/255 scale folded into the kernels, IEEE
// halves or bfloat16s. The kernels convert them as they load them.

// storageChoice is the -storage flag.
func storageChoice() *choice { return newChoice("auto", "auto", "f32", "f64", "f16", "bf16", "u8") }

const storageUsage = "how the features are held in memory: f32 or f64 (the -precision), f16 (IEEE halves, a float32 model's features rounded to half precision: 11 bits of significand, ±65504), bf16 (bfloat16s: 8 bits of significand, float32's range), u8 (a byte a feature, 8-bit images: IDX data with -scale unit or none, read at a quarter of f32's bytes), or auto (u8 for IDX data a float32 model reads with -scale unit or none, else the -precision)"

// checkStorage checks -storage s against what is known before the data is
// read. That is the precision prec: -precision's, or with fromModel the
// model file's. It is the data's format, and whether its features are
// divided by 255 or used as read (byteScaled). Its errors are usage
// errors.
func checkStorage(s, prec string, fromModel bool, format string, byteScaled bool) error {
	switch s {
	case "auto":
		return nil
	case "f32", "f64":
		switch {
		case s == prec:
			return nil
		case fromModel:
			return usagef("-storage %s: the model file holds a %s model, which reads %s features; use -storage %s (or auto)", s, prec, prec, prec)
		}
		return usagef("-storage %s with -precision %s: a %s model reads %s features; use -storage %s (or auto)", s, prec, prec, prec, prec)
	}
	// f16, bf16 or u8.
	switch {
	case prec != "f32" && fromModel:
		return usagef("-storage %s is for float32 models; the model file holds a %s model (train with -precision f32 for compact features)", s, prec)
	case prec != "f32":
		return usagef("-storage %s is for float32 models: add -precision f32", s)
	case s == dataset.StorageU8 && format != "idx":
		return usagef("-storage u8 holds 8-bit images: IDX data (MNIST's files), not %s; use f16 or f32", formatName(format))
	case s == dataset.StorageU8 && !byteScaled:
		return usagef("-storage u8 needs the pixel intensities as they are (-scale unit or none); -scale zscore centres and scales each pixel: use f32 or f16")
	}
	return nil
}

// checkTrainStorage is checkStorage for train's flags, ahead of reading.
func (f *trainFlags) checkTrainStorage() error {
	df := f.data
	if df.storage.Value == "auto" {
		return nil
	}
	format := "synthetic"
	if df.data != "" {
		var err error
		if format, err = formatOf(df.data, df.format.Value); err != nil {
			return err
		}
	}
	scale := df.scale.For(format)
	byteScaled := scale == cvar.ScaleUnit || scale == cvar.ScaleNone
	return checkStorage(df.storage.Value, f.Precision.Value, false, format, byteScaled)
}

// resolveStorage picks the storage of the features once the data is read.
// auto takes u8 where it is possible and dense otherwise. checkStorage
// checks an explicit choice, ahead of reading too. resolveStorage then
// checks it against what only the data tells: the model kind, and whether
// the data is held sparse. Those are failures of the data (exit 1), not
// usage errors. fromModel says that the precision is the model file's
// (eval, predict).
func resolveStorage[T batch.Float](f *dataFlags, fromModel bool, format, kind string, byteScaled, sparse bool) (string, error) {
	if f.storage == nil {
		return dataset.StorageDense, nil
	}
	prec := "f64"
	var z T
	if _, ok := any(z).(float32); ok {
		prec = "f32"
	}
	s := f.storage.Value
	compactModel := kind == batch.KindLogistic || kind == batch.KindSoftmax || kind == batch.KindLinear || kind == batch.KindLAD || kind == batch.KindMLP
	if s == "auto" {
		if prec == "f32" && format == "idx" && byteScaled && !sparse && compactModel {
			return dataset.StorageU8, nil
		}
		return dataset.StorageDense, nil
	}
	if err := checkStorage(s, prec, fromModel, format, byteScaled); err != nil {
		return "", err
	}
	switch {
	case s == "f32" || s == "f64":
		return dataset.StorageDense, nil
	case !compactModel:
		return "", fmt.Errorf("-storage %s: the %s model reads only dense features (f32 or f64) so far", s, kind)
	case sparse:
		return "", fmt.Errorf("-storage %s: the data is held sparse (CSR); use -sparse 0 for dense reading", s)
	}
	return s, nil
}

// checkModelStorage is checkStorage for eval and predict. It runs ahead of
// reading the data in format for the model file m.
func checkModelStorage(f *dataFlags, m *cvar.ModelFile, format string) error {
	return checkStorage(f.storage.Value, m.Precision, true, format, byteScaledModel(m))
}

// byteScaledModel reports whether m's preprocessing only divides (by 255)
// or leaves the features as read.
func byteScaledModel(m *cvar.ModelFile) bool {
	return len(m.Preprocessing.Mean) == 0 && len(m.Preprocessing.Scale) == 0
}

func formatName(format string) string {
	switch format {
	case "":
		return "the built-in data"
	case "synthetic":
		return "the built-in data"
	case "csv":
		return "CSV"
	case "libsvm":
		return "LIBSVM"
	}
	return format
}

// batchOf is ds in the storage chosen for the run.
func (td *trainingData[T]) batchOf(ds *dataset.Dataset[T]) (*batch.Data[T], error) {
	return ds.BatchAs(td.storage)
}

// compactStorage is data's storage when compact ("u8", "f16", "bf16"), else
// "".
func compactStorage[T batch.Float](data *batch.Data[T]) string {
	if data.IsCompact() {
		return data.Storage()
	}
	return ""
}

// modelBatch is ds, read for the model file m (eval, predict), in the
// storage -storage asks for. auto takes u8 for IDX data of a float32
// logistic or softmax model whose preprocessing only divides.
func modelBatch[T batch.Float](f *dataFlags, m *cvar.ModelFile, ds *dataset.Dataset[T]) (*batch.Data[T], error) {
	format := "synthetic"
	if f.data != "" {
		var err error
		if format, err = formatOf(f.data, f.format.Value); err != nil {
			return nil, err
		}
	}
	s, err := resolveStorage[T](f, true, format, m.Kind, byteScaledModel(m), ds.IsSparse())
	if err != nil {
		return nil, err
	}
	if err := checkCompact(ds, nil, s, sampleAt(f.data, specForModel(f, m, format), ds)); err != nil {
		return nil, err
	}
	return ds.BatchAs(s)
}

// checkCompact fails at the first feature of ds, in the order of its file,
// that f16 or bf16 storage cannot hold. The feature is preprocessed with
// prep first (nil: ds is preprocessed already). The error names it by
// at(i), the file's line of sample i. The conversion itself
// (dataset.BatchAs) would name a 0-based row of a split. That means
// nothing to the user.
func checkCompact[T batch.Float](ds *dataset.Dataset[T], prep *dataset.Preprocessing, storage string, at func(i int) string) error {
	if storage != dataset.StorageF16 && storage != dataset.StorageBF16 || ds.IsSparse() {
		return nil
	}
	row := make([]T, ds.D)
	for i := range ds.N {
		copy(row, ds.Row(i))
		if prep != nil {
			if err := dataset.Preprocess(prep, row, ds.D); err != nil {
				return err
			}
		}
		for j, v := range row {
			bound := "±65504"
			fits := math.Abs(float64(v)) < 65520 // what rounds to a finite half
			if storage == dataset.StorageBF16 {
				bound, fits = "±3.39e38", kernel.F32ToBF16(float32(v))&0x7f80 != 0x7f80
			}
			if !fits {
				name := ""
				if j < len(ds.Features) {
					name = fmt.Sprintf(" (%q)", ds.Features[j])
				}
				return fmt.Errorf("%s: feature %d%s: %v, as the model reads it, is beyond the range of %s storage (%s); use f32", at(i), j+1, name, v, storage, bound)
			}
		}
	}
	return nil
}

// sampleAt returns a function that names sample i of ds, 0-based, in the
// order of the file. ds was read from path as rs says. The name is
// "path:line", found by reading the CSV or LIBSVM file again up to it.
// Where no line can be found it is "path: sample i+1": IDX data, built-in
// data, a pipe.
func sampleAt[T batch.Float](path string, rs readSpec, ds *dataset.Dataset[T]) func(int) string {
	return func(i int) string {
		if line := lineOf(path, rs, ds, i); line > 0 {
			return fmt.Sprintf("%s:%d", path, line)
		}
		if path == "" {
			return fmt.Sprintf("%s: sample %d", ds.Name, i+1)
		}
		return fmt.Sprintf("%s: sample %d", path, i+1)
	}
}

// lineOf is the line of sample i of the file at path (dataset.RowLine),
// or 0 if unknown.
func lineOf[T batch.Float](path string, rs readSpec, ds *dataset.Dataset[T], i int) int {
	if path == "" {
		return 0
	}
	opt := rs.FileOptions
	opt.Task, opt.Classes, opt.Dim, opt.Limit = ds.Task, ds.Classes, ds.D, 0
	return dataset.RowLine[T](path, opt, i)
}
