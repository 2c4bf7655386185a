package tail

// The tails of n losses need only their largest: CVaR_α and VaR_α of n
// losses are CVaR and VaR at m/K of their K largest, m = α·n (Count),
// when K > ⌊m⌋. Lists of the largest merge: the K largest of a union are
// the K largest of the parts' K largest. So workers can each keep K.

// TopCount is the number of largest losses that the tails at alphas need
// of n losses: ⌊α·n⌋ + 1 for the largest α whose tail is not all n. A
// tail of all n losses is their mean, which needs none. Alphas outside
// (0, 1] are skipped.
func TopCount(n int, alphas []float64) int {
	k := 0
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			continue
		}
		if _, ka := Count(n, a); ka < n {
			k = max(k, ka+1)
		}
	}
	return k
}

// Largest returns the k largest of vals, in no order, by Select; vals
// itself when it holds no more. It reorders nothing in vals.
func Largest(vals []float64, k int) []float64 {
	if len(vals) <= k {
		return vals
	}
	perm := make([]int, len(vals))
	for i := range perm {
		perm[i] = i
	}
	Select(vals, k, perm)
	out := make([]float64, k)
	for i, p := range perm[:k] {
		out[i] = vals[p]
	}
	return out
}
