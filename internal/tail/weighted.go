package tail

import "math"

// wts reads sample weights. unit reads every weight as 1, for when all
// positive weights are equal (see WeightedCVaRVaR).
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

// WeightedCVaRVaR returns the CVaR_α and VaR_α of weighted samples. Loss
// losses[i] carries weight weights[i] ≥ 0, and p_i = weights[i]/Σ weights.
//
//	VaR_α  = the smallest loss v, among samples of positive weight, such that
//	         the weight of the losses > v is at most α:  Σ_{ℓ_i > v} p_i ≤ α;
//	CVaR_α = (Σ_{ℓ_i > VaR} p_i ℓ_i + (α − Σ_{ℓ_i > VaR} p_i)·VaR) / α.
//
// With equal weights this is exactly the unweighted definition:
// VaR = ℓ(k+1), and the boundary sample gets the fractional weight.
// Zero-weight samples are ignored entirely; they cannot be VaR. Ties need no
// care. Samples tied with VaR contribute p_i·VaR whichever side of the
// boundary they are put on.
//
// Floating point. The weights are used unnormalised. With W = Σ weights, α·W
// is snapped to an integer within four ulp, as in Count. Integer sums are
// exact in float64 up to 2⁵³. So integer weights give exactly the boundary
// of the duplicated sample, sample i repeated weights[i] times. When all
// positive weights are equal they are all read as 1. The result is then
// exactly the unweighted one of the positive-weight samples. VaR is the
// same, and CVaR equal up to the order of the float64 sums. For other
// weights, a boundary within rounding of a sample's cumulative weight may
// pick either neighbouring VaR. CVaR is continuous there, so it is
// unaffected beyond rounding. Sums are compensated float64. CVaR is clamped
// to [VaR, max loss].
//
// Algorithm: weighted quickselect, with the pivots, budget and
// median-of-medians fallback of Select. It partitions, sums the weight of
// the part ranked before the pivot, and recurses into the side holding the
// boundary. It takes O(n) time, expected and worst case. It does not
// allocate or sort. The slice perm is scratch of at least len(losses)
// entries. On return perm[:j] holds the positive-weight indices ranked
// before the boundary sample, and perm[j] the boundary sample. This holds
// unless every positive-weight sample is inside the tail (α = 1). It panics
// unless len(weights) = len(losses).
//
// The caller guarantees α ∈ (0, 1] and no NaN loss. The weights must be
// finite and ≥ 0, with a positive finite sum. With no positive weight it
// returns NaN, NaN.
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
	t, ok := newWeightedTail(losses, weights, alpha, perm)
	if !ok {
		return math.NaN(), math.NaN()
	}
	if t.A >= t.W { // α = 1 (or within rounding of it): every sample is in the tail
		return t.whole()
	}
	j, acc := t.boundary(piv)
	if j >= len(t.p) { // only by rounding: the tail holds everything
		return t.whole()
	}
	return t.beyond(j, acc)
}

// weightedTail is a weighted CVaR and VaR in the making. It holds the
// positive-weight indices p of losses, their weights ws, and their total W.
// A = α·W is the tail weight, snapped as in Count. The powers of two sx (for
// the losses) and sw (for the weights) keep Σ w_i·ℓ_i finite (see bigAbs).
// They are 1 for ordinary inputs; sw is below 1 only when W·max|ℓ| could
// overflow.
type weightedTail[T Float] struct {
	losses []T
	p      []int
	ws     wts
	W, A   float64
	sx, sw float64
}

// newWeightedTail compacts the positive-weight indices into perm and sums
// their weights. Its ok is false when there are none.
func newWeightedTail[T Float](losses []T, weights []float64, alpha float64, perm []int) (t weightedTail[T], ok bool) {
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
		return weightedTail[T]{}, false
	}
	p := perm[:np]
	var tw Sum
	for _, i := range p {
		tw.Add(ws.at(i))
	}
	W := tw.Value()
	amax := 0.0
	for _, i := range p {
		amax = max(amax, math.Abs(float64(losses[i])))
	}
	sx := scaleFor(amax)
	return weightedTail[T]{losses: losses, p: p, ws: ws, W: W, A: snap(alpha * W), sx: sx, sw: weightScale(W, amax*sx)}, true
}

// whole returns the CVaR and VaR when every sample is in the tail. They are
// the weighted mean, clamped to the losses' range, and the least loss.
func (t *weightedTail[T]) whole() (cvar, vr float64) {
	var num Sum
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, i := range t.p {
		x := float64(t.losses[i])
		num.Add((t.ws.at(i) * t.sw) * (x * t.sx))
		mn = min(mn, x)
		mx = max(mx, x)
	}
	return min(max(num.Value()/(t.W*t.sw)/t.sx, mn), mx), mn
}

// boundary finds the boundary position j by weighted quickselect. It is the
// first position, in rank order, whose cumulative weight (itself included)
// exceeds A. It returns j and the weight acc of p[:j], all ranked before the
// boundary. Only rounding makes j = len(p).
func (t *weightedTail[T]) boundary(piv pivots) (j int, acc float64) {
	p, ws, A := t.p, t.ws, t.A
	s := newSelector(t.losses, p, piv)
	s.budget = budgetFactor*len(p) + 64
	s.mom = piv == medianOfMedians
	lo, hi := 0, len(p)
	var sum Sum // weight of p[:lo], all ranked before the boundary
	for {
		if hi-lo <= smallRange {
			s.insertion(lo, hi)
			for q := lo; q < hi; q++ {
				wq := ws.at(p[q])
				if sum.Value()+wq > A {
					return q, sum.Value()
				}
				sum.Add(wq)
			}
			return hi, sum.Value() // rounding fallback: hi is a pivot's final position (or len(p))
		}
		q := s.split(lo, hi)
		var l Sum
		for _, i := range p[lo:q] {
			l.Add(ws.at(i))
		}
		before := sum.Value() + l.Value()
		if before > A {
			hi = q
			continue
		}
		sum.Add(l.Value())
		wq := ws.at(p[q])
		if before+wq > A {
			return q, sum.Value()
		}
		sum.Add(wq)
		lo = q + 1
	}
}

// beyond returns the CVaR and VaR for the boundary position j < len(p). acc
// is the weight of the samples ranked before it. VaR is the boundary
// sample's loss. That sample takes the tail weight the others leave,
// A − acc.
func (t *weightedTail[T]) beyond(j int, acc float64) (cvar, vr float64) {
	vr = float64(t.losses[t.p[j]])
	if j == 0 {
		return vr, vr
	}
	var num Sum
	mx := math.Inf(-1)
	for _, i := range t.p[:j] {
		x := float64(t.losses[i])
		num.Add((t.ws.at(i) * t.sw) * (x * t.sx))
		mx = max(mx, x)
	}
	rest := max(t.A-acc, 0)
	cvar = (num.Value() + (rest*t.sw)*(vr*t.sx)) / (t.A * t.sw) / t.sx
	return min(max(cvar, vr), max(mx, vr)), vr
}

// weightScale returns the factor the weights are multiplied by in Σ w_i·ℓ_i.
// The weights sum to W, and the scaled losses are at most xmax in magnitude.
// It is 1 when W·xmax cannot overflow. Otherwise it is the power of two that
// brings W below 1.
func weightScale(W, xmax float64) float64 {
	_, ew := math.Frexp(W)
	_, ex := math.Frexp(xmax)
	if ew+ex <= 1000 {
		return 1
	}
	return math.Ldexp(1, -ew)
}
