package tail

import (
	"math"
	"testing"
)

// Summaries of parts, merged, give the tails of all the losses, whatever
// the parts.
func TestSummaryOfParts(t *testing.T) {
	losses := []float64{3, -1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 0.5, 2.5}
	alphas := []float64{0.05, 0.1, 0.3, 0.5, 1}
	n := len(losses)
	perm := make([]int, n)
	want := make([]float64, 2*len(alphas))
	Multi(losses, alphas, perm, want[:len(alphas)], want[len(alphas):])
	for _, size := range []int{1, 3, 5, n} {
		var all Summary
		for i := 0; i < n; i += size {
			var part Summary
			for _, x := range losses[i:min(i+size, n)] {
				part.Add(x)
			}
			all.Merge(part)
		}
		k := TopCount(n, alphas)
		var tops Summary
		for i := 0; i < n; i += size {
			tops.Merge(Summary{K: k, Top: Largest(losses[i:min(i+size, n)], k)})
		}
		all.Merge(tops)
		if all.N != int64(n) || all.Min != -1 || all.Max != 9 || len(all.Top) != k {
			t.Fatalf("parts of %d: n %d, min %v, max %v, %d largest kept; want %d, -1, 9, %d", size, all.N, all.Min, all.Max, len(all.Top), n, k)
		}
		got := make([]float64, 2*len(alphas))
		mean := all.Tails(alphas, got[:len(alphas)], got[len(alphas):])
		if math.Abs(mean-78.0/float64(n)) > 1e-15 {
			t.Errorf("parts of %d: mean %v, want %v", size, mean, 78.0/float64(n))
		}
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-14*math.Abs(want[j]) {
				t.Errorf("parts of %d, α %v: %v, want %v (CVaR then VaR)", size, alphas[j%len(alphas)], got[j], want[j])
			}
		}
	}
}

// An empty summary merges as nothing.
func TestSummaryMergeEmpty(t *testing.T) {
	var s Summary
	s.Add(2)
	s.Merge(Summary{})
	var e Summary
	e.Merge(s)
	if e.N != 1 || e.Min != 2 || e.Max != 2 || e.Sum.Value() != 2 {
		t.Errorf("merged %+v, want one loss of 2", e)
	}
}
