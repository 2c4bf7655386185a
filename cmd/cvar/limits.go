package main

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/footprint"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// maxBootstrap is the largest eval -bootstrap: 100 000 resamples give
// percentiles to well within the intervals' own sampling error; more only
// costs time.
const maxBootstrap = 100_000

// maxExperimentRuns is the largest number of training runs of experiment:
// data sets × seeds × methods × step sizes × weight decays. It keeps a
// record of every run. The paper's grid on one data set makes 135.
const maxExperimentRuns = 100_000

// product returns the product of counts ≥ 0 and whether it is at most
// limit, computed without wrapping.
func product(limit uint64, counts ...int) (uint64, bool) {
	p := uint64(1)
	for _, c := range counts {
		hi, lo := bits.Mul64(p, uint64(c))
		if hi != 0 {
			return math.MaxUint64, false
		}
		p = lo
	}
	return p, p <= limit
}

// stepsPerEpoch is the number of steps of a pass over n training rows, as
// the library counts them. Alg1, Alg2 and Alg4 take one row a step. The
// others take minibatches of batch rows (0: cvar.DefaultBatch), at most n.
func stepsPerEpoch(m cvar.Method, batchSize, n int) int {
	if m == cvar.Alg1 || m == cvar.Alg2 || m == cvar.Alg4 {
		return n
	}
	if batchSize == 0 {
		batchSize = cvar.DefaultBatch
	}
	b := min(batchSize, n)
	return (n + b - 1) / b
}

// checkEpochs fails when epochs passes of perEpoch steps exceed
// cvar.MaxSteps, the most steps a run may take. perEpoch follows from the
// number of rows. So this is a failure of the flags with the data (exit
// 1), not a usage error.
func checkEpochs(epochs, perEpoch int) error {
	if _, ok := product(cvar.MaxSteps, epochs, perEpoch); !ok {
		return fmt.Errorf("-epochs %d of %d steps each exceed %d steps, the most a run may take", epochs, perEpoch, uint64(cvar.MaxSteps))
	}
	return nil
}

// threadsFlag checks a -threads value. A negative one is a usage error.
// More threads than the cores the program may use (GOMAXPROCS) are clamped
// to them: more workers only add goroutines. Results do not depend on the
// number of threads, so clamping never changes them. 0 stays 0: all cores.
func threadsFlag(n int) (int, error) {
	if n < 0 {
		return 0, usagef("-threads %d must be ≥ 0 (0: all cores)", n)
	}
	return min(n, runtime.GOMAXPROCS(0)), nil
}

// defaultMaxMemory is the default -max-memory. It bounds what reading the
// data holds, and the model that a command may allocate.
const defaultMaxMemory = dataset.DefaultMaxBytes

// maxMemoryUsage and maxLineUsage are the help of -max-memory and -max-line.
var (
	maxMemoryUsage = fmt.Sprintf("bound on the memory the data and the model may take: reading holds the samples read (N×D values, stored densely, or the non-zeros of sparse data), their targets and the line being read, at most this plus %d MiB of fixed buffers, and stops at the line that would pass it; the model is bounded on its own; a `size` such as 8GiB or 500MB; 0: no bound", dataset.ReadOverhead>>20)
	maxDimUsage    = fmt.Sprintf("largest index of a LIBSVM file whose width is read from it (the training data; a -test file, eval and predict take the training data's or the model's width); above the default, %d bytes a feature must fit -max-memory", bytesPerFeature)
	maxLineUsage   = "longest line (a CSV record, a LIBSVM sample) a data file may hold, a `size`; a longer one stops reading at its line (0: no limit but -max-memory)"
)

// byteSize is a -max-memory value: a number of bytes with an optional
// unit. B, KB, MB, GB and TB are powers of 1000. K, M, G, T, KiB, MiB, GiB
// and TiB are powers of 1024. 0 means no bound.
type byteSize int64

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	v := int64(*b)
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v%u.size == 0 {
			return strconv.FormatInt(v/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(v, 10)
}

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != 'e' && r != 'E' && r != '+' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	}
	units := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}
	mult, okUnit := units[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !okUnit || v < 0 || math.IsNaN(v) || v*mult >= math.MaxInt64 {
		return fmt.Errorf("%q is not a size; want e.g. 8GiB, 500MB or 0 (no bound)", s)
	}
	*b = byteSize(v * mult)
	return nil
}

// bound is the limit in bytes that the value sets: 0 means none.
func (b byteSize) bound() int64 {
	if b == 0 {
		return math.MaxInt64
	}
	return int64(b)
}

// option is the value for the readers' MaxBytes option.
func (b byteSize) option() int64 {
	if b == 0 {
		return -1
	}
	return int64(b)
}

// tooLarge restates a reader's ErrTooLarge or ErrLineTooLong with the flag
// that raises the bound. Other errors pass through.
func tooLarge(err error) error {
	var de *dataset.Error
	if err == nil || !errors.As(err, &de) {
		return err
	}
	at := de.File
	if de.Line > 0 {
		at += ":" + strconv.Itoa(de.Line)
	}
	switch {
	case errors.Is(err, dataset.ErrTooLarge):
		return fmt.Errorf("%s: %s (-max-memory); give a larger -max-memory to allow it, or -limit to read fewer samples", at, de.Msg)
	case errors.Is(err, dataset.ErrLineTooLong):
		return fmt.Errorf("%s: %s (-max-line); give a larger -max-line to allow it", at, de.Msg)
	}
	return err
}

// bytesPerFeature is the least memory a feature of the data takes besides
// the data. It holds a mean and a scale of the preprocessing and a
// parameter, 8 bytes each.
const bytesPerFeature = 24

// checkMaxDim fails, before anything is allocated, when the features that
// -max-dim allows would need more than -max-memory. A feature takes
// bytesPerFeature. The default is not checked: its 24 MiB fit any useful
// bound.
func (f *dataFlags) checkMaxDim() error {
	if f.maxDim <= dataset.DefaultMaxDim {
		return nil
	}
	what := fmt.Sprintf("-max-dim %d allows data of that many features, which", f.maxDim)
	return checkMemory(what, int64(f.maxDim)*bytesPerFeature, f.maxMemory)
}

// tooWide restates a LIBSVM index above the width with what sets the
// width. That is the features of dimFrom (the model, the training data)
// when it was given. Else it is -max-dim (maxDim), which the user can
// raise.
func tooWide(err error, dimFrom string, maxDim int) error {
	var we *dataset.WidthError
	var de *dataset.Error
	if err == nil || !errors.As(err, &we) || !errors.As(err, &de) {
		return err
	}
	at := de.File
	if de.Line > 0 {
		at += ":" + strconv.Itoa(de.Line)
	}
	switch {
	case we.Given && dimFrom != "":
		return fmt.Errorf("%s: %s: index %d exceeds the %d features of %s", at, de.Msg, we.Index, we.Width, dimFrom)
	case we.Given && we.Index <= maxDim: // a stream, whose width is the file's indices' up to -max-dim
		return fmt.Errorf("%s: %s: index %d exceeds %d, the width of the file's indices up to -max-dim %d; give a larger -max-dim if the data really is that wide", at, de.Msg, we.Index, we.Width, maxDim)
	}
	return fmt.Errorf("%s: %s: index %d exceeds -max-dim %d; give a larger -max-dim if the data really is that wide", at, de.Msg, we.Index, maxDim)
}

// checkMemory fails when what needs more than the -max-memory bound.
func checkMemory(what string, need int64, limit byteSize) error {
	if need <= limit.bound() {
		return nil
	}
	return fmt.Errorf("%s needs about %s, more than the bound of %s (-max-memory); give a larger -max-memory to allow it",
		what, numtext.Bytes(need), numtext.Bytes(limit.bound()))
}

// checkModel fails, before anything is allocated, when training the model
// would need more than the -max-memory bound (see footprint.Training). It
// serves data of rows not known (a stream).
func checkModel[T batch.Float](f *dataFlags, kind string, d, k, hidden, threads, batchSize int) error {
	return checkModelRows[T](f, kind, d, k, hidden, threads, batchSize, 0)
}

// checkModelRows is checkModel on data of the given rows. Its passes hold
// the scratch of at most that many. The error names the data file whose d
// features size the model, or the built-in data. A LIBSVM file's width is
// its largest index.
func checkModelRows[T batch.Float](f *dataFlags, kind string, d, k, hidden, threads, batchSize, rows int) error {
	what := fmt.Sprintf("%s %d features make %s, which", featuresOf(f), d, modelWords(kind, hidden))
	return checkMemory(what, footprint.Training[T](kind, d, k, hidden, threads, batchSize, rows), f.maxMemory)
}

// featuresOf names the data whose features size the model: the -data file
// or the built-in data. A LIBSVM file's width is its largest index.
func featuresOf(f *dataFlags) string {
	if f.data != "" {
		return f.data + ":"
	}
	return "the built-in data's"
}

// modelWords names a model of the kind, an mlp with its -hidden units.
func modelWords(kind string, hidden int) string {
	if kind == batch.KindMLP {
		return fmt.Sprintf("an mlp of -hidden %d units", hidden)
	}
	return "a " + kind + " model"
}

// checkRunsModel is checkModelRows for experiment, which trains runs
// models at once (0: GOMAXPROCS), each on one thread with its own scratch:
// the bound covers them all.
func checkRunsModel[T batch.Float](f *dataFlags, kind string, d, k, hidden, runs, batchSize, rows int) error {
	if runs <= 0 {
		runs = runtime.GOMAXPROCS(0)
	}
	one := footprint.Training[T](kind, d, k, hidden, 1, batchSize, rows)
	need := one * int64(runs)
	if one != 0 && need/one != int64(runs) {
		need = math.MaxInt64
	}
	return checkMemory(fmt.Sprintf("%s %d features make %s, %d of them trained at once (-threads), which", featuresOf(f), d, modelWords(kind, hidden), runs), need, f.maxMemory)
}

// checkScores fails, before they are computed, when the scores eval and
// predict hold would need more than the -max-memory bound. They hold one a
// class for every row of the data file name. A model of many classes makes
// them far larger than the data.
func checkScores[T batch.Float](f *dataFlags, name string, rows, k int) error {
	var z T
	need := int64(rows) * int64(max(k, 1))
	if need > math.MaxInt64/int64(unsafe.Sizeof(z)) {
		need = math.MaxInt64
	} else {
		need *= int64(unsafe.Sizeof(z))
	}
	return checkMemory(fmt.Sprintf("%s: the scores of %d rows × %d classes, which", name, rows, k), need, f.maxMemory)
}
