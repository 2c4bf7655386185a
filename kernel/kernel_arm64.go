//go:build !purego

package kernel

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// archImpls lists the arm64 assembly implementations this CPU supports, best
// first: the NEON (ASIMD) kernels of kernel_arm64.s.
func archImpls() []*Impl {
	if !cpu.ARM64.HasASIMD {
		return nil
	}
	return []*Impl{neon}
}

// neon is the ASIMD implementation. The Go functions below are thin wrappers:
// they check bounds (out-of-range input panics like the generic code), cut the
// work of one assembly call to a bounded size (assembly loops are not
// preemptible), gather rows for the assembly, and pad the last 1..3 elements
// of the elementwise kernels through a small stack buffer, so the math kernels
// of kernel_arm64.s only ever see whole groups of four elements.
var neon = &Impl{
	Name:     "neon",
	Requires: "ASIMD",
	F32:      neonOps[float32](),
	F64:      neonOps[float64](),
}

func neonOps[T Float]() Ops[T] {
	return Ops[T]{
		Dot:         neonDot[T],
		Axpy:        neonAxpy[T],
		Lerp:        neonLerp[T],
		Margins:     neonMargins[T],
		AddRows:     neonAddRows[T],
		MarginsK:    neonMarginsK[T],
		AddOuterK:   neonAddOuterK[T],
		LinearLoss:  neonLinearLoss[T],
		SoftmaxCE:   neonSoftmaxCE[T],
		Plus:        neonPlus[T],
		Exp:         neonExp[T],
		Log1p:       neonLog1p[T],
		FusedLinear: neonFusedLinear[T],
	}
}

// neonChunk bounds the elements one streaming assembly call handles, so a
// goroutine is never stuck in assembly for long (about 10–50 µs).
const neonChunk = 1 << 14

// ---- Assembly stubs: linear algebra (kernel_arm64.s) ----

// dotF64 computes:
//
//	var s float64
//	for i := 0; i < n; i++ { s += x[i] * y[i] }
//	return s
//
//go:noescape
func dotF64(x, y *float64, n int) float64

// dotF32 is dotF64 for float32.
//
//	var s float32
//	for i := 0; i < n; i++ { s += x[i] * y[i] }
//	return s
//
//go:noescape
func dotF32(x, y *float32, n int) float32

// axpyF64 computes:
//
//	for i := 0; i < n; i++ { y[i] += a * x[i] }   // one FMA each
//
//go:noescape
func axpyF64(a float64, x, y *float64, n int)

// axpyF32 computes:
//
//	for i := 0; i < n; i++ { y[i] += a * x[i] }   // one FMA each
//
//go:noescape
func axpyF32(a float32, x, y *float32, n int)

// lerpF64 computes:
//
//	for i := 0; i < n; i++ { y[i] += t * (x[i] - y[i]) }   // one FMA each
//
//go:noescape
func lerpF64(t float64, x, y *float64, n int)

// lerpF32 computes:
//
//	for i := 0; i < n; i++ { y[i] += t * (x[i] - y[i]) }   // one FMA each
//
//go:noescape
func lerpF32(t float32, x, y *float32, n int)

// dotRowsF64 computes, for nrows a multiple of 4, four rows per pass so that
// each load of a serves four rows:
//
//	for j := 0; j < nrows; j++ {
//		var s float64
//		for l := 0; l < n; l++ { s += a[l] * rows[j][l] }
//		out[j] = s
//	}
//
//go:noescape
func dotRowsF64(out, a *float64, rows **float64, nrows, n int)

// dotRowsF32 computes, for nrows a multiple of 4, four rows per pass so that
// each load of a serves four rows:
//
//	for j := 0; j < nrows; j++ {
//		var s float32
//		for l := 0; l < n; l++ { s += a[l] * rows[j][l] }
//		out[j] = s
//	}
//
//go:noescape
func dotRowsF32(out, a *float32, rows **float32, nrows, n int)

// axpyRowsF64 computes, for nrows a multiple of 4, loading and storing y once
// per four rows:
//
//	for j := 0; j < nrows; j++ {
//		for l := 0; l < n; l++ { y[l] += c[j] * rows[j][l] }   // one FMA each, rows in order
//	}
//
//go:noescape
func axpyRowsF64(y *float64, n int, c *float64, rows **float64, nrows int)

// axpyRowsF32 computes, for nrows a multiple of 4, loading and storing y once
// per four rows:
//
//	for j := 0; j < nrows; j++ {
//		for l := 0; l < n; l++ { y[l] += c[j] * rows[j][l] }   // one FMA each, rows in order
//	}
//
//go:noescape
func axpyRowsF32(y *float32, n int, c *float32, rows **float32, nrows int)

// maxF64 computes, for n ≥ 1 (NaN if any x[i] is NaN):
//
//	m := x[0]
//	for i := 1; i < n; i++ { m = math.Max(m, x[i]) }
//	return m
//
//go:noescape
func maxF64(x *float64, n int) float64

// maxF32 computes, for n ≥ 1 (NaN if any x[i] is NaN):
//
//	m := x[0]
//	for i := 1; i < n; i++ { m = max(m, x[i]) }
//	return m
//
//go:noescape
func maxF32(x *float32, n int) float32

// ---- Assembly stubs: math (kernel_arm64.s) ----
//
// n is a multiple of 4. In the loops below, math.Exp and math.Log1p stand for
// the table-free approximations of kernel_arm64.s (within 1 ulp in float64; see
// its header for the contract), and logisticLoss, linearLossOne and plusOne
// for the same formulas evaluated with them.

// expsumF64 computes:
//
//	var s float64
//	for i := 0; i < n; i++ { dst[i] = math.Exp(x[i] - shift); s += dst[i] }
//	return s
//
//go:noescape
func expsumF64(dst, x *float64, n int, shift float64) float64

// expsumF32 computes, in float64:
//
//	var s float64
//	for i := 0; i < n; i++ { e := math.Exp(float64(x[i]) - shift); dst[i] = float32(e); s += e }
//	return s
//
//go:noescape
func expsumF32(dst, x *float32, n int, shift float64) float64

// log1pF64 computes:
//
//	for i := 0; i < n; i++ { dst[i] = math.Log1p(x[i]) }
//
//go:noescape
func log1pF64(dst, x *float64, n int)

// log1pF32 computes:
//
//	for i := 0; i < n; i++ { dst[i] = float32(math.Log1p(float64(x[i]))) }
//
//go:noescape
func log1pF32(dst, x *float32, n int)

// scaleF64 computes:
//
//	for i := 0; i < n; i++ { x[i] *= a }
//
//go:noescape
func scaleF64(x *float64, n int, a float64)

// scaleF32 computes:
//
//	for i := 0; i < n; i++ { x[i] = float32(float64(x[i]) * a) }
//
//go:noescape
func scaleF32(x *float32, n int, a float64)

// logisticF64 computes:
//
//	for i := 0; i < n; i++ { loss[i], dloss[i] = logisticLoss(m[i], y[i]) }
//
//go:noescape
func logisticF64(loss, dloss, m, y *float64, n int)

// logisticF32 computes:
//
//	for i := 0; i < n; i++ {
//		l, d := logisticLoss(float64(m[i]), float64(y[i]))
//		loss[i], dloss[i] = float32(l), float32(d)
//	}
//
//go:noescape
func logisticF32(loss, dloss, m, y *float32, n int)

// squaredF64 computes:
//
//	for i := 0; i < n; i++ { r := m[i] - y[i]; loss[i], dloss[i] = 0.5*r*r, r }
//
//go:noescape
func squaredF64(loss, dloss, m, y *float64, n int)

// squaredF32 computes:
//
//	for i := 0; i < n; i++ {
//		r := float64(m[i]) - float64(y[i])
//		loss[i], dloss[i] = float32(0.5*r*r), float32(r)
//	}
//
//go:noescape
func squaredF32(loss, dloss, m, y *float32, n int)

// absoluteF64 computes:
//
//	for i := 0; i < n; i++ { loss[i], dloss[i] = linearLossOne(Absolute, m[i], y[i]) }
//
//go:noescape
func absoluteF64(loss, dloss, m, y *float64, n int)

// absoluteF32 computes:
//
//	for i := 0; i < n; i++ {
//		l, d := linearLossOne(Absolute, float64(m[i]), float64(y[i]))
//		loss[i], dloss[i] = float32(l), float32(d)
//	}
//
//go:noescape
func absoluteF32(loss, dloss, m, y *float32, n int)

// plusF64 computes, with k = kind (PlusHinge, PlusSoftplus or PlusQuadratic)
// and eps = c[0] (c holds the constants of plusConsts), skipping a nil rho or drho:
//
//	for i := 0; i < n; i++ { rho[i], drho[i] = plusOne(k, eps, s[i]) }
//
//go:noescape
func plusF64(kind int, c *[16]float64, rho, drho, s *float64, n int)

// plusF32 computes, with k = kind and eps = c[0], skipping a nil rho or drho:
//
//	for i := 0; i < n; i++ {
//		r, d := plusOne(k, eps, float64(s[i]))
//		rho[i], drho[i] = float32(r), float32(d)
//	}
//
//go:noescape
func plusF32(kind int, c *[16]float64, rho, drho, s *float32, n int)

// ---- Typed dispatch. unsafe.Sizeof is a constant per instantiation, so
// each of these compiles to a direct call of one stub. ----

func neonIsF32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

func neonF32p[T Float](p *T) *float32 { return (*float32)(unsafe.Pointer(p)) }
func neonF64p[T Float](p *T) *float64 { return (*float64)(unsafe.Pointer(p)) }

func dotP[T Float](x, y *T, n int) T {
	if neonIsF32[T]() {
		return T(dotF32(neonF32p(x), neonF32p(y), n))
	}
	return T(dotF64(neonF64p(x), neonF64p(y), n))
}

func axpyP[T Float](a T, x, y *T, n int) {
	if neonIsF32[T]() {
		axpyF32(float32(a), neonF32p(x), neonF32p(y), n)
		return
	}
	axpyF64(float64(a), neonF64p(x), neonF64p(y), n)
}

func lerpP[T Float](t T, x, y *T, n int) {
	if neonIsF32[T]() {
		lerpF32(float32(t), neonF32p(x), neonF32p(y), n)
		return
	}
	lerpF64(float64(t), neonF64p(x), neonF64p(y), n)
}

func dotRowsP[T Float](out, a *T, rows **T, nrows, n int) {
	if neonIsF32[T]() {
		dotRowsF32(neonF32p(out), neonF32p(a), (**float32)(unsafe.Pointer(rows)), nrows, n)
		return
	}
	dotRowsF64(neonF64p(out), neonF64p(a), (**float64)(unsafe.Pointer(rows)), nrows, n)
}

func axpyRowsP[T Float](y *T, n int, c *T, rows **T, nrows int) {
	if neonIsF32[T]() {
		axpyRowsF32(neonF32p(y), n, neonF32p(c), (**float32)(unsafe.Pointer(rows)), nrows)
		return
	}
	axpyRowsF64(neonF64p(y), n, neonF64p(c), (**float64)(unsafe.Pointer(rows)), nrows)
}

func maxP[T Float](x *T, n int) float64 {
	if neonIsF32[T]() {
		return float64(maxF32(neonF32p(x), n))
	}
	return maxF64(neonF64p(x), n)
}

func expsumP[T Float](dst, x *T, n int, shift float64) float64 {
	if neonIsF32[T]() {
		return expsumF32(neonF32p(dst), neonF32p(x), n, shift)
	}
	return expsumF64(neonF64p(dst), neonF64p(x), n, shift)
}

func log1pP[T Float](dst, x *T, n int) {
	if neonIsF32[T]() {
		log1pF32(neonF32p(dst), neonF32p(x), n)
		return
	}
	log1pF64(neonF64p(dst), neonF64p(x), n)
}

func scaleP[T Float](x *T, n int, a float64) {
	if neonIsF32[T]() {
		scaleF32(neonF32p(x), n, a)
		return
	}
	scaleF64(neonF64p(x), n, a)
}

func lossP[T Float](kind LossKind, loss, dloss, m, y *T, n int) {
	if neonIsF32[T]() {
		switch kind {
		case Logistic:
			logisticF32(neonF32p(loss), neonF32p(dloss), neonF32p(m), neonF32p(y), n)
		case Squared:
			squaredF32(neonF32p(loss), neonF32p(dloss), neonF32p(m), neonF32p(y), n)
		case Absolute:
			absoluteF32(neonF32p(loss), neonF32p(dloss), neonF32p(m), neonF32p(y), n)
		default:
			panic("kernel: unknown LossKind")
		}
		return
	}
	switch kind {
	case Logistic:
		logisticF64(neonF64p(loss), neonF64p(dloss), neonF64p(m), neonF64p(y), n)
	case Squared:
		squaredF64(neonF64p(loss), neonF64p(dloss), neonF64p(m), neonF64p(y), n)
	case Absolute:
		absoluteF64(neonF64p(loss), neonF64p(dloss), neonF64p(m), neonF64p(y), n)
	default:
		panic("kernel: unknown LossKind")
	}
}

func plusP[T Float](kind int, c *[16]float64, rho, drho, s *T, n int) {
	if neonIsF32[T]() {
		plusF32(kind, c, neonF32p(rho), neonF32p(drho), neonF32p(s), n)
		return
	}
	plusF64(kind, c, neonF64p(rho), neonF64p(drho), neonF64p(s), n)
}

// neonPtr returns &s[0], or nil for an empty slice (the assembly never
// dereferences a pointer it was given a zero length for).
func neonPtr[T Float](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// neonRowOf returns the gathered row i of x, d elements long, bounds-checked.
func neonRowOf[T Float](x []T, stride int, idx []int, i, d int) *T {
	r := row(idx, i) * stride
	return neonPtr(x[r : r+d])
}

// ---- Linear algebra ----

func neonDot[T Float](x, y []T) T {
	y = y[:len(x)]
	var s T
	for len(x) > 0 {
		n := min(len(x), neonChunk)
		s += dotP(&x[0], &y[0], n)
		x, y = x[n:], y[n:]
	}
	return s
}

func neonAxpy[T Float](a T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), neonChunk)
		axpyP(a, &x[0], &y[0], n)
		x, y = x[n:], y[n:]
	}
}

func neonLerp[T Float](t T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), neonChunk)
		lerpP(t, &x[0], &y[0], n)
		x, y = x[n:], y[n:]
	}
}

// neonMaxRows is the most rows one call of dotRows or axpyRows takes.
const neonMaxRows = 64

// neonRowsPerCall is the number of rows (a multiple of 4, 4..neonMaxRows) of
// d elements that one assembly call takes: about 4·neonChunk multiply-adds.
func neonRowsPerCall(d int) int {
	return min(max((4*neonChunk/(d+1))&^3, 4), neonMaxRows)
}

// neonMargins gathers row pointers and hands them to dotRows, which takes
// them four at a time so that each load of w serves four rows.
func neonMargins[T Float](m, x []T, stride int, idx []int, w []T) {
	d := len(w)
	pw := neonPtr(w)
	per := neonRowsPerCall(d)
	var rows [neonMaxRows]*T
	i := 0
	for i+4 <= len(m) {
		nr := min(per, (len(m)-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = neonRowOf(x, stride, idx, i+j, d)
		}
		dotRowsP(&m[i], pw, &rows[0], nr, d)
		i += nr
	}
	for ; i < len(m); i++ {
		m[i] = dotP(pw, neonRowOf(x, stride, idx, i, d), d)
	}
}

// neonAddRows hands gathered rows to axpyRows: g is loaded and stored once
// per four rows, and the FMAs run in row order as in the generic code.
func neonAddRows[T Float](g, x []T, stride int, idx []int, c []T) {
	d := len(g)
	pg := neonPtr(g)
	per := neonRowsPerCall(d)
	var rows [neonMaxRows]*T
	i := 0
	for i+4 <= len(c) {
		nr := min(per, (len(c)-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = neonRowOf(x, stride, idx, i+j, d)
		}
		axpyRowsP(pg, d, &c[i], &rows[0], nr)
		i += nr
	}
	for ; i < len(c); i++ {
		axpyP(c[i], neonRowOf(x, stride, idx, i, d), pg, d)
	}
}

func neonMarginsK[T Float](m, x []T, stride int, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	per := neonRowsPerCall(d)
	var ptrs [neonMaxRows]*T
	if k < 4 {
		// Few classes: each class's weights against a block of rows.
		var out [neonMaxRows]T
		i := 0
		for i+4 <= n {
			nr := min(per, (n-i)&^3)
			for r := 0; r < nr; r++ {
				ptrs[r] = neonRowOf(x, stride, idx, i+r, d)
			}
			for j := 0; j < k; j++ {
				dotRowsP(&out[0], neonPtr(w[j*d:(j+1)*d]), &ptrs[0], nr, d)
				for r := 0; r < nr; r++ {
					m[(i+r)*k+j] = out[r]
				}
			}
			i += nr
		}
		for ; i < n; i++ {
			xi := neonRowOf(x, stride, idx, i, d)
			for j := 0; j < k; j++ {
				m[i*k+j] = dotP(xi, neonPtr(w[j*d:(j+1)*d]), d)
			}
		}
		return
	}
	// Many classes: each row against a block of class weight vectors.
	k4 := k &^ 3
	for j0 := 0; j0 < k4; {
		nc := min(per, k4-j0)
		for j := 0; j < nc; j++ {
			ptrs[j] = neonPtr(w[(j0+j)*d : (j0+j+1)*d])
		}
		for i := 0; i < n; i++ {
			xi := neonRowOf(x, stride, idx, i, d)
			dotRowsP(&m[i*k+j0], xi, &ptrs[0], nc, d)
		}
		j0 += nc
	}
	for i := 0; i < n; i++ {
		xi := neonRowOf(x, stride, idx, i, d)
		for j := k4; j < k; j++ {
			m[i*k+j] = dotP(xi, neonPtr(w[j*d:(j+1)*d]), d)
		}
	}
}

func neonAddOuterK[T Float](g, x []T, stride int, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	per := neonRowsPerCall(d)
	var (
		rows [neonMaxRows]*T
		cf   [neonMaxRows]T
	)
	i := 0
	for i+4 <= n {
		nr := min(per, (n-i)&^3)
		for r := 0; r < nr; r++ {
			rows[r] = neonRowOf(x, stride, idx, i+r, d)
		}
		for j := 0; j < k; j++ {
			for r := 0; r < nr; r++ {
				cf[r] = c[(i+r)*k+j]
			}
			axpyRowsP(neonPtr(g[j*d:(j+1)*d]), d, &cf[0], &rows[0], nr)
		}
		i += nr
	}
	for ; i < n; i++ {
		xi := neonRowOf(x, stride, idx, i, d)
		for j := 0; j < k; j++ {
			axpyP(c[i*k+j], xi, neonPtr(g[j*d:(j+1)*d]), d)
		}
	}
}

// ---- Elementwise math ----

func neonExp[T Float](dst, x []T) {
	dst = dst[:len(x)]
	n4 := len(x) &^ 3
	for i := 0; i < n4; i += neonChunk {
		n := min(n4-i, neonChunk)
		expsumP(&dst[i], &x[i], n, 0)
	}
	if n4 < len(x) {
		var b [4]T
		copy(b[:], x[n4:])
		expsumP(&b[0], &b[0], 4, 0)
		copy(dst[n4:], b[:])
	}
}

func neonLog1p[T Float](dst, x []T) {
	dst = dst[:len(x)]
	n4 := len(x) &^ 3
	for i := 0; i < n4; i += neonChunk {
		n := min(n4-i, neonChunk)
		log1pP(&dst[i], &x[i], n)
	}
	if n4 < len(x) {
		var b [4]T
		copy(b[:], x[n4:])
		log1pP(&b[0], &b[0], 4)
		copy(dst[n4:], b[:])
	}
}

func neonLinearLoss[T Float](kind LossKind, loss, dloss, m, y []T) {
	if len(m) == 0 {
		return
	}
	if kind != Logistic && kind != Squared && kind != Absolute {
		panic("kernel: unknown LossKind")
	}
	loss, dloss, y = loss[:len(m)], dloss[:len(m)], y[:len(m)]
	n4 := len(m) &^ 3
	for i := 0; i < n4; i += neonChunk {
		n := min(n4-i, neonChunk)
		lossP(kind, &loss[i], &dloss[i], &m[i], &y[i], n)
	}
	if n4 < len(m) {
		var bm, by, bl, bd [4]T
		copy(bm[:], m[n4:])
		copy(by[:], y[n4:])
		lossP(kind, &bl[0], &bd[0], &bm[0], &by[0], 4)
		copy(loss[n4:], bl[:])
		copy(dloss[n4:], bd[:])
	}
}

// plusConsts fills the constants plusF32/plusF64 read, each twice (one
// 128-bit register): eps, 4ε, 2ε, ε/4, −ε, 0.5, and spare. The products are
// those plusOne computes, in float64.
func plusConsts(c *[16]float64, eps float64) {
	vals := [8]float64{eps, 4 * eps, 2 * eps, eps / 4, -eps, 0.5, 0, 0}
	for i, v := range vals {
		c[2*i], c[2*i+1] = v, v
	}
}

func neonPlus[T Float](kind PlusKind, eps T, rho, drho, s []T) {
	if len(s) == 0 {
		return
	}
	// As the generic loop indexes them: each given output must be as long as s.
	if rho != nil {
		_ = rho[len(s)-1]
		rho = rho[:len(s)]
	}
	if drho != nil {
		_ = drho[len(s)-1]
		drho = drho[:len(s)]
	}
	switch kind {
	case PlusNone:
		// ρ(s) = s and ρ' = 1: a copy and a fill, no arithmetic.
		if rho != nil {
			copy(rho, s)
		}
		for i := range drho {
			drho[i] = 1
		}
		return
	case PlusHinge, PlusSoftplus, PlusQuadratic:
	default:
		panic("kernel: unknown PlusKind")
	}
	var c [16]float64
	plusConsts(&c, float64(eps))
	k := int(kind)
	n4 := len(s) &^ 3
	for i := 0; i < n4; i += neonChunk {
		n := min(n4-i, neonChunk)
		var pr, pd *T
		if rho != nil {
			pr = &rho[i]
		}
		if drho != nil {
			pd = &drho[i]
		}
		plusP(k, &c, pr, pd, &s[i], n)
	}
	if n4 < len(s) {
		var bs, br, bd [4]T
		copy(bs[:], s[n4:])
		plusP(k, &c, &br[0], &bd[0], &bs[0], 4)
		if rho != nil {
			copy(rho[n4:], br[:])
		}
		if drho != nil {
			copy(drho[n4:], bd[:])
		}
	}
}

// neonSoftmaxCE runs each row through max, exp-and-sum and a scale in
// assembly; the two logarithms per row are scalar. Rows of fewer than four
// logits gain nothing from vectors and use the generic row code.
func neonSoftmaxCE[T Float](loss, z []T, label []int32, k int) {
	if k < 4 {
		softmaxCEGeneric(loss, z, label, k)
		return
	}
	for i := range loss {
		zi := z[i*k : (i+1)*k]
		mx := maxP(&zi[0], k)
		y := int(label[i])
		zy := float64(zi[y]) - mx
		k4 := k &^ 3
		sum := expsumP(&zi[0], &zi[0], k4, mx)
		if k4 < k {
			b := [4]T{T(math.Inf(-1)), T(math.Inf(-1)), T(math.Inf(-1)), T(math.Inf(-1))}
			copy(b[:], zi[k4:])
			sum += expsumP(&b[0], &b[0], 4, mx)
			copy(zi[k4:], b[:])
		}
		inv := 1 / sum
		py := float64(zi[y]) * inv
		loss[i] = T(math.Log(sum) - zy)
		scaleP(&zi[0], k4, inv)
		for j := k4; j < k; j++ {
			zi[j] = T(float64(zi[j]) * inv)
		}
		zi[y] = T(py - 1)
	}
}

// ---- Fused minibatch step ----

// fusedMaxBlock is the most rows FusedLinear takes through margins, loss,
// plus weight and gradient in one pass; a block holds about 32 KiB of rows,
// so that they are still in L1 when the gradient pass reads them again.
const fusedMaxBlock = 32

func neonFusedBlock[T Float](d int) int {
	var z T
	return min(max((32<<10)/(max(d, 1)*int(unsafe.Sizeof(z)))&^3, 4), fusedMaxBlock)
}

func neonFusedLinear[T Float](g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	d := len(w)
	g = g[:d]
	if len(loss) > 0 {
		_ = y[len(loss)-1] // y[i] is read for every i < len(loss)
	}
	pw, pg := neonPtr(w), neonPtr(g)
	per := neonRowsPerCall(d)
	block := neonFusedBlock[T](d)
	var (
		rows       [fusedMaxBlock]*T
		mb, lb, db [fusedMaxBlock]T
		sb, vb, cb [fusedMaxBlock]T
	)
	for i0 := 0; i0 < len(loss); i0 += block {
		nb := min(block, len(loss)-i0)
		for j := 0; j < nb; j++ {
			rows[j] = neonRowOf(x, stride, idx, i0+j, d)
		}
		nb4 := nb &^ 3
		for j := 0; j < nb4; j += per {
			dotRowsP(&mb[j], pw, &rows[j], min(per, nb4-j), d)
		}
		for j := nb4; j < nb; j++ {
			mb[j] = dotP(pw, rows[j], d)
		}
		for j := 0; j < nb; j++ {
			mb[j] += p.Bias
		}
		neonLinearLoss(p.Loss, lb[:nb], db[:nb], mb[:nb], y[i0:i0+nb])
		copy(loss[i0:i0+nb], lb[:nb])
		for j := 0; j < nb; j++ {
			sb[j] = lb[j]*p.InvL - p.Tau
		}
		neonPlus(p.Plus, p.Eps, nil, vb[:nb], sb[:nb])
		for j := 0; j < nb; j++ {
			c := p.Scale * vb[j] * db[j]
			cb[j] = c
			sumV += vb[j]
			sumC += c
		}
		for j := 0; j < nb4; j += per {
			axpyRowsP(pg, d, &cb[j], &rows[j], min(per, nb4-j))
		}
		for j := nb4; j < nb; j++ {
			axpyP(cb[j], rows[j], pg, d)
		}
	}
	return sumV, sumC
}
