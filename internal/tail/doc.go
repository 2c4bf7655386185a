// Package tail computes the empirical value at risk (VaR) and conditional
// value at risk (CVaR) of n losses. It works by selection, in O(n) time. It
// does not sort, and it does not allocate: the caller passes the index
// scratch. It is the core of cvar's risk metrics and of the exact
// CVaR-on-Minibatch weights of package batch.
//
// [CVaRVaR] gives both at one α. [Multi] gives them at several α from one
// selection. [WeightedCVaRVaR] handles weighted samples. [Weights] gives the
// exact CVaR weight of each loss: the subgradient that CVaR-on-Minibatch
// follows. [Select] is the selection they share. [Count] is the tail size
// m = α·n they agree on.
//
// # Definitions
//
// α ∈ (0, 1] is the tail fraction. Sort the losses descending,
// ℓ(1) ≥ ℓ(2) ≥ … ≥ ℓ(n). Let m = α·n and k = ⌊m⌋ (see Count). Then
//
//	VaR_α  = ℓ(k+1) for k < n, and ℓ(n) (the minimum) when k = n (α = 1);
//	CVaR_α = (ℓ(1) + … + ℓ(k) + (m − k)·ℓ(k+1)) / m,
//
// where the last term vanishes when k = n. Equivalently, CVaR_α = min_τ
// τ + (1/(α n)) Σ [ℓ_i − τ]_+. The minimum is attained at τ = VaR_α. Nothing
// requires ℓ ≥ 0.
//
// # Ties
//
// Indices are ranked by a strict total order. Index i ranks before j (counts
// as larger) when losses[i] > losses[j]. It also does when they are equal
// and i < j. So among equal losses the lower index wins. Every result is
// then a function of the losses alone, including which indices get which
// weight. The order the scratch permutation starts in does not matter.
//
// # Preconditions
//
// These functions are building blocks: they do not validate. The caller
// guarantees that:
//
//   - α ∈ (0, 1], and α is not NaN;
//   - there is at least one loss;
//   - no loss is NaN;
//   - the scratch slices are long enough.
//
// A NaN loss breaks the total order, and the results are then unspecified.
// The functions still terminate without panicking. Wrong slice lengths
// panic. Package cvar's CVaR, VaR, Tails and WeightedCVaR are the validating
// front ends.
//
// # Accuracy
//
// Selection only compares, so VaR is exact. It is one of the losses. Sums
// are taken in float64 with Neumaier's compensated summation, whatever T is.
// So CVaR is accurate to a few units in the last place of float64,
// independently of n. It is clamped to [VaR, max loss], which rounding could
// otherwise leave by an ulp.
package tail
