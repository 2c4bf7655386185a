package tail

import "slices"

// Summary is a mergeable summary of n losses from which their mean and
// exact tails follow: the count, the compensated sum, the extremes and,
// once K is known, the K largest (Top). A pipeline first merges the counts
// (Add, Merge); with n known, each worker keeps its TopCount(n, alphas)
// largest, and those merge too. The fields are exported so that a
// pipeline can encode a summary.
type Summary struct {
	N        int64
	Sum      Sum
	Min, Max float64
	K        int
	Top      []float64
}

// Add adds the loss x to the count, the sum and the extremes.
func (s *Summary) Add(x float64) {
	if s.N == 0 || x < s.Min {
		s.Min = x
	}
	if s.N == 0 || x > s.Max {
		s.Max = x
	}
	s.N++
	s.Sum.Add(x)
}

// Merge adds b to s. Two lists of the largest merge into the K largest of
// both, K the larger of the two.
func (s *Summary) Merge(b Summary) {
	if s.K = max(s.K, b.K); s.K > 0 {
		s.Top = Largest(append(slices.Clone(s.Top), b.Top...), s.K)
	}
	if b.N == 0 {
		return
	}
	if s.N == 0 {
		s.Min, s.Max = b.Min, b.Max
	}
	s.Min, s.Max = min(s.Min, b.Min), max(s.Max, b.Max)
	s.Sum.Merge(b.Sum)
	s.N += b.N
}

// Tails sets cvar[j] and vr[j] to CVaR and VaR at alphas[j] of the N
// losses, and returns their mean. A tail of all N losses is their mean
// and minimum. Another is the tail at m/K of the K largest (m = α·N):
// they hold the ⌊m⌋ + 1 that decide it. The caller guarantees N ≥ 1, α
// in (0, 1], no NaN loss, and at least TopCount(N, alphas) losses in Top.
func (s *Summary) Tails(alphas, cvar, vr []float64) (mean float64) {
	n := int(s.N)
	mean = s.Sum.Value() / float64(n)
	perm := make([]int, len(s.Top))
	for j, a := range alphas {
		m, k := Count(n, a)
		if k == n {
			cvar[j], vr[j] = min(max(mean, s.Min), s.Max), s.Min
			continue
		}
		Multi(s.Top, []float64{m / float64(len(s.Top))}, perm, cvar[j:j+1], vr[j:j+1])
	}
	return mean
}
