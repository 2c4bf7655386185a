//go:build !purego

package kernel

import "unsafe"

// archSparse: the AVX2 implementation has the CSR kernels (sparse_driver.go).
const archSparse = true

func archSparseMargins[T Float](m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget int) (int, uint32) {
	if is32[T]() {
		return sparseMarginsF32(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget)
	}
	return sparseMarginsF64(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget)
}

func archSparseAddRows[T Float](g unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget int) (int, bool) {
	if is32[T]() {
		return sparseAddRowsF32(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget)
	}
	return sparseAddRowsF64(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget)
}
