package rounds

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// A trial measures θ in the target's units on the held-out rows; a
// setting that diverges is an outcome, not an error.
func TestTrial(t *testing.T) {
	t.Parallel()
	n, d := 300, 3
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		for j := range d {
			x[i*d+j] = math.Sin(float64(i*d + j))
		}
		y[i] = 100 + 20*(x[i*d]-x[i*d+1])
	}
	prep := dataset.Preprocessing{TargetMean: 100, TargetScale: 20}
	scaled := make([]float64, n)
	for i, v := range y {
		scaled[i] = (v - 100) / 20
	}
	train, _ := batch.NewData(x, n, d, scaled, nil, 0)
	val, _ := batch.NewData(x, n, d, y, nil, 0)
	model, err := batch.NewModel[float64](batch.KindLinear, d, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := cvar.Options{Method: cvar.Alg3, Alpha: 0.1, Batch: 32, Epochs: 20, Seed: 1}
	out, err := Trial(context.Background(), model, train, val, &prep, o, cvar.Trial{LR: 0.05})
	if err != nil || out.Err != "" || out.Val.N != n || len(out.Theta) != d+1 {
		t.Fatalf("trial: %+v, %v", out, err)
	}
	theta := slices.Clone(out.Theta)
	if _, err := cvar.UnscaleTarget(model, theta, &prep); err != nil {
		t.Fatal(err)
	}
	want, _ := cvar.Evaluate(model, theta, val, 0.1)
	if out.Val.MeanLoss != want.MeanLoss || out.Val.MeanLoss > 40 {
		t.Errorf("validation mean loss %v; want %v, small, in the target's units", out.Val.MeanLoss, want.MeanLoss)
	}
	div, err := Trial(context.Background(), model, train, val, &prep, o, cvar.Trial{LR: 1e12})
	if err != nil || !strings.Contains(div.Err, "diverge") {
		t.Errorf("a diverging setting: %+v, %v", div.Err, err)
	}
}

// Pick takes the best setting that did not diverge, by the rule asked,
// and marks its step size and ε as tuned.
func TestPick(t *testing.T) {
	t.Parallel()
	m := func(cv float64) cvar.Metrics {
		return cvar.Metrics{N: 10, MeanLoss: 1, Tails: []cvar.Tail{{Alpha: 0.1, CVaR: cv, VaR: cv}}}
	}
	trials := make([]cvar.Trial, 3)
	outs := []Outcome{{Val: m(2)}, {Err: "diverged"}, {Val: m(1), Params: cvar.Params{EpsFrom: "0.05 × VaR"}}}
	best, err := Pick(trials, outs, cvar.SelectCVaR, 0.1, false)
	if err != nil || best != 2 || trials[1].Err == nil || trials[0].Val.Tails[0].CVaR != 2 ||
		outs[2].Params.LRFrom != "tuned" || outs[2].Params.EpsFrom != "tuned: 0.05 × VaR" {
		t.Errorf("picked %d (%v); trials %+v; params %+v", best, err, trials, outs[2].Params)
	}
	_, err = Pick(trials[:1], []Outcome{{Err: "diverged at step 3"}}, cvar.SelectCVaR, 0.1, false)
	if err == nil || !strings.Contains(err.Error(), "every one of the 1 settings diverged; the first: diverged at step 3") {
		t.Errorf("all diverged: %v", err)
	}
	if _, err := Pick(nil, nil, cvar.SelectCVaR, 0.1, false); err == nil {
		t.Error("a pick of no settings")
	}
}
