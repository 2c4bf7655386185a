package main

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
)

// checkFinite fails at the first row whose scores (k a row) or loss are
// not finite. It names the model file and the 1-based row of the data. A
// score overflows when a row's features are far larger than any the model
// was trained on. Eval and predict stop there rather than report -Inf or
// NaN. losses may be nil (rows without labels or targets).
func checkFinite[T batch.Float](modelFile, data string, scores []T, k int, losses []T) error {
	for i := 0; i*k < len(scores); i++ {
		for _, v := range scores[i*k : (i+1)*k] {
			if !isFinite(float64(v)) {
				return fmt.Errorf("%s: row %d of %s: score %v is not finite; the row's features are too large for the model", modelFile, i+1, data, v)
			}
		}
		if losses != nil && !isFinite(float64(losses[i])) {
			return fmt.Errorf("%s: row %d of %s: loss %v is not finite; the row's features or target are too large for the model", modelFile, i+1, data, losses[i])
		}
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
