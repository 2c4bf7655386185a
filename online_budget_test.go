package cvar

import (
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestOnlineRefusesPastSteps: Observe and ObserveSparse take Options.Steps
// samples and refuse the next one, naming it, with the parameters as the
// last accepted sample left them.
func TestOnlineRefusesPastSteps(t *testing.T) {
	t.Parallel()
	model, err := batch.NewLogistic[float64](2)
	if err != nil {
		t.Fatal(err)
	}
	on, err := NewOnline[float64](model, 2, 2, Options{Method: Alg1, Alpha: 0.5, Steps: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	for i := range 3 {
		if err := on.Observe([]float64{1, float64(i)}, 0, i%2); err != nil {
			t.Fatalf("sample %d: %v", i+1, err)
		}
	}
	before := append([]float64(nil), on.Result().Theta...)
	if err := on.Observe([]float64{1, 1}, 0, 1); err == nil || !strings.Contains(err.Error(), "sample 4 is past the 3 samples of Options.Steps") {
		t.Errorf("a 4th sample of 3: %v", err)
	}
	if err := on.ObserveSparse([]uint32{0}, []float64{1}, 0, 1); err == nil || !strings.Contains(err.Error(), "sample 4") {
		t.Errorf("a 4th sparse sample of 3: %v", err)
	}
	if on.Seen() != 3 {
		t.Errorf("Seen %d after refusals, want 3", on.Seen())
	}
	for i, v := range on.Result().Theta {
		if v != before[i] {
			t.Fatalf("θ changed by a refused sample: %v, was %v", on.Result().Theta, before)
		}
	}
}
