package report

import "slices"

// Alphas are the tail fractions a report shows: 0.05 and 0.1, then each
// of more not among them, in order. A training report passes the α it
// trained at.
func Alphas(more ...float64) []float64 {
	out := []float64{0.05, 0.1}
	for _, a := range more {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
