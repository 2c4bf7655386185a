//go:build gc && !purego

package kernel

import "unsafe"

// The declarations of the NEON assembly (kernel_arm64.s), each with the Go
// loop it computes: linear algebra, then the math kernels.

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
// The count n is a multiple of 4. In the loops below, math.Exp and
// math.Log1p stand for the table-free approximations of kernel_arm64.s.
// These are within 1 ulp in float64; its header states the contract.
// logisticLoss, linearLossOne and plusOne stand for the same formulas
// evaluated with them.

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

// plusF64 computes the loop below, skipping a nil rho or drho. Here k = kind
// (PlusHinge, PlusSoftplus or PlusQuadratic) and eps = c[0]. c holds the
// constants of plusConsts:
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
