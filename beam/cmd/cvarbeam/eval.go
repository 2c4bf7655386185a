package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/cvarlearn/cvar/beam/cvarbeam"
	"github.com/cvarlearn/cvar/internal/modelio"
	"github.com/cvarlearn/cvar/internal/report"
	"github.com/cvarlearn/cvar/internal/trainflag"
)

const evalSynopsis = `cvarbeam eval -in MODEL -data GLOB [flags]

Evaluates a model file on every row of the files GLOB names, read in
parallel and preprocessed as the model file says: CVaR and VaR at each of
-alphas, the accuracy of a classifier and the mean loss, exactly as
cvar eval computes them on the files' rows taken together (cvar eval's
bootstrap intervals are not computed: they are left empty).`

func cmdEval(ctx context.Context, args []string, stdout io.Writer) error {
	var (
		in      *string
		alphas  = trainflag.AlphaList(0.05, 0.1)
		jsonOut *bool
	)
	df, r, err := setup("cvarbeam eval", evalSynopsis, args, stdout, func(fs *flag.FlagSet) {
		in = fs.String("in", "", "model `file` written by cvar train -o or cvarbeam train -o")
		fs.Var(alphas, "alphas", "comma-separated `list` of tail fractions α ∈ (0, 1]")
		jsonOut = fs.Bool("json", false, "print the results as JSON (cvar eval -json's keys)")
	})
	if err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("-in is required: the model file to evaluate")
	}
	m, err := modelio.Read(*in)
	if err != nil {
		return err
	}
	met, err := cvarbeam.Evaluate(ctx, cvarbeam.EvalOptions{Model: m, Input: df.in, Alphas: alphas.Values, Batch: df.batch}, r)
	if err != nil {
		return err
	}
	rep := report.NewEval(m, df.in.Glob, met.N, 0, report.PointMetrics(met))
	if *jsonOut {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}

func fmtAlpha(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
