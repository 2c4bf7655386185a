package cvar

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// UnscaleTarget maps θ, in place, back to the target's units. The
// regression model was trained on targets that prep standardises
// (TargetMean, TargetScale). It returns the factor that converts loss
// levels (τ, VaR, CVaR, the mean loss) to those units. When prep
// standardises no target, the factor is 1 and θ is unchanged. It is the
// one un-scaling step of every program that trains on standardised
// targets. A model without the linear output it needs is an error.
func UnscaleTarget[T batch.Float](model batch.Model[T], theta []T, prep *dataset.Preprocessing) (float64, error) {
	if prep.TargetScale == 0 {
		return 1, nil
	}
	u, ok := model.(targetUnscaler[T])
	if !ok {
		return 0, fmt.Errorf("cvar: the %s model cannot be trained on standardised targets", model.Name())
	}
	return u.UnscaleTarget(theta, prep.TargetMean, prep.TargetScale)
}
