package tail

import (
	"math"

	"github.com/cvarlearn/cvar/kernel"
)

// Float is the set of loss element types, kernel.Float.
type Float = kernel.Float

// snapTol is the relative distance to an integer within which α·n is taken
// to be that integer. It is four units of 2⁻⁵²: four ulp at most, for any
// m ≥ 1. An α is usually a decimal such as 0.1 or 0.29 that float64 cannot
// represent. The product α·n carries that representation error plus one
// rounding. Together they stay below 2⁻⁵² relative. So a product that is
// mathematically an integer always lands within the tolerance. An α
// deliberately a hair off an integer count (more than 4 ulp) keeps its exact
// value.
const snapTol = 4 * 0x1p-52

// snap returns x rounded to the nearest integer when it lies within snapTol
// (relative) of it. Otherwise it returns x. Zero is never a snap target.
func snap(x float64) float64 {
	r := math.Round(x)
	if r != 0 && math.Abs(x-r) <= snapTol*r {
		return r
	}
	return x
}

// Count returns m = α·n and k = ⌊m⌋ for n losses, computed robustly. A
// floating-point product α·n within four ulp of an integer is snapped to
// that integer. So α = 0.1, n = 100 gives m = 10, k = 10, as the exact
// decimal α intends. And α = 0.29, n = 100 gives k = 29, though the raw
// product is 28.999999999999996. The count k never exceeds n. It equals n
// exactly when m = n: α = 1, or α within rounding of 1. For every α > 0 and
// n ≥ 1, m > 0. When α < 1/n, m < 1 and k = 0.
func Count(n int, alpha float64) (m float64, k int) {
	m = snap(alpha * float64(n))
	if m >= float64(n) {
		return float64(n), n
	}
	return m, int(m)
}

// iota fills p with 0, 1, …, len(p)−1.
func iota(p []int) {
	for i := range p {
		p[i] = i
	}
}

// Select partially orders perm, a permutation of 0..n−1 with
// n = len(losses). The caller supplies perm. On return perm[:k] holds the
// indices of the k largest losses, in no particular order, and perm[k:] the
// others. When k < n, perm[k] is the index of the (k+1)-th largest loss. The
// indices ranked after it are in perm[k+1:], as in C++'s nth_element. So
// losses[perm[k]] is ℓ(k+1).
//
// Ties are broken deterministically. Among equal losses the lower index
// counts as larger (see the package documentation). So the set perm[:k] does
// not depend on the order perm starts in.
//
// Complexity: O(n) worst case. It is an introselect with median-of-3 or
// ninther pivots and a median-of-medians fallback. It takes about 2–3 n
// comparisons in the usual cases. Sorted, reverse-sorted and all-equal
// inputs are among the best cases. It allocates nothing. It panics unless 0
// ≤ k ≤ n and len(perm) = n. No loss may be NaN.
func Select[T Float](losses []T, k int, perm []int) {
	selectK(sampled, losses, k, perm)
}

// selectK is Select with the pivots piv.
func selectK[T Float](piv pivots, losses []T, k int, perm []int) {
	n := len(losses)
	if len(perm) != n {
		panic("tail.Select: len(perm) != len(losses)")
	}
	if k < 0 || k > n {
		panic("tail.Select: k outside [0, n]")
	}
	if k == n {
		return
	}
	s := newSelector(losses, perm, piv)
	s.run(0, n, k)
}

// scratch returns perm[:n] filled with the identity. It panics if perm is
// too short.
func scratch(perm []int, n int, who string) []int {
	if len(perm) < n {
		panic("tail." + who + ": len(perm) < len(losses)")
	}
	p := perm[:n]
	iota(p)
	return p
}

// Weights writes into w the exact CVaR_α weights of the losses and returns
// VaR_α. The k = ⌊αn⌋ largest losses get 1/(αn). The (k+1)-th largest gets
// (αn − k)/(αn), which is zero when αn is an integer. All others get 0. So Σ
// w_i = 1 and Σ w_i ℓ_i = CVaR_α, both up to rounding in T. When α = 1 every
// weight is 1/n, and the returned VaR is the minimum loss. Count gives m =
// αn and k. These are the CVaR-on-Minibatch weights: the subgradient of the
// empirical CVaR with respect to the losses. When α < 1/n all weight is on
// the maximum.
//
// The slice perm is scratch of at least len(losses) entries. Its first n
// entries are overwritten and left as Select leaves them with this k. So
// perm[:k] holds the full-weight indices, and perm[k] the boundary index
// when k < n. len(w) must equal len(losses). It takes O(n) time and
// allocates nothing. The caller guarantees len(losses) ≥ 1, α ∈ (0, 1] and
// no NaN loss.
func Weights[T Float](w, losses []T, alpha float64, perm []int) (varAlpha T) {
	return weights(sampled, w, losses, alpha, perm)
}

// weights is Weights with the pivots piv.
func weights[T Float](piv pivots, w, losses []T, alpha float64, perm []int) (varAlpha T) {
	n := len(losses)
	if len(w) != n {
		panic("tail.Weights: len(w) != len(losses)")
	}
	p := scratch(perm, n, "Weights")
	m, k := Count(n, alpha)
	if k == n {
		u := T(1 / float64(n))
		mn := losses[0]
		for i, x := range losses {
			w[i] = u
			if x < mn {
				mn = x
			}
		}
		return mn
	}
	s := newSelector(losses, p, piv)
	s.run(0, n, k)
	clear(w)
	full := T(1 / m)
	for _, i := range p[:k] {
		w[i] = full
	}
	b := p[k]
	w[b] = T((m - float64(k)) / m)
	return losses[b]
}

// Sum is Neumaier's compensated sum: S is the running sum, C the
// compensation. Its zero value is empty. The fields are exported so that
// a pipeline can encode a partial sum and merge it.
type Sum struct{ S, C float64 }

// Add adds x.
func (a *Sum) Add(x float64) {
	t := a.S + x
	if math.Abs(a.S) >= math.Abs(x) {
		a.C += (a.S - t) + x
	} else {
		a.C += (x - t) + a.S
	}
	a.S = t
}

// Merge adds the partial sum b.
func (a *Sum) Merge(b Sum) {
	a.Add(b.S)
	a.C += b.C
}

// Value is the sum.
func (a Sum) Value() float64 { return a.S + a.C }

// Sums of values up to bigAbs in magnitude cannot overflow for any count of
// terms below 2⁶³. When a larger value takes part, every term is multiplied
// by downScale first, and the result divided by it after. Both are powers of
// two, so scaling is exact for every term that matters. A term that becomes
// subnormal is below 2⁻¹⁸⁰⁰ of the largest. Results that need no scaling are
// bit-identical to unscaled sums.
const (
	bigAbs    = 0x1p960
	downScale = 0x1p-128
)

// scaleFor returns the factor that sums of terms up to amax in magnitude are
// taken in. It is 1, or downScale when amax exceeds bigAbs.
func scaleFor(amax float64) float64 {
	if amax > bigAbs {
		return downScale
	}
	return 1
}

// finish returns CVaR = (sum + (m − k)·v)/m, clamped to [v, max]. Its
// argument sum is the scaled sum s·(ℓ(1) + … + ℓ(k)) of the k full-weight
// losses. The argument mx is their maximum, and v = VaR is the boundary
// loss. With k = 0 it returns v exactly.
func finish(sum, mx float64, k int, m, v, s float64) float64 {
	if k == 0 {
		return v
	}
	c := (sum + (m-float64(k))*(v*s)) / m / s
	if mx < v {
		mx = v
	}
	return min(max(c, v), mx)
}

// CVaRVaR returns the empirical CVaR_α and VaR_α of the losses. The package
// documentation defines them. It uses one selection: O(n) time, no
// allocation, sums in compensated float64. The slice perm is scratch of at
// least len(losses) entries. Its first n entries are overwritten and left as
// Select leaves them with k = ⌊αn⌋ (Count). The caller guarantees
// len(losses) ≥ 1, α ∈ (0, 1] and no NaN loss.
func CVaRVaR[T Float](losses []T, alpha float64, perm []int) (cvar, vr float64) {
	return cvarVaR(sampled, losses, alpha, perm)
}

// cvarVaR is CVaRVaR with the pivots piv.
func cvarVaR[T Float](piv pivots, losses []T, alpha float64, perm []int) (cvar, vr float64) {
	n := len(losses)
	p := scratch(perm, n, "CVaRVaR")
	m, k := Count(n, alpha)
	if k == n {
		mn, mx := losses[0], losses[0]
		for _, x := range losses {
			mn = min(mn, x)
			mx = max(mx, x)
		}
		vr = float64(mn)
		sc := scaleFor(max(-vr, float64(mx)))
		var a Sum
		for _, x := range losses {
			a.Add(float64(x) * sc)
		}
		return min(max(a.Value()/float64(n)/sc, vr), float64(mx)), vr
	}
	s := newSelector(losses, p, piv)
	s.run(0, n, k)
	vr = float64(losses[p[k]])
	mx, amax := math.Inf(-1), math.Abs(vr)
	for _, i := range p[:k] {
		x := float64(losses[i])
		mx = max(mx, x)
		amax = max(amax, math.Abs(x))
	}
	sc := scaleFor(amax)
	var a Sum
	for _, i := range p[:k] {
		a.Add(float64(losses[i]) * sc)
	}
	return finish(a.Value(), mx, k, m, vr, sc), vr
}

// Multi computes CVaR_α and VaR_α for every α in alphas into cvar[j] and
// vr[j]. It panics unless len(cvar) = len(vr) = len(alphas). It makes one
// selection over the n losses, not one per α. The alphas are visited by
// decreasing k = ⌊αn⌋. The first selection places ℓ(k_max+1) over all n
// losses. Each later one only reorders the prefix the previous one left. So
// the array ends partitioned at every k at once. One ascending pass then
// accumulates the sums.
//
// Cost: O(n + Σ_j k_j) expected time for the selections. That is at most O(n
// + A·k_max) for A alphas, and O(n) when the alphas are small. The sums take
// O(k_max). Ordering the alphas without allocating takes O(A²). There is no
// full sort and no allocation. Duplicated alphas are fine.
//
// Results agree with CVaRVaR to within float64 rounding of the sums, and VaR
// exactly. The slice perm is scratch as for CVaRVaR. The caller guarantees
// len(losses) ≥ 1, every α ∈ (0, 1] and no NaN loss.
func Multi[T Float](losses []T, alphas []float64, perm []int, cvar, vr []float64) {
	multi(sampled, losses, alphas, perm, cvar, vr)
}

// multi is Multi with the pivots piv.
func multi[T Float](piv pivots, losses []T, alphas []float64, perm []int, cvar, vr []float64) {
	n := len(losses)
	na := len(alphas)
	if len(cvar) != na || len(vr) != na {
		panic("tail.Multi: len(cvar) or len(var) != len(alphas)")
	}
	p := scratch(perm, n, "Multi")
	if na == 0 {
		return
	}
	kOf := func(j int) int { _, k := Count(n, alphas[j]); return k }

	// Nested selections, by decreasing (k, j).
	s := newSelector(losses, p, piv)
	hi := n
	pk, pj := n+1, na // previous (k, j); start above every pair
	for range na {
		bk, bj := -1, -1
		for j := range na {
			k := kOf(j)
			if (k < pk || (k == pk && j < pj)) && (k > bk || (k == bk && j > bj)) {
				bk, bj = k, j
			}
		}
		pk, pj = bk, bj
		if bk < hi { // bk == n needs no selection; equal k already placed
			s.run(0, hi, bk)
			hi = bk
		}
	}

	// Every sum and boundary loss lies in p[:kmax+1]. That fixes the sums'
	// scale.
	kmax := 0
	for j := range na {
		kmax = max(kmax, kOf(j))
	}
	amax := 0.0
	for _, i := range p[:min(kmax+1, n)] {
		amax = max(amax, math.Abs(float64(losses[i])))
	}
	sc := scaleFor(amax)

	// Ascending pass: extend the running sum to each k in turn.
	var a Sum
	mx, mn := math.Inf(-1), math.Inf(1)
	pos := 0
	pk, pj = -1, -1
	for range na {
		bk, bj := n+1, na
		for j := range na {
			k := kOf(j)
			if (k > pk || (k == pk && j > pj)) && (k < bk || (k == bk && j < bj)) {
				bk, bj = k, j
			}
		}
		pk, pj = bk, bj
		for ; pos < bk; pos++ {
			x := float64(losses[p[pos]])
			a.Add(x * sc)
			mx = max(mx, x)
			mn = min(mn, x)
		}
		if bk == n {
			vr[bj] = mn
			cvar[bj] = min(max(a.Value()/float64(n)/sc, mn), mx)
			continue
		}
		m, _ := Count(n, alphas[bj])
		v := float64(losses[p[bk]])
		vr[bj] = v
		cvar[bj] = finish(a.Value(), mx, bk, m, v, sc)
	}
}
