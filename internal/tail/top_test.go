package tail

import (
	"slices"
	"testing"
)

// The tails of n losses from their TopCount largest, gathered part by
// part, equal the tails of all of them.
func TestTopOfParts(t *testing.T) {
	losses := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9}
	alphas := []float64{0.1, 0.25, 1, 2}
	n := len(losses)
	k := TopCount(n, alphas)
	if k != 4 { // ⌊0.25·15⌋ + 1; α = 1 needs none, 2 is skipped
		t.Fatalf("TopCount = %d, want 4", k)
	}
	var top []float64
	for i := 0; i < n; i += 4 {
		top = Largest(append(top, Largest(slices.Clone(losses[i:min(i+4, n)]), k)...), k)
	}
	perm := make([]int, n)
	for _, a := range alphas[:2] {
		m, _ := Count(n, a)
		gc, gv := CVaRVaR(top, m/float64(len(top)), perm[:len(top)])
		wc, wv := CVaRVaR(losses, a, perm)
		if gc != wc || gv != wv {
			t.Errorf("α %v: CVaR %v and VaR %v from the top; %v and %v from all", a, gc, gv, wc, wv)
		}
	}
	if got := Largest([]float64{2, 1}, 3); len(got) != 2 {
		t.Errorf("Largest of fewer than k: %v", got)
	}
}
