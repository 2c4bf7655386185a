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
	"github.com/cvarlearn/cvar/beam/cvarbeam"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/outfile"
	"github.com/cvarlearn/cvar/internal/report"
	"github.com/cvarlearn/cvar/internal/trainflag"
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
	*trainflag.Flags
	in    *inputFlags
	scale *trainflag.Scale
	cfg   cvarbeam.TrainOptions
}

// program is what cvarbeam's training flags take: the minibatch methods,
// whose local steps a round averages, and the rules Tune picks by.
func program(tune bool) trainflag.Program {
	return trainflag.Program{Methods: []string{"alg3", "vanilla", "minibatch"}, Method: "alg3", Selects: []string{"cvar", "loss"}, Step: !tune, Grid: tune}
}

func addTrainFlags(fs *flag.FlagSet, tune bool) *trainFlags {
	f := &trainFlags{Flags: trainflag.Add(fs, program(tune)), scale: trainflag.AddScale(fs)}
	c := &f.cfg
	fs.IntVar(&c.Dim, "dim", 0, "LIBSVM: the number of features (0: the largest index in the training rows)")
	fs.Float64Var(&c.SparseBelow, "sparse", 0.1, "LIBSVM: hold the rows sparse when their density is below this `fraction` (0: always dense)")
	fs.Float64Var(&c.Hold, "hold", 1.0/3, "`fraction` of the rows held out for validation (0: none)")
	if !tune {
		fs.IntVar(&c.RoundsPerEpoch, "rounds-per-epoch", 0, "averaging rounds in each epoch (0: as few as keep each round to 64 local steps); more bring the average closer to one machine's run, and are needed for the mlp, whose averages are sound only near a shared start")
	}
	return f
}

// check resolves the flags into the configuration.
func (f *trainFlags) check() error {
	opt, err := f.Options()
	if err != nil {
		return err
	}
	if opt.Rule == cvar.TheoremStep {
		return errors.New("-lr theorem: cvarbeam takes a step size")
	}
	c := &f.cfg
	c.Input, c.Kind, c.Hidden, c.Precision = f.in.in, f.Model.Value, f.Hidden, f.Precision.Value
	c.Options = opt
	c.Scale, c.ScaleTarget = f.scale.Features, f.scale.Target()
	if c.SparseBelow == 0 {
		c.SparseBelow = -1
	}
	if c.Hold == 0 {
		c.Hold = -1
	}
	if math.IsNaN(c.Hold) || math.IsInf(c.Hold, 0) {
		return fmt.Errorf("-hold %v must be finite", c.Hold)
	}
	if f.Out == "" {
		return errors.New("-o is required: the model file to write")
	}
	return outfile.Check(f.Out, f.Force, localInputs(c.Input.Glob))
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
		var t *cvarbeam.Tuned
		t, err = cvarbeam.Tune(ctx, cvarbeam.TuneOptions{TrainOptions: f.cfg, Grid: f.Grid(), Select: f.Selection()}, r)
		if err == nil {
			tr, rep.Tune = &t.Trained, tuneReportOf(t, f.Select.Value, f.cfg.Alpha)
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
	if err := outfile.Write(f.Out, f.Force, localInputs(f.cfg.Input.Glob), save); err != nil {
		return err
	}
	m := tr.Model
	rep.Model, rep.Method, rep.Alpha, rep.Tau, rep.Params = report.ModelOf(m), m.Method.String(), m.Alpha, jsonfloat.Lossy(m.Tau), m.Params
	rep.Metrics = map[string]map[string]any{"training": flat(tr.Training)}
	if tr.Validation != nil {
		rep.Metrics["validation"] = flat(*tr.Validation)
	}
	rep.ModelFile, rep.Seconds = f.Out, time.Since(start).Seconds()
	if f.JSON {
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
