package rounds

import (
	"context"
	"errors"
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
