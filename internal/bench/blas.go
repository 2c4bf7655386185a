package bench

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// The gonum baselines, generic over the element type. Each calls a routine
// of gonum's BLAS, blas32 or blas64 after T. The routine computes the same
// thing as the kernel it is compared with.

func is32[T kernel.Float]() bool { return unsafe.Sizeof(T(0)) == 4 }

func as32[T kernel.Float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func as64[T kernel.Float](x []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// gonumDot is Sdot / Ddot.
func gonumDot[T kernel.Float](x, y []T) T {
	if is32[T]() {
		return T(blas32.Implementation().Sdot(len(x), as32(x), 1, as32(y), 1))
	}
	return T(blas64.Implementation().Ddot(len(x), as64(x), 1, as64(y), 1))
}

// gonumAxpy is Saxpy / Daxpy: y += a·x.
func gonumAxpy[T kernel.Float](a T, x, y []T) {
	if is32[T]() {
		blas32.Implementation().Saxpy(len(x), float32(a), as32(x), 1, as32(y), 1)
		return
	}
	blas64.Implementation().Daxpy(len(x), float64(a), as64(x), 1, as64(y), 1)
}

// gonumGemv is Sgemv / Dgemv on the row-major m×n matrix a. It computes
// y = alpha·op(a)·x + beta·y, where op(a) = aᵀ when trans.
func gonumGemv[T kernel.Float](trans bool, m, n int, alpha T, a []T, lda int, x []T, beta T, y []T) {
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	if is32[T]() {
		blas32.Implementation().Sgemv(t, m, n, float32(alpha), as32(a), lda, as32(x), 1, float32(beta), as32(y), 1)
		return
	}
	blas64.Implementation().Dgemv(t, m, n, float64(alpha), as64(a), lda, as64(x), 1, float64(beta), as64(y), 1)
}

// gonumGemm is Sgemm / Dgemm, row-major: c = alpha·op(a)·op(b) + beta·c.
func gonumGemm[T kernel.Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	if is32[T]() {
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), as64(a), lda, as64(b), ldb, float64(beta), as64(c), ldc)
}

// asFloat32s views the bytes of x as float32s (twice as many for float64),
// for the stream loop.
func asFloat32s[T kernel.Float](x []T) []float32 {
	n := len(x) * int(unsafe.Sizeof(T(0))) / 4
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), n)
}
