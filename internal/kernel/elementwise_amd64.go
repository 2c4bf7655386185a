//go:build gc && !purego

package kernel

import "unsafe"

// The amd64 primitives of the driver's vector kernels (elementwise_driver.go):
// level 1, ReLU, the elementwise math, the linear losses, Plus and SoftmaxCE.

// The level-1 kernels and the elementwise math kernels (Exp, Log1p, the
// linear losses, Plus) have a zmm twin. The twins are the z* stubs, taken at
// isaWide. That level is the default only where 512-bit FMA runs at full
// width. There each twin does twice the work an instruction.

func archDotF32(x, y unsafe.Pointer, n int) float32     { return dotF32(x, y, n) }
func archDotF64(x, y unsafe.Pointer, n int) float64     { return dotF64(x, y, n) }
func archWideDotF32(x, y unsafe.Pointer, n int) float32 { return zDotF32(x, y, n) }
func archWideDotF64(x, y unsafe.Pointer, n int) float64 { return zDotF64(x, y, n) }

func archDot[T Float](lvl level, x, y unsafe.Pointer, n int) T {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		return T(zDotF32(x, y, n))
	case is32[T]():
		return T(dotF32(x, y, n))
	case lvl.isa == isaWide:
		return T(zDotF64(x, y, n))
	default:
		return T(dotF64(x, y, n))
	}
}

func archAxpy[T Float](lvl level, a T, x, y unsafe.Pointer, n int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zAxpyF32(float32(a), x, y, n)
	case is32[T]():
		axpyF32(float32(a), x, y, n)
	case lvl.isa == isaWide:
		zAxpyF64(float64(a), x, y, n)
	default:
		axpyF64(float64(a), x, y, n)
	}
}

func archBiasReLU[T Float](lvl level, z, b unsafe.Pointer, n, h, stride int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zBiasReLUF32(z, b, n, h, stride)
	case is32[T]():
		biasReLUF32(z, b, n, h, stride)
	case lvl.isa == isaWide:
		zBiasReLUF64(z, b, n, h, stride)
	default:
		biasReLUF64(z, b, n, h, stride)
	}
}

func archReLUBackward[T Float](lvl level, gb, dh, a unsafe.Pointer, n, h, stride int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zReluBackwardF32(gb, dh, a, n, h, stride)
	case is32[T]():
		reluBackwardF32(gb, dh, a, n, h, stride)
	case lvl.isa == isaWide:
		zReluBackwardF64(gb, dh, a, n, h, stride)
	default:
		reluBackwardF64(gb, dh, a, n, h, stride)
	}
}

func archLerp[T Float](lvl level, t T, x, y unsafe.Pointer, n int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zLerpF32(float32(t), x, y, n)
	case is32[T]():
		lerpF32(float32(t), x, y, n)
	case lvl.isa == isaWide:
		zLerpF64(float64(t), x, y, n)
	default:
		lerpF64(float64(t), x, y, n)
	}
}

func archExp[T Float](lvl level, dst, x unsafe.Pointer, n int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zExpF32(dst, x, n)
	case is32[T]():
		expF32(dst, x, n)
	case lvl.isa == isaWide:
		zExpF64(dst, x, n)
	default:
		expF64(dst, x, n)
	}
}

func archLog1p[T Float](lvl level, dst, x unsafe.Pointer, n int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zLog1pF32(dst, x, n)
	case is32[T]():
		log1pF32(dst, x, n)
	case lvl.isa == isaWide:
		zLog1pF64(dst, x, n)
	default:
		log1pF64(dst, x, n)
	}
}

func archLoss[T Float](lvl level, kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	f32, wide := is32[T](), lvl.isa == isaWide
	switch kind {
	case Logistic:
		switch {
		case f32 && wide:
			zLogisticF32(loss, dloss, m, y, n)
		case f32:
			logisticF32(loss, dloss, m, y, n)
		case wide:
			zLogisticF64(loss, dloss, m, y, n)
		default:
			logisticF64(loss, dloss, m, y, n)
		}
	case Squared:
		switch {
		case f32 && wide:
			zSquaredF32(loss, dloss, m, y, n)
		case f32:
			squaredF32(loss, dloss, m, y, n)
		case wide:
			zSquaredF64(loss, dloss, m, y, n)
		default:
			squaredF64(loss, dloss, m, y, n)
		}
	case Absolute:
		switch {
		case f32 && wide:
			zAbsoluteF32(loss, dloss, m, y, n)
		case f32:
			absoluteF32(loss, dloss, m, y, n)
		case wide:
			zAbsoluteF64(loss, dloss, m, y, n)
		default:
			absoluteF64(loss, dloss, m, y, n)
		}
	default:
		panic("kernel: unknown LossKind")
	}
}

func archPlus[T Float](lvl level, kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zPlusF32(int(kind), float64(eps), rho, drho, s, n)
	case is32[T]():
		plusF32(int(kind), float64(eps), rho, drho, s, n)
	case lvl.isa == isaWide:
		zPlusF64(int(kind), float64(eps), rho, drho, s, n)
	default:
		plusF64(int(kind), float64(eps), rho, drho, s, n)
	}
}

// maxLaneClasses is the most classes zSoftmaxLanes takes, as its class
// vectors stay in registers. maxLaneClassesYmm is the most softmaxLanes
// takes, its stack frame's slots. They are the generator's constants of the
// same names.
const (
	maxLaneClasses    = 12
	maxLaneClassesYmm = 16
)

// archSoftmax takes, at isaWide, the rows-as-lanes kernel for
// k ≤ maxLaneClasses and the zmm row kernel above; at isaBase the 256-bit
// row kernel. A row of few classes fills a zmm register poorly. For those
// the lanes kernel does more work an instruction, with one row in each lane.
func archSoftmax[T Float](lvl level, loss, z, label unsafe.Pointer, n, k int) {
	if lvl.isa == isaWide && k <= maxLaneClasses {
		// Few classes: the rows as the lanes, no reduction across them.
		if is32[T]() {
			zSoftmaxLanesF32(loss, z, label, n, k)
		} else {
			zSoftmaxLanesF64(loss, z, label, n, k)
		}
		return
	}
	if n4 := n &^ 3; lvl.isa == isaBase && k <= maxLaneClassesYmm && n4 > 0 {
		// The same with four rows as the lanes of ymm registers; the
		// last n mod 4 rows take the row kernel below.
		if is32[T]() {
			softmaxLanesF32(loss, z, label, n4, k)
		} else {
			softmaxLanesF64(loss, z, label, n4, k)
		}
		if n4 == n {
			return
		}
		loss, z = at[T](loss, n4), at[T](z, n4*k)
		label = unsafe.Add(label, 4*n4)
		n -= n4
	}
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zSoftmaxF32(loss, z, label, n, k)
	case is32[T]():
		softmaxF32(loss, z, label, n, k)
	case lvl.isa == isaWide:
		zSoftmaxF64(loss, z, label, n, k)
	default:
		softmaxF64(loss, z, label, n, k)
	}
}
