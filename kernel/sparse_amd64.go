//go:build gc && !purego

package kernel

import "unsafe"

// archSparse: the AVX2 implementation has the CSR kernels (sparse_driver.go);
// their AVX-512 twins (kern sparseAVX512) are tested on their own and are
// part of no implementation, being no faster on Zen 5: an AVX-512
// implementation that also checks cpu.X86.HasAVX512CD would take them with
// sparseOps(&ops, sparseAVX512).
const archSparse = true

func archSparseMargins[T Float](kern sparseKern, m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget, ahead int) (int, uint32) {
	if kern == sparseAVX512 {
		if is32[T]() {
			return sparseMarginsAVX512F32(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
		}
		return sparseMarginsAVX512F64(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
	}
	if is32[T]() {
		return sparseMarginsF32(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
	}
	return sparseMarginsF64(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead)
}

func archSparseAddRows[T Float](kern sparseKern, g unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget, ahead int) (int, bool) {
	if kern == sparseAVX512 {
		if is32[T]() {
			return sparseAddRowsAVX512F32(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
		}
		return sparseAddRowsAVX512F64(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
	}
	if is32[T]() {
		return sparseAddRowsF32(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
	}
	return sparseAddRowsF64(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead)
}
