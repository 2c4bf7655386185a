package kernel

// Ops is the handle through which callers run the kernels of one
// implementation for element type T: ops.Dot(x, y), ops.Margins(…). For,
// OpsOf and an Impl's F32 and F64 methods return one. The table behind it is
// built once and never changes. An Ops holds nothing a caller can change:
// copies share the table. So whatever is done to one Ops value leaves every
// other, and the default, computing what they did. The zero Ops has no
// kernels (its methods panic).
//
// Each method's comment is the Go loop it computes. Implementations agree
// with the generic one to the bound stated in the tests. They are bit-exact
// for elementwise arithmetic that the generic code replays. Reductions and
// exp/log1p have a rounding bound.
type Ops[T Float] struct{ t *table[T] }

// table is the kernels of one implementation for element type T, one
// function each; Ops is the handle through which callers reach them.
type table[T Float] struct {
	// lvl is the level of an assembly implementation. Every entry but dot
	// takes it, so that each entry can be its driver; the generic entries
	// ignore it.
	lvl level

	dot             func(x, y []T) T // without lvl: Dot is called once a row
	axpy            func(lvl level, a T, x, y []T)
	lerp            func(lvl level, t T, x, y []T)
	margins         func(lvl level, m, x []T, stride int, idx []int, w []T)
	addRows         func(lvl level, g, x []T, stride int, idx []int, c []T)
	addRowsK        func(lvl level, g, x []T, stride int, c []T, k int)
	marginsK        func(lvl level, m, x []T, stride int, idx []int, w []T, k int)
	addOuterK       func(lvl level, g, x []T, stride int, idx []int, c []T, k int)
	biasReLU        func(lvl level, z, b []T)
	reluBackward    func(lvl level, gb, dh, a []T)
	addOuterKNext   func(lvl level, g, x []T, stride int, idx []int, c []T, k int, next []int)
	linearLoss      func(lvl level, kind LossKind, loss, dloss, m, y []T)
	softmaxCE       func(lvl level, loss, z []T, label []int32, k int)
	plus            func(lvl level, kind PlusKind, eps T, rho, drho, s []T)
	exp             func(lvl level, dst, x []T)
	log1p           func(lvl level, dst, x []T)
	fusedLinear     func(lvl level, g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T)
	sparseMargins   func(lvl level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T)
	sparseAddRows   func(lvl level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T)
	sparseMarginsK  func(lvl level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int)
	sparseAddOuterK func(lvl level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int)
	marginsC        func(lvl level, m []T, x *Compact, idx []int, w []T)
	addRowsC        func(lvl level, g []T, x *Compact, idx []int, c []T)
	marginsKC       func(lvl level, m []T, x *Compact, idx []int, w []T, k int)
	addOuterKC      func(lvl level, g []T, x *Compact, idx []int, c []T, k int)
	addOuterKCNext  func(lvl level, g []T, x *Compact, idx []int, c []T, k int, next []int)
	fusedLinearC    func(lvl level, g, loss []T, x *Compact, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T)
}

// Impl returns the implementation whose kernels o runs. It is the zero Impl
// for the zero Ops and for the tables tests build, which Impls does not
// list.
func (o Ops[T]) Impl() Impl {
	for _, p := range impls {
		if OpsOf[T](Impl{p}) == o {
			return Impl{p}
		}
	}
	return Impl{}
}

// Dot returns Σ_i x[i]·y[i] over len(x) elements; len(y) ≥ len(x).
func (o Ops[T]) Dot(x, y []T) T {
	return o.t.dot(x, y)
}

// Axpy computes y[i] += a·x[i] for i < len(x).
func (o Ops[T]) Axpy(a T, x, y []T) {
	o.t.axpy(o.t.lvl, a, x, y)
}

// Lerp computes y[i] += t·(x[i] − y[i]) for i < len(x): a running mean.
func (o Ops[T]) Lerp(t T, x, y []T) {
	o.t.lerp(o.t.lvl, t, x, y)
}

// Margins computes m[i] = Σ_{l<len(w)} x[r_i*stride+l]·w[l] for i < len(m).
// Here r_i = idx[i], or i when idx is nil.
func (o Ops[T]) Margins(m, x []T, stride int, idx []int, w []T) {
	o.t.margins(o.t.lvl, m, x, stride, idx, w)
}

// AddRows computes g[l] += Σ_{i<len(c)} c[i]·x[r_i*stride+l] for l < len(g).
func (o Ops[T]) AddRows(g, x []T, stride int, idx []int, c []T) {
	o.t.addRows(o.t.lvl, g, x, stride, idx, c)
}

// AddRowsK computes g[i*d+l] += Σ_{j<k} c[i*k+j]·x[j*stride+l]. There are
// n = len(c)/k rows of g, of d = len(g)/n elements. It is g plus the product
// of the n×k matrix c and the k rows of x: the MLP's hidden gradients dZ·W₂.
// Each element's multiply-adds run in the order of j, as AddRows's do.
func (o Ops[T]) AddRowsK(g, x []T, stride int, c []T, k int) {
	o.t.addRowsK(o.t.lvl, g, x, stride, c, k)
}

// MarginsK computes, for n = len(m)/k rows and d = len(w)/k features,
// m[i*k+j] = Σ_{l<d} x[r_i*stride+l]·w[j*d+l].
func (o Ops[T]) MarginsK(m, x []T, stride int, idx []int, w []T, k int) {
	o.t.marginsK(o.t.lvl, m, x, stride, idx, w, k)
}

// AddOuterK computes, for n = len(c)/k rows and d = len(g)/k features,
// g[j*d+l] += Σ_{i<n} c[i*k+j]·x[r_i*stride+l].
func (o Ops[T]) AddOuterK(g, x []T, stride int, idx []int, c []T, k int) {
	o.t.addOuterK(o.t.lvl, g, x, stride, idx, c, k)
}

// BiasReLU treats z as n = len(z)/len(b) rows of h = len(b). It sets each
// row z_i to max(z_i + b, 0), elementwise. A sum ≤ 0 (−0 included) becomes
// +0, and a NaN stays NaN. It is a dense layer's bias and ReLU. len(z) must
// be a multiple of len(b).
func (o Ops[T]) BiasReLU(z, b []T) {
	o.t.biasReLU(o.t.lvl, z, b)
}

// ReLUBackward treats a and dh as n = len(a)/len(gb) rows of h = len(gb). It
// sets dh[l] = 0 wherever a[l] ≤ 0: ReLU's derivative at the activations a.
// A NaN activation keeps its gradient. Then it adds the rows of dh to gb in
// row order: gb[j] += dh[i*h+j] for i = 0, 1, …, n−1. The length of a must
// be a multiple of len(gb), and len(dh) ≥ len(a).
func (o Ops[T]) ReLUBackward(gb, dh, a []T) {
	o.t.reluBackward(o.t.lvl, gb, dh, a)
}

// AddOuterKNext is AddOuterK that also fetches into cache the rows next of x
// as it reads its rows. They are indices into x, like idx's. They are the
// rows a following call will read, so they arrive while this one computes.
// The result is AddOuterK's, bit for bit, whatever next holds. A row index
// out of range only makes a prefetch of an address outside x, which never
// faults. The assembly prefetches row next[i]'s columns as it reads row
// idx[i]'s. It does so on gathered rows (idx not nil) of a matrix out of
// cache. Elsewhere next is ignored.
func (o Ops[T]) AddOuterKNext(g, x []T, stride int, idx []int, c []T, k int, next []int) {
	o.t.addOuterKNext(o.t.lvl, g, x, stride, idx, c, k, next)
}

// LinearLoss computes, for i < len(m), the loss and its derivative in m. It
// sets loss[i] = ℓ(m[i], y[i]) and dloss[i] = ∂ℓ/∂m (m[i], y[i]).
func (o Ops[T]) LinearLoss(kind LossKind, loss, dloss, m, y []T) {
	o.t.linearLoss(o.t.lvl, kind, loss, dloss, m, y)
}

// SoftmaxCE treats z as n = len(loss) rows of k logits. For each row it
// writes loss[i] = logsumexp(z_i) − z_i[label[i]]. It replaces z_i by
// softmax(z_i) − onehot(label[i]), the gradient of the loss in z_i.
func (o Ops[T]) SoftmaxCE(loss, z []T, label []int32, k int) {
	o.t.softmaxCE(o.t.lvl, loss, z, label, k)
}

// Plus computes, for i < len(s), the smoothed plus ρ(s[i]) into rho and its
// derivative ρ'(s[i]) into drho. Either may be nil to skip it.
func (o Ops[T]) Plus(kind PlusKind, eps T, rho, drho, s []T) {
	o.t.plus(o.t.lvl, kind, eps, rho, drho, s)
}

// Exp computes dst[i] = e^{x[i]}.
func (o Ops[T]) Exp(dst, x []T) {
	o.t.exp(o.t.lvl, dst, x)
}

// Log1p computes dst[i] = log(1 + x[i]).
func (o Ops[T]) Log1p(dst, x []T) {
	o.t.log1p(o.t.lvl, dst, x)
}

// FusedLinear runs one minibatch step of a linear model in a single pass
// over the rows. With n = len(loss):
//
//	m_i = x_{r_i}·w + p.Bias
//	loss[i], d_i = ℓ(m_i, y[i]), ∂ℓ/∂m          (y is gathered: y[i] is row r_i's)
//	v_i = ρ'(loss[i]·p.InvL − p.Tau)               (p.Plus)
//	c_i = p.Scale · v_i · d_i
//	g[l] += c_i · x_{r_i}[l]  for l < len(w)
//
// and returns Σ v_i and Σ c_i (the latter is the bias gradient).
func (o Ops[T]) FusedLinear(g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	return o.t.fusedLinear(o.t.lvl, g, loss, x, stride, idx, y, w, p)
}

// SparseMargins is Margins on CSR rows. Row r holds the entries vals[p] in
// the columns cols[p] for indptr[r] ≤ p < indptr[r+1]. With r_i = idx[i] (or
// i when idx is nil), for i < len(m):
//
//	m[i] = Σ_{indptr[r_i] ≤ p < indptr[r_i+1]} vals[p]·w[cols[p]]
//
// A column repeated within a row counts once per entry: its values add up.
// An empty row gives 0. The generic code sums in the order of the entries.
// The assembly sums in vector or four scalar accumulators: AVX2 gathers,
// NEON scalar-index loads (see sparse_driver.go). It stays within the bound
// of any dot product:
//
//	|m_i − exact| ≤ (nnz_i+1)·u·Σ_p |vals[p]·w[cols[p]]|
//
// Its order is fixed by the row alone. So the same row gives the same bits
// in any minibatch, on any thread. A column ≥ len(w), a row index or row
// offsets out of range panic.
func (o Ops[T]) SparseMargins(m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T) {
	o.t.sparseMargins(o.t.lvl, m, indptr, cols, vals, idx, w)
}

// SparseAddRows is AddRows on CSR rows (see SparseMargins). For each
// i < len(c) and each entry p of row r_i, g[cols[p]] += c[i]·vals[p]. Rows
// go in order, and entries in order. A repeated column gets each of its
// entries added. The assembly takes the entries one at a time, each a fused
// multiply-add g[col] = fma(c_i, vals[p], g[col]). AVX2 has no scatter. A
// gather-add-scatter would lose the updates of a column repeated within a
// vector. The generic code may round the product first.
func (o Ops[T]) SparseAddRows(g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T) {
	o.t.sparseAddRows(o.t.lvl, g, indptr, cols, vals, idx, c)
}

// SparseMarginsK is MarginsK on CSR rows (see SparseMargins). There are
// n = len(m)/k rows and d = len(w)/k features. It sets m[i*k+j] = Σ_p
// vals[p]·w[j*d+cols[p]] over the entries p of row r_i. Each is computed as
// SparseMargins computes it: k = 1 is SparseMargins, bit for bit.
func (o Ops[T]) SparseMarginsK(m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
	o.t.sparseMarginsK(o.t.lvl, m, indptr, cols, vals, idx, w, k)
}

// SparseAddOuterK is AddOuterK on CSR rows. There are n = len(c)/k rows and
// d = len(g)/k features. It adds g[j*d+cols[p]] += c[i*k+j]·vals[p] for
// every entry p of row r_i. It goes by rows in order, then classes, then
// entries, as SparseAddRows computes them. So k = 1 is SparseAddRows, bit
// for bit.
func (o Ops[T]) SparseAddOuterK(g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int) {
	o.t.sparseAddOuterK(o.t.lvl, g, indptr, cols, vals, idx, c, k)
}

// MarginsC is Margins on the rows of a compact matrix x (see Compact). Its
// features are uint8 with a scale, IEEE half floats or bfloat16s, converted
// to T as they load. x.Stride is the row stride. AddRowsC, MarginsKC,
// AddOuterKC and FusedLinearC are AddRows, MarginsK, AddOuterK and
// FusedLinear on compact rows in the same way. Their results are their dense
// twins' on the matrix of the converted values. They differ only by the
// rounding of a reduction's order. For bytes, they also differ by where the
// scale is applied: after the sum, or into the coefficient.
//
// In float32 the assembly implementations read the rows directly where the
// architecture has such kernels. On amd64 the row and class kernels do, on
// bytes and bfloat16s, and on halves with F16C. On NEON the row kernels of
// the linear models do (MarginsC, AddRowsC and FusedLinearC), on all three.
// Otherwise they convert a block of rows at a time into a float32 buffer on
// the stack. Then they run the float32 kernels on it. Float64 runs the
// generic loops.
func (o Ops[T]) MarginsC(m []T, x *Compact, idx []int, w []T) {
	o.t.marginsC(o.t.lvl, m, x, idx, w)
}

// AddRowsC is AddRows on the rows of the compact matrix x (see MarginsC).
func (o Ops[T]) AddRowsC(g []T, x *Compact, idx []int, c []T) {
	o.t.addRowsC(o.t.lvl, g, x, idx, c)
}

// MarginsKC is MarginsK on the rows of the compact matrix x (see MarginsC).
func (o Ops[T]) MarginsKC(m []T, x *Compact, idx []int, w []T, k int) {
	o.t.marginsKC(o.t.lvl, m, x, idx, w, k)
}

// AddOuterKC is AddOuterK on the rows of the compact matrix x (see MarginsC).
func (o Ops[T]) AddOuterKC(g []T, x *Compact, idx []int, c []T, k int) {
	o.t.addOuterKC(o.t.lvl, g, x, idx, c, k)
}

// AddOuterKCNext is AddOuterKC that also fetches the rows next of x into
// cache, as AddOuterKNext does. It does so in float32, where the class
// kernels read compact rows directly. Its result is AddOuterKC's, bit for
// bit.
func (o Ops[T]) AddOuterKCNext(g []T, x *Compact, idx []int, c []T, k int, next []int) {
	o.t.addOuterKCNext(o.t.lvl, g, x, idx, c, k, next)
}

// FusedLinearC is FusedLinear on the rows of the compact matrix x (see MarginsC).
func (o Ops[T]) FusedLinearC(g, loss []T, x *Compact, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	return o.t.fusedLinearC(o.t.lvl, g, loss, x, idx, y, w, p)
}
