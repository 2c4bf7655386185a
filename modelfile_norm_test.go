package cvar

import (
	"errors"
	"strings"
	"testing"
)

// TestParamNormReported: parameters whose sum of squares passes float64's
// range are refused with their norm, not +Inf.
func TestParamNormReported(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		theta []float64
		want  string
	}{
		{[]float64{1e308, 0, 0}, "norm 1e+308 exceeds 1e+150"},
		{[]float64{1e308, 1e308, 0}, "norm 1.41e+308 exceeds 1e+150"},
		{[]float64{3e150, -4e150, 0}, "norm 5e+150 exceeds 1e+150"},
	} {
		m := &ModelFile{Kind: "logistic", D: 2, K: 2, Precision: F64, Theta: c.theta, Alpha: 0.1, Method: Alg3, Classes: []string{"a", "b"}}
		err := m.Validate()
		if !errors.Is(err, ErrModelInvalid) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("θ = %v: %v; want %q", c.theta, err, c.want)
		}
	}
	if got := scaledNorm([]float64{0, 0}); got != 0 {
		t.Errorf("norm of zeros %v", got)
	}
}
