package cvar

import (
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func TestUnscaleTarget(t *testing.T) {
	t.Parallel()
	lin, err := batch.NewModel[float64](batch.KindLinear, 2, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.5, -1, 0.25}
	got := slices.Clone(theta)
	if f, err := UnscaleTarget(lin, got, &dataset.Preprocessing{}); err != nil || f != 1 || !slices.Equal(got, theta) {
		t.Errorf("no target scaling: factor %v, θ %v, %v; want 1 and θ unchanged", f, got, err)
	}
	f, err := UnscaleTarget(lin, got, &dataset.Preprocessing{TargetMean: 3, TargetScale: 2})
	if err != nil || !(f > 0) || slices.Equal(got, theta) {
		t.Errorf("target scale 2: factor %v, θ %v, %v; want a positive factor and θ in the target's units", f, got, err)
	}
	logit, err := batch.NewModel[float64](batch.KindLogistic, 2, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnscaleTarget(logit, slices.Clone(theta), &dataset.Preprocessing{TargetScale: 2}); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a logistic model on standardised targets: %v", err)
	}
}
