package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// The output of experiment: the table of results as text, Markdown, CSV
// and JSON rows, and the verdicts.

// metricNamesOf are the table's metrics, in the paper's order: CVaR at each
// α, accuracy, mean loss.
func metricNamesOf(alphas []float64) (names, titles []string) {
	for _, a := range alphas {
		names = append(names, "cvar_"+alphaKey(a))
		titles = append(titles, "CVaR_"+alphaKey(a))
	}
	return append(names, "accuracy", "mean_loss"), append(titles, "accuracy", "mean loss")
}

// expRow is one row of the table (and of -json).
type expRow struct {
	Dataset  string             `json:"dataset"`
	Method   string             `json:"method"`
	Title    string             `json:"title"`
	Alpha    float64            `json:"alpha"`
	Metrics  map[string]meanStd `json:"-"`
	Raw      map[string]meanStd `json:"raw"`
	Selected []selected         `json:"selected"`
	Failed   int                `json:"failed_runs"`
	// Below says, for CVaR-SGD, whether its mean CVaRs are below each
	// baseline's ("vanilla", "minibatch").
	Below    map[string]bool `json:"below,omitempty"`
	Diverged []divergedRun   `json:"diverged"`
}

// divergedRun is a run that diverged, for -json.
type divergedRun struct {
	Seed  int     `json:"seed"`
	LR    float64 `json:"lr"`
	WD    float64 `json:"wd"`
	Error string  `json:"error"`
}

type meanStd struct {
	Mean jsonfloat.Lossy `json:"mean"`
	Std  jsonfloat.Lossy `json:"std"`
}

type selected struct {
	Seed int     `json:"seed"`
	LR   float64 `json:"lr"`
	WD   float64 `json:"wd"`
}

// MarshalJSON puts each metric's {mean, std} at the top level of the row.
// Lists are lists when empty too ([], not null).
func (r expRow) MarshalJSON() ([]byte, error) {
	diverged, sel := r.Diverged, r.Selected
	if diverged == nil {
		diverged = []divergedRun{}
	}
	if sel == nil {
		sel = []selected{}
	}
	obj := map[string]any{
		"dataset": r.Dataset, "method": r.Method, "title": r.Title, "alpha": r.Alpha,
		"raw": r.Raw, "selected": sel, "failed_runs": r.Failed, "diverged": diverged,
		"normalised_to": "vanilla",
	}
	if r.Below != nil {
		obj["below"] = r.Below
	}
	for k, v := range r.Metrics {
		obj[k] = v
	}
	return json.Marshal(obj)
}

// markBelow records, for each CVaR-SGD row, whether its mean validation
// CVaRs (raw, at every reported α) are below Vanilla-SGD's and below
// CVaR-on-Minibatch's at the same α.
func markBelow(cfg *expConfig, rows []expRow) {
	find := func(method string, alpha float64) *expRow {
		for i := range rows {
			if rows[i].Method == method && (method == "vanilla" || rows[i].Alpha == alpha) {
				return &rows[i]
			}
		}
		return nil
	}
	for i := range rows {
		r := &rows[i]
		if r.Method != "alg3" {
			continue
		}
		r.Below = map[string]bool{}
		for _, ref := range []string{"vanilla", "minibatch"} {
			o := find(ref, r.Alpha)
			if o == nil {
				continue
			}
			below := true
			for _, a := range cfg.evalAlphas {
				k := "cvar_" + alphaKey(a)
				below = below && float64(r.Raw[k].Mean) < float64(o.Raw[k].Mean)
			}
			r.Below[ref] = below
		}
	}
}

// verdicts are the lines that say, per data set and α, whether CVaR-SGD's
// CVaRs are below the baselines'.
func verdicts(cfg *expConfig, rows []expRow) []string {
	var out []string
	word := func(b bool) string {
		if b {
			return "below"
		}
		return "NOT below"
	}
	for _, r := range rows {
		if r.Below == nil {
			continue
		}
		var ratios []string
		for _, a := range cfg.evalAlphas {
			k := "cvar_" + alphaKey(a)
			ratios = append(ratios, fmt.Sprintf("CVaR_%s %.3f×", alphaKey(a), float64(r.Metrics[k].Mean)))
		}
		out = append(out, fmt.Sprintf("%s, α = %s: CVaR-SGD's CVaRs are %s Vanilla-SGD's (%s) and %s CVaR-on-Minibatch's.",
			r.Dataset, alphaKey(r.Alpha), word(r.Below["vanilla"]), strings.Join(ratios, ", "), word(r.Below["minibatch"])))
	}
	return out
}

// runError is the message of a run that failed, without the library's
// prefixes, on one line.
func runError(j *runResult) string { return plainMessage(j.err) }

// reportDivergence prints a line on w for every run that diverged; when
// every run diverged there is nothing to compare, and it returns an error.
func reportDivergence(w io.Writer, results []*dsResult) error {
	total, diverged := 0, 0
	for _, r := range results {
		total += r.total
		diverged += len(r.diverged)
		for _, j := range r.diverged {
			fmt.Fprintf(w, "cvar experiment: %s, seed %d: %s\n", r.name, j.seed+1, runError(j))
		}
	}
	if total > 0 && diverged == total {
		return fmt.Errorf("all %d training runs diverged (each is listed above); try smaller -lrs or larger -wds", total)
	}
	return nil
}

func isDivergence(err error) bool {
	var div *cvar.DivergenceError
	return errors.As(err, &div)
}

// metricValues returns the table's metrics in metricNamesOf's order.
func metricValues(m metrics, alphas []float64) []float64 {
	var out []float64
	for _, a := range alphas {
		out = append(out, m.tail(a).CVaR)
	}
	return append(out, m.Accuracy, m.MeanLoss)
}

// summarise returns the mean and sample standard deviation (0 for one
// value) of the finite values; NaN when there is none.
func summarise(xs []float64) meanStd {
	var sum float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return meanStd{Mean: jsonfloat.Lossy(math.NaN()), Std: jsonfloat.Lossy(math.NaN())}
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return meanStd{Mean: jsonfloat.Lossy(mean), Std: jsonfloat.Lossy(std)}
}

func fmtMeanStd(v meanStd) string {
	if math.IsNaN(float64(v.Mean)) {
		return "-"
	}
	return fmt.Sprintf("%.3f ± %.3f", float64(v.Mean), float64(v.Std))
}

func printText(w io.Writer, cfg *expConfig, rows []expRow, took time.Duration) error {
	fmt.Fprintf(w, "Validation metrics, mean ± std over %d seed(s); CVaR and mean loss divided by Vanilla-SGD's (accuracy as is).\n", cfg.seeds)
	fmt.Fprintf(w, "α ∈ {%s}, %d epochs, batch %d, grid lr ∈ {%s} × weight decay ∈ {%s} selected by %s.\n\n",
		joinFloats(cfg.alphas), cfg.epochs, cfg.batch, joinFloats(cfg.lrs), joinFloats(cfg.wds), cfg.selection())
	table := func(pick func(expRow) map[string]meanStd) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "dataset\tmethod\t%s\n", strings.Join(cfg.titles, "\t"))
		for i, r := range rows {
			ds := r.Dataset
			if i > 0 && rows[i-1].Dataset == ds {
				ds = ""
			}
			cells := []string{ds, r.Title}
			for _, name := range cfg.names {
				cells = append(cells, fmtMeanStd(pick(r)[name]))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		return tw.Flush()
	}
	if err := table(func(r expRow) map[string]meanStd { return r.Metrics }); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, v := range verdicts(cfg, rows) {
		fmt.Fprintln(w, v)
	}
	fmt.Fprintf(w, "\nRaw values:\n\n")
	if err := table(func(r expRow) map[string]meanStd { return r.Raw }); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSelected (lr, weight decay) per seed:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		var parts []string
		for _, s := range r.Selected {
			parts = append(parts, fmt.Sprintf("(%g, %g)", s.LR, s.WD))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Dataset, r.Title, strings.Join(parts, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d training runs in %.1f s\n", len(rows)*cfg.seeds*len(cfg.lrs)*len(cfg.wds), took.Seconds())
	return nil
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = alphaKey(x)
	}
	return strings.Join(parts, ", ")
}

func printMarkdown(w io.Writer, cfg *expConfig, rows []expRow) error {
	table := func(caption string, pick func(expRow) map[string]meanStd) {
		fmt.Fprintf(w, "%s\n\n", caption)
		fmt.Fprintf(w, "| dataset | method | %s |\n", strings.Join(cfg.titles, " | "))
		fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---:|", len(cfg.titles)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | %s |", r.Dataset, r.Title)
			for _, name := range cfg.names {
				fmt.Fprintf(w, " %s |", fmtMeanStd(pick(r)[name]))
			}
			fmt.Fprintln(w)
		}
	}
	table(fmt.Sprintf("Validation metrics, mean ± std over %d seed(s), α ∈ {%s}, %d epochs, selected by %s; CVaR and mean loss relative to Vanilla-SGD, accuracy as is.",
		cfg.seeds, joinFloats(cfg.alphas), cfg.epochs, cfg.selection()), func(r expRow) map[string]meanStd { return r.Metrics })
	fmt.Fprintln(w)
	for _, v := range verdicts(cfg, rows) {
		fmt.Fprintf(w, "- %s\n", v)
	}
	fmt.Fprintln(w)
	table("Raw values:", func(r expRow) map[string]meanStd { return r.Raw })
	return nil
}

func printCSV(w io.Writer, cfg *expConfig, rows []expRow) error {
	head := []string{"dataset", "method", "alpha"}
	for _, prefix := range []string{"", "raw_"} {
		for _, name := range cfg.names {
			head = append(head, prefix+name+"_mean", prefix+name+"_std")
		}
	}
	fmt.Fprintln(w, strings.Join(head, ","))
	num := func(v jsonfloat.Lossy) string {
		if math.IsNaN(float64(v)) {
			return ""
		}
		return fmt.Sprintf("%g", float64(v))
	}
	for _, r := range rows {
		rec := []string{csvField(r.Dataset), r.Method, alphaKey(r.Alpha)}
		for _, m := range []map[string]meanStd{r.Metrics, r.Raw} {
			for _, name := range cfg.names {
				rec = append(rec, num(m[name].Mean), num(m[name].Std))
			}
		}
		fmt.Fprintln(w, strings.Join(rec, ","))
	}
	return nil
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
