package main

import (
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// epsInTargetUnits restates ε of a run on standardised targets in the
// target's units for a report, as τ is. It applies with L = 1 (the
// practical rule). ε is a figure of the initial losses times EpsFraction.
// The library writes that figure last in EpsFrom, in parentheses. Both ε
// and the figure are multiplied by factor, the loss factor of
// UnscaleTarget. A report then shows every loss level in one unit.
func epsInTargetUnits(p cvar.Params, factor float64) cvar.Params {
	if factor == 1 || p.L != 1 { // with L ≠ 1, ε is of the standardised losses ÷ L, as the report says
		return p
	}
	p.Eps *= factor
	if i := strings.LastIndex(p.EpsFrom, " ("); i >= 0 && p.EpsFraction > 0 && strings.HasSuffix(p.EpsFrom, ")") {
		if _, err := strconv.ParseFloat(p.EpsFrom[i+2:len(p.EpsFrom)-1], 64); err == nil {
			p.EpsFrom = p.EpsFrom[:i] + " (" + numtext.Short(p.Eps/p.EpsFraction) + ")"
		}
	}
	return p
}
