package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
)

// A report of point metrics has cvar eval -json's keys with null bounds,
// an accuracy only for a classifier, and a table with "-" for the missing
// intervals.
func TestEvalOfPointMetrics(t *testing.T) {
	mf := &cvar.ModelFile{Kind: "logistic", D: 3, K: 2, Precision: cvar.F64, Method: cvar.Alg3, Alpha: 0.1, Classes: []string{"a", "b"},
		Source: cvar.Provenance{Kind: "csv", Name: "train.csv"}}
	met := cvar.Metrics{N: 40, MeanLoss: 0.25, Accuracy: 0.75, Tails: []cvar.Tail{{Alpha: 0.1, CVaR: 1.5, VaR: 1.25}}}
	rep := NewEval(mf, "shards/*.csv", met.N, 0, PointMetrics(met))
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	tail := back["tails"].([]any)[0].(map[string]any)
	cv := tail["cvar"].(map[string]any)
	acc := back["accuracy"].(map[string]any)
	model := back["model"].(map[string]any)
	if tail["alpha"] != 0.1 || cv["value"] != 1.5 || cv["lo"] != nil || cv["hi"] != nil || acc["value"] != 0.75 ||
		back["n"] != 40.0 || back["data"] != "shards/*.csv" || model["data"] != "train.csv" || back["bootstrap"] != 0.0 {
		t.Errorf("JSON report:\n%s", js.String())
	}
	var txt bytes.Buffer
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"data   shards/*.csv: 40 rows", "CVaR_0.1   1.5       -", "accuracy   0.75      -", "95% CI\n"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, txt.String())
		}
	}
	met.Accuracy = math.NaN()
	if reg := NewEval(mf, "x", met.N, 0, PointMetrics(met)); reg.Accuracy != nil {
		t.Errorf("a regression report has an accuracy %v", *reg.Accuracy)
	}
}

// A nil model file reports the zero Model; nil metrics, none.
func TestNilArguments(t *testing.T) {
	if r := ModelOf(nil); r.Kind != "" || r.D != 0 {
		t.Errorf("ModelOf(nil): %+v, want the zero Model", r)
	}
	if r := NewEval(nil, "d.csv", 3, 0, nil); r.Model.Kind != "" || r.N != 3 || r.Accuracy != nil {
		t.Errorf("NewEval(nil, …, nil): %+v", r)
	}
}

// A report shows 0.05 and 0.1, and each other α once.
func TestAlphas(t *testing.T) {
	for _, c := range []struct{ more, want []float64 }{
		{nil, []float64{0.05, 0.1}},
		{[]float64{0.1}, []float64{0.05, 0.1}},
		{[]float64{0.2, 0.05, 0.2, 0.01}, []float64{0.05, 0.1, 0.2, 0.01}},
	} {
		if got := Alphas(c.more...); !slices.Equal(got, c.want) {
			t.Errorf("Alphas(%v) = %v, want %v", c.more, got, c.want)
		}
	}
}
