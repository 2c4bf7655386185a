// Package tail computes the empirical value at risk (VaR) and conditional
// value at risk (CVaR) of n losses by selection, in O(n) time, without
// sorting and without allocating (the caller passes the index scratch): the
// core of cvar's risk metrics and of the exact CVaR-on-Minibatch weights of
// package batch.
//
// [CVaRVaR] gives both at one α, [Multi] at several α from one selection,
// [WeightedCVaRVaR] of weighted samples, and [Weights] the exact CVaR weights
// of each loss, the subgradient that CVaR-on-Minibatch follows. [Select] is
// the selection they share, and [Count] the tail size m = α·n they agree on.
//
// # Definitions
//
// α ∈ (0, 1] is the tail fraction. Sort the losses descending,
// ℓ(1) ≥ ℓ(2) ≥ … ≥ ℓ(n), and let m = α·n and k = ⌊m⌋ (see Count). Then
//
//	VaR_α  = ℓ(k+1) for k < n, and ℓ(n) (the minimum) when k = n (α = 1);
//	CVaR_α = (ℓ(1) + … + ℓ(k) + (m − k)·ℓ(k+1)) / m,
//
// where the last term vanishes when k = n. Equivalently
// CVaR_α = min_τ τ + (1/(α n)) Σ [ℓ_i − τ]_+, attained at τ = VaR_α. Nothing
// requires ℓ ≥ 0.
//
// # Ties
//
// Indices are ranked by a strict total order: i ranks before (counts as
// larger than) j when losses[i] > losses[j], or when they are equal and i < j.
// Among equal losses the lower index therefore wins, and every result
// (including which indices get which weight) is a deterministic function of
// the losses alone, whatever order the scratch permutation starts in.
//
// # Preconditions
//
// These functions are building blocks: they do not validate. The caller
// guarantees that α ∈ (0, 1] (not NaN), that there is at least one loss, that
// no loss is NaN (a NaN breaks the total order; the results are then
// unspecified, although the functions still terminate without panicking
// unless the sizes are wrong), and that the scratch slices are long enough.
// Wrong slice lengths panic. Package cvar's CVaR, VaR, Tails and WeightedCVaR
// are the validating front ends.
//
// # Accuracy
//
// Selection only compares, so VaR is exact (it is one of the losses). Sums
// are taken in float64 with Neumaier's compensated summation whatever T is, so
// CVaR is accurate to a few units in the last place of float64 in practice,
// independently of n. It is clamped to [VaR, max loss], which rounding could
// otherwise leave by an ulp.
package tail
