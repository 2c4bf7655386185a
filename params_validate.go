package cvar

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// The checks of Options that need neither model nor data: validate, the
// first step of a run's resolution.

// validate reports the first field of opt, in the order Options declares
// them, that no run can take; Init, which needs the model, is checked by
// initialTheta. It is the first step of a run's resolution: resolve takes
// options that validate has passed.
func validate(opt *Options) error {
	for _, err := range []error{
		checkMethod(opt.Method),
		checkOptionAlpha(opt.Alpha),
		checkObjective(opt),
		opt.Domain.validate(),
		checkDomainOf(opt.Method, opt.Domain),
		checkTauRange(opt.TauMin, opt.TauMax),
		checkSmoothing(opt.Smoothing),
		nonNegative("Eps", opt.Eps),
		nonNegative("EpsFraction", opt.EpsFraction),
		nonNegative("LR", opt.LR),
		nonNegative("TauLR", opt.TauLR),
		checkRule(opt.Rule),
		nonNegative("WeightDecay", opt.WeightDecay),
		checkCount("Steps", opt.Steps),
		checkCount("Epochs", opt.Epochs),
		checkBatch(opt.Method, opt.Batch),
		checkSampling(opt.Sampling),
		checkOutput(opt.Output),
		nonNegative("LossBound", opt.LossBound),
		nonNegative("G", opt.G),
		nonNegative("Beta", opt.Beta),
		nonNegative("Scale.MaxNorm", opt.Scale.MaxNorm),
		nonNegative("Scale.MaxAbsY", opt.Scale.MaxAbsY),
		checkThreads(opt.Threads),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkMethod(m Method) error {
	if m < Alg1 || m > MinibatchCVaR {
		return fmt.Errorf("cvar: unknown method %d", int(m))
	}
	return nil
}

// checkOptionAlpha refuses an α outside (0, 1]; 0 means DefaultAlpha.
func checkOptionAlpha(a float64) error {
	if a == 0 {
		return nil
	}
	return checkAlpha(a)
}

func checkDomainOf(m Method, d Domain) error {
	if m == Alg4 && d.kind != domainR {
		return fmt.Errorf("cvar: alg4 is unconstrained (K = R^d); got domain %v", d)
	}
	return nil
}

// checkTauRange refuses a TauMin that is not finite and a given TauMax
// below it (or NaN); tauRange checks TauMin against the default TauMax.
func checkTauRange(lo, hi float64) error {
	if !finite(lo) || (hi != 0 && !(lo <= hi)) {
		return fmt.Errorf("cvar: tau interval [%v, %v] is empty or not finite below", lo, hi)
	}
	return nil
}

func checkSmoothing(s Smoothing) error {
	if s != Softplus && s != Quadratic {
		return fmt.Errorf("cvar: smoothing %v is not a smoothed plus function (want Softplus or Quadratic)", s)
	}
	return nil
}

func nonNegative(name string, v float64) error {
	if v < 0 || !finite(v) {
		return fmt.Errorf("cvar: %s %v must be finite and ≥ 0", name, v)
	}
	return nil
}

func checkRule(r StepRule) error {
	if r != PracticalStep && r != TheoremStep {
		return fmt.Errorf("cvar: unknown step rule %d", int(r))
	}
	return nil
}

// checkCount refuses a count of steps or epochs below 0 or above MaxSteps.
func checkCount(name string, v int) error {
	switch {
	case v < 0:
		return fmt.Errorf("cvar: %s %d must be ≥ 0", name, v)
	case uint64(v) > MaxSteps:
		return fmt.Errorf("cvar: %s %d exceeds MaxSteps (%d)", name, v, uint64(MaxSteps))
	}
	return nil
}

func checkBatch(m Method, b int) error {
	switch {
	case b < 0:
		return fmt.Errorf("cvar: Batch %d must be ≥ 0", b)
	case b > 1 && m.oneSample():
		return fmt.Errorf("cvar: %v takes one sample per step; batch %d given (use alg3)", m, b)
	}
	return nil
}

func checkSampling(s batch.Sampling) error {
	if s < 0 || s > batch.InOrder {
		return fmt.Errorf("cvar: unknown sampling %d (want 0 for the method's, batch.WithReplacement, batch.Shuffled or batch.InOrder)", int(s))
	}
	return nil
}

func checkOutput(o Output) error {
	if o < OutputDefault || o > OutputRandom {
		return fmt.Errorf("cvar: unknown output %d (want OutputDefault, OutputAverage, OutputLast or OutputRandom)", int(o))
	}
	return nil
}
