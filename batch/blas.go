package batch

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm computes C = alpha·op(A)·op(B) + beta·C through gonum's BLAS, blas32
// or blas64 after T. op(X) = Xᵀ when the flag is set. A is m×k after op, and
// B is k×n after op. All are row-major with leading dimensions lda, ldb,
// ldc.
func gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	var zero T
	if _, ok := any(zero).(float32); ok {
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), as64(a), lda, as64(b), ldb, float64(beta), as64(c), ldc)
}

// as32 and as64 view a []T as the concrete type it is. They are only called
// after checking T, so the element sizes match.
func as32[T Float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func as64[T Float](x []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}
