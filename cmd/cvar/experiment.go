package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// defaultExperimentEpochs is the number of epochs of experiment: the
// paper's 100. On the built-in data (4000 training rows, 8 minibatches an
// epoch) the whole comparison, 3 methods × 9 settings × 3 seeds, takes a few
// seconds on 2 cores; use -epochs to shorten runs on large data.
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

// The methods of the experiment, in the paper's order.
var experimentMethods = []struct {
	method cvar.Method
	name   string // -json name
	title  string // the paper's name
}{
	{cvar.Vanilla, "vanilla", "Vanilla-SGD"},
	{cvar.MinibatchCVaR, "minibatch", "CVaR-on-Minibatch"},
	{cvar.Alg3, "alg3", "CVaR-SGD"},
}

// arm is one row of the experiment: a method, and the α it minimises (the
// CVaR methods run once per α of -alpha; Vanilla-SGD once).
type arm struct {
	method int // index in experimentMethods
	alpha  float64
}

// title is the arm's name in tables: the paper's, with α when the CVaR
// methods run at several.
func (a arm) title(multi bool) string {
	t := experimentMethods[a.method].title
	if multi && experimentMethods[a.method].method != cvar.Vanilla {
		t += " (α = " + alphaKey(a.alpha) + ")"
	}
	return t
}

// armsOf lists the arms: Vanilla-SGD, then each CVaR method at each α.
func armsOf(alphas []float64) []arm {
	arms := []arm{{method: 0, alpha: alphas[0]}}
	for _, a := range alphas {
		for m := 1; m < len(experimentMethods); m++ {
			arms = append(arms, arm{method: m, alpha: a})
		}
	}
	return arms
}

type expConfig struct {
	data       *dataFlags
	files      []string
	model      *choice
	alphas     []float64 // the CVaR methods' α, one arm each
	arms       []arm
	evalAlphas []float64 // the CVaRs the tables report
	names      []string  // metric keys, in the tables' order
	titles     []string
	selectCVaR bool // select the CVaR methods by validation CVaR_α
	lrs, wds   []float64
	seeds      int
	epochs     int
	batch      int
	eps        float64
	precision  string
	threads    int
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
	precision := precisionChoice(cvar.F32)
	fs.Var(precision, "precision", "floating-point `precision`: f32 or f64")
	threads := fs.Int("threads", 0, "training runs in parallel (0: all cores; more than the cores are clamped to them)")
	hidden := fs.Int("hidden", batch.DefaultHidden, "hidden units of the mlp")
	formatOut := newChoice("text", "text", "markdown", "csv")
	fs.Var(formatOut, "format-out", "table `format`: text, markdown or csv")
	jsonOut := fs.Bool("json", false, "print a JSON list of rows instead of a table")
	plotDir := fs.String("plot", "", "write the figures into this `directory` (created if needed)")
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
	}
	var err error
	if *threads, err = threadsFlag(*threads); err != nil {
		return err
	}
	for _, lr := range lrs.values {
		if lr == 0 {
			return usagef("-lrs: a step size must be positive")
		}
	}
	cfg := &expConfig{
		data: df, model: model, alphas: alphas.values, selectCVaR: selectBy.value == "cvar", lrs: lrs.values, wds: wds.values, seeds: *seeds,
		epochs: *epochs, batch: *batchSize, eps: *eps, precision: precision.value, threads: *threads,
		hidden: *hidden, formatOut: formatOut.value, json: *jsonOut, plotDir: *plotDir,
		plotFormat: plotFormat.value, force: *force,
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
	if cfg.threads == 0 {
		cfg.threads = runtime.GOMAXPROCS(0)
	}
	cfg.arms = armsOf(cfg.alphas)
	if err := cfg.checkRuns(); err != nil {
		return err
	}
	cfg.evalAlphas = unionAlphas(cfg.alphas...)
	cfg.names, cfg.titles = metricNamesOf(cfg.evalAlphas)
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

// checkFormats finds the format of every -data file ahead of any run, so
// that a name whose format cannot be guessed (a usage error) or a missing
// file stops the experiment before the first data set's runs; so do sizes
// too small for the built-in classification data.
func (cfg *expConfig) checkFormats() error {
	for _, f := range cfg.files {
		if f == builtinReg {
			continue
		}
		if f == "" || f == builtinClass {
			d, k := cfg.data.d, cfg.data.classes
			if cvar.ModelTask(cfg.model.value) != dataset.Regression && d < 2*k+1 {
				return usagef("-d %d: the built-in classification data with %d classes needs at least %d features", d, k, 2*k+1)
			}
			continue
		}
		if _, err := formatOf(f, cfg.data.format.value); err != nil {
			return err
		}
	}
	return nil
}

// checkRuns refuses an experiment of more than maxExperimentRuns training
// runs, or of more epochs in all than cvar.MaxSteps, and -plot curves
// (six numbers an epoch of every run) beyond -max-memory.
func (cfg *expConfig) checkRuns() error {
	runs, ok := product(maxExperimentRuns, len(cfg.files), cfg.seeds, len(cfg.arms), len(cfg.lrs), len(cfg.wds))
	if !ok {
		return usagef("-data × -seeds × methods (by -alpha) × -lrs × -wds make %d × %d × %d × %d × %d training runs, more than %d",
			len(cfg.files), cfg.seeds, len(cfg.arms), len(cfg.lrs), len(cfg.wds), maxExperimentRuns)
	}
	total, ok := product(cvar.MaxSteps, int(runs), cfg.epochs)
	if !ok {
		return usagef("-epochs %d × %d training runs exceed %d epochs in all", cfg.epochs, runs, uint64(cvar.MaxSteps))
	}
	if cfg.plotDir != "" {
		need, _ := product(math.MaxInt64, int(total), 6, 8)
		return checkMemory(fmt.Sprintf("keeping the -plot curves of %d runs of -epochs %d", runs, cfg.epochs), int64(min(need, math.MaxInt64)), cfg.data.maxMemory)
	}
	return nil
}

// runResult is one training run of the grid.
type runResult struct {
	seed, arm  int // indexes
	lr, wd     float64
	err        error
	val, train metrics
	losses     []float64 // validation losses of the final model (first seed only)
	curves     [3][2][]float64
}

// dsResult is one data set's results.
type dsResult struct {
	name     string
	rows     []expRow
	runs     []*runResult // selected runs, [seed][method]
	alphas   []float64
	total    int          // training runs
	diverged []*runResult // the runs that diverged
}

func experimentRun[T batch.Float](e *env, cfg *expConfig) error {
	start := time.Now()
	grid := len(cfg.lrs) * len(cfg.wds)
	total := len(cfg.files) * cfg.seeds * len(cfg.arms) * grid * cfg.epochs
	bar := newProgress(e, "experiment", total)
	var results []*dsResult
	for _, file := range cfg.files {
		df, kind := cfg.dataSet(file)
		r, err := experimentOn[T](cfg, &df, kind, bar)
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
	for _, r := range results {
		for _, row := range r.rows {
			if row.Failed > 0 {
				fmt.Fprintf(e.stderr, "cvar experiment: warning: %s, %s: %d of %d runs diverged and were left out of the selection\n",
					row.Dataset, row.Title, row.Failed, cfg.seeds*grid)
			}
		}
	}
	if cfg.plotDir != "" {
		if err := os.MkdirAll(cfg.plotDir, 0o755); err != nil {
			return err
		}
		for _, r := range results {
			if err := writePlots(cfg, r); err != nil {
				return err
			}
		}
	}
	var rows []expRow
	for _, r := range results {
		rows = append(rows, r.rows...)
	}
	if cfg.json {
		return writeJSON(e.stdout, rows)
	}
	switch cfg.formatOut {
	case "markdown":
		return printMarkdown(e.stdout, cfg, rows)
	case "csv":
		return printCSV(e.stdout, cfg, rows)
	}
	return printText(e.stdout, cfg, rows, time.Since(start))
}

// dataSet is the data flags and the model kind of one -data entry: the
// built-in data for builtin and builtin-regression.
func (cfg *expConfig) dataSet(file string) (dataFlags, string) {
	df := *cfg.data
	df.data = file
	kind := cfg.model.value
	switch file {
	case builtinClass:
		df.data = ""
	case builtinReg:
		df.data = ""
		if kind == "auto" {
			kind = cvar.ModelKindFor(dataset.Regression, 0)
		}
	}
	return df, kind
}

// datasetLabel names a data set in tables and figure files.
func datasetLabel(df *dataFlags, kind string) string {
	if df.data == "" {
		if cvar.ModelTask(kind) == dataset.Regression {
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

// experimentOn runs the whole grid on one data set.
func experimentOn[T batch.Float](cfg *expConfig, df *dataFlags, kind string, bar *progress) (*dsResult, error) {
	full, src, err := loadFull[T](df, kind)
	if err != nil {
		return nil, err
	}
	kind, err = autoKind(kind, full)
	if err != nil {
		return nil, err
	}
	label := datasetLabel(df, kind)
	res := &dsResult{name: label, alphas: cfg.evalAlphas}
	record := cfg.plotDir != ""
	nm := len(cfg.arms)
	best := make([][]*runResult, cfg.seeds) // [seed][arm]
	all := make([]*runResult, 0, cfg.seeds*nm*len(cfg.lrs)*len(cfg.wds))
	for s := range cfg.seeds {
		seed := uint64(s + 1)
		td, err := prepare(df, full, src, kind, seed, nil)
		if err != nil {
			return nil, err
		}
		fit, err := td.fitData()
		if err != nil {
			return nil, err
		}
		if err := checkEpochs(cfg.epochs, stepsPerEpoch(cvar.Vanilla, cfg.batch, fit.N)); err != nil {
			return nil, err
		}
		train, err := td.train.Batch()
		if err != nil {
			return nil, err
		}
		val, err := td.val.Batch()
		if err != nil {
			return nil, err
		}
		if err := checkModel[T](kind, train.D, train.K, cfg.hidden, cfg.threads, cfg.batch, df.maxMemory); err != nil {
			return nil, err
		}
		model, err := batch.NewModel[T](kind, train.D, train.K, cfg.hidden)
		if err != nil {
			return nil, err
		}
		var jobs []*runResult
		for m := range cfg.arms {
			for _, lr := range cfg.lrs {
				for _, wd := range cfg.wds {
					jobs = append(jobs, &runResult{seed: s, arm: m, lr: lr, wd: wd})
				}
			}
		}
		runJobs(cfg.threads, jobs, func(j *runResult) {
			runOne(cfg, j, model, td, fit, train, val, seed, record && s == 0, record, res.alphas, bar)
		})
		best[s] = make([]*runResult, nm)
		for _, j := range jobs {
			if j.err != nil {
				if !isDivergence(j.err) {
					return nil, j.err
				}
				continue
			}
			if b := best[s][j.arm]; b == nil || cfg.criterion(j) < cfg.criterion(b) {
				best[s][j.arm] = j
			}
		}
		all = append(all, jobs...)
		for _, j := range jobs {
			if j.err != nil {
				res.diverged = append(res.diverged, j)
			}
		}
		if !record {
			for _, j := range jobs {
				j.losses = nil
			}
		}
	}
	for m, a := range cfg.arms {
		em := experimentMethods[a.method]
		row := expRow{Dataset: label, Method: em.name, Title: a.title(len(cfg.alphas) > 1), Alpha: a.alpha,
			Metrics: map[string]meanStd{}, Raw: map[string]meanStd{}}
		raw := make([][]float64, len(cfg.names))
		norm := make([][]float64, len(cfg.names))
		for s := range cfg.seeds {
			b, v := best[s][m], best[s][0]
			if b == nil {
				for i := range cfg.names {
					raw[i] = append(raw[i], math.NaN())
					norm[i] = append(norm[i], math.NaN())
				}
				continue
			}
			row.Selected = append(row.Selected, selected{Seed: s + 1, LR: b.lr, WD: b.wd})
			vals := metricValues(b.val, cfg.evalAlphas)
			var ref []float64
			if v != nil {
				ref = metricValues(v.val, cfg.evalAlphas)
			}
			for i, x := range vals {
				raw[i] = append(raw[i], x)
				switch {
				case cfg.names[i] == "accuracy":
					norm[i] = append(norm[i], x)
				case ref == nil:
					norm[i] = append(norm[i], math.NaN())
				default:
					norm[i] = append(norm[i], x/ref[i])
				}
			}
		}
		for _, j := range all {
			if j.arm == m && j.err != nil {
				row.Failed++
				row.Diverged = append(row.Diverged, divergedRun{Seed: j.seed + 1, LR: j.lr, WD: j.wd, Error: runError(j)})
			}
		}
		for i, name := range cfg.names {
			row.Raw[name] = summarise(raw[i])
			row.Metrics[name] = summarise(norm[i])
		}
		res.rows = append(res.rows, row)
	}
	for s := range best {
		res.runs = append(res.runs, best[s]...)
	}
	markBelow(cfg, res.rows)
	res.total = len(all)
	return res, nil
}

// selection says in words how settings are selected.
func (cfg *expConfig) selection() string {
	if cfg.selectCVaR {
		return "validation CVaR_α (Vanilla-SGD: mean loss)"
	}
	return "validation mean loss"
}

// criterion is what the selection minimises for a run: the validation mean
// loss, or under -select cvar the validation CVaR at the arm's α for the
// CVaR methods.
func (cfg *expConfig) criterion(j *runResult) float64 {
	a := cfg.arms[j.arm]
	if cfg.selectCVaR && experimentMethods[a.method].method != cvar.Vanilla {
		return j.val.tail(a.alpha).CVaR
	}
	return j.val.MeanLoss
}

// runJobs runs f on every job with the given number of workers.
func runJobs(workers int, jobs []*runResult, f func(*runResult)) {
	next := make(chan *runResult)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				f(j)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}

// runOne trains one grid point on fit, on one thread, and evaluates it on
// train and val (in the target's units); with curves it records the metrics
// after every epoch, and with keepLosses the final validation losses.
func runOne[T batch.Float](cfg *expConfig, j *runResult, model batch.Model[T], td *trainingData[T], fit, train, val *batch.Data[T], seed uint64, keepLosses, curves bool, alphas []float64, bar *progress) {
	a := cfg.arms[j.arm]
	em := experimentMethods[a.method]
	opt := cvar.Options{
		Method: em.method, Alpha: a.alpha, LR: j.lr, WeightDecay: j.wd, Epochs: cfg.epochs,
		Batch: cfg.batch, Seed: seed, Threads: 1,
	}
	if em.method == cvar.Alg3 {
		opt.Eps = cfg.eps // 0: the practical ε, from the losses at the start
	}
	ev, err := cvar.NewEvaluator(model, 1)
	if err != nil {
		j.err = err
		return
	}
	defer ev.Close()
	theta := make([]T, model.NumParams())
	done := 0
	opt.OnEpoch = func(info cvar.EpochInfo) error {
		done++
		bar.add(1)
		if !curves {
			return nil
		}
		for i, v := range info.Theta {
			theta[i] = T(v)
		}
		if _, err := td.unscale(model, theta); err != nil {
			return err
		}
		for k, data := range []*batch.Data[T]{train, val} {
			m, err := ev.Metrics(theta, data, 0.1)
			if err != nil {
				return err
			}
			c, _ := m.TailAt(0.1)
			j.curves[0][k] = append(j.curves[0][k], c)
			j.curves[1][k] = append(j.curves[1][k], m.Accuracy)
			j.curves[2][k] = append(j.curves[2][k], m.MeanLoss)
		}
		return nil
	}
	res, err := cvar.Train(model, fit, opt)
	if err != nil {
		bar.add(cfg.epochs - done)
		j.err = fmt.Errorf("%s with lr %g, wd %g: %w", a.title(true), j.lr, j.wd, err)
		return
	}
	if _, err := td.unscale(model, res.Theta); err != nil {
		j.err = err
		return
	}
	m, err := ev.Metrics(res.Theta, val, alphas...)
	if err != nil {
		j.err = err
		return
	}
	j.val = metrics(m)
	if keepLosses {
		losses, err := ev.Losses(res.Theta, val)
		if err != nil {
			j.err = err
			return
		}
		j.losses = make([]float64, len(losses))
		for i, l := range losses {
			j.losses[i] = float64(l)
		}
	}
}
