package main

import (
	"encoding/json"
	"strconv"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// metrics is cvar.Metrics in the command's JSON form. Its flat keys are n,
// mean_loss, accuracy (null for regression), cvar_<α> and var_<α>.
type metrics cvar.Metrics

// MarshalJSON writes the flat keys.
func (m metrics) MarshalJSON() ([]byte, error) {
	obj := map[string]any{"n": m.N, "mean_loss": jsonfloat.Lossy(m.MeanLoss), "accuracy": jsonfloat.Lossy(m.Accuracy)}
	for _, t := range m.Tails {
		a := alphaKey(t.Alpha)
		obj["cvar_"+a], obj["var_"+a] = jsonfloat.Lossy(t.CVaR), jsonfloat.Lossy(t.VaR)
	}
	return json.Marshal(obj)
}

// tail returns CVaR and VaR at α (NaNs when α was not asked).
func (m metrics) tail(alpha float64) cvar.Tail {
	c, v := cvar.Metrics(m).TailAt(alpha)
	return cvar.Tail{Alpha: alpha, CVaR: c, VaR: v}
}

// alphaKey formats α for keys and headings: 0.05, 0.1.
func alphaKey(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
