package worstby

import (
	"strings"
	"testing"
)

// Every spelling reads as its canonical name; a CVaR's α must be evaluated.
func TestCheck(t *testing.T) {
	alphas := []float64{0.05, 0.1}
	for in, want := range map[string]string{
		"": "mean_loss", "loss": "mean_loss", " Mean_Loss ": "mean_loss", "acc": "accuracy",
		"cvar": "cvar_0.05", "cvar_0.1": "cvar_0.1", "cvar0.1": "cvar_0.1", "CVaR@0.05": "cvar_0.05",
	} {
		if got, err := Check(in, alphas); err != nil || got != want {
			t.Errorf("Check(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"cvar_0.2": "not among the alphas evaluated", "median": "expected mean_loss, accuracy, cvar or cvar_α",
	} {
		if _, err := Check(in, alphas); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Check(%q): %v, want an error saying %q", in, err, msg)
		}
	}
	if _, err := Check("cvar", nil); err == nil {
		t.Error("cvar without an α evaluated: no error")
	}
}
