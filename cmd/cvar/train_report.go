package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// The report of train: what it prints as text or JSON, -tune's trials
// included.

// trainReport is what train prints.
type trainReport struct {
	Model     modelInfo          `json:"model"`
	Method    string             `json:"method"`
	Alpha     float64            `json:"alpha"`
	Tau       jsonfloat.Lossy    `json:"tau"`
	Domain    string             `json:"domain"`
	Params    map[string]any     `json:"params"`
	Metrics   map[string]metrics `json:"metrics"`
	ModelFile string             `json:"model_file,omitempty"`
	Seconds   float64            `json:"seconds"`
	Tune      *tuneReport        `json:"tune,omitempty"`
	// Groups are the validation split's metrics by group; Collapse says
	// whether a classifier gave up on it (checkValidation).
	Groups   *cvar.GroupEvaluation `json:"validation_groups,omitempty"`
	Collapse *cvar.Collapse        `json:"collapse,omitempty"`

	params cvar.Params
	// standardised: a regression model trained on standardised targets,
	// whose constants are those of the standardised problem.
	standardised bool
	order        []string
	alphas       []float64
}

type modelInfo struct {
	Kind      string   `json:"kind"`
	D         int      `json:"d"`
	K         int      `json:"k"`
	Hidden    int      `json:"hidden,omitempty"`
	Precision string   `json:"precision"`
	Storage   string   `json:"storage,omitempty"` // the features' storage when compact (u8, f16, bf16)
	Classes   []string `json:"classes,omitempty"`
	Data      string   `json:"data"`
}

// samplingWords and outputWords name the sampling and the output in the
// text report.
var (
	samplingWords = map[batch.Sampling]string{batch.WithReplacement: "with replacement", batch.Shuffled: "shuffled epochs", batch.InOrder: "in order"}
	outputWords   = map[cvar.Output]string{cvar.OutputAverage: "the average of the iterates", cvar.OutputLast: "the last iterate", cvar.OutputRandom: "a random iterate"}
)

func (r *trainReport) print(w io.Writer) error {
	p := r.params
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	classes := ""
	if r.Model.K > 0 {
		classes = fmt.Sprintf(", %d classes", r.Model.K)
	}
	hidden := ""
	if r.Model.Hidden > 0 {
		hidden = fmt.Sprintf(", %d hidden units", r.Model.Hidden)
	}
	prec := r.Model.Precision
	if r.Model.Storage != "" {
		prec += " (" + r.Model.Storage + " features)"
	}
	fmt.Fprintf(tw, "model\t%s on %d features%s%s, %s, data %s\n", r.Model.Kind, r.Model.D, classes, hidden, prec, r.Model.Data)
	n := p.N // for alg1 and alg4, the samples consumed
	if m, ok := r.Metrics["training"]; ok {
		n = m.N // the training rows
	}
	fmt.Fprintf(tw, "method\t%s, α = %s, K = %s, %s of %s (n = %d)\n", r.Method, alphaKey(r.Alpha), r.Domain, count(p.Steps, "step"), count(p.Batch, "sample"), n)
	if s := objectiveWords(p); s != "" {
		fmt.Fprintf(tw, "objective\t%s\n", s)
	}
	fmt.Fprintf(tw, "sampling\t%s; returns %s\n", samplingWords[p.Sampling], outputWords[p.Output])
	line := fmt.Sprintf("η = %s (%s)", numtext.Short(p.LR), p.LRFrom)
	if p.EpsFrom != "" {
		line += fmt.Sprintf(", ε = %s (%s)", numtext.Short(p.Eps), p.EpsFrom)
	}
	std := ""
	if r.standardised {
		std = " of the standardised targets"
	}
	if p.L != 1 && p.Method != cvar.Vanilla && p.Method != cvar.MinibatchCVaR {
		line += fmt.Sprintf(" on losses ÷ L = %s%s", numtext.Short(p.L), std)
	}
	fmt.Fprintf(tw, "step\t%s\n", line)
	// The theorems' constants set only the theorem's step sizes and bound.
	// Under the practical rule they have no part in the run, and are +Inf
	// on K = R^d. So the report leaves them out.
	if p.Rule == cvar.TheoremStep {
		est := ""
		if p.Estimated {
			est = " (G and β estimated at the initial point)"
		}
		fmt.Fprintf(tw, "constants\tG = %s, β = %s, D = %s, L = %s, G_α = %s%s%s\n", numtext.Short(p.G), numtext.Short(p.Beta), numtext.Short(p.D), numtext.Short(p.L), numtext.Short(p.GAlpha), std, est)
	}
	if !math.IsNaN(p.Bound) {
		fmt.Fprintf(tw, "bound\texpected excess CVaR ≤ %s (%s)\n", numtext.Short(p.Bound), p.BoundFrom)
	} else {
		fmt.Fprintf(tw, "bound\tnone (%s)\n", p.BoundFrom)
	}
	if p.TauFrom != "" {
		fmt.Fprintf(tw, "τ\t%s, from %s (%s)\n", numtext.Short(float64(r.Tau)), numtext.Short(p.Tau0), p.TauFrom)
	} else {
		fmt.Fprintf(tw, "τ\t%s\n", numtext.Short(float64(r.Tau)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if r.Tune != nil {
		if err := r.Tune.print(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if err := printMetrics(w, r.order, r.Metrics, r.alphas); err != nil {
		return err
	}
	if err := r.printValidationChecks(w); err != nil {
		return err
	}
	if r.ModelFile != "" {
		fmt.Fprintf(w, "\nwrote %s\n", r.ModelFile)
	}
	return nil
}

// count is "1 step", "2 steps" and the like.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printMetrics prints one row of metrics per data set.
func printMetrics(w io.Writer, order []string, ms map[string]metrics, alphas []float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := 0
	for _, name := range order {
		width = max(width, len(name))
	}
	fmt.Fprintf(tw, "%-*s\tn\t", width, "")
	for _, a := range alphas {
		fmt.Fprintf(tw, "CVaR_%s\t", alphaKey(a))
	}
	for _, a := range alphas {
		fmt.Fprintf(tw, "VaR_%s\t", alphaKey(a))
	}
	fmt.Fprint(tw, "accuracy\tmean loss\t\n")
	for _, name := range order {
		m := ms[name]
		fmt.Fprintf(tw, "%-*s\t%d\t", width, name, m.N)
		for _, a := range alphas {
			fmt.Fprintf(tw, "%s\t", numtext.Short(m.tail(a).CVaR))
		}
		for _, a := range alphas {
			fmt.Fprintf(tw, "%s\t", numtext.Short(m.tail(a).VaR))
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", numtext.Short(m.Accuracy), numtext.Short(m.MeanLoss))
	}
	return tw.Flush()
}

// tuneReport is the grid -tune tried and its pick, in the target's units.
type tuneReport struct {
	Select string      `json:"select"`
	Alpha  float64     `json:"alpha"`
	Trials []tuneTrial `json:"trials"`
	Best   int         `json:"best"`
}

type tuneTrial struct {
	LR          float64         `json:"lr"`
	WeightDecay float64         `json:"wd"`
	EpsFraction float64         `json:"eps_fraction,omitempty"`
	Trim        float64         `json:"trim,omitempty"`
	Rho         float64         `json:"rho,omitempty"`
	CVaR        jsonfloat.Lossy `json:"cvar"`
	MeanLoss    jsonfloat.Lossy `json:"mean_loss"`
	Accuracy    jsonfloat.Lossy `json:"accuracy"`
	Error       string          `json:"error,omitempty"`
}

func tuneReportOf[T batch.Float](f *trainFlags, t *cvar.Tuned[T], lossFactor, alpha float64) *tuneReport {
	r := &tuneReport{Select: f.Select.Value, Alpha: alpha, Best: t.Best}
	for _, tr := range t.Trials {
		c, _ := tr.Val.TailAt(alpha)
		row := tuneTrial{LR: tr.LR, WeightDecay: tr.WeightDecay, EpsFraction: tr.EpsFraction, Trim: tr.Trim, Rho: tr.Rho,
			CVaR: jsonfloat.Lossy(c * lossFactor), MeanLoss: jsonfloat.Lossy(tr.Val.MeanLoss * lossFactor), Accuracy: jsonfloat.Lossy(tr.Val.Accuracy)}
		if tr.Err != nil {
			row.CVaR, row.MeanLoss, row.Accuracy, row.Error = jsonfloat.Lossy(math.NaN()), jsonfloat.Lossy(math.NaN()), jsonfloat.Lossy(math.NaN()), tr.Err.Error()
		}
		r.Trials = append(r.Trials, row)
	}
	return r
}

func (r *tuneReport) print(w io.Writer) error {
	by := "validation CVaR_" + alphaKey(r.Alpha)
	switch r.Select {
	case "loss":
		by = "validation mean loss"
	case "accuracy":
		by = "validation accuracy, then CVaR_" + alphaKey(r.Alpha)
	}
	fmt.Fprintf(w, "tuned over %d settings, picked by %s (*):\n", len(r.Trials), by)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	trims, rhos := false, false
	for _, t := range r.Trials {
		trims, rhos = trims || t.Trim > 0, rhos || t.Rho > 0
	}
	trimHead := ""
	if trims {
		trimHead = "\ttrim"
	}
	if rhos {
		trimHead += "\tρ"
	}
	fmt.Fprintf(tw, "\tlr\twd\tε fraction%s\tCVaR_%s\tmean loss\taccuracy\t\n", trimHead, alphaKey(r.Alpha))
	for i, t := range r.Trials {
		mark := ""
		if i == r.Best {
			mark = "*"
		}
		eps := "-"
		if t.EpsFraction > 0 {
			eps = numtext.Short(t.EpsFraction)
		}
		if trims {
			eps += "\t" + numtext.Short(t.Trim)
		}
		if rhos {
			eps += "\t" + numtext.Short(t.Rho)
		}
		if t.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tdiverged\t\t\t\n", mark, numtext.Short(t.LR), numtext.Short(t.WeightDecay), eps)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", mark, numtext.Short(t.LR), numtext.Short(t.WeightDecay), eps,
			numtext.Short(float64(t.CVaR)), numtext.Short(float64(t.MeanLoss)), numtext.Short(float64(t.Accuracy)))
	}
	return tw.Flush()
}
