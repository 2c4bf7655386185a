package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/beam/cvarbeam"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

const evalSynopsis = `cvarbeam eval -in MODEL -data GLOB [flags]

Evaluates a model file on every row of the files GLOB names, read in
parallel and preprocessed as the model file says: CVaR and VaR at each of
-alphas, the accuracy of a classifier and the mean loss, exactly as
cvar eval computes them on the files' rows taken together (cvar eval's
bootstrap intervals are not computed: they are left empty).`

// floatList is a comma-separated list of numbers in (0, 1].
type floatList []float64

func (l *floatList) String() string {
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (l *floatList) Set(s string) error {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%q is not a finite number ≥ 0", part)
		}
		out = append(out, v)
	}
	*l = out
	return nil
}

func cmdEval(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("cvarbeam eval")
	in := fs.String("in", "", "model `file` written by cvar train -o or cvarbeam train -o")
	df := addInputFlags(fs)
	alphas := floatList{0.05, 0.1}
	fs.Var(&alphas, "alphas", "comma-separated `list` of tail fractions α ∈ (0, 1]")
	jsonOut := fs.Bool("json", false, "print the results as JSON (cvar eval -json's keys)")
	if err := parse(fs, evalSynopsis, args, stdout); err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("-in is required: the model file to evaluate")
	}
	if err := df.check(); err != nil {
		return err
	}
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			return fmt.Errorf("-alphas: %v is outside (0, 1]", a)
		}
	}
	m, err := readModel(*in)
	if err != nil {
		return err
	}
	met, err := cvarbeam.Evaluate(ctx, cvarbeam.EvalConfig{Model: m, Input: df.in, Alphas: alphas, Batch: df.batch}, &cvarbeam.Runner{Work: df.work})
	if err != nil {
		return err
	}
	rep := evalReportOf(m, df.in.Glob, met)
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.print(stdout)
}

// readModel loads a model file, naming it in errors.
func readModel(path string) (*cvar.ModelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := cvar.LoadModel(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "cvar: "))
	}
	return m, nil
}

// The report has cvar eval -json's keys; the intervals are null.
type estimate struct {
	Value jsonfloat.Lossy `json:"value"`
	Lo    jsonfloat.Lossy `json:"lo"`
	Hi    jsonfloat.Lossy `json:"hi"`
}

type tailEstimate struct {
	Alpha float64  `json:"alpha"`
	CVaR  estimate `json:"cvar"`
	VaR   estimate `json:"var"`
}

type modelInfo struct {
	Kind      string   `json:"kind"`
	D         int      `json:"d"`
	K         int      `json:"k"`
	Hidden    int      `json:"hidden,omitempty"`
	Precision string   `json:"precision"`
	Classes   []string `json:"classes,omitempty"`
	Data      string   `json:"data"`
}

type evalReport struct {
	Model      modelInfo      `json:"model"`
	Method     string         `json:"method"`
	Alpha      float64        `json:"alpha"`
	Data       string         `json:"data"`
	N          int            `json:"n"`
	Bootstrap  int            `json:"bootstrap"`
	Confidence float64        `json:"confidence"`
	Tails      []tailEstimate `json:"tails"`
	Accuracy   *estimate      `json:"accuracy"`
	MeanLoss   estimate       `json:"mean_loss"`
}

func point(v float64) estimate {
	nan := jsonfloat.Lossy(math.NaN())
	return estimate{Value: jsonfloat.Lossy(v), Lo: nan, Hi: nan}
}

func infoOf(m *cvar.ModelFile) modelInfo {
	data := m.Source.Name
	if data == "" {
		data = m.Source.Kind
	}
	return modelInfo{Kind: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden, Precision: m.Precision, Classes: m.Classes, Data: data}
}

func evalReportOf(m *cvar.ModelFile, data string, met cvar.Metrics) *evalReport {
	rep := &evalReport{Model: infoOf(m), Method: m.Method.String(), Alpha: m.Alpha, Data: data, N: met.N, Confidence: 0.95, MeanLoss: point(met.MeanLoss)}
	for _, t := range met.Tails {
		rep.Tails = append(rep.Tails, tailEstimate{Alpha: t.Alpha, CVaR: point(t.CVaR), VaR: point(t.VaR)})
	}
	if !math.IsNaN(met.Accuracy) {
		acc := point(met.Accuracy)
		rep.Accuracy = &acc
	}
	return rep
}

func (r *evalReport) print(w io.Writer) error {
	fmt.Fprintf(w, "model  %s on %d features, trained with %s at α = %s on %s (%s)\n", r.Model.Kind, r.Model.D, r.Method, fmtAlpha(r.Alpha), r.Model.Data, r.Model.Precision)
	fmt.Fprintf(w, "data   %s: %d rows\n\n", r.Data, r.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\testimate\n")
	for _, t := range r.Tails {
		fmt.Fprintf(tw, "CVaR_%s\t%.4g\n", fmtAlpha(t.Alpha), float64(t.CVaR.Value))
	}
	for _, t := range r.Tails {
		fmt.Fprintf(tw, "VaR_%s\t%.4g\n", fmtAlpha(t.Alpha), float64(t.VaR.Value))
	}
	if r.Accuracy != nil {
		fmt.Fprintf(tw, "accuracy\t%.4g\n", float64(r.Accuracy.Value))
	}
	fmt.Fprintf(tw, "mean loss\t%.4g\n", float64(r.MeanLoss.Value))
	return tw.Flush()
}

func fmtAlpha(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
