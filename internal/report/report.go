// Package report lays a model file's metrics out as cvar eval prints them.
// It writes a table and JSON, for cvar and the Beam module's cvarbeam alike.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// Eval is the report of a model file's metrics on a data set. It holds the
// model, the data, and each metric with its interval. Its JSON form
// (WriteJSON) has cvar eval -json's keys. The Beam module's distributed
// evaluation writes the same report without intervals.
type Eval struct {
	Model      Model               `json:"model"`
	Method     string              `json:"method"`
	Alpha      float64             `json:"alpha"` // the α the model was trained at
	Data       string              `json:"data"`
	N          int                 `json:"n"`
	Bootstrap  int                 `json:"bootstrap"` // resamples of the intervals; 0: none
	Confidence float64             `json:"confidence"`
	Tails      []cvar.TailInterval `json:"tails"`
	Accuracy   *cvar.Interval      `json:"accuracy"` // nil for regression
	MeanLoss   cvar.Interval       `json:"mean_loss"`
	// Groups, when the data has groups, are the metrics of each group
	// and the worst group (cvar.BootstrapGroups).
	Groups *cvar.GroupEvaluation `json:"groups,omitempty"`
}

// Model is what a report says of the model file.
type Model struct {
	Kind      string   `json:"kind"`
	D         int      `json:"d"`
	K         int      `json:"k"`
	Hidden    int      `json:"hidden,omitempty"`
	Precision string   `json:"precision"`
	Classes   []string `json:"classes,omitempty"`
	Data      string   `json:"data"` // the data it was trained on
}

// NewEval returns the report of m's metrics bm on n rows of data. The
// intervals come from resamples bootstrap resamples (0: none). A nil m
// reports the zero Model and Method; a nil bm, no metrics.
func NewEval(m *cvar.ModelFile, data string, n, resamples int, bm *cvar.BootstrapMetrics) *Eval {
	if m == nil {
		m = &cvar.ModelFile{}
	}
	if bm == nil {
		bm = PointMetrics(cvar.Metrics{Accuracy: math.NaN(), MeanLoss: math.NaN()})
	}
	r := &Eval{
		Model:  ModelOf(m),
		Method: m.Method.String(), Alpha: m.Alpha, Data: data, N: n, Bootstrap: resamples, Confidence: 0.95,
		Tails: bm.Tails, MeanLoss: bm.MeanLoss,
	}
	if !math.IsNaN(bm.Accuracy.Value) {
		acc := bm.Accuracy
		r.Accuracy = &acc
	}
	return r
}

// ModelOf returns what a report says of the model file m: the zero Model
// of a nil m.
func ModelOf(m *cvar.ModelFile) Model {
	if m == nil {
		return Model{}
	}
	trained := m.Source.Name
	if trained == "" {
		trained = m.Source.Kind
	}
	return Model{Kind: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden, Precision: m.Precision, Classes: m.Classes, Data: trained}
}

// PointMetrics returns m as cvar.BootstrapMetrics without intervals (Lo
// and Hi NaN). It serves a report of metrics computed without a bootstrap.
func PointMetrics(m cvar.Metrics) *cvar.BootstrapMetrics {
	nan := math.NaN()
	point := func(v float64) cvar.Interval { return cvar.Interval{Value: v, Lo: nan, Hi: nan} }
	bm := &cvar.BootstrapMetrics{MeanLoss: point(m.MeanLoss), Accuracy: point(m.Accuracy)}
	for _, t := range m.Tails {
		bm.Tails = append(bm.Tails, cvar.TailInterval{Alpha: t.Alpha, CVaR: point(t.CVaR), VaR: point(t.VaR)})
	}
	return bm
}

// WriteJSON writes the report as indented JSON. A value that is not finite
// (an interval that is not there) is null.
func (r *Eval) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as a table, a metric a row. A row holds the
// estimate and its interval ("-" when there is none).
func (r *Eval) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model  %s on %d features, trained with %s at α = %s on %s (%s)\n", r.Model.Kind, r.Model.D, r.Method, fmtAlpha(r.Alpha), r.Model.Data, r.Model.Precision)
	fmt.Fprintf(w, "data   %s: %d rows\n\n", r.Data, r.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ci := "95% CI"
	if r.Bootstrap > 0 {
		ci = fmt.Sprintf("95%% CI (percentile bootstrap, %d resamples)", r.Bootstrap)
	}
	fmt.Fprintf(tw, "\testimate\t%s\n", ci)
	row := func(name string, s cvar.Interval) {
		interval := "-"
		if !math.IsNaN(s.Lo) {
			interval = fmt.Sprintf("[%s, %s]", numtext.Short(s.Lo), numtext.Short(s.Hi))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, numtext.Short(s.Value), interval)
	}
	for _, t := range r.Tails {
		row("CVaR_"+fmtAlpha(t.Alpha), t.CVaR)
	}
	for _, t := range r.Tails {
		row("VaR_"+fmtAlpha(t.Alpha), t.VaR)
	}
	if r.Accuracy != nil {
		row("accuracy", *r.Accuracy)
	}
	row("mean loss", r.MeanLoss)
	if err := tw.Flush(); err != nil || r.Groups == nil {
		return err
	}
	fmt.Fprintf(w, "\nby group (%d groups):\n", len(r.Groups.Groups))
	return r.Groups.WriteText(w)
}

func fmtAlpha(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
