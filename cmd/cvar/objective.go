package main

import (
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/numtext"
)

func objectiveChoice() *choice {
	return newChoice("", "", "cvar", "blend", "trimmed", "chi2", "group")
}

// setObjective sets opt's objective and its parameters from -objective,
// -blend, -trim, -rho and -group-lr. Without -objective, the one parameter
// flag given names it; a parameter of another objective is refused, as it
// would be ignored.
func (f *trainFlags) setObjective(opt *cvar.Options) error {
	params := []struct {
		flag string
		v    float64
		obj  cvar.Objective
	}{{"-blend", f.blend, cvar.ObjectiveBlend}, {"-trim", f.trim, cvar.ObjectiveTrimmed}, {"-rho", f.rho, cvar.ObjectiveChi2}, {"-group-lr", f.groupLR, cvar.ObjectiveGroup}}
	obj, _ := cvar.ParseObjective(f.objective.value)
	named := obj != cvar.ObjectiveDefault
	for _, p := range params {
		switch {
		case p.v == 0:
		case !named && obj == cvar.ObjectiveDefault:
			obj = p.obj
		case p.obj != obj:
			return usagef("%s is a parameter of objective %v, not %v", p.flag, p.obj, obj)
		}
	}
	if f.blend > 1 {
		return usagef("-blend %v: the mean's weight λ is in [0, 1]", f.blend)
	}
	if f.trim >= 1 {
		return usagef("-trim %v: the fraction left out is below 1", f.trim)
	}
	opt.Objective, opt.Blend, opt.Trim, opt.Rho, opt.GroupLR = obj, f.blend, f.trim, f.rho, f.groupLR
	return nil
}

// objectiveWords describes the objective of a run that is not the method's
// own (CVaR_α, or the mean for vanilla); "" for those.
func objectiveWords(p cvar.Params) string {
	a := alphaKey(p.Alpha)
	switch p.Risk {
	case cvar.ObjectiveBlend:
		return fmt.Sprintf("blend: %s × mean loss + %s × CVaR_%s", numtext.Short(p.Blend), numtext.Short(1-p.Blend), a)
	case cvar.ObjectiveTrimmed:
		return fmt.Sprintf("trimmed: CVaR_%s of each minibatch without its largest %s (DORO)", a, numtext.Short(p.Trim))
	case cvar.ObjectiveChi2:
		return fmt.Sprintf("chi2: χ²-DRO of radius ρ = %s, its dual's η in τ's place", numtext.Short(p.Rho))
	case cvar.ObjectiveGroup:
		return fmt.Sprintf("group: the largest of %d group mean losses (Group DRO), weights stepped by η_q = %s", p.Groups, numtext.Short(p.GroupLR))
	}
	return ""
}
