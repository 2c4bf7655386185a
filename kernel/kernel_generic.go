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

// Ops is the table of kernels for one element type T. Each field's comment is
// the Go loop it computes; implementations must agree with the generic one to
// the bound stated in the tests (bit-exact for elementwise arithmetic that the
// generic code replays, a rounding bound for reductions and for exp/log1p).
type Ops[T Float] struct {
	// Dot returns Σ_i x[i]·y[i] over len(x) elements; len(y) ≥ len(x).
	Dot func(x, y []T) T

	// Axpy computes y[i] += a·x[i] for i < len(x).
	Axpy func(a T, x, y []T)

	// Lerp computes y[i] += t·(x[i] − y[i]) for i < len(x): a running mean.
	Lerp func(t T, x, y []T)

	// Margins computes m[i] = Σ_{l<len(w)} x[r_i*stride+l]·w[l] for i < len(m),
	// with r_i = idx[i] (or i when idx is nil).
	Margins func(m, x []T, stride int, idx []int, w []T)

	// AddRows computes g[l] += Σ_{i<len(c)} c[i]·x[r_i*stride+l] for l < len(g).
	AddRows func(g, x []T, stride int, idx []int, c []T)

	// AddRowsK computes, for n = len(c)/k rows of g of d = len(g)/n
	// elements, g[i*d+l] += Σ_{j<k} c[i*k+j]·x[j*stride+l]: g plus the
	// product of the n×k matrix c and the k rows of x (the MLP's hidden
	// gradients dZ·W₂). Each element's multiply-adds run in the order of j,
	// as AddRows's do.
	AddRowsK func(g, x []T, stride int, c []T, k int)

	// MarginsK computes, for n = len(m)/k rows and d = len(w)/k features,
	// m[i*k+j] = Σ_{l<d} x[r_i*stride+l]·w[j*d+l].
	MarginsK func(m, x []T, stride int, idx []int, w []T, k int)

	// AddOuterK computes, for n = len(c)/k rows and d = len(g)/k features,
	// g[j*d+l] += Σ_{i<n} c[i*k+j]·x[r_i*stride+l].
	AddOuterK func(g, x []T, stride int, idx []int, c []T, k int)

	// BiasReLU treats z as n = len(z)/len(b) rows of h = len(b) and sets
	// each row z_i to max(z_i + b, 0), elementwise: a sum ≤ 0 (−0
	// included) becomes +0 and a NaN stays NaN. It is a dense layer's bias
	// and ReLU; len(z) must be a multiple of len(b).
	BiasReLU func(z, b []T)

	// ReLUBackward treats a and dh as n = len(a)/len(gb) rows of
	// h = len(gb): it sets dh[l] = 0 wherever a[l] ≤ 0 (ReLU's derivative
	// at the activations a; a NaN activation keeps its gradient), then adds
	// the rows of dh to gb in row order, gb[j] += dh[i*h+j] for
	// i = 0, 1, …, n−1. len(a) must be a multiple of len(gb), and
	// len(dh) ≥ len(a).
	ReLUBackward func(gb, dh, a []T)

	// AddOuterKNext is AddOuterK that, as it reads its rows, also fetches
	// into cache the rows next of x (indices into x like idx's): the rows a
	// following call will read, so that they arrive while this one
	// computes. The result is AddOuterK's, bit for bit, whatever next
	// holds: a row index out of range only makes a prefetch of an address
	// outside x, which never faults. The assembly prefetches row next[i]'s
	// columns as it reads row idx[i]'s, on gathered rows (idx not nil) of a
	// matrix out of cache; elsewhere next is ignored.
	AddOuterKNext func(g, x []T, stride int, idx []int, c []T, k int, next []int)

	// LinearLoss computes, for i < len(m), the loss and its derivative in m:
	// loss[i] = ℓ(m[i], y[i]), dloss[i] = ∂ℓ/∂m (m[i], y[i]).
	LinearLoss func(kind LossKind, loss, dloss, m, y []T)

	// SoftmaxCE treats z as n = len(loss) rows of k logits. For each row it
	// writes loss[i] = logsumexp(z_i) − z_i[label[i]] and replaces z_i by
	// softmax(z_i) − onehot(label[i]), the gradient of the loss in z_i.
	SoftmaxCE func(loss, z []T, label []int32, k int)

	// Plus computes, for i < len(s), the smoothed plus ρ(s[i]) into rho and its
	// derivative ρ'(s[i]) into drho (either may be nil to skip it).
	Plus func(kind PlusKind, eps T, rho, drho, s []T)

	// Exp computes dst[i] = e^{x[i]}.
	Exp func(dst, x []T)

	// Log1p computes dst[i] = log(1 + x[i]).
	Log1p func(dst, x []T)

	// FusedLinear runs one minibatch step of a linear model in a single pass
	// over the rows, for n = len(loss):
	//
	//	m_i = x_{r_i}·w + p.Bias
	//	loss[i], d_i = ℓ(m_i, y[i]), ∂ℓ/∂m          (y is gathered: y[i] is row r_i's)
	//	v_i = ρ'(loss[i]·p.InvL − p.Tau)               (p.Plus)
	//	c_i = p.Scale · v_i · d_i
	//	g[l] += c_i · x_{r_i}[l]  for l < len(w)
	//
	// and returns Σ v_i and Σ c_i (the latter is the bias gradient).
	FusedLinear func(g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T)

	// SparseMargins is Margins on CSR rows: row r holds the entries
	// vals[p] in the columns cols[p] for indptr[r] ≤ p < indptr[r+1], and
	//
	//	m[i] = Σ_{indptr[r_i] ≤ p < indptr[r_i+1]} vals[p]·w[cols[p]]
	//
	// for i < len(m), with r_i = idx[i] (or i when idx is nil). A column
	// repeated within a row counts once per entry (its values add up); an
	// empty row gives 0. The generic code sums in the order of the entries;
	// the assembly (AVX2 gathers, NEON scalar-index loads; see
	// sparse_driver.go) in vector or four scalar accumulators, within the
	// bound of any dot product, |m_i − exact| ≤ (nnz_i+1)·u·Σ_p |vals[p]·w[cols[p]]|,
	// in an order fixed by the row alone: the same row gives the same bits
	// in any minibatch, on any thread. A column ≥ len(w), a row index or
	// row offsets out of range panic.
	SparseMargins func(m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T)

	// SparseAddRows is AddRows on CSR rows (see SparseMargins): for each
	// i < len(c) and each entry p of row r_i, g[cols[p]] += c[i]·vals[p],
	// rows in order, entries in order. A repeated column gets each of its
	// entries added. The assembly takes the entries one at a time, each a
	// fused multiply-add g[col] = fma(c_i, vals[p], g[col]) (AVX2 has no
	// scatter, and a gather-add-scatter would lose the updates of a column
	// repeated within a vector); the generic code may round the product
	// first.
	SparseAddRows func(g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T)

	// SparseMarginsK is MarginsK on CSR rows (see SparseMargins): for
	// n = len(m)/k rows and d = len(w)/k features,
	// m[i*k+j] = Σ_p vals[p]·w[j*d+cols[p]] over the entries p of row r_i,
	// each as SparseMargins computes it (k = 1 is SparseMargins, bit for
	// bit).
	SparseMarginsK func(m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int)

	// SparseAddOuterK is AddOuterK on CSR rows: for n = len(c)/k rows and
	// d = len(g)/k features, g[j*d+cols[p]] += c[i*k+j]·vals[p] for every
	// entry p of row r_i, rows in order, then classes, then entries, as
	// SparseAddRows computes them (k = 1 is SparseAddRows, bit for bit).
	SparseAddOuterK func(g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int)

	// MarginsC, AddRowsC, MarginsKC, AddOuterKC and FusedLinearC are
	// Margins, AddRows, MarginsK, AddOuterK and FusedLinear on the rows of
	// a compact matrix x (see Compact: uint8 features with a scale, IEEE
	// half floats or bfloat16s), whose features they convert to T as they
	// load them; x.Stride is the row stride. Their results are their dense
	// twins' on the matrix of the converted values, to the rounding of a
	// reduction's order (and, for bytes, of where the scale is applied:
	// after the sum, or into the coefficient). In float32 the assembly
	// implementations read the rows directly where the architecture has
	// such kernels (amd64: the row and class kernels on bytes and
	// bfloat16s, and on halves with F16C; NEON: the row kernels of the
	// linear models, MarginsC, AddRowsC and FusedLinearC, on all three),
	// and otherwise convert a block of rows at a time into a float32
	// buffer on the stack and run the float32 kernels on it; float64 runs
	// the generic loops.
	MarginsC   func(m []T, x *Compact, idx []int, w []T)
	AddRowsC   func(g []T, x *Compact, idx []int, c []T)
	MarginsKC  func(m []T, x *Compact, idx []int, w []T, k int)
	AddOuterKC func(g []T, x *Compact, idx []int, c []T, k int)
	// AddOuterKCNext is AddOuterKC that also fetches the rows next of x
	// into cache, as AddOuterKNext does (float32, where the class kernels
	// read compact rows directly); its result is AddOuterKC's, bit for bit.
	AddOuterKCNext func(g []T, x *Compact, idx []int, c []T, k int, next []int)
	FusedLinearC   func(g, loss []T, x *Compact, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T)
}

// row returns the index of the i-th gathered row.
func row(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}

func genericOps[T Float]() Ops[T] {
	o := Ops[T]{
		Dot:       dotGeneric[T],
		Axpy:      axpyGeneric[T],
		Lerp:      lerpGeneric[T],
		Margins:   marginsGeneric[T],
		AddRows:   addRowsGeneric[T],
		AddRowsK:  addRowsKGeneric[T],
		MarginsK:  marginsKGeneric[T],
		AddOuterK: addOuterKGeneric[T],
		AddOuterKNext: func(g, x []T, stride int, idx []int, c []T, k int, _ []int) {
			addOuterKGeneric(g, x, stride, idx, c, k)
		},
		LinearLoss:  linearLossGeneric[T],
		SoftmaxCE:   softmaxCEGeneric[T],
		Plus:        plusGeneric[T],
		Exp:         expGeneric[T],
		Log1p:       log1pGeneric[T],
		FusedLinear: fusedLinearGeneric[T],

		BiasReLU:     biasReLUGeneric[T],
		ReLUBackward: reluBackwardGeneric[T],

		SparseMargins: sparseMarginsGeneric[T],
		SparseAddRows: sparseAddRowsGeneric[T],

		SparseMarginsK:  sparseMarginsKGeneric[T],
		SparseAddOuterK: sparseAddOuterKGeneric[T],
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

// expRef is math.Exp, except just below the overflow threshold, where Go's
// amd64 assembly math.Exp returns +Inf for x ≥ 1023.5·ln2 ≈ 709.436 although
// e^x is finite up to 709.78: there e^x = e^{x−1}·e (x−1 is exact) with e in
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
