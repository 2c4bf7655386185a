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

// defaultObjective is train's objective when -objective is not given: for
// the CVaR methods a blend of the mean and CVaR_α, which lowers the tail
// without collapsing to uniform predictions when labels are noisy; the
// method's own under the theorems' rule, which bounds CVaR_α alone (and
// for vanilla, the mean).
func defaultObjective(opt *cvar.Options) cvar.Objective {
	if opt.Method == cvar.Vanilla || opt.Rule == cvar.TheoremStep {
		return cvar.ObjectiveDefault
	}
	return cvar.ObjectiveBlend
}

// setObjective sets opt's objective and its parameters from -objective,
// -blend, -trim, -rho and -group-lr. Without -objective, -rho names chi2
// and -group-lr group; -trim trims the default blend. A parameter of
// another objective is refused, as it would be ignored.
func (f *trainFlags) setObjective(opt *cvar.Options) error {
	obj, _ := cvar.ParseObjective(f.objective.value)
	if obj == cvar.ObjectiveDefault {
		obj = defaultObjective(opt)
		switch {
		case f.rho > 0:
			obj = cvar.ObjectiveChi2
		case f.groupLR > 0:
			obj = cvar.ObjectiveGroup
		}
	}
	for _, p := range []struct {
		flag string
		v    float64
		ok   bool
	}{
		{"-blend", f.blend, obj == cvar.ObjectiveBlend},
		{"-trim", f.trim, obj == cvar.ObjectiveBlend || obj == cvar.ObjectiveTrimmed},
		{"-rho", f.rho, obj == cvar.ObjectiveChi2},
		{"-group-lr", f.groupLR, obj == cvar.ObjectiveGroup},
	} {
		if p.v != 0 && !p.ok {
			return usagef("%s is not a parameter of objective %s", p.flag, objectiveName(obj, opt.Method))
		}
	}
	switch {
	case obj == cvar.ObjectiveGroup && f.data.group == "" && f.data.groupFile == "":
		return usagef("objective group weighs the rows' groups: give -group COLUMN (the built-in data: subgroup) or -group-file FILE")
	case f.blend > 1:
		return usagef("-blend %v: the mean's weight λ is in [0, 1]", f.blend)
	case f.trim >= 1:
		return usagef("-trim %v: the fraction left out is below 1", f.trim)
	}
	opt.Objective, opt.Blend, opt.Trim, opt.Rho, opt.GroupLR = obj, f.blend, f.trim, f.rho, f.groupLR
	return nil
}

// objectiveName is o's name, "mean" for the vanilla default.
func objectiveName(o cvar.Objective, m cvar.Method) string {
	if o == cvar.ObjectiveDefault && m == cvar.Vanilla {
		return "mean"
	}
	return o.String()
}

// objectiveWords describes the objective of a run that is not the method's
// own (CVaR_α, or the mean for vanilla); "" for those.
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
		o, err := cvar.ParseObjective(name)
		if err != nil || o != cvar.ObjectiveBlend && o != cvar.ObjectiveTrimmed && o != cvar.ObjectiveChi2 {
			return nil, usagef("-objectives: %q is not blend, trimmed or chi2", name)
		}
		out = append(out, o)
	}
	return out, nil
}
