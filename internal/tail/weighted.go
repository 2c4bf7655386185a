package tail

import "math"

// wts reads sample weights; unit reads every weight as 1 (all positive
// weights equal: see WeightedCVaRVaR).
type wts struct {
	w    []float64
	unit bool
}

func (ws wts) at(i int) float64 {
	if ws.unit {
		return 1
	}
	return ws.w[i]
}

// WeightedCVaRVaR returns the CVaR_α and VaR_α of weighted samples: loss
// losses[i] carries weight weights[i] ≥ 0, and p_i = weights[i]/Σ weights.
//
//	VaR_α  = the smallest loss v, among samples of positive weight, such that
//	         the weight of the losses > v is at most α:  Σ_{ℓ_i > v} p_i ≤ α;
//	CVaR_α = (Σ_{ℓ_i > VaR} p_i ℓ_i + (α − Σ_{ℓ_i > VaR} p_i)·VaR) / α.
//
// With equal weights this is exactly the unweighted definition (VaR = ℓ(k+1),
// and the boundary sample gets the fractional weight). Zero-weight samples
// are ignored entirely (they cannot be VaR), and ties need no care: samples
// tied with VaR contribute p_i·VaR whichever side of the boundary they are
// put on.
//
// Floating point. The weights are used unnormalised, with α·W (W = Σ
// weights) snapped to an integer within four ulp as in Count, so integer
// weights (integer sums are exact in float64 up to 2⁵³) give exactly the
// boundary of the duplicated sample (sample i repeated weights[i] times), and
// when all positive weights are equal they are all read as 1, so the result
// is exactly the unweighted one of the positive-weight samples (same VaR,
// CVaR equal up to the order of the float64 sums). For other weights, a
// boundary that falls within rounding of a sample's cumulative weight may
// pick either neighbouring VaR; CVaR is continuous there and is unaffected
// beyond rounding. Sums are compensated float64; CVaR is clamped to
// [VaR, max loss].
//
// Algorithm: weighted quickselect (same pivots, budget and median-of-medians
// fallback as Select): partition, sum the weight of the part ranked before
// the pivot, recurse into the side holding the boundary. O(n) expected and
// worst case, no allocation, no full sort. perm is scratch of at least
// len(losses) entries; on return perm[:j] holds the (positive-weight) indices
// ranked before the boundary sample and perm[j] the boundary sample, where j
// is their count, unless every positive-weight sample is inside the tail
// (α = 1). len(weights) must equal len(losses), else it panics.
//
// The caller guarantees: α ∈ (0, 1], weights finite and ≥ 0 with a positive
// finite sum, and no NaN loss. With no positive weight it returns NaN, NaN.
func WeightedCVaRVaR[T Float](losses []T, weights []float64, alpha float64, perm []int) (cvar, vr float64) {
	return weightedCVaRVaR(sampled, losses, weights, alpha, perm)
}

// weightedCVaRVaR is WeightedCVaRVaR with the pivots piv.
func weightedCVaRVaR[T Float](piv pivots, losses []T, weights []float64, alpha float64, perm []int) (cvar, vr float64) {
	n := len(losses)
	if len(weights) != n {
		panic("tail.WeightedCVaRVaR: len(weights) != len(losses)")
	}
	if len(perm) < n {
		panic("tail.WeightedCVaRVaR: len(perm) < len(losses)")
	}
	// Compact the positive-weight indices into perm.
	np := 0
	ws := wts{w: weights, unit: true}
	var c float64
	for i, w := range weights {
		if w > 0 {
			if np == 0 {
				c = w
			} else if w != c {
				ws.unit = false
			}
			perm[np] = i
			np++
		}
	}
	if np == 0 {
		return math.NaN(), math.NaN()
	}
	p := perm[:np]
	var tw ksum
	for _, i := range p {
		tw.add(ws.at(i))
	}
	W := tw.sum()
	A := snap(alpha * W)
	// Scales that keep Σ w_i·ℓ_i finite (see bigAbs): sx for the losses,
	// sw for the weights when W·max|ℓ| could overflow. Both are powers of
	// two and 1 for ordinary inputs.
	amax := 0.0
	for _, i := range p {
		amax = max(amax, math.Abs(float64(losses[i])))
	}
	sx := scaleFor(amax)
	sw := weightScale(W, amax*sx)

	if A >= W { // α = 1 (or within rounding of it): every sample is in the tail
		var num ksum
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, i := range p {
			x := float64(losses[i])
			num.add((ws.at(i) * sw) * (x * sx))
			mn = min(mn, x)
			mx = max(mx, x)
		}
		return min(max(num.sum()/(W*sw)/sx, mn), mx), mn
	}

	// Weighted quickselect for the boundary position j: the first position
	// (in rank order) whose cumulative weight, itself included, exceeds A.
	s := newSelector(losses, p, piv)
	s.budget = budgetFactor*np + 64
	s.mom = piv == medianOfMedians
	lo, hi := 0, np
	var acc ksum // weight of p[:lo], all ranked before the boundary
	j := -1
	for j < 0 {
		if hi-lo <= smallRange {
			s.insertion(lo, hi)
			j = hi // rounding fallback: hi is a pivot's final position (or np)
			for q := lo; q < hi; q++ {
				wq := ws.at(p[q])
				if acc.sum()+wq > A {
					j = q
					break
				}
				acc.add(wq)
			}
			break
		}
		q := s.split(lo, hi)
		var l ksum
		for _, i := range p[lo:q] {
			l.add(ws.at(i))
		}
		before := acc.sum() + l.sum()
		if before > A {
			hi = q
			continue
		}
		acc.add(l.sum())
		wq := ws.at(p[q])
		if before+wq > A {
			j = q
			break
		}
		acc.add(wq)
		lo = q + 1
	}

	if j >= np { // only by rounding: the tail holds everything
		mn := math.Inf(1)
		var num ksum
		mx := math.Inf(-1)
		for _, i := range p {
			x := float64(losses[i])
			num.add((ws.at(i) * sw) * (x * sx))
			mn = min(mn, x)
			mx = max(mx, x)
		}
		return min(max(num.sum()/(W*sw)/sx, mn), mx), mn
	}
	vr = float64(losses[p[j]])
	if j == 0 {
		return vr, vr
	}
	var num ksum
	mx := math.Inf(-1)
	for _, i := range p[:j] {
		x := float64(losses[i])
		num.add((ws.at(i) * sw) * (x * sx))
		mx = max(mx, x)
	}
	rest := max(A-acc.sum(), 0)
	cvar = (num.sum() + (rest*sw)*(vr*sx)) / (A * sw) / sx
	return min(max(cvar, vr), max(mx, vr)), vr
}

// weightScale returns the factor the weights are multiplied by in
// Σ w_i·ℓ_i, for weights summing to W and (scaled) losses up to xmax in
// magnitude: 1 when W·xmax cannot overflow, else the power of two that
// brings W below 1.
func weightScale(W, xmax float64) float64 {
	_, ew := math.Frexp(W)
	_, ex := math.Frexp(xmax)
	if ew+ex <= 1000 {
		return 1
	}
	return math.Ldexp(1, -ew)
}
