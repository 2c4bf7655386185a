package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/report"
	"github.com/cvarlearn/cvar/internal/trainflag"
)

// defaultRadius is the radius of the ball K that train uses when the step
// size comes from a theorem (-lr theorem) for Alg1–3. Those need a bounded
// K. It applies when neither -radius nor -box is given. With z-scored
// features a linear model with ‖θ‖ ≤ 10 can reach margins of 10·‖x‖. That
// is far beyond what a classifier needs. So the ball rarely binds, while
// it keeps D = 20 and the loss bound L finite.
const defaultRadius = 10

const trainSynopsis = `cvar train [flags]

Trains a model on -data (default: built-in synthetic data), split 2/3 for
training and 1/3 for validation with -seed, and prints the final training,
validation (and -test) metrics with the resolved parameters. -o writes the
model file, which eval and predict read.

By default every method steps with η = 0.01 (0.001 for alg1, alg2 and alg4,
which take one sample a step) on the raw losses; alg1–4 start τ at the VaR_α
of the losses at the starting point and step it with η/α, alg2–4 smooth with
ε = 0.05 × that VaR_α, and alg3 and alg4 return their last iterate (alg1 and
alg2 the average). -tune picks η, the weight decay and ε on the validation
split instead. -lr theorem takes η and ε from the method's theorem, with its
bound — worst-case guarantees, very conservative in practice; alg1–3 then
need a bounded K: a ball of radius 10 unless -radius or -box says otherwise.
-stream trains alg1 or alg4 on a CSV or LIBSVM file read one row at a time.`

// trainFlags are the flags of train (experiment shares some of them).
type trainFlags struct {
	*trainflag.Flags
	data      *dataFlags
	objective *choice
	blend     float64
	trim      float64
	rho       float64
	groupLR   float64
	steps     int
	threads   int
	radius    float64
	box       boxFlag
	stream    bool
	tune      bool
	tuneTrims *floatList
	tuneRhos  *floatList
}

func addTrainFlags(fs *flag.FlagSet) *trainFlags {
	f := &trainFlags{
		Flags: trainflag.Add(fs, trainflag.Program{
			Methods: []string{"alg1", "alg2", "alg3", "alg4", "vanilla", "minibatch"}, Method: "alg3",
			Selects: []string{"accuracy", "cvar", "loss"}, Step: true, Grid: true,
		}),
		data: addDataFlags(fs, dataForTrain), objective: objectiveChoice(),
	}
	fs.Var(f.objective, "objective", "`objective` minimised: blend (λ·mean + (1−λ)·CVaR_α, the default but for vanilla's mean), cvar (CVaR_α, the paper's), trimmed (CVaR_α without each minibatch's largest ε-fraction), chi2 (χ²-DRO of radius ρ; -rho names it) or group (the worst group's mean loss, with -group; -group-lr names it)")
	fs.Float64Var(&f.blend, "blend", 0, "objective blend: the mean's weight `λ` ∈ (0, 1] (0: 0.5)")
	fs.Float64Var(&f.trim, "trim", 0, "objectives blend and trimmed: the fraction `ε` ∈ (0, 1) of each minibatch's largest losses left out of its CVaR (0: none for blend, 0.05 for trimmed)")
	fs.Float64Var(&f.rho, "rho", 0, "objective chi2: the χ² radius `ρ` > 0 (0: 1 when -objective chi2)")
	fs.Float64Var(&f.groupLR, "group-lr", 0, "objective group: the step size `η_q` of the group weights (0: 0.01)")
	fs.IntVar(&f.steps, "steps", 0, "number of updates T (0: from -epochs)")
	fs.IntVar(&f.threads, "threads", 0, "worker threads (0: all cores; more than the cores are clamped to them)")
	fs.Float64Var(&f.radius, "radius", 0, "K is the L2 ball of this radius (0: see above)")
	fs.Var(&f.box, "box", "K is the box [lo, hi]^p, given as `lo,hi`")
	fs.BoolVar(&f.stream, "stream", false, "alg1 or alg4 only: read the CSV or LIBSVM -data file as a stream, one row at a time")
	fs.BoolVar(&f.tune, "tune", false, "train on the training split over the grid -tune-lrs × -tune-wds (× -tune-eps for alg2–4), all runs spread over the cores, and keep the setting -select picks on the validation split")
	grid := cvar.Grid{}.WithDefaults()
	f.tuneRhos = nonNegList("χ² radius", grid.Rho...)
	fs.Var(f.tuneRhos, "tune-rhos", "-tune's χ² radii of objective chi2 without -rho, each positive, a comma-separated `list`")
	f.tuneTrims = nonNegList("trim", grid.Trim...)
	fs.Var(f.tuneTrims, "tune-trims", "-tune's trims of objectives blend and trimmed, each in [0, 1), a comma-separated `list`")
	return f
}

// options turns the flags into library options, with the default K.
func (f *trainFlags) options() (cvar.Options, error) {
	opt, err := f.Flags.Options()
	if err != nil {
		return opt, usagef("%v", err)
	}
	opt.Steps, opt.Threads = f.steps, f.threads
	method := opt.Method
	for name, v := range map[string]float64{"-radius": f.radius, "-blend": f.blend, "-trim": f.trim, "-rho": f.rho, "-group-lr": f.groupLR} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return opt, usagef("%s %v must be finite and ≥ 0", name, v)
		}
	}
	if err := f.setObjective(&opt); err != nil {
		return opt, err
	}
	for name, v := range map[string]int{"-steps": f.steps, "-threads": f.threads} {
		if v < 0 {
			return opt, usagef("%s %d must be ≥ 0", name, v)
		}
	}
	if uint64(f.steps) > cvar.MaxSteps {
		return opt, usagef("-steps %d exceeds %d, the most steps a run may take", f.steps, uint64(cvar.MaxSteps))
	}
	switch {
	case f.radius > 0 && f.box.set:
		return opt, usagef("give -radius or -box, not both")
	case f.radius > 0:
		opt.Domain = cvar.Ball(f.radius)
	case f.box.set:
		opt.Domain = cvar.Box(f.box.lo, f.box.hi)
	case f.LR.Theorem && f.LR.Value == 0 && (method == cvar.Alg1 || method == cvar.Alg2 || method == cvar.Alg3):
		opt.Domain = cvar.Ball(defaultRadius)
	}
	if method == cvar.Alg4 && opt.Domain != (cvar.Domain{}) {
		return opt, usagef("alg4 is unconstrained (K = R^d): drop -radius and -box")
	}
	if (method == cvar.Alg1 || method == cvar.Alg2 || method == cvar.Alg4) && f.Batch > 1 {
		return opt, usagef("%v takes one sample per step; -batch %d needs alg3, vanilla or minibatch", method, f.Batch)
	}
	if f.stream && f.data.storage.Value != "auto" && f.data.storage.Value != f.Precision.Value {
		return opt, usagef("-stream reads one dense row at a time: drop -storage %s", f.data.storage.Value)
	}
	if f.stream && method != cvar.Alg1 && method != cvar.Alg4 {
		return opt, usagef("-stream needs an online method: -method alg1 or alg4")
	}
	if f.tune && (f.stream || f.LR.Theorem || f.LR.Value > 0 || f.WD > 0) {
		return opt, usagef("-tune picks the step size and weight decay itself: drop -stream, -lr and -wd")
	}
	return opt, f.checkTuneGrid(&opt)
}

// checkTuneGrid refuses a -tune grid with a zero step size or ε fraction:
// the library would read 0 as its default. It refuses a grid of more
// settings than the library tries.
func (f *trainFlags) checkTuneGrid(opt *cvar.Options) error {
	for _, lr := range f.TuneLRs.Values {
		if lr == 0 {
			return usagef("-tune-lrs: a step size must be positive")
		}
	}
	for _, e := range f.TuneEps.Values {
		if e == 0 {
			return usagef("-tune-eps: an ε fraction must be positive")
		}
	}
	for _, t := range f.tuneTrims.Values {
		if t >= 1 {
			return usagef("-tune-trims: a trim must be below 1")
		}
	}
	for _, r := range f.tuneRhos.Values {
		if r == 0 {
			return usagef("-tune-rhos: a χ² radius must be positive")
		}
	}
	if !f.tune {
		return nil
	}
	_, err := f.tuneGrid().Trials(*opt)
	if big := (*cvar.GridSizeError)(nil); errors.As(err, &big) {
		return usagef("-tune-lrs × -tune-wds × -tune-eps × -tune-trims (or -tune-rhos) make %d settings, more than %d", big.Settings, cvar.MaxGridSettings)
	}
	if err != nil {
		return usagef("%v", err)
	}
	return nil
}

// tuneGrid is the grid of -tune's lists. cvar.Grid.Trials expands it, so
// the command counts settings as Tune tries them.
func (f *trainFlags) tuneGrid() cvar.Grid {
	return cvar.Grid{LR: f.TuneLRs.Values, WeightDecay: f.TuneWDs.Values, EpsFraction: f.TuneEps.Values, Trim: f.tuneTrims.Values, Rho: f.tuneRhos.Values}
}

// parseTrain turns train's command line into its flags and the library
// options. It checks everything that can be checked without the data.
func parseTrain(e *env, args []string) (*trainFlags, cvar.Options, error) {
	fs := newFlagSet("cvar train")
	f := addTrainFlags(fs)
	if err := parseFlags(e, fs, trainSynopsis, args); err != nil {
		return nil, cvar.Options{}, err
	}
	if err := f.data.check(); err != nil {
		return nil, cvar.Options{}, err
	}
	opt, err := f.options()
	if err != nil {
		return nil, cvar.Options{}, err
	}
	if f.threads, err = threadsFlag(f.threads); err != nil {
		return nil, cvar.Options{}, err
	}
	opt.Threads = f.threads
	return f, opt, nil
}

func cmdTrain(e *env, args []string) error {
	f, opt, err := parseTrain(e, args)
	if err != nil {
		return err
	}
	if err := f.checkTrainStorage(); err != nil {
		return err
	}
	if err := f.data.checkMaxDim(); err != nil {
		return err
	}
	if err := checkNew(f.Out, f.Force, f.data.inputs()); err != nil {
		return err
	}
	if f.stream {
		if f.data.data == "" {
			return usagef("-stream needs a -data file")
		}
		if f.data.group != "" || f.data.groupFile != "" {
			return usagef("-stream reads no groups: drop -group and -group-file, or train without -stream")
		}
		if f.Precision.Value == cvar.F32 {
			return streamTrain[float32](e, f, opt)
		}
		return streamTrain[float64](e, f, opt)
	}
	if f.Precision.Value == cvar.F32 {
		return trainRun[float32](e, f, opt)
	}
	return trainRun[float64](e, f, opt)
}

func trainRun[T batch.Float](e *env, f *trainFlags, opt cvar.Options) error {
	start := time.Now()
	td, err := loadTrainingData[T](f.data, f.Model.Value, f.Seed)
	if err != nil {
		return err
	}
	opt.Groups = td.train.Groups // what Group DRO weighs
	fit, err := td.fitData()
	if err != nil {
		return err
	}
	train, err := td.batchOf(td.train)
	if err != nil {
		return err
	}
	val, err := td.batchOf(td.val)
	if err != nil {
		return err
	}
	if err := checkModelRows[T](f.data, td.kind, td.train.D, td.train.K(), f.Hidden, f.threads, f.Batch, td.train.N); err != nil {
		return err
	}
	model, err := batch.NewModel[T](td.kind, td.train.D, td.train.K(), f.Hidden)
	if err != nil {
		return err
	}
	if err := model.Check(fit); err != nil {
		return err
	}
	epochs := opt.Epochs
	if epochs == 0 {
		epochs = opt.Method.DefaultEpochs(fit.N, opt.Batch)
	}
	if opt.Steps > 0 {
		epochs = 0 // no bar: the number of passes is not known here
	} else if err := checkEpochs(epochs, stepsPerEpoch(opt.Method, opt.Batch, fit.N)); err != nil {
		return err
	}
	if f.tune { // Tune keeps the parameters of every setting
		trials, err := f.tuneGrid().Trials(opt) // checked by parseTrain
		if err != nil {
			return err
		}
		need, _ := product(math.MaxInt64, len(trials), model.NumParams(), int(unsafe.Sizeof(T(0))))
		what := fmt.Sprintf("the parameters of -tune's %d settings", len(trials))
		if err := checkMemory(what, int64(min(need, math.MaxInt64)), f.data.maxMemory); err != nil {
			return err
		}
	}
	var (
		res   *cvar.Result[T]
		tuned *cvar.Tuned[T]
	)
	if f.tune {
		if tuned, err = tune(e, f, opt, model, fit, td); err != nil {
			return trainError(err)
		}
		res = tuned.Result
	} else {
		bar := newProgress(e, "training", epochs)
		opt.OnEpoch = func(cvar.EpochInfo) error { bar.add(1); return nil }
		res, err = cvar.Train(model, fit, opt)
		bar.finish()
		if err != nil {
			return trainError(err)
		}
	}
	factor, err := td.unscale(model, res.Theta)
	if err != nil {
		return err
	}
	res.Tau *= factor
	res.Params.Tau0 *= factor
	shown := epsInTargetUnits(res.Params, factor) // the report's; the model file keeps the run's
	rep := &trainReport{
		Model:  modelInfo{Kind: td.kind, D: td.train.D, K: td.train.K(), Precision: f.Precision.Value, Storage: compactStorage(fit), Classes: td.train.Classes, Data: dataName(td.source)},
		Method: opt.Method.String(), Alpha: res.Params.Alpha, Tau: jsonfloat.Lossy(res.Tau), Domain: opt.Domain.String(),
		Params: paramsJSON(shown), Metrics: map[string]metrics{}, params: shown,
		alphas: report.Alphas(res.Params.Alpha), standardised: factor != 1,
	}
	if td.kind == batch.KindMLP {
		rep.Model.Hidden = f.Hidden
	}
	if tuned != nil {
		rep.Tune = tuneReportOf(f, tuned, factor, res.Params.Alpha)
	}
	ev, err := cvar.NewEvaluator(model, f.threads)
	if err != nil {
		return err
	}
	defer ev.Close()
	sets := []struct {
		name string
		ds   *dataset.Dataset[T]
	}{{"training", td.train}, {"validation", td.val}, {"test", td.test}}
	for _, s := range sets {
		if s.ds == nil {
			continue
		}
		data := train
		switch s.name {
		case "validation":
			data = val
		case "test":
			if data, err = td.batchOf(s.ds); err != nil {
				return err
			}
		}
		m, err := ev.Metrics(res.Theta, data, rep.alphas...)
		if err != nil {
			return err
		}
		rep.Metrics[s.name] = metrics(m)
		rep.order = append(rep.order, s.name)
	}
	if err := checkValidation(rep, ev, res.Theta, val, td.val, f.Seed, f.threads); err != nil {
		return err
	}
	return finishTraining(e, f, func() *cvar.ModelFile { return cvar.NewModelFile(model, res, td.train, td.prep, td.source) }, rep, start)
}

// trainError explains a divergence.
func trainError(err error) error {
	var div *cvar.DivergenceError
	if errors.As(err, &div) {
		return fmt.Errorf("%w; try a smaller -lr or a bounded K (-radius)", err)
	}
	// Name the flags where the library names its options.
	msg := strings.NewReplacer("give Eps", "give -eps", "give LR, or bound K with a ball or box", "give -lr, or bound K with -radius or -box").Replace(err.Error())
	if msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

func dataName(s cvar.Provenance) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Kind
}

// finishTraining writes the model file that modelFile makes when -o asks
// for one. It then prints the report of a training run, in memory or
// streamed.
func finishTraining(e *env, f *trainFlags, modelFile func() *cvar.ModelFile, rep *trainReport, start time.Time) error {
	if f.Out != "" {
		mf := modelFile()
		if err := writeNew(f.Out, f.Force, f.data.inputs(), func(w io.Writer) error { return cvar.SaveModel(w, mf) }); err != nil {
			return err
		}
		rep.ModelFile = f.Out
	}
	rep.Seconds = time.Since(start).Seconds()
	if f.JSON {
		return writeJSON(e.stdout, rep)
	}
	return rep.print(e.stdout)
}

// tune runs cvar.Tune for -tune on the training split. It validates on
// fitVal: the validation split with the fitted targets' scaling. It draws
// no progress bar: Tune trains its settings at once and reports no
// progress.
func tune[T batch.Float](e *env, f *trainFlags, opt cvar.Options, model batch.Model[T], fit *batch.Data[T], td *trainingData[T]) (*cvar.Tuned[T], error) {
	fitVal, err := td.fitVal()
	if err != nil {
		return nil, err
	}
	to := cvar.TuneOptions{
		Grid:    f.tuneGrid(),
		Threads: f.threads,
	}
	to.Select = f.Selection()
	return cvar.Tune(model, fit, fitVal, opt, to)
}
