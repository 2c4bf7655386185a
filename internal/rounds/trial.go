package rounds

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// Outcome is a tuning trial's result: its validation metrics in the
// target's units, and the θ, τ and parameters of its run. Err is the
// divergence that stopped it, if one did.
type Outcome struct {
	Val    cvar.Metrics
	Theta  []float64
	Tau    float64
	Params cvar.Params
	Err    string
}

// Trial trains model on train with the setting tr applied to o, on one
// thread, as cvar.Tune trains a setting. It measures the result on val at
// o.Alpha. The targets of train are standardised as prep says, those of
// val are as read: so θ is measured un-scaled (cvar.UnscaleTarget). A
// setting that diverges gives an Outcome with Err, not an error.
func Trial[T batch.Float](ctx context.Context, model batch.Model[T], train, val *batch.Data[T], prep *dataset.Preprocessing, o cvar.Options, tr cvar.Trial) (Outcome, error) {
	o = tr.Apply(o)
	o.Threads = 1
	res, err := cvar.TrainContext(ctx, model, train, o)
	var div *cvar.DivergenceError
	if errors.As(err, &div) {
		return Outcome{Err: err.Error()}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	theta := slices.Clone(res.Theta)
	if _, err := cvar.UnscaleTarget(model, theta, prep); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Tau: res.Tau, Params: res.Params, Theta: make([]float64, len(res.Theta))}
	for i, v := range res.Theta {
		out.Theta[i] = float64(v)
	}
	out.Val, err = cvar.Evaluate(model, theta, val, o.Alpha)
	return out, err
}

// Pick sets each trial's metrics and divergence from its outcome, and
// returns the index of the one sel picks at alpha. It marks the picked
// outcome's step size, and its ε unless epsGiven, as tuned, as cvar.Tune
// marks them. It fails when every setting diverged.
func Pick(trials []cvar.Trial, outs []Outcome, sel cvar.Selection, alpha float64, epsGiven bool) (int, error) {
	best := -1
	for i, o := range outs {
		trials[i].Val = o.Val
		if o.Err != "" {
			trials[i].Err = errors.New(o.Err)
		} else if best < 0 || sel.Better(o.Val, outs[best].Val, alpha) {
			best = i
		}
	}
	if best < 0 && len(outs) == 0 {
		return -1, errors.New("no settings to pick from")
	}
	if best < 0 {
		return -1, fmt.Errorf("every one of the %d settings diverged; the first: %s", len(outs), outs[0].Err)
	}
	p := &outs[best].Params
	p.LRFrom = "tuned"
	if p.EpsFrom != "" && !epsGiven {
		p.EpsFrom = "tuned: " + p.EpsFrom
	}
	return best, nil
}
