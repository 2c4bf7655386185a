package cvar

import (
	"encoding/json"
	"strconv"

	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// MarshalJSON writes an interval as {"value", "lo", "hi"}, null where a
// bound is not finite.
func (v Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Value jsonfloat.Lossy `json:"value"`
		Lo    jsonfloat.Lossy `json:"lo"`
		Hi    jsonfloat.Lossy `json:"hi"`
	}{jsonfloat.Lossy(v.Value), jsonfloat.Lossy(v.Lo), jsonfloat.Lossy(v.Hi)})
}

// MarshalJSON writes a tail as {"alpha", "cvar", "var"}.
func (t TailInterval) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Alpha float64  `json:"alpha"`
		CVaR  Interval `json:"cvar"`
		VaR   Interval `json:"var"`
	}{t.Alpha, t.CVaR, t.VaR})
}

func fmtAlpha(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }
