// Package trainflag defines the training flags that cvar train and
// cvarbeam train share, once: their names, defaults, help and checks, and
// the library options they make.
package trainflag

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// Program says what a program's training flags accept where the programs
// differ.
type Program struct {
	// Methods are the -method choices, Method the default.
	Methods []string
	Method  string
	// Selects are the -select rules, the first the default.
	Selects []string
	// Step registers -lr and -wd, the step size and weight decay of one
	// run; Grid registers -select and -tune-lrs, -tune-wds and -tune-eps,
	// the grid that picks them.
	Step, Grid bool
}

// methodHelp and selectHelp explain each choice.
var (
	methodHelp = map[string]string{
		"alg1": "alg1", "alg2": "alg2", "alg3": "alg3 (CVaR-SGD)", "alg4": "alg4",
		"vanilla": "vanilla (mean loss)", "minibatch": "minibatch (CVaR of each minibatch)",
	}
	selectHelp = map[string]string{
		"accuracy": "accuracy (largest validation accuracy, ties by CVaR_α; regression: mean loss)",
		"cvar":     "cvar (smallest validation CVaR_α, which a few wrong labels own)",
		"loss":     "loss (smallest validation mean loss, the paper's)",
	}
)

// Flags are the shared training flags' values.
type Flags struct {
	Model, Method, Smooth, Precision, Select *Choice
	Alpha                                    Alpha
	LR                                       Step
	Eps, WD                                  float64
	Epochs, Batch, Hidden                    int
	Seed                                     uint64
	TuneLRs, TuneWDs, TuneEps                *FloatList
	Out                                      string
	Force, JSON                              bool
}

// Add registers the shared training flags on fs.
func Add(fs *flag.FlagSet, p Program) *Flags {
	grid := cvar.Grid{}.WithDefaults()
	f := &Flags{
		Model: NewChoice("auto", append([]string{"auto"}, batch.Kinds()...)...), Method: NewChoice(p.Method, p.Methods...),
		Smooth: NewChoice("softplus", "softplus", "quadratic"), Precision: NewChoice(cvar.F64, cvar.F32, cvar.F64),
		Select: NewChoice(p.Selects[0], p.Selects...), Alpha: cvar.DefaultAlpha,
		TuneLRs: NonNegList("step size", grid.LR...), TuneWDs: NonNegList("weight decay", grid.WeightDecay...),
		TuneEps: NonNegList("eps fraction", grid.EpsFraction...),
	}
	fs.Var(f.Model, "model", "`model`: logistic, softmax, linear (least squares), lad (least absolute deviations), mlp, or auto (logistic for 2 classes, softmax for more, linear for real targets)")
	fs.Var(f.Method, "method", "training `method`: "+helpOf(p.Methods, methodHelp))
	fs.Var(&f.Alpha, "alpha", "tail fraction `α` ∈ (0, 1] whose CVaR is minimised")
	fs.Var(f.Smooth, "smooth", "`smoothing` of the plus function (alg2–4): softplus or quadratic")
	fs.Float64Var(&f.Eps, "eps", 0, "smoothing ε of alg2–4 (0: 0.05 × the initial VaR_α, or the theorem's value with -lr theorem)")
	fs.IntVar(&f.Epochs, "epochs", 0, "passes over the training data (0: 1 for alg1, alg2, alg4; for the others 10, or enough for 1000 steps on small data)")
	fs.IntVar(&f.Batch, "batch", 0, "minibatch size of alg3, vanilla and minibatch (0: 512)")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed of the split and the training")
	fs.Var(f.Precision, "precision", "floating-point `precision`: f32 or f64")
	fs.IntVar(&f.Hidden, "hidden", batch.DefaultHidden, "hidden units of the mlp")
	fs.StringVar(&f.Out, "o", "", "write the model to this `file` (default: no file)")
	fs.BoolVar(&f.Force, "force", false, "replace the -o file if it exists (never a data file)")
	fs.BoolVar(&f.JSON, "json", false, "print the results as JSON")
	if p.Step {
		fs.Var(&f.LR, "lr", "step size `η`, or theorem for the step size and smoothing of the method's theorem (default 0.001 for alg1, alg2 and alg4, which take one sample a step, and for alg3 with -batch 1; 0.01 for the others)")
		fs.Float64Var(&f.WD, "wd", 0, "weight decay λ")
	}
	if p.Grid {
		fs.Var(f.Select, "select", "-tune's `rule`: "+helpOf(p.Selects, selectHelp))
		fs.Var(f.TuneLRs, "tune-lrs", "-tune's step sizes, a comma-separated `list`")
		fs.Var(f.TuneWDs, "tune-wds", "-tune's weight decays, a comma-separated `list`")
		fs.Var(f.TuneEps, "tune-eps", "-tune's ε as fractions of the initial VaR_α (alg2–4), each positive, a comma-separated `list`")
	}
	return f
}

// helpOf lists the help of each choice.
func helpOf(choices []string, help map[string]string) string {
	parts := make([]string, len(choices))
	for i, c := range choices {
		parts[i] = help[c]
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Options turns the flags into library options, with an error naming the
// flag for a value the library would refuse.
func (f *Flags) Options() (cvar.Options, error) {
	var method cvar.Method
	var smooth cvar.Smoothing
	if err := errors.Join(method.UnmarshalText([]byte(f.Method.Value)), smooth.UnmarshalText([]byte(f.Smooth.Value))); err != nil {
		return cvar.Options{}, err
	}
	opt := cvar.Options{
		Method: method, Alpha: float64(f.Alpha), Smoothing: smooth, Eps: f.Eps, LR: f.LR.Value, Rule: f.LR.Rule(),
		WeightDecay: f.WD, Epochs: f.Epochs, Batch: f.Batch, Seed: f.Seed,
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"-eps", f.Eps}, {"-wd", f.WD}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return opt, fmt.Errorf("%s %v must be finite and ≥ 0", c.name, c.v)
		}
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"-epochs", f.Epochs}, {"-batch", f.Batch}} {
		if c.v < 0 {
			return opt, fmt.Errorf("%s %d must be ≥ 0", c.name, c.v)
		}
	}
	if uint64(f.Epochs) > cvar.MaxSteps {
		return opt, fmt.Errorf("-epochs %d exceeds %d, the most steps a run may take", f.Epochs, uint64(cvar.MaxSteps))
	}
	if f.Hidden < 1 {
		return opt, fmt.Errorf("-hidden %d must be at least 1", f.Hidden)
	}
	return opt, nil
}

// Grid is -tune's grid.
func (f *Flags) Grid() cvar.Grid {
	return cvar.Grid{LR: f.TuneLRs.Values, WeightDecay: f.TuneWDs.Values, EpsFraction: f.TuneEps.Values}
}

// Selection is -select's rule.
func (f *Flags) Selection() cvar.Selection {
	switch f.Select.Value {
	case "loss":
		return cvar.SelectLoss
	case "accuracy":
		return cvar.SelectAccuracy
	}
	return cvar.SelectCVaR
}
