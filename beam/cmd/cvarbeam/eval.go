package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/beam/cvarbeam"
	"github.com/cvarlearn/cvar/internal/report"
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
	var (
		in      *string
		alphas  = floatList{0.05, 0.1}
		jsonOut *bool
	)
	df, r, err := setup("cvarbeam eval", evalSynopsis, args, stdout, func(fs *flag.FlagSet) {
		in = fs.String("in", "", "model `file` written by cvar train -o or cvarbeam train -o")
		fs.Var(&alphas, "alphas", "comma-separated `list` of tail fractions α ∈ (0, 1]")
		jsonOut = fs.Bool("json", false, "print the results as JSON (cvar eval -json's keys)")
	})
	if err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("-in is required: the model file to evaluate")
	}
	m, err := readModel(*in)
	if err != nil {
		return err
	}
	met, err := cvarbeam.Evaluate(ctx, cvarbeam.EvalOptions{Model: m, Input: df.in, Alphas: alphas, Batch: df.batch}, r)
	if err != nil {
		return err
	}
	rep := report.NewEval(m, df.in.Glob, met.N, 0, report.PointMetrics(met))
	if *jsonOut {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
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

func fmtAlpha(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
