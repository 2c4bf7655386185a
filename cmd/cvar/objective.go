package main

import (
	"fmt"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/numtext"
)

func objectiveChoice() *choice {
	return newChoice("", "", "cvar", "blend", "trimmed", "chi2", "group")
}

// setObjective sets opt's objective and its parameters from -objective,
// -blend, -trim, -rho and -group-lr. It settles it as the library does
// (cvar.Options.SettleObjective). The blend is the default; -rho names
// chi2 and -group-lr group.
func (f *trainFlags) setObjective(opt *cvar.Options) error {
	var obj cvar.Objective
	obj.UnmarshalText([]byte(f.objective.Value)) // one of -objective's choices
	switch {
	case f.blend > 1:
		return usagef("-blend %v: the mean's weight λ is in [0, 1]", f.blend)
	case f.trim >= 1:
		return usagef("-trim %v: the fraction left out is below 1", f.trim)
	}
	opt.Objective, opt.Blend, opt.Trim, opt.Rho, opt.GroupLR = obj, f.blend, f.trim, f.rho, f.groupLR
	if err := opt.SettleObjective(); err != nil {
		flags := strings.NewReplacer("Blend ", "-blend ", "Trim ", "-trim ", "Rho ", "-rho ", "GroupLR ", "-group-lr ")
		return usagef("%s", flags.Replace(strings.TrimPrefix(err.Error(), "cvar: ")))
	}
	if opt.Objective == cvar.ObjectiveGroup && f.data.group == "" && f.data.groupFile == "" {
		return usagef("objective group weighs the rows' groups: give -group COLUMN (the built-in data: subgroup) or -group-file FILE")
	}
	return nil
}

// objectiveWords describes the objective of a run that is not the method's
// own (CVaR_α, or the mean for vanilla). It is "" for those.
func objectiveWords(p cvar.Params) string {
	a := alphaKey(p.Alpha)
	trim := ""
	if p.Trim > 0 {
		trim = fmt.Sprintf(" without the largest %s of each minibatch", numtext.Short(p.Trim))
	}
	switch p.Risk {
	case cvar.ObjectiveBlend:
		return fmt.Sprintf("blend: %s × mean loss + %s × CVaR_%s%s", numtext.Short(p.Blend), numtext.Short(1-p.Blend), a, trim)
	case cvar.ObjectiveTrimmed:
		return fmt.Sprintf("trimmed: CVaR_%s%s (DORO)", a, trim)
	case cvar.ObjectiveChi2:
		return fmt.Sprintf("chi2: χ²-DRO of radius ρ = %s, its dual's η in τ's place", numtext.Short(p.Rho))
	case cvar.ObjectiveGroup:
		return fmt.Sprintf("group: the largest of %d group mean losses (Group DRO), weights stepped by η_q = %s", p.Groups, numtext.Short(p.GroupLR))
	}
	return ""
}

// parseObjectives reads experiment's -objectives: a comma-separated list
// of blend, trimmed and chi2.
func parseObjectives(s string) ([]cvar.Objective, error) {
	var out []cvar.Objective
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		var o cvar.Objective
		if err := o.UnmarshalText([]byte(name)); err != nil || o != cvar.ObjectiveBlend && o != cvar.ObjectiveTrimmed && o != cvar.ObjectiveChi2 {
			return nil, usagef("-objectives: %q is not blend, trimmed or chi2", name)
		}
		out = append(out, o)
	}
	return out, nil
}
