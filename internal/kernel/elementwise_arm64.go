//go:build gc && !purego

package kernel

import (
	"math"
	"unsafe"
)

// The arm64 primitives of the driver's vector kernels
// (elementwise_driver.go). The size unsafe.Sizeof gives is a constant per
// instantiation. So each of these compiles to a direct call of one stub.

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
