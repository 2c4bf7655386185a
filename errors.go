package cvar

import (
	"errors"
	"fmt"
	"math"
)

// Errors of the package, with detail; test with errors.Is.
var (
	// Errors of LoadModel: the file is not a model file, of another
	// version, cut short, fails its checksum, or is inconsistent.
	ErrModelFormat   = errors.New("cvar: not a cvar model file")
	ErrModelVersion  = errors.New("cvar: unsupported model file version")
	ErrModelTrunc    = errors.New("cvar: truncated model file")
	ErrModelChecksum = errors.New("cvar: model file checksum mismatch")
	ErrModelInvalid  = errors.New("cvar: invalid model file")

	// Errors of the risk metrics.

	// ErrAlpha: α is NaN or outside (0, 1].
	ErrAlpha = errors.New("cvar: alpha outside (0, 1]")
	// ErrEmpty: there are no losses.
	ErrEmpty = errors.New("cvar: no losses")
	// ErrNonFinite: a loss is NaN, +Inf or −Inf. Errors for NaN losses also
	// match ErrNaN.
	ErrNonFinite = errors.New("cvar: non-finite loss")
	// ErrNaN: a loss is NaN (such errors match ErrNonFinite too).
	ErrNaN = errors.New("cvar: NaN loss")
	// ErrWeights: the sample weights are unusable (length mismatch, a
	// negative, NaN or infinite weight, or no positive weight).
	ErrWeights = errors.New("cvar: invalid weights")
)

// Errors of the entry points' argument checks.
var (
	errNoModel   = errors.New("cvar: no model (nil batch.Model)")
	errNoData    = errors.New("cvar: no data (nil *batch.Data)")
	errNoContext = errors.New("cvar: nil context (use context.Background())")
)

// DivergenceError reports a step that made the parameters, τ or a loss
// NaN or infinite. It also reports a blow-up that stays finite: a step
// whose minibatch's mean loss exceeded DivergenceFactor times the run's
// initial loss scale. Training stops there.
type DivergenceError struct {
	Step int    // 1-based step
	What string // what became non-finite
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("cvar: training diverged at step %d: %s (lower the step size or bound K)", e.Step, e.What)
}

// riskError is an error with a detailed message that matches one or more
// sentinels under errors.Is.
type riskError struct {
	msg  string
	kind []error
}

func (e *riskError) Error() string   { return e.msg }
func (e *riskError) Unwrap() []error { return e.kind }

func fail(msg string, kind ...error) error { return &riskError{msg: msg, kind: kind} }

// GridSizeError reports a grid of more settings than MaxGridSettings. It
// names each list's count as tried and their full product, so that a
// program can report the size in its own words.
type GridSizeError struct {
	// LR, WeightDecay, EpsFraction and Objective are the numbers of values
	// tried of each list; Objective counts the trims or χ² radii.
	LR, WeightDecay, EpsFraction, Objective int
	// Settings is their product, math.MaxUint64 where it overflows.
	Settings uint64
}

func (e *GridSizeError) Error() string {
	n := fmt.Sprint(e.Settings)
	if e.Settings == math.MaxUint64 {
		n = "over " + n
	}
	return fmt.Sprintf("cvar: a grid of %d × %d × %d × %d = %s settings exceeds MaxGridSettings (%d)",
		e.LR, e.WeightDecay, e.EpsFraction, e.Objective, n, MaxGridSettings)
}
