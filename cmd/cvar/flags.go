package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/trainflag"
)

// newFlagSet returns a flag set that reports its errors to the caller
// instead of printing them. So each error is one line.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args; on -h it prints the synopsis and the flags to
// stdout and returns errHelp. Positional arguments are a usage error.
func parseFlags(e *env, fs *flag.FlagSet, synopsis string, args []string) error {
	err := fs.Parse(args)
	if err == flag.ErrHelp {
		fmt.Fprintf(e.stdout, "Usage: %s\n\n", strings.TrimSpace(synopsis))
		fmt.Fprintf(e.stdout, "Flags:\n")
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return errHelp
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (flags come as -name value)", fs.Arg(0))
	}
	return nil
}

// The flag values cvar train shares with cvarbeam are trainflag's.
type (
	choice    = trainflag.Choice
	floatList = trainflag.FloatList
)

func newChoice(def string, choices ...string) *choice { return trainflag.NewChoice(def, choices...) }

func alphaList(def ...float64) *floatList { return trainflag.AlphaList(def...) }

func nonNegList(what string, def ...float64) *floatList { return trainflag.NonNegList(what, def...) }

// boxFlag is "lo,hi".
type boxFlag struct {
	set    bool
	lo, hi float64
}

func (b *boxFlag) String() string {
	if b == nil || !b.set {
		return ""
	}
	return fmt.Sprintf("%g,%g", b.lo, b.hi)
}

func (b *boxFlag) Set(s string) error {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return fmt.Errorf("%q: want lo,hi", s)
	}
	lo, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	hi, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err1 != nil || err2 != nil || !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("%q: want finite lo,hi with lo ≤ hi", s)
	}
	b.lo, b.hi, b.set = lo, hi, true
	return nil
}

// modelFlag, methodFlag and so on are the choices shared by the commands.
func modelChoice() *choice {
	return newChoice("auto", append([]string{"auto"}, batch.Kinds()...)...)
}

func methodChoice(def string) *choice {
	return newChoice(def, "alg1", "alg2", "alg3", "alg4", "vanilla", "minibatch")
}

func precisionChoice(def string) *choice { return newChoice(def, cvar.F32, cvar.F64) }

// dataFlags are the flags that say where data comes from.
type dataFlags struct {
	data     string
	format   *choice
	test     string
	target   string
	noHeader bool
	limit    int
	n, d     int
	classes  int
	scale    *trainflag.Scale
	// maxMemory bounds what reading the data holds, and the model.
	maxMemory byteSize
	// maxLine bounds a line of a CSV or LIBSVM file.
	maxLine byteSize
	// maxDim bounds the width of a LIBSVM file read without a width.
	maxDim int
	// sparse is the density below which LIBSVM data is held sparse (0: never).
	sparse float64
	// storage is -storage (nil where the command has no such flag).
	storage *choice
	// group is the CSV column of the rows' groups. groupFile is a file of
	// one group label a row.
	group, groupFile string
}

// Which data flags a command takes.
const (
	dataForTrain      = iota // all of them
	dataForExperiment        // no -test
	dataForModel             // eval and predict: no -test, -scale or sizes of the built-in data
)

// addDataFlags registers the data flags of a command.
func addDataFlags(fs *flag.FlagSet, use int) *dataFlags {
	f := &dataFlags{
		format: newChoice("", "csv", "libsvm", "idx"),
		n:      6000, d: 20, classes: 2, maxMemory: byteSize(defaultMaxMemory), maxLine: byteSize(dataset.DefaultMaxLine),
	}
	fs.Var(&f.maxMemory, "max-memory", maxMemoryUsage)
	fs.Var(&f.maxLine, "max-line", maxLineUsage)
	fs.IntVar(&f.maxDim, "max-dim", dataset.DefaultMaxDim, maxDimUsage)
	fs.StringVar(&f.data, "data", "", "data `file` (CSV, LIBSVM) or directory of MNIST IDX files; empty: built-in synthetic data")
	fs.Var(f.format, "format", "`format` of the data files: csv, libsvm or idx (default: guessed from the name)")
	fs.StringVar(&f.target, "target", "", "CSV target `column`: a header name or 0-based index (default: the last column)")
	fs.BoolVar(&f.noHeader, "no-header", false, "the CSV file has no header row")
	if use != dataForExperiment {
		fs.StringVar(&f.group, "group", "", "CSV `column` of each row's group (a header name or 0-based index; not a feature), for the metrics of each group; the built-in data: subgroup")
		fs.StringVar(&f.groupFile, "group-file", "", "`file` of one group label a line, the group of each row of -data (LIBSVM, IDX, CSV)")
	}
	fs.IntVar(&f.limit, "limit", 0, "use only the first `N` samples of each file, or of the built-in data (0: all)")
	fs.Float64Var(&f.sparse, "sparse", dataset.DefaultSparseBelow, "LIBSVM files: hold the data sparse (CSR, memory in the non-zeros) when its density is below this `fraction`; -scale zscore then scales without centring (auto: maxabs), and -stream streams the rows' non-zeros; models trained with centring read dense (0: always dense)")
	if use != dataForExperiment {
		f.storage = storageChoice()
		fs.Var(f.storage, "storage", storageUsage)
	}
	if use == dataForTrain {
		fs.StringVar(&f.test, "test", "", "held-out test `file`, evaluated after training (MNIST directories: the t10k files)")
	}
	if use != dataForModel {
		f.scale = trainflag.AddScale(fs)
		fs.IntVar(&f.n, "n", 6000, "built-in data: number of samples")
		fs.IntVar(&f.d, "d", 20, "built-in data: number of features")
		fs.IntVar(&f.classes, "classes", 2, "built-in classification data: number of classes")
	}
	return f
}

// inputs are the files the flags name, which no output may replace.
func (f *dataFlags) inputs() []input {
	return []input{{Flag: "-data", Path: f.data}, {Flag: "-test", Path: f.test}, {Flag: "-group-file", Path: f.groupFile}}
}

func (f *dataFlags) check() error {
	switch {
	case f.limit < 0:
		return usagef("-limit %d must be ≥ 0", f.limit)
	case !(f.sparse >= 0) || math.IsInf(f.sparse, 0):
		return usagef("-sparse %v must be a density ≥ 0 (0: dense)", f.sparse)
	case f.n < 2:
		return usagef("-n %d: the built-in data needs at least 2 samples", f.n)
	case f.d < 1:
		return usagef("-d %d: the built-in data needs at least 1 feature", f.d)
	case f.classes < 2:
		return usagef("-classes %d: classification needs at least 2 classes", f.classes)
	case f.classes > batch.MaxDim:
		return usagef("-classes %d exceeds %d, the most classes a model may have", f.classes, batch.MaxDim)
	case f.test != "" && f.data == "":
		return usagef("-test needs -data: the built-in data has its own validation split")
	case f.maxDim < 1 || f.maxDim > math.MaxInt32:
		return usagef("-max-dim %d is outside 1..%d, the LIBSVM indices", f.maxDim, math.MaxInt32)
	}
	return nil
}
