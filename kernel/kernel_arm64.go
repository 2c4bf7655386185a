//go:build gc && !purego

package kernel

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// archImpls lists the arm64 assembly implementations this CPU supports, best
// first: the NEON (ASIMD) kernels of kernel_arm64.s.
func archImpls() []*impl {
	if !cpu.ARM64.HasASIMD {
		return nil
	}
	return []*impl{neon}
}

// archDefault chooses the first of impls: NEON where the CPU has ASIMD.
func archDefault(impls []*impl) (*impl, string) {
	if len(impls) > 1 {
		return impls[0], "ASIMD"
	}
	return impls[0], "no ASIMD (or GODEBUG turned it off)"
}

// neon is the ASIMD implementation: the shared driver (driver.go) over the
// primitives below. What is particular to arm64: the math kernels of
// kernel_arm64.s take whole groups of four elements (the driver pads the
// last 1..3), the row kernels take lists of row pointers, four rows at a
// time, which the primitives below gather, and there are no register-blocked
// multi-class kernels (MarginsK lets the classes play the rows instead).
var neon = newImpl("neon", tunedLevel(isaBase))

// archChunk bounds the elements one streaming assembly call handles, so a
// goroutine is never stuck in assembly for long (tens of microseconds).
const (
	archChunk = 1 << 14
	archGroup = 4 // the math kernels take multiples of four elements
)

// No register-blocked multi-class kernels on arm64: the driver never calls
// archMarginsK or archAddOuterK, and the sizes below are unused.
const (
	archClassKernels = false
	archColBlock     = 0
	archChunkFlops   = 0
	archOuterRowsK   = 1
	archOuterStrip   = 1
)

func archMarginsK[T Float](lvl level, first bool, m unsafe.Pointer, k, n int, x []T, stride int, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	panic("kernel: no multi-class margins kernel on arm64")
}

func archAddOuterK[T Float](lvl level, first bool, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	panic("kernel: no multi-class accumulation kernel on arm64")
}

func archAddOuterKNext[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	panic("kernel: no multi-class accumulation kernel on arm64")
}

// neonMaxRows is the most rows one call of dotRows or axpyRows takes.
const neonMaxRows = 64

// archRowsPerCall is the number of rows (a multiple of 4, 4..neonMaxRows) of
// d elements that one assembly call takes: about 4·archChunk multiply-adds.
// archClassBlock is unused on arm64 (no register-blocked kernels).
func archMarginsKBlock[T Float](lvl level, d int) int { return 4 }
func archRowBlockFlops(lvl level) int                 { return archChunkFlops }
func archClassBlock(lvl level) int                    { return 4 }

func archRowsPerCall(lvl level, d int) int {
	return min(max((4*archChunk/(d+1))&^3, 4), neonMaxRows)
}

// archOuterRows is the block of rows AddOuterK takes per class.
func archOuterRows[T Float](lvl level, d int) int { return archRowsPerCall(lvl, d) }

// archFusedMax is the most rows FusedLinear takes through margins, loss,
// plus weight and gradient in one pass; a block holds about 32 KiB of rows,
// so that they are still in L1 when the gradient pass reads them again.
const archFusedMax = 32

func archFusedBlock[T Float](lvl level, d int) int {
	return min(max((32<<10)/(max(d, 1)*int(unsafe.Sizeof(T(0))))&^3, 4), archFusedMax)
}

// ---- Assembly stubs: linear algebra (kernel_arm64.s) ----

// dotF64 computes:
//
//	var s float64
//	for i := 0; i < n; i++ { s += x[i] * y[i] }
//	return s
//
//go:noescape
func dotF64(x, y unsafe.Pointer, n int) float64

// dotF32 is dotF64 for float32.
//
//	var s float32
//	for i := 0; i < n; i++ { s += x[i] * y[i] }
//	return s
//
//go:noescape
func dotF32(x, y unsafe.Pointer, n int) float32

// axpyF64 computes:
//
//	for i := 0; i < n; i++ { y[i] += a * x[i] }   // one FMA each
//
//go:noescape
func axpyF64(a float64, x, y unsafe.Pointer, n int)

// axpyF32 computes:
//
//	for i := 0; i < n; i++ { y[i] += a * x[i] }   // one FMA each
//
//go:noescape
func axpyF32(a float32, x, y unsafe.Pointer, n int)

// lerpF64 computes:
//
//	for i := 0; i < n; i++ { y[i] += t * (x[i] - y[i]) }   // one FMA each
//
//go:noescape
func lerpF64(t float64, x, y unsafe.Pointer, n int)

// lerpF32 computes:
//
//	for i := 0; i < n; i++ { y[i] += t * (x[i] - y[i]) }   // one FMA each
//
//go:noescape
func lerpF32(t float32, x, y unsafe.Pointer, n int)

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
func dotRowsF64(out, a, rows unsafe.Pointer, nrows, n int)

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
func dotRowsF32(out, a, rows unsafe.Pointer, nrows, n int)

// axpyRowsF64 computes, for nrows a multiple of 4, loading and storing y once
// per four rows:
//
//	for j := 0; j < nrows; j++ {
//		for l := 0; l < n; l++ { y[l] += c[j] * rows[j][l] }   // one FMA each, rows in order
//	}
//
//go:noescape
func axpyRowsF64(y unsafe.Pointer, n int, c, rows unsafe.Pointer, nrows int)

// axpyRowsF32 computes, for nrows a multiple of 4, loading and storing y once
// per four rows:
//
//	for j := 0; j < nrows; j++ {
//		for l := 0; l < n; l++ { y[l] += c[j] * rows[j][l] }   // one FMA each, rows in order
//	}
//
//go:noescape
func axpyRowsF32(y unsafe.Pointer, n int, c, rows unsafe.Pointer, nrows int)

// maxF64 computes, for n ≥ 1 (NaN if any x[i] is NaN):
//
//	m := x[0]
//	for i := 1; i < n; i++ { m = math.Max(m, x[i]) }
//	return m
//
//go:noescape
func maxF64(x unsafe.Pointer, n int) float64

// maxF32 computes, for n ≥ 1 (NaN if any x[i] is NaN):
//
//	m := x[0]
//	for i := 1; i < n; i++ { m = max(m, x[i]) }
//	return m
//
//go:noescape
func maxF32(x unsafe.Pointer, n int) float32

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
func expsumF64(dst, x unsafe.Pointer, n int, shift float64) float64

// expsumF32 computes, in float64:
//
//	var s float64
//	for i := 0; i < n; i++ { e := math.Exp(float64(x[i]) - shift); dst[i] = float32(e); s += e }
//	return s
//
//go:noescape
func expsumF32(dst, x unsafe.Pointer, n int, shift float64) float64

// log1pF64 computes:
//
//	for i := 0; i < n; i++ { dst[i] = math.Log1p(x[i]) }
//
//go:noescape
func log1pF64(dst, x unsafe.Pointer, n int)

// log1pF32 computes:
//
//	for i := 0; i < n; i++ { dst[i] = float32(math.Log1p(float64(x[i]))) }
//
//go:noescape
func log1pF32(dst, x unsafe.Pointer, n int)

// scaleF64 computes:
//
//	for i := 0; i < n; i++ { x[i] *= a }
//
//go:noescape
func scaleF64(x unsafe.Pointer, n int, a float64)

// scaleF32 computes:
//
//	for i := 0; i < n; i++ { x[i] = float32(float64(x[i]) * a) }
//
//go:noescape
func scaleF32(x unsafe.Pointer, n int, a float64)

// logisticF64 computes:
//
//	for i := 0; i < n; i++ { loss[i], dloss[i] = logisticLoss(m[i], y[i]) }
//
//go:noescape
func logisticF64(loss, dloss, m, y unsafe.Pointer, n int)

// logisticF32 computes:
//
//	for i := 0; i < n; i++ {
//		l, d := logisticLoss(float64(m[i]), float64(y[i]))
//		loss[i], dloss[i] = float32(l), float32(d)
//	}
//
//go:noescape
func logisticF32(loss, dloss, m, y unsafe.Pointer, n int)

// squaredF64 computes:
//
//	for i := 0; i < n; i++ { r := m[i] - y[i]; loss[i], dloss[i] = 0.5*r*r, r }
//
//go:noescape
func squaredF64(loss, dloss, m, y unsafe.Pointer, n int)

// squaredF32 computes:
//
//	for i := 0; i < n; i++ {
//		r := float64(m[i]) - float64(y[i])
//		loss[i], dloss[i] = float32(0.5*r*r), float32(r)
//	}
//
//go:noescape
func squaredF32(loss, dloss, m, y unsafe.Pointer, n int)

// absoluteF64 computes:
//
//	for i := 0; i < n; i++ { loss[i], dloss[i] = linearLossOne(Absolute, m[i], y[i]) }
//
//go:noescape
func absoluteF64(loss, dloss, m, y unsafe.Pointer, n int)

// absoluteF32 computes:
//
//	for i := 0; i < n; i++ {
//		l, d := linearLossOne(Absolute, float64(m[i]), float64(y[i]))
//		loss[i], dloss[i] = float32(l), float32(d)
//	}
//
//go:noescape
func absoluteF32(loss, dloss, m, y unsafe.Pointer, n int)

// plusF64 computes, with k = kind (PlusHinge, PlusSoftplus or PlusQuadratic)
// and eps = c[0] (c holds the constants of plusConsts), skipping a nil rho or drho:
//
//	for i := 0; i < n; i++ { rho[i], drho[i] = plusOne(k, eps, s[i]) }
//
//go:noescape
func plusF64(kind int, c *[16]float64, rho, drho, s unsafe.Pointer, n int)

// plusF32 computes, with k = kind and eps = c[0], skipping a nil rho or drho:
//
//	for i := 0; i < n; i++ {
//		r, d := plusOne(k, eps, float64(s[i]))
//		rho[i], drho[i] = float32(r), float32(d)
//	}
//
//go:noescape
func plusF32(kind int, c *[16]float64, rho, drho, s unsafe.Pointer, n int)

// biasReLUF64 computes, for n rows of h columns stride elements apart
// (n, h ≥ 1),
//
//	for i := 0; i < n; i++ {
//		for j := 0; j < h; j++ {
//			v := z[i*stride+j] + b[j]
//			if v <= 0 { v = 0 }
//			z[i*stride+j] = v
//		}
//	}
//
//go:noescape
func biasReLUF64(z, b unsafe.Pointer, n, h, stride int)

// biasReLUF32 is biasReLUF64 for float32.
//
//go:noescape
func biasReLUF32(z, b unsafe.Pointer, n, h, stride int)

// reluBackwardF64 computes, for n rows of h columns stride elements apart
// (n, h ≥ 1),
//
//	for i := 0; i < n; i++ {
//		for j := 0; j < h; j++ {
//			if a[i*stride+j] <= 0 { dh[i*stride+j] = 0 }
//			gb[j] += dh[i*stride+j]
//		}
//	}
//
//go:noescape
func reluBackwardF64(gb, dh, a unsafe.Pointer, n, h, stride int)

// reluBackwardF32 is reluBackwardF64 for float32.
//
//go:noescape
func reluBackwardF32(gb, dh, a unsafe.Pointer, n, h, stride int)

// ---- Primitives. unsafe.Sizeof is a constant per instantiation, so each
// of these compiles to a direct call of one stub. ----

func archDotF32(x, y unsafe.Pointer, n int) float32 { return dotF32(x, y, n) }
func archDotF64(x, y unsafe.Pointer, n int) float64 { return dotF64(x, y, n) }

// arm64 has no wide level: these only let the driver compile.
func archWideDotF32(x, y unsafe.Pointer, n int) float32 { return dotF32(x, y, n) }
func archWideDotF64(x, y unsafe.Pointer, n int) float64 { return dotF64(x, y, n) }

func archDot[T Float](lvl level, x, y unsafe.Pointer, n int) T {
	if is32[T]() {
		return T(dotF32(x, y, n))
	}
	return T(dotF64(x, y, n))
}

func archAxpy[T Float](lvl level, a T, x, y unsafe.Pointer, n int) {
	if is32[T]() {
		axpyF32(float32(a), x, y, n)
		return
	}
	axpyF64(float64(a), x, y, n)
}

func archLerp[T Float](lvl level, t T, x, y unsafe.Pointer, n int) {
	if is32[T]() {
		lerpF32(float32(t), x, y, n)
		return
	}
	lerpF64(float64(t), x, y, n)
}

func dotRowsP[T Float](out, a, rows unsafe.Pointer, nrows, n int) {
	if is32[T]() {
		dotRowsF32(out, a, rows, nrows, n)
		return
	}
	dotRowsF64(out, a, rows, nrows, n)
}

func axpyRowsP[T Float](y unsafe.Pointer, n int, c, rows unsafe.Pointer, nrows int) {
	if is32[T]() {
		axpyRowsF32(y, n, c, rows, nrows)
		return
	}
	axpyRowsF64(y, n, c, rows, nrows)
}

func maxP[T Float](x unsafe.Pointer, n int) float64 {
	if is32[T]() {
		return float64(maxF32(x, n))
	}
	return maxF64(x, n)
}

func expsumP[T Float](dst, x unsafe.Pointer, n int, shift float64) float64 {
	if is32[T]() {
		return expsumF32(dst, x, n, shift)
	}
	return expsumF64(dst, x, n, shift)
}

func scaleP[T Float](x unsafe.Pointer, n int, a float64) {
	if is32[T]() {
		scaleF32(x, n, a)
		return
	}
	scaleF64(x, n, a)
}

func archExp[T Float](lvl level, dst, x unsafe.Pointer, n int) { expsumP[T](dst, x, n, 0) }

func archLog1p[T Float](lvl level, dst, x unsafe.Pointer, n int) {
	if is32[T]() {
		log1pF32(dst, x, n)
		return
	}
	log1pF64(dst, x, n)
}

func archLoss[T Float](lvl level, kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	if is32[T]() {
		switch kind {
		case Logistic:
			logisticF32(loss, dloss, m, y, n)
		case Squared:
			squaredF32(loss, dloss, m, y, n)
		case Absolute:
			absoluteF32(loss, dloss, m, y, n)
		default:
			panic("kernel: unknown LossKind")
		}
		return
	}
	switch kind {
	case Logistic:
		logisticF64(loss, dloss, m, y, n)
	case Squared:
		squaredF64(loss, dloss, m, y, n)
	case Absolute:
		absoluteF64(loss, dloss, m, y, n)
	default:
		panic("kernel: unknown LossKind")
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

func archPlus[T Float](lvl level, kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	var c [16]float64
	plusConsts(&c, float64(eps))
	if is32[T]() {
		plusF32(int(kind), &c, rho, drho, s, n)
		return
	}
	plusF64(int(kind), &c, rho, drho, s, n)
}

// archSoftmax runs each row through max, exp-and-sum and a scale in
// assembly; the two logarithms per row are scalar. Rows of fewer than four
// logits gain nothing from vectors and use the generic row code.
func archBiasReLU[T Float](lvl level, z, b unsafe.Pointer, n, h, stride int) {
	if is32[T]() {
		biasReLUF32(z, b, n, h, stride)
		return
	}
	biasReLUF64(z, b, n, h, stride)
}

func archReLUBackward[T Float](lvl level, gb, dh, a unsafe.Pointer, n, h, stride int) {
	if is32[T]() {
		reluBackwardF32(gb, dh, a, n, h, stride)
		return
	}
	reluBackwardF64(gb, dh, a, n, h, stride)
}

func archSoftmax[T Float](lvl level, lossp, zp, labelp unsafe.Pointer, n, k int) {
	loss := unsafe.Slice((*T)(lossp), n)
	z := unsafe.Slice((*T)(zp), n*k)
	label := unsafe.Slice((*int32)(labelp), n)
	if k < 4 {
		softmaxCEGeneric(loss, z, label, k)
		return
	}
	k4 := k &^ 3
	for i := range loss {
		zi := z[i*k : (i+1)*k]
		p := ptr(zi)
		mx := maxP[T](p, k)
		y := int(label[i])
		zy := float64(zi[y]) - mx
		sum := expsumP[T](p, p, k4, mx)
		if k4 < k {
			b := [4]T{T(math.Inf(-1)), T(math.Inf(-1)), T(math.Inf(-1)), T(math.Inf(-1))}
			copy(b[:], zi[k4:])
			sum += expsumP[T](ptr(b[:]), ptr(b[:]), 4, mx)
			copy(zi[k4:], b[:])
		}
		inv := 1 / sum
		py := float64(zi[y]) * inv
		loss[i] = T(math.Log(sum) - zy)
		scaleP[T](p, k4, inv)
		for j := k4; j < k; j++ {
			zi[j] = T(float64(zi[j]) * inv)
		}
		zi[y] = T(py - 1)
	}
}

// ---- Rows: the assembly takes lists of row pointers, four at a time ----

// archMargins gathers row pointers and hands them to dotRows, which takes
// them four at a time so that each load of w serves four rows; the last
// n mod 4 rows go through dot.
func archMargins[T Float](lvl level, m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	per := archRowsPerCall(lvl, d)
	var (
		rows [neonMaxRows]unsafe.Pointer
		out  [neonMaxRows]T
	)
	i := 0
	for i+4 <= n {
		nr := min(per, (n-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = rowAt(x, stride, idx, i0+i+j)
		}
		if mstride == 1 {
			dotRowsP[T](at[T](m, i), w, unsafe.Pointer(&rows[0]), nr, d)
		} else {
			dotRowsP[T](unsafe.Pointer(&out[0]), w, unsafe.Pointer(&rows[0]), nr, d)
			for j := 0; j < nr; j++ {
				*(*T)(at[T](m, (i+j)*mstride)) = out[j]
			}
		}
		i += nr
	}
	for ; i < n; i++ {
		*(*T)(at[T](m, i*mstride)) = archDot[T](lvl, w, rowAt(x, stride, idx, i0+i), d)
	}
}

// archAddRows hands gathered rows to axpyRows: g is loaded and stored once
// per four rows, and the FMAs run in row order as in the generic code.
func archAddRows[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	per := archRowsPerCall(lvl, d)
	var (
		rows [neonMaxRows]unsafe.Pointer
		cf   [neonMaxRows]T
	)
	i := 0
	for i+4 <= n {
		nr := min(per, (n-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = rowAt(x, stride, idx, i0+i+j)
		}
		cp := at[T](c, i)
		if cstride != 1 {
			for j := 0; j < nr; j++ {
				cf[j] = *(*T)(at[T](c, (i+j)*cstride))
			}
			cp = unsafe.Pointer(&cf[0])
		}
		axpyRowsP[T](g, d, cp, unsafe.Pointer(&rows[0]), nr)
		i += nr
	}
	for ; i < n; i++ {
		archAxpy(lvl, *(*T)(at[T](c, i*cstride)), rowAt(x, stride, idx, i0+i), g, d)
	}
}

// archAddRowsK runs the NEON row kernel once for each of the n rows of g.
func archAddRowsK[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, c unsafe.Pointer, k, n int) {
	for i := 0; i < n; i++ {
		archAddRows(lvl, at[T](g, i*d), d, x, stride, nil, 0, k, at[T](c, i*k), 1)
	}
}
