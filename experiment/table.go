package experiment

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// The tables of the comparison: text, Markdown and CSV, and the verdicts.

// selection says in words how settings are selected.
func (cfg *Options) selection() string {
	if cfg.SelectCVaR {
		return "validation CVaR_α (Vanilla-SGD: mean loss)"
	}
	return "validation mean loss"
}

// verdicts are the lines that say whether CVaR-SGD's CVaRs are below the
// baselines'. There is one per data set and α.
func verdicts(cfg *Options, rows []Row) []string {
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
		for _, a := range cfg.reported() {
			k := "cvar_" + alphaKey(a)
			ratios = append(ratios, fmt.Sprintf("CVaR_%s %.3f×", alphaKey(a), r.Metrics[k].Mean))
		}
		out = append(out, fmt.Sprintf("%s, α = %s: CVaR-SGD's CVaRs are %s Vanilla-SGD's (%s) and %s CVaR-on-Minibatch's.",
			r.Dataset, alphaKey(r.Alpha), word(r.Below["vanilla"]), strings.Join(ratios, ", "), word(r.Below["minibatch"])))
	}
	return out
}

func (v MeanStd) text() string {
	if math.IsNaN(v.Mean) {
		return "-"
	}
	return fmt.Sprintf("%.3f ± %.3f", v.Mean, v.Std)
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = alphaKey(x)
	}
	return strings.Join(parts, ", ")
}

// WriteText writes the rows of the comparison cfg, which took took, as
// aligned text. It writes the metrics relative to Vanilla-SGD and a
// verdict per data set and α. Then come the raw values and the settings
// selected.
func WriteText(w io.Writer, cfg Options, rows []Row, took time.Duration) error {
	names, titles := cfg.names()
	fmt.Fprintf(w, "Validation metrics, mean ± std over %d seed(s); CVaR and mean loss divided by Vanilla-SGD's (accuracy as is).\n", cfg.Seeds)
	fmt.Fprintf(w, "α ∈ {%s}, %d epochs, batch %d, grid lr ∈ {%s} × weight decay ∈ {%s} selected by %s.\n\n",
		joinFloats(cfg.Alphas), cfg.Epochs, cfg.Batch, joinFloats(cfg.LRs), joinFloats(cfg.WeightDecays), cfg.selection())
	table := func(pick func(Row) map[string]MeanStd) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "dataset\tmethod\t%s\n", strings.Join(titles, "\t"))
		for i, r := range rows {
			ds := r.Dataset
			if i > 0 && rows[i-1].Dataset == ds {
				ds = ""
			}
			cells := []string{ds, r.Title}
			for _, name := range names {
				cells = append(cells, pick(r)[name].text())
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		return tw.Flush()
	}
	if err := table(func(r Row) map[string]MeanStd { return r.Metrics }); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, v := range verdicts(&cfg, rows) {
		fmt.Fprintln(w, v)
	}
	fmt.Fprintf(w, "\nRaw values:\n\n")
	if err := table(func(r Row) map[string]MeanStd { return r.Raw }); err != nil {
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
	_, err := fmt.Fprintf(w, "\n%d training runs in %.1f s\n", len(rows)*cfg.Seeds*len(cfg.LRs)*len(cfg.WeightDecays), took.Seconds())
	return err
}

// WriteMarkdown writes the rows of the comparison cfg as Markdown. It
// writes the table relative to Vanilla-SGD, the verdicts and the raw
// values.
func WriteMarkdown(w io.Writer, cfg Options, rows []Row) error {
	names, titles := cfg.names()
	table := func(caption string, pick func(Row) map[string]MeanStd) {
		fmt.Fprintf(w, "%s\n\n", caption)
		fmt.Fprintf(w, "| dataset | method | %s |\n", strings.Join(titles, " | "))
		fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---:|", len(titles)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | %s |", r.Dataset, r.Title)
			for _, name := range names {
				fmt.Fprintf(w, " %s |", pick(r)[name].text())
			}
			fmt.Fprintln(w)
		}
	}
	table(fmt.Sprintf("Validation metrics, mean ± std over %d seed(s), α ∈ {%s}, %d epochs, selected by %s; CVaR and mean loss relative to Vanilla-SGD, accuracy as is.",
		cfg.Seeds, joinFloats(cfg.Alphas), cfg.Epochs, cfg.selection()), func(r Row) map[string]MeanStd { return r.Metrics })
	fmt.Fprintln(w)
	for _, v := range verdicts(&cfg, rows) {
		fmt.Fprintf(w, "- %s\n", v)
	}
	fmt.Fprintln(w)
	table("Raw values:", func(r Row) map[string]MeanStd { return r.Raw })
	return nil
}

// WriteCSV writes the rows as CSV. The columns are dataset, method and
// alpha, then each metric's mean and std relative to Vanilla-SGD. Then
// come the raw ones (raw_…). A field is empty where there is no value.
func WriteCSV(w io.Writer, cfg Options, rows []Row) error {
	names, _ := cfg.names()
	head := []string{"dataset", "method", "alpha"}
	for _, prefix := range []string{"", "raw_"} {
		for _, name := range names {
			head = append(head, prefix+name+"_mean", prefix+name+"_std")
		}
	}
	fmt.Fprintln(w, strings.Join(head, ","))
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%g", v)
	}
	for _, r := range rows {
		rec := []string{csvField(r.Dataset), r.Method, alphaKey(r.Alpha)}
		for _, m := range []map[string]MeanStd{r.Metrics, r.Raw} {
			for _, name := range names {
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
