package kernel

// The generic reference of the Compact kernels: each value converted as it
// is read, in T, in the order of the float kernels' loops.

func compactOps[T Float](o *table[T]) {
	o.marginsC = func(_ level, m []T, x *Compact, idx []int, w []T) { marginsCGeneric(m, x, idx, w) }
	o.addRowsC = func(_ level, g []T, x *Compact, idx []int, c []T) { addRowsCGeneric(g, x, idx, c) }
	o.marginsKC = func(_ level, m []T, x *Compact, idx []int, w []T, k int) { marginsKCGeneric(m, x, idx, w, k) }
	o.addOuterKC = func(_ level, g []T, x *Compact, idx []int, c []T, k int) { addOuterKCGeneric(g, x, idx, c, k) }
	o.addOuterKCNext = func(_ level, g []T, x *Compact, idx []int, c []T, k int, next []int) {
		addOuterKCGeneric(g, x, idx, c, k)
	}
	o.fusedLinearC = func(_ level, g, loss []T, x *Compact, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
		return fusedLinearCGeneric(g, loss, x, idx, y, w, p)
	}
}

func dotC[T Float](x *Compact, r int, w []T) T {
	var s T
	for l, wl := range w {
		s += value[T](x, r+l) * wl
	}
	return s
}

func axpyC[T Float](a T, x *Compact, r int, g []T) {
	for l := range g {
		g[l] += a * value[T](x, r+l)
	}
}

func marginsCGeneric[T Float](m []T, x *Compact, idx []int, w []T) {
	checkCompactRows(len(m), x, idx, len(w))
	for i := range m {
		m[i] = dotC(x, row(idx, i)*x.Stride, w)
	}
}

func addRowsCGeneric[T Float](g []T, x *Compact, idx []int, c []T) {
	checkCompactRows(len(c), x, idx, len(g))
	for i, ci := range c {
		axpyC(ci, x, row(idx, i)*x.Stride, g)
	}
}

func marginsKCGeneric[T Float](m []T, x *Compact, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	checkCompactRows(n, x, idx, d)
	for i := 0; i < n; i++ {
		r := row(idx, i) * x.Stride
		for j := 0; j < k; j++ {
			m[i*k+j] = dotC(x, r, w[j*d:(j+1)*d])
		}
	}
}

func addOuterKCGeneric[T Float](g []T, x *Compact, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	checkCompactRows(n, x, idx, d)
	for i := 0; i < n; i++ {
		r := row(idx, i) * x.Stride
		for j := 0; j < k; j++ {
			axpyC(c[i*k+j], x, r, g[j*d:(j+1)*d])
		}
	}
}

func fusedLinearCGeneric[T Float](g, loss []T, x *Compact, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	d := len(w)
	g = g[:d]
	checkCompactRows(len(loss), x, idx, d)
	for i := range loss {
		r := row(idx, i) * x.Stride
		m := dotC(x, r, w) + p.Bias
		l, dl := linearLossOne(p.Loss, float64(m), float64(y[i]))
		loss[i] = T(l)
		_, v := plusOne(p.Plus, float64(p.Eps), float64(T(l)*p.InvL-p.Tau))
		c := p.Scale * T(v) * T(dl)
		axpyC(c, x, r, g)
		sumV += T(v)
		sumC += c
	}
	return sumV, sumC
}
