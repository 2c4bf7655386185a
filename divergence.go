package cvar

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
)

func maxAbs[T batch.Float](xs []T) float64 {
	var m float64
	for _, x := range xs {
		m = math.Max(m, math.Abs(float64(x)))
	}
	return m
}

// setLossScale fixes the loss bound of the divergence check from the loss
// scale ref (see DivergenceFactor).
func (r *run[T]) setLossScale(ref float64) {
	r.lossCap = DivergenceFactor * math.Max(ref, 1)
}

// checkLosses reports a divergence at step t from the minibatch's losses,
// whose sum is sum: a non-finite sum, or a mean beyond the loss bound.
func (r *run[T]) checkLosses(t int, losses []T, sum float64) error {
	if !finite(sum) {
		return &DivergenceError{Step: t, What: fmt.Sprintf("a loss of the minibatch is %v", sum)}
	}
	if r.lossCap == 0 { // Online: the first sample sets the scale
		r.setLossScale(maxAbs(losses))
	}
	if mean := sum / float64(len(losses)); math.Abs(mean) > r.lossCap {
		return &DivergenceError{Step: t, What: fmt.Sprintf("the minibatch's mean loss %.3g exceeds %g times the initial loss scale (%.3g)", mean, DivergenceFactor, r.lossCap/DivergenceFactor)}
	}
	return nil
}
