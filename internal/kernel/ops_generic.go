package kernel

import "math"

// Float is the element type of the kernels.
type Float interface{ float32 | float64 }

// LossKind names a per-sample loss of a linear model's margin m and target y.
type LossKind int

const (
	// Logistic is log(1 + e^{−y·m}) for labels y = ±1.
	Logistic LossKind = iota
	// Squared is ½(m − y)².
	Squared
	// Absolute is |m − y|, with derivative 0 at m = y.
	Absolute
)

// PlusKind names the weight a sample's loss gets in a CVaR gradient: the
// derivative of a (smoothed) plus function at s = ℓ·invL − τ.
type PlusKind int

const (
	// PlusNone weights every sample by 1: the plain mean loss.
	PlusNone PlusKind = iota
	// PlusHinge is the subgradient of [s]_+: 1 if s > 0, else 0 (t = 0 at s = 0).
	PlusHinge
	// PlusSoftplus is σ(s/ε), the derivative of ε·log(1 + e^{s/ε}).
	PlusSoftplus
	// PlusQuadratic is the derivative of the piecewise quadratic smoothed plus:
	// 0 for s ≤ −ε, s/(2ε) + ½ for |s| < ε, 1 for s ≥ ε.
	PlusQuadratic
)

// LinearStep parameterises the fused minibatch step of a linear model.
type LinearStep[T Float] struct {
	Loss  LossKind
	Plus  PlusKind
	Bias  T // added to every margin
	Tau   T // threshold τ, in units of ℓ·InvL
	InvL  T // 1/L: losses are divided by L before the plus function
	Eps   T // smoothing ε of PlusSoftplus and PlusQuadratic
	Scale T // c_i = Scale · v_i · ℓ'(m_i); e.g. InvL/(α·b)
}

// row returns the index of the i-th gathered row.
func row(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}

func genericOps[T Float]() table[T] {
	// The generic loops take no level: each entry drops it.
	o := table[T]{
		dot:      dotGeneric[T],
		axpy:     func(_ level, a T, x, y []T) { axpyGeneric(a, x, y) },
		lerp:     func(_ level, t T, x, y []T) { lerpGeneric(t, x, y) },
		margins:  func(_ level, m, x []T, stride int, idx []int, w []T) { marginsGeneric(m, x, stride, idx, w) },
		addRows:  func(_ level, g, x []T, stride int, idx []int, c []T) { addRowsGeneric(g, x, stride, idx, c) },
		addRowsK: func(_ level, g, x []T, stride int, c []T, k int) { addRowsKGeneric(g, x, stride, c, k) },
		marginsK: func(_ level, m, x []T, stride int, idx []int, w []T, k int) { marginsKGeneric(m, x, stride, idx, w, k) },
		addOuterK: func(_ level, g, x []T, stride int, idx []int, c []T, k int) {
			addOuterKGeneric(g, x, stride, idx, c, k)
		},
		biasReLU:     func(_ level, z, b []T) { biasReLUGeneric(z, b) },
		reluBackward: func(_ level, gb, dh, a []T) { reluBackwardGeneric(gb, dh, a) },
		addOuterKNext: func(_ level, g, x []T, stride int, idx []int, c []T, k int, next []int) {
			addOuterKGeneric(g, x, stride, idx, c, k)
		},
		linearLoss: func(_ level, kind LossKind, loss, dloss, m, y []T) { linearLossGeneric(kind, loss, dloss, m, y) },
		softmaxCE:  func(_ level, loss, z []T, label []int32, k int) { softmaxCEGeneric(loss, z, label, k) },
		plus:       func(_ level, kind PlusKind, eps T, rho, drho, s []T) { plusGeneric(kind, eps, rho, drho, s) },
		exp:        func(_ level, dst, x []T) { expGeneric(dst, x) },
		log1p:      func(_ level, dst, x []T) { log1pGeneric(dst, x) },
		fusedLinear: func(_ level, g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
			return fusedLinearGeneric(g, loss, x, stride, idx, y, w, p)
		},
		sparseMargins: func(_ level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T) {
			sparseMarginsGeneric(m, indptr, cols, vals, idx, w)
		},
		sparseAddRows: func(_ level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T) {
			sparseAddRowsGeneric(g, indptr, cols, vals, idx, c)
		},
		sparseMarginsK: func(_ level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
			sparseMarginsKGeneric(m, indptr, cols, vals, idx, w, k)
		},
		sparseAddOuterK: func(_ level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int) {
			sparseAddOuterKGeneric(g, indptr, cols, vals, idx, c, k)
		},
	}
	compactOps(&o)
	return o
}

func dotGeneric[T Float](x, y []T) T {
	y = y[:len(x)]
	var s T
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func axpyGeneric[T Float](a T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

func lerpGeneric[T Float](t T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += t * (v - y[i])
	}
}

func marginsGeneric[T Float](m, x []T, stride int, idx []int, w []T) {
	d := len(w)
	for i := range m {
		r := row(idx, i) * stride
		m[i] = dotGeneric(w, x[r:r+d])
	}
}

func addRowsGeneric[T Float](g, x []T, stride int, idx []int, c []T) {
	d := len(g)
	for i, ci := range c {
		r := row(idx, i) * stride
		axpyGeneric(ci, x[r:r+d], g)
	}
}

func addRowsKGeneric[T Float](g, x []T, stride int, c []T, k int) {
	if k <= 0 || len(c) < k {
		return
	}
	n := len(c) / k
	d := len(g) / n
	for i := 0; i < n; i++ {
		addRowsGeneric(g[i*d:(i+1)*d], x, stride, nil, c[i*k:(i+1)*k])
	}
}

func marginsKGeneric[T Float](m, x []T, stride int, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	for i := 0; i < n; i++ {
		r := row(idx, i) * stride
		xi := x[r : r+d]
		for j := 0; j < k; j++ {
			m[i*k+j] = dotGeneric(xi, w[j*d:(j+1)*d])
		}
	}
}

func addOuterKGeneric[T Float](g, x []T, stride int, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	for i := 0; i < n; i++ {
		r := row(idx, i) * stride
		xi := x[r : r+d]
		for j := 0; j < k; j++ {
			axpyGeneric(c[i*k+j], xi, g[j*d:(j+1)*d])
		}
	}
}

// reluRows returns the rows of h elements that n elements make, and panics
// unless n is a whole number of them.
func reluRows(n, h int) int {
	if h == 0 {
		if n != 0 {
			panic("kernel: ReLU rows of no columns")
		}
		return 0
	}
	if n%h != 0 {
		panic("kernel: ReLU matrix not a whole number of rows")
	}
	return n / h
}

func biasReLUGeneric[T Float](z, b []T) {
	h := len(b)
	n := reluRows(len(z), h)
	for i := range n {
		row := z[i*h : (i+1)*h]
		for j, bj := range b {
			v := row[j] + bj
			if v <= 0 {
				v = 0
			}
			row[j] = v
		}
	}
}

func reluBackwardGeneric[T Float](gb, dh, a []T) {
	h := len(gb)
	n := reluRows(len(a), h)
	dh = dh[:len(a)]
	for i := range n {
		row, act := dh[i*h:(i+1)*h], a[i*h:(i+1)*h]
		for j, aj := range act {
			if aj <= 0 {
				row[j] = 0
			}
			gb[j] += row[j]
		}
	}
}

// logisticLoss returns log(1+e^{−y·m}) and its derivative in m, computed as
// max(−z,0) + log1p(e^{−|z|}) with z = y·m so nothing overflows.
func logisticLoss(m, y float64) (loss, dloss float64) {
	z := y * m
	e := math.Exp(-math.Abs(z))
	loss = math.Max(-z, 0) + math.Log1p(e)
	// σ(−z): e/(1+e) when z ≥ 0, 1/(1+e) when z < 0.
	var s float64
	if z >= 0 {
		s = e / (1 + e)
	} else {
		s = 1 / (1 + e)
	}
	return loss, -y * s
}

func linearLossOne(kind LossKind, m, y float64) (loss, dloss float64) {
	switch kind {
	case Logistic:
		return logisticLoss(m, y)
	case Squared:
		r := m - y
		return 0.5 * r * r, r
	case Absolute:
		r := m - y
		switch {
		case r > 0:
			return r, 1
		case r < 0:
			return -r, -1
		}
		return math.Abs(r), 0 // r is ±0 or NaN
	}
	panic("kernel: unknown LossKind")
}

func linearLossGeneric[T Float](kind LossKind, loss, dloss, m, y []T) {
	loss, dloss, y = loss[:len(m)], dloss[:len(m)], y[:len(m)]
	for i, mi := range m {
		l, d := linearLossOne(kind, float64(mi), float64(y[i]))
		loss[i], dloss[i] = T(l), T(d)
	}
}

func softmaxCEGeneric[T Float](loss, z []T, label []int32, k int) {
	for i := range loss {
		zi := z[i*k : (i+1)*k]
		mx := math.Inf(-1)
		for _, v := range zi {
			mx = math.Max(mx, float64(v))
		}
		y := int(label[i])
		zy := float64(zi[y]) - mx
		var sum float64
		for j, v := range zi {
			e := math.Exp(float64(v) - mx)
			zi[j] = T(e)
			sum += e
		}
		// loss = log Σ e^{z_j − max} − (z_y − max). (Taking log of the
		// stored e^{z_y − max} instead would lose the float32 rounding of it
		// and give +Inf when it underflows.)
		inv := 1 / sum
		py := float64(zi[y]) * inv
		loss[i] = T(math.Log(sum) - zy)
		for j := range zi {
			zi[j] = T(float64(zi[j]) * inv)
		}
		zi[y] = T(py - 1)
	}
}

// sigmoid returns 1/(1+e^{−t}) without overflow.
func sigmoid(t float64) float64 {
	e := math.Exp(-math.Abs(t))
	if t >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

func plusOne(kind PlusKind, eps, s float64) (rho, drho float64) {
	switch kind {
	case PlusNone:
		return s, 1
	case PlusHinge:
		if s > 0 {
			return s, 1
		}
		return 0, 0
	case PlusSoftplus:
		t := s / eps
		return math.Max(s, 0) + eps*math.Log1p(math.Exp(-math.Abs(t))), sigmoid(t)
	case PlusQuadratic:
		switch {
		case s >= eps:
			return s, 1
		case s <= -eps:
			return 0, 0
		}
		return s*s/(4*eps) + s/2 + eps/4, s/(2*eps) + 0.5
	}
	panic("kernel: unknown PlusKind")
}

func plusGeneric[T Float](kind PlusKind, eps T, rho, drho, s []T) {
	for i, si := range s {
		r, d := plusOne(kind, float64(eps), float64(si))
		if rho != nil {
			rho[i] = T(r)
		}
		if drho != nil {
			drho[i] = T(d)
		}
	}
}

func expGeneric[T Float](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = T(expRef(float64(v)))
	}
}

// e's leading and trailing parts: eHi + eLo = e to 106 bits.
const (
	eHi = 2.718281828459045
	eLo = 1.4456468917292502e-16
)

// expRef is math.Exp, except just below the overflow threshold. There Go's
// amd64 assembly math.Exp returns +Inf for x ≥ 1023.5·ln2 ≈ 709.436. Yet e^x
// is finite up to 709.78. So there e^x = e^{x−1}·e, with x−1 exact and e in
// two parts, within 1.5 ulp.
func expRef(x float64) float64 {
	if x > 709 && x < 709.8 {
		r := math.Exp(x - 1)
		return math.FMA(r, eHi, r*eLo)
	}
	return math.Exp(x)
}

func log1pGeneric[T Float](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = T(math.Log1p(float64(v)))
	}
}

func fusedLinearGeneric[T Float](g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	d := len(w)
	g = g[:d]
	for i := range loss {
		r := row(idx, i) * stride
		xi := x[r : r+d]
		m := dotGeneric(w, xi) + p.Bias
		l, dl := linearLossOne(p.Loss, float64(m), float64(y[i]))
		loss[i] = T(l)
		_, v := plusOne(p.Plus, float64(p.Eps), float64(T(l)*p.InvL-p.Tau))
		c := p.Scale * T(v) * T(dl)
		axpyGeneric(c, xi, g)
		sumV += T(v)
		sumC += c
	}
	return sumV, sumC
}

func sparseMarginsGeneric[T Float](m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T) {
	for i := range m {
		r := row(idx, i)
		lo, hi := indptr[r], indptr[r+1]
		cs, vs := cols[lo:hi], vals[lo:hi]
		var s T
		for p, c := range cs {
			s += vs[p] * w[c]
		}
		m[i] = s
	}
}

func sparseAddRowsGeneric[T Float](g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T) {
	for i, ci := range c {
		r := row(idx, i)
		lo, hi := indptr[r], indptr[r+1]
		cs, vs := cols[lo:hi], vals[lo:hi]
		for p, col := range cs {
			g[col] += ci * vs[p]
		}
	}
}

func sparseMarginsKGeneric[T Float](m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	for i := 0; i < n; i++ {
		r := row(idx, i)
		lo, hi := indptr[r], indptr[r+1]
		cs, vs := cols[lo:hi], vals[lo:hi]
		mi := m[i*k : (i+1)*k]
		for j := range mi {
			wj := w[j*d : (j+1)*d]
			var s T
			for p, c := range cs {
				s += vs[p] * wj[c]
			}
			mi[j] = s
		}
	}
}

func sparseAddOuterKGeneric[T Float](g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	for i := 0; i < n; i++ {
		r := row(idx, i)
		lo, hi := indptr[r], indptr[r+1]
		cs, vs := cols[lo:hi], vals[lo:hi]
		for j, cij := range c[i*k : (i+1)*k] {
			gj := g[j*d : (j+1)*d]
			for p, col := range cs {
				gj[col] += cij * vs[p]
			}
		}
	}
}
