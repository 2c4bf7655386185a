//go:build !purego

package kernel

import "unsafe"

// No NEON CSR kernels yet: the driver's sparse entries are never used.
const archSparse = false

func archSparseMargins[T Float](m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget, ahead int) (int, uint32) {
	panic("kernel: no NEON CSR kernels")
}

func archSparseAddRows[T Float](g unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget, ahead int) (int, bool) {
	panic("kernel: no NEON CSR kernels")
}
