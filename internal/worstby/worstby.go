// Package worstby reads the metric that picks the worst group of a group
// evaluation. It serves cvar.GroupOptions.WorstBy and cvar eval's
// -worst-by flag, so the library and the command accept the same names.
package worstby

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads s against the alphas evaluated. "" and "mean_loss" (also
// "loss") name the mean loss. "accuracy" (also "acc") names the accuracy.
// "cvar" names the CVaR at the first α. "cvar_0.1" (also "cvar0.1") names
// the CVaR at α = 0.1, which must be among alphas. Parse returns the
// metric's name, "mean_loss", "accuracy" or "cvar", and the α of a CVaR.
func Parse(s string, alphas []float64) (name string, alpha float64, err error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "mean_loss", "loss", "mean-loss":
		return "mean_loss", 0, nil
	case "accuracy", "acc":
		return "accuracy", 0, nil
	case "cvar":
		if len(alphas) == 0 {
			return "", 0, fmt.Errorf("cvar: worst group by CVaR, but no α is evaluated")
		}
		return "cvar", alphas[0], nil
	}
	if rest, ok := strings.CutPrefix(s, "cvar"); ok {
		a, err := strconv.ParseFloat(strings.TrimLeft(rest, "_@-"), 64)
		if err == nil {
			for _, b := range alphas {
				if a == b {
					return "cvar", a, nil
				}
			}
			return "", 0, fmt.Errorf("cvar: worst group by CVaR at α = %v, which is not among the alphas evaluated %v", a, alphas)
		}
	}
	return "", 0, fmt.Errorf("cvar: worst group by %q; expected mean_loss, accuracy, cvar or cvar_α", s)
}

// Name is the canonical form of a metric Parse returned. It is the name,
// or "cvar_" and the α of a CVaR.
func Name(name string, alpha float64) string {
	if name == "cvar" {
		return "cvar_" + strconv.FormatFloat(alpha, 'g', -1, 64)
	}
	return name
}

// Check is Parse's canonical form of s.
func Check(s string, alphas []float64) (string, error) {
	name, a, err := Parse(s, alphas)
	if err != nil {
		return "", err
	}
	return Name(name, a), nil
}
