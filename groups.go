package cvar

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/modelkind"
	"github.com/cvarlearn/cvar/internal/numtext"
	"github.com/cvarlearn/cvar/internal/worstby"
)

// GroupOptions configure Evaluator.Groups and BootstrapGroups.
type GroupOptions struct {
	// Bootstrap sets the intervals: each group's rows, and all rows, are
	// resampled within themselves as Bootstrap says (its Seed makes them
	// reproducible; Resamples 0 gives estimates without intervals).
	Bootstrap BootstrapOptions
	// WorstBy is the metric that names the worst group. It is "mean_loss"
	// (the default, "", also "loss") or "accuracy". It may be "cvar" for the
	// CVaR at the first α. It may be "cvar_α" (also "cvarα") for one of the
	// alphas evaluated.
	WorstBy string
}

// GroupMetrics are the metrics of one group's rows (or of all rows), with
// their intervals. A group without rows has N 0 and every metric NaN.
type GroupMetrics struct {
	Name string
	N    int
	BootstrapMetrics
}

// GroupEvaluation is a model's metrics broken down by group.
type GroupEvaluation struct {
	All    GroupMetrics   // every row
	Groups []GroupMetrics // one per group name, in the order of the names
	// WorstBy is the metric that picked Worst, in its canonical form:
	// "mean_loss", "accuracy" or "cvar_" and its α.
	WorstBy string
	// Worst is the index in Groups of the worst group by WorstBy. It has
	// the largest mean loss or CVaR, or the smallest accuracy; the first
	// wins ties. Worst is -1 when no group has rows.
	Worst int
}

// worstMetric is a parsed WorstBy: the metric and, for CVaR, its α.
type worstMetric struct {
	name  string // "mean_loss", "accuracy" or "cvar"
	alpha float64
}

// parseWorstBy reads a WorstBy metric (see worstby.Parse).
func parseWorstBy(s string, alphas []float64) (worstMetric, error) {
	name, a, err := worstby.Parse(s, alphas)
	return worstMetric{name: name, alpha: a}, err
}

func (m worstMetric) String() string { return worstby.Name(m.name, m.alpha) }

// value is the metric of g, oriented so that larger is worse.
func (m worstMetric) value(g *GroupMetrics) float64 {
	switch m.name {
	case "accuracy":
		return -g.Accuracy.Value
	case "cvar":
		for _, t := range g.Tails {
			if t.Alpha == m.alpha {
				return t.CVaR.Value
			}
		}
		return math.NaN()
	}
	return g.MeanLoss.Value
}

// BootstrapGroups is Bootstrap broken down by group. It takes losses
// already computed. When correct is not nil, it says for each loss whether
// its row was classified correctly. The group of row i is groups[i], an
// index into names. It returns the metrics of all rows and of each group's
// rows, and the worst group by opt.WorstBy. Each group's intervals
// resample that group's rows only. Errors: those of Bootstrap, and groups
// of another length than losses. A group id outside names is an error. So
// is a WorstBy that names no metric, or that needs accuracy without
// correct.
func BootstrapGroups[T float32 | float64](losses []T, correct []bool, groups []int32, names []string, alphas []float64, opt GroupOptions) (*GroupEvaluation, error) {
	worst, err := parseWorstBy(opt.WorstBy, alphas)
	if err != nil {
		return nil, err
	}
	switch {
	case len(groups) != len(losses):
		return nil, fmt.Errorf("cvar: %d group ids for %d losses", len(groups), len(losses))
	case worst.name == "accuracy" && correct == nil:
		return nil, fmt.Errorf("cvar: worst group by accuracy, but the losses have no correctness flags (regression)")
	}
	rows := make([][]int, len(names))
	for i, g := range groups {
		if g < 0 || int(g) >= len(names) {
			return nil, fmt.Errorf("cvar: row %d: group %d; expected a group in 0..%d", i, g, len(names)-1)
		}
		rows[g] = append(rows[g], i)
	}
	all, err := groupMetrics("all", losses, correct, alphas, opt.Bootstrap)
	if err != nil {
		return nil, err
	}
	ge := &GroupEvaluation{All: all, WorstBy: worst.String(), Worst: -1}
	for g, name := range names {
		ls := make([]T, len(rows[g]))
		var ok []bool
		if correct != nil {
			ok = make([]bool, len(rows[g]))
		}
		for k, i := range rows[g] {
			ls[k] = losses[i]
			if ok != nil {
				ok[k] = correct[i]
			}
		}
		m, err := groupMetrics(name, ls, ok, alphas, opt.Bootstrap)
		if err != nil {
			return nil, fmt.Errorf("group %q: %w", name, err)
		}
		ge.Groups = append(ge.Groups, m)
		if m.N > 0 && (ge.Worst < 0 || worst.value(&m) > worst.value(&ge.Groups[ge.Worst])) {
			ge.Worst = g
		}
	}
	return ge, nil
}

// groupMetrics is Bootstrap of one group's rows; NaN metrics when it has
// none.
func groupMetrics[T float32 | float64](name string, losses []T, correct []bool, alphas []float64, opt BootstrapOptions) (GroupMetrics, error) {
	if len(losses) == 0 {
		nan := Interval{math.NaN(), math.NaN(), math.NaN()}
		m := GroupMetrics{Name: name, BootstrapMetrics: BootstrapMetrics{MeanLoss: nan, Accuracy: nan}}
		for _, a := range alphas {
			m.Tails = append(m.Tails, TailInterval{Alpha: a, CVaR: nan, VaR: nan})
		}
		return m, nil
	}
	bm, err := Bootstrap(losses, correct, alphas, opt)
	if err != nil {
		return GroupMetrics{}, err
	}
	return GroupMetrics{Name: name, N: len(losses), BootstrapMetrics: *bm}, nil
}

// Groups computes the losses of the model under θ on every row of data.
// It returns their metrics for all rows and for each group. They are the
// mean, the accuracy of a classifier, and CVaR and VaR at each α. Each
// comes with bootstrap intervals, and the worst group is named
// (BootstrapGroups). The group of row i is groups[i], an index into names
// (dataset.Dataset's Groups and GroupNames). Errors: those of Metrics and of BootstrapGroups.
func (ev *Evaluator[T]) Groups(theta []T, data *batch.Data[T], groups []int32, names []string, opt GroupOptions, alphas ...float64) (*GroupEvaluation, error) {
	losses, err := ev.Losses(theta, data)
	if err != nil {
		return nil, err
	}
	var correct []bool
	if data.IsClassification() {
		pred, err := ev.Predictions(theta, data)
		if err != nil {
			return nil, err
		}
		correct = make([]bool, len(pred))
		for i, p := range pred {
			correct[i] = p == int(data.Labels[i])
		}
	}
	return BootstrapGroups(losses, correct, groups, names, alphas, opt)
}

// MarshalJSON writes the metrics as {"name", "n", "mean_loss",
// "accuracy", "tails"}; accuracy is null for regression.
func (g GroupMetrics) MarshalJSON() ([]byte, error) {
	var acc *Interval
	if !math.IsNaN(g.Accuracy.Value) {
		a := g.Accuracy
		acc = &a
	}
	return json.Marshal(struct {
		Name     string         `json:"name"`
		N        int            `json:"n"`
		MeanLoss Interval       `json:"mean_loss"`
		Accuracy *Interval      `json:"accuracy"`
		Tails    []TailInterval `json:"tails"`
	}{g.Name, g.N, g.MeanLoss, acc, g.Tails})
}

// MarshalJSON writes the evaluation as {"all", "groups", "worst_by",
// "worst"}, worst naming the worst group (null when none has rows).
func (e GroupEvaluation) MarshalJSON() ([]byte, error) {
	var worst *string
	if e.Worst >= 0 {
		worst = &e.Groups[e.Worst].Name
	}
	return json.Marshal(struct {
		All     GroupMetrics   `json:"all"`
		Groups  []GroupMetrics `json:"groups"`
		WorstBy string         `json:"worst_by"`
		Worst   *string        `json:"worst"`
	}{e.All, e.Groups, e.WorstBy, worst})
}

// Collapse is whether a classifier gave up on its data
// (Evaluator.Collapse). It gave up when its accuracy is no better than
// always predicting the most frequent class. It also gave up when its
// predicted class distribution is nearly uniform. A tail objective that
// noisy labels dominate reaches both: the CVaR of losses is lowest when no
// prediction is confident.
type Collapse struct {
	// GaveUp is the verdict; Reason says why, in one line ("" when not).
	GaveUp bool   `json:"gave_up"`
	Reason string `json:"reason,omitempty"`
	// Accuracy is the fraction of rows classified correctly; Majority that
	// of the most frequent class, what predicting it always would reach.
	Accuracy float64 `json:"accuracy"`
	Majority float64 `json:"majority"`
	// MeanMaxProb is the mean over the rows of the largest predicted class
	// probability (softmax of the scores; σ(|margin|) for binary logistic
	// regression); Uniform is 1/K, its value for uniform predictions.
	MeanMaxProb float64 `json:"mean_max_prob"`
	Uniform     float64 `json:"uniform"`
}

// collapseMargin is how close to uniform the mean largest probability must
// come for Collapse to call the predictions nearly uniform. It must lie
// within this fraction of the way from 1/K (uniform) to 1 (certain). That
// is below 1/K + 0.1·(1 − 1/K): 0.55 for two classes, 0.19 for ten.
const collapseMargin = 0.1

// Collapse reports whether the classifier under θ gave up on data:
// labelled classification data such as a validation split. GaveUp is set
// when its accuracy is at most the most frequent class's share. It is also
// set when its mean largest class probability is below
// 1/K + 0.1·(1 − 1/K), a tenth of the way from uniform to certain.
// Errors: those of Scores, and data without labels.
func (ev *Evaluator[T]) Collapse(theta []T, data *batch.Data[T]) (Collapse, error) {
	if data != nil && !data.IsClassification() {
		return Collapse{}, fmt.Errorf("cvar: Collapse needs classification data, with labels")
	}
	n, err := resultRows(data)
	if err != nil {
		return Collapse{}, err
	}
	pred, top := make([]int, n), make([]float64, n)
	err = ev.eachRow(theta, data, func(i int, s []T) { pred[i], top[i] = modelkind.Class(s), maxProb(s) })
	if err != nil {
		return Collapse{}, err
	}
	return collapseFrom(pred, top, data.Labels, data.K), nil
}

// collapseOf is the verdict on scores (outputs a row) of rows with labels
// among k classes.
func collapseOf[T batch.Float](scores []T, outputs int, labels []int32, k int) Collapse {
	pred, top := make([]int, len(labels)), make([]float64, len(labels))
	for i := range labels {
		s := scores[i*outputs : (i+1)*outputs]
		pred[i], top[i] = modelkind.Class(s), maxProb(s)
	}
	return collapseFrom(pred, top, labels, k)
}

// collapseFrom is the verdict on rows with labels among k classes, each
// predicted pred[i] with largest class probability top[i].
func collapseFrom(pred []int, top []float64, labels []int32, k int) Collapse {
	n := len(labels)
	if n == 0 || k < 1 {
		return Collapse{Uniform: 1 / float64(max(k, 1))}
	}
	counts := make([]int, k)
	correct := 0
	var sumMax float64
	for i, l := range labels {
		counts[l]++
		if pred[i] == int(l) {
			correct++
		}
		sumMax += top[i]
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	c := Collapse{Accuracy: float64(correct) / float64(n), Majority: float64(most) / float64(n),
		MeanMaxProb: sumMax / float64(n), Uniform: 1 / float64(k)}
	near := c.Uniform + collapseMargin*(1-c.Uniform)
	switch {
	case correct <= most:
		c.GaveUp = true
		c.Reason = fmt.Sprintf("accuracy %.3g is no better than always predicting the most frequent class (%.3g)", c.Accuracy, c.Majority)
	case c.MeanMaxProb < near:
		c.GaveUp = true
		c.Reason = fmt.Sprintf("its predictions are nearly uniform (mean largest class probability %.3g, uniform %.3g)", c.MeanMaxProb, c.Uniform)
	}
	return c
}

// maxProb is the largest class probability of one row's scores: the
// softmax's, or σ(|m|) of a binary logistic margin m; 1 for scores that
// are not finite, so that the mean stays a number.
func maxProb[T batch.Float](s []T) float64 {
	if len(s) == 1 {
		if math.IsNaN(float64(s[0])) {
			return 1
		}
		return 1 / (1 + math.Exp(-math.Abs(float64(s[0]))))
	}
	top := float64(s[modelkind.Class(s)])
	var sum float64
	for _, v := range s {
		sum += math.Exp(float64(v) - top)
	}
	if math.IsNaN(sum) { // an infinite or NaN score: no probability, counted confident
		return 1
	}
	return 1 / sum
}

// WriteText writes the evaluation as a table. It has a row for all rows
// and one per group. Each metric's estimate is followed by its interval
// when there is one. The worst group comes last.
func (e *GroupEvaluation) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "group\tn\tmean loss")
	classified := !math.IsNaN(e.All.Accuracy.Value)
	if classified {
		fmt.Fprint(tw, "\taccuracy")
	}
	for _, t := range e.All.Tails {
		fmt.Fprintf(tw, "\tCVaR_%s", fmtAlpha(t.Alpha))
	}
	for _, t := range e.All.Tails {
		fmt.Fprintf(tw, "\tVaR_%s", fmtAlpha(t.Alpha))
	}
	fmt.Fprintln(tw)
	for _, g := range append([]GroupMetrics{e.All}, e.Groups...) {
		fmt.Fprintf(tw, "%s\t%d\t%s", g.Name, g.N, cell(g.MeanLoss))
		if classified {
			fmt.Fprintf(tw, "\t%s", cell(g.Accuracy))
		}
		for _, t := range g.Tails {
			fmt.Fprintf(tw, "\t%s", cell(t.CVaR))
		}
		for _, t := range g.Tails {
			fmt.Fprintf(tw, "\t%s", cell(t.VaR))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if e.Worst < 0 {
		_, err := fmt.Fprintf(w, "worst group by %s: none (no group has rows)\n", e.WorstBy)
		return err
	}
	g := e.Groups[e.Worst]
	_, err := fmt.Fprintf(w, "worst group by %s: %s (n = %d)\n", e.WorstBy, g.Name, g.N)
	return err
}

// cell is an estimate and its interval, "0.21 [0.19, 0.23]", or the
// estimate alone when there is no interval.
func cell(v Interval) string {
	if math.IsNaN(v.Lo) {
		return numtext.Short(v.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", numtext.Short(v.Value), numtext.Short(v.Lo), numtext.Short(v.Hi))
}
