package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/beam/cvarbeam"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/outfile"
	"github.com/cvarlearn/cvar/internal/report"
)

const trainSynopsis = `cvarbeam train -data GLOB -o MODEL [flags]

Trains a model on the rows of the files GLOB names by data-parallel
CVaR-SGD: a first pass fits the preprocessing (z-score for data held dense,
max-abs for sparse) on the training rows; then, each round, every part of
the data runs local steps of -method from the broadcast parameters and τ,
its minibatch its share of -batch, and the parameters and τ are averaged,
weighted by the samples drawn, -rounds-per-epoch rounds an epoch. -hold
of the rows (1/3 by default, by a hash of -seed and the row's place) are
held out for validation. CSV class labels may be texts, as for cvar train. The model file is an ordinary one:
cvar eval and cvar predict read it.`

const tuneSynopsis = `cvarbeam tune -data GLOB -o MODEL [flags]

Trains every setting of the grid -tune-lrs × -tune-wds (× -tune-eps for
alg3) as a work item of one pipeline, each on all the training rows read
into one worker's memory, and keeps the setting -select picks on the
held-out rows, as cvar train -tune does.`

type trainFlags struct {
	in       *inputFlags
	cfg      cvarbeam.TrainOptions
	method   string
	smooth   string
	out      string
	force    bool
	json     bool
	selectBy string
	lrs, wds floatList
	eps      floatList
	scaleY   string
}

func addTrainFlags(fs *flag.FlagSet, tune bool) *trainFlags {
	f := &trainFlags{}
	c := &f.cfg
	fs.StringVar(&c.Kind, "model", "auto", "`model`: logistic, softmax, linear, lad, mlp, or auto (logistic for 2 classes, softmax for more, linear for real targets)")
	fs.StringVar(&f.method, "method", "alg3", "training `method`: alg3 (CVaR-SGD), vanilla (mean loss) or minibatch (CVaR of each minibatch)")
	fs.Float64Var(&c.Alpha, "alpha", 0.1, "tail fraction `α` ∈ (0, 1] whose CVaR is minimised")
	fs.StringVar(&f.smooth, "smooth", "softplus", "`smoothing` of the plus function (alg3): softplus or quadratic")
	fs.Float64Var(&c.Eps, "eps", 0, "smoothing ε of alg3 (0: 0.05 × the initial VaR_α of the first round's parts, averaged)")
	fs.IntVar(&c.Batch, "batch", 0, "the global minibatch: the samples the parts' local minibatches draw together a step (0: 512)")
	fs.IntVar(&c.Epochs, "epochs", 0, "passes over the training rows (0: cvar train's default for all the training rows)")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed of the hold-out, the start and the local runs")
	fs.StringVar(&c.Precision, "precision", cvar.F64, "floating-point `precision`: f32 or f64")
	fs.StringVar(&c.Scale, "scale", "auto", "feature preprocessing `mode`: auto (zscore for data held dense, maxabs for sparse), zscore, maxabs or none")
	fs.StringVar(&f.scaleY, "scale-target", "zscore", "regression target `mode`: zscore (train on standardised targets; the model is in the target's units) or none")
	fs.IntVar(&c.Hidden, "hidden", batch.DefaultHidden, "hidden units of the mlp")
	fs.IntVar(&c.Dim, "dim", 0, "LIBSVM: the number of features (0: the largest index in the training rows)")
	fs.Float64Var(&c.SparseBelow, "sparse", 0.1, "LIBSVM: hold the rows sparse when their density is below this `fraction` (0: always dense)")
	fs.Float64Var(&c.Hold, "hold", 1.0/3, "`fraction` of the rows held out for validation (0: none)")
	fs.StringVar(&f.out, "o", "", "write the model to this `file`")
	fs.BoolVar(&f.force, "force", false, "replace the -o file if it exists")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON")
	if tune {
		fs.StringVar(&f.selectBy, "select", "cvar", "`rule`: cvar (smallest validation CVaR_α) or loss (smallest validation mean loss)")
		def := cvar.DefaultGrid()
		f.lrs, f.wds, f.eps = def.LR, def.WeightDecay, def.EpsFraction
		fs.Var(&f.lrs, "tune-lrs", "the step sizes, a comma-separated `list`")
		fs.Var(&f.wds, "tune-wds", "the weight decays, a comma-separated `list`")
		fs.Var(&f.eps, "tune-eps", "ε as fractions of the initial VaR_α (alg3), a comma-separated `list`")
	} else {
		fs.Float64Var(&c.LR, "lr", 0, "step size `η` (0: 0.01)")
		fs.Float64Var(&c.WeightDecay, "wd", 0, "weight decay λ")
		fs.IntVar(&c.RoundsPerEpoch, "rounds-per-epoch", 0, "averaging rounds in each epoch (0: as few as keep each round to 64 local steps); more bring the average closer to one machine's run, and are needed for the mlp, whose averages are sound only near a shared start")
	}
	return f
}

// check resolves the flags that need it.
func (f *trainFlags) check() error {
	c := &f.cfg
	c.Input = f.in.in
	m, err := cvar.ParseMethod(f.method)
	if err != nil {
		return errors.New("-method " + f.method + ": want alg3, vanilla or minibatch")
	}
	c.Method = m
	if c.Smoothing, err = cvar.ParseSmoothing(f.smooth); err != nil {
		return errors.New("-smooth " + f.smooth + ": want softplus or quadratic")
	}
	if c.SparseBelow == 0 {
		c.SparseBelow = -1
	}
	if c.Hold == 0 {
		c.Hold = -1
	}
	switch f.scaleY {
	case "zscore":
		c.ScaleTarget = true
	case "none":
	default:
		return errors.New("-scale-target " + f.scaleY + ": want zscore or none")
	}
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return fmt.Errorf("-alpha %v is outside (0, 1]", c.Alpha)
	}
	for name, v := range map[string]float64{"-lr": c.LR, "-wd": c.WeightDecay, "-eps": c.Eps, "-hold": c.Hold} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 && name != "-hold" {
			return fmt.Errorf("%s %v must be finite and ≥ 0", name, v)
		}
	}
	if f.out == "" {
		return errors.New("-o is required: the model file to write")
	}
	return outfile.Check(f.out, f.force, localInputs(c.Input.Glob))
}

// localInputs are the local files a glob names: no output replaces one.
func localInputs(glob string) []outfile.Input {
	if strings.Contains(glob, "://") {
		return nil
	}
	files, _ := filepath.Glob(glob)
	in := make([]outfile.Input, len(files))
	for i, f := range files {
		in[i] = outfile.Input{Flag: "-data", Path: f}
	}
	return in
}

// trainReport is what train and tune print, with cvar train's keys.
type trainReport struct {
	Model     report.Model              `json:"model"`
	Method    string                    `json:"method"`
	Alpha     float64                   `json:"alpha"`
	Tau       jsonfloat.Lossy           `json:"tau"`
	Params    cvar.Params               `json:"params"`
	Metrics   map[string]map[string]any `json:"metrics"`
	ModelFile string                    `json:"model_file"`
	Rounds    int                       `json:"rounds,omitempty"`
	Seconds   float64                   `json:"seconds"`
	Tune      *tuneReport               `json:"tune,omitempty"`
}

type tuneReport struct {
	Select string           `json:"select"`
	Alpha  float64          `json:"alpha"`
	Trials []map[string]any `json:"trials"`
	Best   int              `json:"best"`
}

func flat(m cvar.Metrics) map[string]any {
	obj := map[string]any{"n": m.N, "mean_loss": jsonfloat.Lossy(m.MeanLoss), "accuracy": jsonfloat.Lossy(m.Accuracy)}
	for _, t := range m.Tails {
		a := fmtAlpha(t.Alpha)
		obj["cvar_"+a], obj["var_"+a] = jsonfloat.Lossy(t.CVaR), jsonfloat.Lossy(t.VaR)
	}
	return obj
}

func cmdTrain(ctx context.Context, args []string, stdout io.Writer, tune bool) error {
	name, synopsis := "cvarbeam train", trainSynopsis
	if tune {
		name, synopsis = "cvarbeam tune", tuneSynopsis
	}
	var f *trainFlags
	df, r, err := setup(name, synopsis, args, stdout, func(fs *flag.FlagSet) { f = addTrainFlags(fs, tune) })
	if err != nil {
		return err
	}
	f.in = df
	if err := f.check(); err != nil {
		return err
	}
	start := time.Now()
	var (
		tr  *cvarbeam.Trained
		rep = &trainReport{}
	)
	if tune {
		sel := cvar.SelectCVaR
		switch f.selectBy {
		case "cvar":
		case "loss":
			sel = cvar.SelectLoss
		default:
			return errors.New("-select " + f.selectBy + ": want cvar or loss")
		}
		var t *cvarbeam.Tuned
		t, err = cvarbeam.Tune(ctx, cvarbeam.TuneOptions{TrainOptions: f.cfg, Grid: cvar.Grid{LR: f.lrs, WeightDecay: f.wds, EpsFraction: f.eps}, Select: sel}, r)
		if err == nil {
			tr, rep.Tune = &t.Trained, tuneReportOf(t, f.selectBy, f.cfg.Alpha)
		}
	} else {
		tr, err = cvarbeam.Train(ctx, f.cfg, r)
		if err == nil {
			rep.Rounds = tr.Rounds
		}
	}
	if err != nil {
		return err
	}
	save := func(w io.Writer) error { return cvar.SaveModel(w, tr.Model) }
	if err := outfile.Write(f.out, f.force, localInputs(f.cfg.Input.Glob), save); err != nil {
		return err
	}
	m := tr.Model
	rep.Model, rep.Method, rep.Alpha, rep.Tau, rep.Params = report.ModelOf(m), m.Method.String(), m.Alpha, jsonfloat.Lossy(m.Tau), m.Params
	rep.Metrics = map[string]map[string]any{"training": flat(tr.Training)}
	if tr.Validation != nil {
		rep.Metrics["validation"] = flat(*tr.Validation)
	}
	rep.ModelFile, rep.Seconds = f.out, time.Since(start).Seconds()
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.print(stdout, tr)
}

func tuneReportOf(t *cvarbeam.Tuned, sel string, alpha float64) *tuneReport {
	r := &tuneReport{Select: sel, Alpha: alpha, Best: t.Best}
	for _, tr := range t.Trials {
		c, _ := tr.Val.TailAt(alpha)
		row := map[string]any{"lr": tr.LR, "wd": tr.WeightDecay, "cvar": jsonfloat.Lossy(c), "mean_loss": jsonfloat.Lossy(tr.Val.MeanLoss), "accuracy": jsonfloat.Lossy(tr.Val.Accuracy)}
		if tr.EpsFraction != 0 {
			row["eps_fraction"] = tr.EpsFraction
		}
		if tr.Err != nil {
			nan := jsonfloat.Lossy(math.NaN())
			row["cvar"], row["mean_loss"], row["accuracy"], row["error"] = nan, nan, nan, tr.Err.Error()
		}
		r.Trials = append(r.Trials, row)
	}
	return r
}

func (r *trainReport) print(w io.Writer, tr *cvarbeam.Trained) error {
	p := r.Params
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s on %d features, %d classes, %s, data %s\n", r.Model.Kind, r.Model.D, r.Model.K, r.Model.Precision, r.Model.Data)
	if r.Tune == nil {
		fmt.Fprintf(tw, "method\t%s, α = %s, %d rounds of averaged local steps of %d samples (n = %d)\n", r.Method, fmtAlpha(r.Alpha), r.Rounds, p.Batch, p.N)
	} else {
		fmt.Fprintf(tw, "method\t%s, α = %s, %d steps of %d samples (n = %d)\n", r.Method, fmtAlpha(r.Alpha), p.Steps, p.Batch, p.N)
	}
	fmt.Fprintf(tw, "step\tη = %.4g (%s), ε = %.4g\n", p.LR, p.LRFrom, p.Eps)
	fmt.Fprintf(tw, "τ\t%.4g\n", float64(r.Tau))
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Tune != nil {
		by := "validation CVaR_" + fmtAlpha(r.Tune.Alpha)
		if r.Tune.Select == "loss" {
			by = "validation mean loss"
		}
		fmt.Fprintf(w, "\ntuned over %d settings, picked by %s (*):\n", len(r.Tune.Trials), by)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "\tlr\twd\tε fraction\tCVaR_%s\tmean loss\taccuracy\t\n", fmtAlpha(r.Tune.Alpha))
		for i, t := range r.Tune.Trials {
			mark := ""
			if i == r.Tune.Best {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%.4g\t%.4g\t%.4g\t\n", mark, t["lr"], t["wd"], t["eps_fraction"], t["cvar"], t["mean_loss"], t["accuracy"])
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tn\tmean loss\taccuracy\t")
	for _, t := range tr.Training.Tails {
		fmt.Fprintf(tw, "CVaR_%s\t", fmtAlpha(t.Alpha))
	}
	fmt.Fprintln(tw)
	row := func(name string, m cvar.Metrics) {
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.4g\t", name, m.N, m.MeanLoss, m.Accuracy)
		for _, t := range m.Tails {
			fmt.Fprintf(tw, "%.4g\t", t.CVaR)
		}
		fmt.Fprintln(tw)
	}
	row("training", tr.Training)
	if tr.Validation != nil {
		row("validation", *tr.Validation)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s\n", r.ModelFile)
	return nil
}
