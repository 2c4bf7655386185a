package cvar

import "fmt"

// tauGiven marks in Params a starting τ that Options.InitTau gave.
const tauGiven = "given"

// givenTau sets pr's starting τ from opt.InitTau when it is set, after
// checking it against the method and τ's interval as resolved in pr.
func givenTau(opt *Options, pr *Params) error {
	if opt.InitTau == nil {
		return nil
	}
	tau := *opt.InitTau
	if !opt.hasTau() {
		return fmt.Errorf("cvar: InitTau %v: %v has no τ", tau, opt.Method)
	}
	if !finite(tau) || tau < pr.TauMin || tau > pr.TauMax {
		return fmt.Errorf("cvar: InitTau %v is outside τ's interval [%v, %v]", tau, pr.TauMin, pr.TauMax)
	}
	pr.Tau0, pr.TauFrom = tau, tauGiven
	return nil
}
