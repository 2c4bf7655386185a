package cvarbeam

import (
	"container/heap"
	"math"
	"slices"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/tail"
)

// summary is what the combine of all losses keeps: their count, their
// compensated sum, the extremes and the rows classified correctly.
type summary struct {
	N          int64
	Sum, Comp  float64 // Neumaier's sum and its compensation
	Min, Max   float64
	Correct    int64
	Classifier bool
}

func (s *summary) add(x float64) {
	s.addSum(x)
	if s.N == 0 {
		s.Min, s.Max = x, x
	}
	s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	s.N++
}

// addSum adds x to the compensated sum.
func (s *summary) addSum(x float64) {
	t := s.Sum + x
	if math.Abs(s.Sum) >= math.Abs(x) {
		s.Comp += (s.Sum - t) + x
	} else {
		s.Comp += (x - t) + s.Sum
	}
	s.Sum = t
}

func (s *summary) merge(o *summary) {
	s.Classifier = s.Classifier || o.Classifier
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		s.Min, s.Max = o.Min, o.Max
	}
	s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
	s.addSum(o.Sum)
	s.Comp += o.Comp
	s.N += o.N
	s.Correct += o.Correct
}

func (s *summary) total() float64 { return s.Sum + s.Comp }

// topK is the number of largest losses the tails at alphas need of n
// losses: ⌊αn⌋ + 1 for the largest α whose tail is not all n losses (a
// tail of all n is the mean and the minimum, which the summary holds).
func topK(n int64, alphas []float64) int {
	k := 0
	for _, a := range alphas {
		if _, ka := tail.Count(int(n), a); ka < int(n) {
			k = max(k, ka+1)
		}
	}
	return k
}

// minHeap keeps the largest values seen, its smallest at the root.
type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keep offers x to a heap of at most k values.
func (h *minHeap) keep(x float64, k int) {
	switch {
	case len(*h) < k:
		heap.Push(h, x)
	case k > 0 && x > (*h)[0]:
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

// tailsOf computes CVaR_α and VaR_α at each α from the summary of all n
// losses and their top largest (any order, at least topK of them), as
// cvar.Tails defines them: VaR_α = ℓ(k+1) and
// CVaR_α = (ℓ(1) + … + ℓ(k) + (αn − k)·ℓ(k+1)) / (αn), k = ⌊αn⌋ taken as
// the library takes it; a tail of all n losses is their mean and minimum.
func tailsOf(s *summary, top []float64, alphas []float64) []cvar.Tail {
	desc := slices.Clone(top)
	slices.SortFunc(desc, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	out := make([]cvar.Tail, len(alphas))
	n := int(s.N)
	for j, a := range alphas {
		m, k := tail.Count(n, a)
		out[j].Alpha = a
		if k == n {
			out[j].VaR = s.Min
			out[j].CVaR = min(max(s.total()/float64(n), s.Min), s.Max)
			continue
		}
		v := desc[k]
		out[j].VaR = v
		if k == 0 {
			out[j].CVaR = v
			continue
		}
		var acc summary
		for _, x := range desc[:k] {
			acc.add(x)
		}
		c := (acc.total() + (m-float64(k))*v) / m
		out[j].CVaR = min(max(c, v), desc[0])
	}
	return out
}
