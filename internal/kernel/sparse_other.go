//go:build !gc || purego || !(amd64 || arm64)

package kernel

import "unsafe"

// No CSR assembly in this build: the driver's sparse entries are never used.
const archSparse = false

func archSparseMargins[T Float](m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget, ahead int) (int, uint32) {
	panic(noAsm)
}

func archSparseAddRows[T Float](g unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget, ahead int) (int, bool) {
	panic(noAsm)
}
