package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/experiment"
	"github.com/cvarlearn/cvar/internal/errtext"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// defaultExperimentEpochs is the number of epochs of experiment: the
// paper's 100. The built-in data has 4000 training rows, 8 minibatches an
// epoch. There the whole comparison is 3 methods × 9 settings × 3 seeds.
// Use -epochs to shorten runs on large data.
const defaultExperimentEpochs = 100

const experimentSynopsis = `cvar experiment [flags]

Reproduces the experiment of Soma & Yoshida (Section 5, and Appendix B with
-model mlp) on each -data file (comma-separated; default: the built-in data).
For each seed the data is split 2/3 for training and 1/3 for validation,
features are z-scored on the training split (MNIST: scaled to [0, 1]),
regression targets are standardised on it, and each method

  vanilla    Vanilla-SGD: minibatch SGD on the mean loss
  minibatch  CVaR-on-Minibatch: SGD on the exact CVaR_α of each minibatch
  alg3       CVaR-SGD: Algorithm 3, smoothed minibatch SGD on (w, τ), with
             the practical ε (0.05 × the initial VaR_α) unless -eps is given

is trained for -epochs with minibatches of -batch on the grid of step sizes
-lrs × weight decays -wds, the CVaR methods once for each α of -alpha. The
setting with the smallest validation mean loss is kept (-select loss, the
paper's rule), or for the CVaR methods the one with the smallest validation
CVaR_α (-select cvar). The table gives the validation CVaRs, accuracy and
mean loss, mean ± std over the seeds, with CVaR and mean loss divided by
Vanilla-SGD's on the same seed (so Vanilla-SGD is 1) and accuracy as is, as
in the paper's Figure 1; a second table gives the raw values (regression:
in the target's own units), and a line per data set says whether CVaR-SGD's
CVaRs are below Vanilla-SGD's and CVaR-on-Minibatch's. -plot writes the
curves per epoch (Figure 2) and the sorted top-α validation losses
(Figure 3).`

// expConfig is what experiment was asked for: the comparison itself
// (exp). It says where its data comes from and where its results go.
type expConfig struct {
	exp        experiment.Options
	data       *dataFlags
	files      []string
	model      *choice
	precision  string
	hidden     int
	formatOut  string
	json       bool
	plotDir    string
	plotFormat string
	force      bool
}

func cmdExperiment(e *env, args []string) error {
	fs := newFlagSet("cvar experiment")
	df := addDataFlags(fs, dataForExperiment)
	fs.Lookup("data").Usage = "comma-separated data `files` (CSV, LIBSVM), MNIST IDX directories, builtin or builtin-regression (the built-in data); empty: builtin"
	model := modelChoice()
	fs.Var(model, "model", "`model`: logistic, softmax, linear, lad, mlp, or auto (logistic for 2 classes, softmax for more, linear for real targets)")
	alphas := alphaList(0.05, 0.1)
	fs.Var(alphas, "alpha", "comma-separated tail fractions `α` ∈ (0, 1]: CVaR-on-Minibatch and CVaR-SGD run at each")
	selectBy := newChoice("loss", "loss", "cvar")
	fs.Var(selectBy, "select", "`rule` that picks each method's setting on the validation split: loss (mean loss, the paper's) or cvar (CVaR_α for the CVaR methods; Vanilla-SGD by its mean loss)")
	lrs := nonNegList("step size", 0.001, 0.005, 0.01)
	fs.Var(lrs, "lrs", "comma-separated `list` of step sizes")
	wds := nonNegList("weight decay", 0, 1e-4, 1e-3)
	fs.Var(wds, "wds", "comma-separated `list` of weight decays")
	seeds := fs.Int("seeds", 3, "number of seeds (splits and training runs), at least 1; with the data sets, methods and grid at most 100000 training runs in all")
	epochs := fs.Int("epochs", defaultExperimentEpochs, "passes over the training data (the paper: 100)")
	batchSize := fs.Int("batch", 512, "minibatch size")
	eps := fs.Float64("eps", 0, "smoothing ε of CVaR-SGD (0: 0.05 × the VaR_α of the initial losses)")
	objectives := fs.String("objectives", "", "comma-separated `objectives` (blend, trimmed, chi2) CVaR-SGD also minimises, each a row of its own at each α, with its default parameter")
	flip := fs.Float64("flip", 0, "`fraction` of each seed's training labels replaced by another class at random (classification): label noise the validation split, on which the metrics are measured, does not have")
	precision := precisionChoice(cvar.F32)
	fs.Var(precision, "precision", "floating-point `precision`: f32 or f64")
	threads := fs.Int("threads", 0, "training runs in parallel (0: all cores; more than the cores are clamped to them)")
	hidden := fs.Int("hidden", batch.DefaultHidden, "hidden units of the mlp")
	formatOut := newChoice("text", "text", "markdown", "csv")
	fs.Var(formatOut, "format-out", "table `format`: text, markdown or csv")
	jsonOut := fs.Bool("json", false, "print a JSON list of rows instead of a table")
	plotDir := fs.String("plot", "", "write the figures into this `directory` (created if needed); it evaluates every run on both splits each epoch, which can double the time")
	plotFormat := newChoice("png", "png", "svg")
	fs.Var(plotFormat, "plot-format", "figure `format`: png or svg")
	force := fs.Bool("force", false, "replace existing figure files (never a -data file)")
	if err := parseFlags(e, fs, experimentSynopsis, args); err != nil {
		return err
	}
	if err := df.check(); err != nil {
		return err
	}
	switch {
	case *seeds < 1:
		return usagef("-seeds %d must be at least 1", *seeds)
	case *epochs < 1:
		return usagef("-epochs %d must be at least 1", *epochs)
	case uint64(*epochs) > cvar.MaxSteps:
		return usagef("-epochs %d exceeds %d, the most steps a run may take", *epochs, uint64(cvar.MaxSteps))
	case *batchSize < 1:
		return usagef("-batch %d must be at least 1", *batchSize)
	case *eps < 0 || math.IsNaN(*eps) || math.IsInf(*eps, 0):
		return usagef("-eps %v must be finite and ≥ 0", *eps)
	case *hidden < 1:
		return usagef("-hidden %d must be at least 1", *hidden)
	case !(*flip >= 0 && *flip < 1):
		return usagef("-flip %v must be a fraction in [0, 1)", *flip)
	}
	objs, err := parseObjectives(*objectives)
	if err != nil {
		return err
	}
	if *threads, err = threadsFlag(*threads); err != nil {
		return err
	}
	for _, lr := range lrs.Values {
		if lr == 0 {
			return usagef("-lrs: a step size must be positive")
		}
	}
	cfg := &expConfig{
		exp: experiment.Options{
			Alphas: alphas.Values, SelectCVaR: selectBy.Value == "cvar", LRs: lrs.Values, WeightDecays: wds.Values,
			Seeds: *seeds, Epochs: *epochs, Batch: *batchSize, Eps: *eps, Threads: *threads, Curves: *plotDir != "",
			Objectives: objs, Flip: *flip,
		},
		data: df, model: model, precision: precision.Value, hidden: *hidden, formatOut: formatOut.Value,
		json: *jsonOut, plotDir: *plotDir, plotFormat: plotFormat.Value, force: *force,
	}
	cfg.files = []string{""}
	if df.data != "" {
		cfg.files = nil
		for _, p := range strings.Split(df.data, ",") {
			if p = strings.TrimSpace(p); p != "" {
				cfg.files = append(cfg.files, p)
			}
		}
		if len(cfg.files) == 0 {
			return usagef("-data lists no file")
		}
	}
	if err := df.checkMaxDim(); err != nil {
		return err
	}
	if err := cfg.checkFormats(); err != nil {
		return err
	}
	if err := cfg.checkPlots(); err != nil {
		return err
	}
	if cfg.exp.Threads == 0 {
		cfg.exp.Threads = runtime.GOMAXPROCS(0)
	}
	if err := cfg.checkRuns(); err != nil {
		return err
	}
	if cfg.precision == cvar.F32 {
		return experimentRun[float32](e, cfg)
	}
	return experimentRun[float64](e, cfg)
}

// inputs are the -data files, which no figure may replace.
func (cfg *expConfig) inputs() []input {
	var in []input
	for _, f := range cfg.files {
		if f != builtinClass && f != builtinReg {
			in = append(in, input{Flag: "-data", Path: f})
		}
	}
	return in
}

// checkFormats finds the format of every -data file ahead of any run. So
// some errors stop the experiment before the first data set's runs. A name
// whose format cannot be guessed (a usage error) is one. So is a missing
// file, and sizes too small for the built-in classification data.
func (cfg *expConfig) checkFormats() error {
	for _, f := range cfg.files {
		if f == builtinReg {
			continue
		}
		if f == "" || f == builtinClass {
			d, k := cfg.data.d, cfg.data.classes
			if modelkind.Task(cfg.model.Value) != dataset.Regression && d < 2*k+1 {
				return usagef("-d %d: the built-in classification data with %d classes needs at least %d features", d, k, 2*k+1)
			}
			continue
		}
		if _, err := formatOf(f, cfg.data.format.Value); err != nil {
			return err
		}
	}
	return nil
}

// checkRuns refuses an experiment of more than maxExperimentRuns training
// runs, or of more epochs in all than cvar.MaxSteps. It refuses -plot
// curves beyond -max-memory; they hold six numbers an epoch of every run.
func (cfg *expConfig) checkRuns() error {
	x := &cfg.exp
	runs, ok := product(maxExperimentRuns, len(cfg.files), x.Seeds, x.Rows(), len(x.LRs), len(x.WeightDecays))
	if !ok {
		return usagef("-data × -seeds × methods (by -alpha) × -lrs × -wds make %d × %d × %d × %d × %d training runs, more than %d",
			len(cfg.files), x.Seeds, x.Rows(), len(x.LRs), len(x.WeightDecays), maxExperimentRuns)
	}
	total, ok := product(cvar.MaxSteps, int(runs), x.Epochs)
	if !ok {
		return usagef("-epochs %d × %d training runs exceed %d epochs in all", x.Epochs, runs, uint64(cvar.MaxSteps))
	}
	if cfg.plotDir != "" {
		need, _ := product(math.MaxInt64, int(total), 6, 8)
		return checkMemory(fmt.Sprintf("keeping the -plot curves of %d runs of -epochs %d", runs, x.Epochs), int64(min(need, math.MaxInt64)), cfg.data.maxMemory)
	}
	return nil
}

func experimentRun[T batch.Float](e *env, cfg *expConfig) error {
	start := time.Now()
	x := cfg.exp
	grid := len(x.LRs) * len(x.WeightDecays)
	bar := newProgress(e, "experiment epochs", len(cfg.files)*x.Seeds*x.Rows()*grid*x.Epochs)
	x.Progress = bar.add
	var results []*experiment.Result
	for _, file := range cfg.files {
		df, kind := cfg.dataSet(file)
		r, err := experimentOn[T](cfg, x, &df, kind)
		if err != nil {
			bar.finish()
			return err
		}
		results = append(results, r)
	}
	bar.finish()
	if err := reportDivergence(e.stderr, results); err != nil {
		return err
	}
	var rows []experiment.Row
	for _, r := range results {
		for _, row := range r.Rows {
			if row.Failed > 0 {
				fmt.Fprintf(e.stderr, "cvar experiment: warning: %s, %s: %d of %d runs diverged and were left out of the selection\n",
					row.Dataset, row.Title, row.Failed, x.Seeds*grid)
			}
		}
		rows = append(rows, r.Rows...)
	}
	if err := cfg.writePlots(results); err != nil {
		return err
	}
	switch {
	case cfg.json:
		return writeJSON(e.stdout, rows)
	case cfg.formatOut == "markdown":
		return experiment.WriteMarkdown(e.stdout, x, rows)
	case cfg.formatOut == "csv":
		return experiment.WriteCSV(e.stdout, x, rows)
	}
	return experiment.WriteText(e.stdout, x, rows, time.Since(start))
}

// reportDivergence prints a line on w for every run that diverged. When
// every run diverged there is nothing to compare, and it returns an error.
func reportDivergence(w io.Writer, results []*experiment.Result) error {
	total, diverged := 0, 0
	for _, r := range results {
		total += r.Runs
		diverged += len(r.Diverged)
		for _, d := range r.Diverged {
			fmt.Fprintf(w, "cvar experiment: %s, seed %d: %s\n", r.Name, d.Seed, errtext.Plain(d.Err))
		}
	}
	if total > 0 && diverged == total {
		return fmt.Errorf("all %d training runs diverged (each is listed above); try smaller -lrs or larger -wds", total)
	}
	return nil
}

// dataSet is the data flags and the model kind of one -data entry. The
// entries builtin and builtin-regression name the built-in data.
func (cfg *expConfig) dataSet(file string) (dataFlags, string) {
	df := *cfg.data
	df.data = file
	kind := cfg.model.Value
	switch file {
	case builtinClass:
		df.data = ""
	case builtinReg:
		df.data = ""
		if kind == "auto" {
			kind = modelkind.For(dataset.Regression, 0)
		}
	}
	return df, kind
}

// datasetLabel names a data set in tables and figure files.
func datasetLabel(df *dataFlags, kind string) string {
	if df.data == "" {
		if modelkind.Task(kind) == dataset.Regression {
			return synthRegName
		}
		return synthClassName
	}
	return filepath.Base(strings.TrimSuffix(df.data, string(filepath.Separator)))
}

// Names of the built-in data in -data lists.
const (
	builtinClass = "builtin"            // the built-in classification data
	builtinReg   = "builtin-regression" // the built-in regression data
)

// experimentOn runs the comparison x on one data set. Each seed's split is
// preprocessed as train's. Its model is checked against -max-memory.
func experimentOn[T batch.Float](cfg *expConfig, x experiment.Options, df *dataFlags, kind string) (*experiment.Result, error) {
	full, src, err := loadFull[T](df, kind)
	if err != nil {
		return nil, err
	}
	if kind, err = autoKind(kind, full); err != nil {
		return nil, err
	}
	return experiment.Run(datasetLabel(df, kind), x, func(seed uint64) (*experiment.Data[T], error) {
		td, err := prepare(df, full, src, kind, seed, nil)
		if err != nil {
			return nil, err
		}
		d := &experiment.Data[T]{}
		if d.Fit, err = td.fitData(); err != nil {
			return nil, err
		}
		if err := checkEpochs(x.Epochs, stepsPerEpoch(cvar.Vanilla, x.Batch, d.Fit.N)); err != nil {
			return nil, err
		}
		if d.Train, err = td.train.Batch(); err != nil {
			return nil, err
		}
		if d.Val, err = td.val.Batch(); err != nil {
			return nil, err
		}
		if err := checkRunsModel[T](df, kind, d.Train.D, d.Train.K, cfg.hidden, x.Threads, x.Batch, d.Train.N); err != nil {
			return nil, err
		}
		if d.Model, err = batch.NewModel[T](kind, d.Train.D, d.Train.K, cfg.hidden); err != nil {
			return nil, err
		}
		d.Unscale = func(theta []T) error { _, err := td.unscale(d.Model, theta); return err }
		return d, nil
	})
}
