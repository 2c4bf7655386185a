//go:build gc && !purego

package kernel

import "unsafe"

// archSparse: the CSR kernels (sparse_driver.go) are the AVX2 ones, in both
// implementations: AVX-512 gathers and scatters are slower on them (see
// docs/design.md, "The sparse path").
const archSparse = true

func archSparseMargins[T Float](m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget, ahead int) (int, uint32) {
	if is32[T]() {
		return sparseMarginsF32(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
	}
	return sparseMarginsF64(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
}

func archSparseAddRows[T Float](g unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget, ahead int) (int, bool) {
	if is32[T]() {
		return sparseAddRowsF32(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
	}
	return sparseAddRowsF64(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
}
