package kernel

// The driver's fused step (FusedLinear): margins, loss, weights and the
// gradient's accumulation over blocks of rows. A block stays in cache from
// the reading of the margins to that of the accumulation.

func fusedLinearDriver[T Float](lvl level, g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	n, d := len(loss), len(w)
	if n == 0 {
		return 0, 0
	}
	g = g[:d]
	y = y[:n]
	checkLoss(p.Loss)
	checkPlus(p.Plus)
	checkRows(n, x, stride, idx, d)
	bs := archFusedBlock[T](lvl, d)
	var fb fusedBlock[T]
	for i := 0; i < n; i += bs {
		b := min(bs, n-i)
		if d > 0 {
			archMargins(lvl, ptr(fb.m[:]), 1, x, stride, idx, i, b, ptr(w), d)
		} else {
			clear(fb.m[:b])
		}
		sumV, sumC = fb.weigh(lvl, p, loss[i:i+b], y[i:i+b], sumV, sumC)
		if d > 0 {
			archAddRows(lvl, ptr(g), d, x, stride, idx, i, b, ptr(fb.c[:]), 1)
		}
	}
	return sumV, sumC
}

// fusedBlock holds a FusedLinear block's margins and what the step derives
// from them. It lives on the caller's stack, and holds at most archFusedMax
// rows.
type fusedBlock[T Float] struct {
	m, dl, s, rho, v, c [archFusedMax]T
}

// weigh turns the block's margins (m, without the bias) into the losses of
// its len(loss) rows. It writes them to loss, and their coefficients
// c_j = Scale·v_j·ℓ'_j. It adds Σ v_j and Σ c_j to sumV and sumC in row
// order.
func (fb *fusedBlock[T]) weigh(lvl level, p *LinearStep[T], loss, y []T, sumV, sumC T) (T, T) {
	b := len(loss)
	for j := range b {
		fb.m[j] += p.Bias
	}
	lossN[T](lvl, p.Loss, ptr(loss), ptr(fb.dl[:]), ptr(fb.m[:]), ptr(y), b)
	for j := range b {
		fb.s[j] = loss[j]*p.InvL - p.Tau
	}
	if p.Plus == PlusNone {
		for j := range b {
			fb.v[j] = 1
		}
	} else {
		plusN(lvl, p.Plus, p.Eps, ptr(fb.rho[:]), ptr(fb.v[:]), ptr(fb.s[:]), b)
	}
	for j := range b {
		c := p.Scale * fb.v[j] * fb.dl[j]
		fb.c[j] = c
		sumV += fb.v[j]
		sumC += c
	}
	return sumV, sumC
}
