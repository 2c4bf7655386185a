//go:build !gc || purego || !(amd64 || arm64)

package kernel

import "unsafe"

// The primitives of rows_driver.go without assembly: never called.

func archMargins[T Float](lvl level, m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	panic(noAsm)
}
func archAddRows[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	panic(noAsm)
}
func archMarginsK[T Float](lvl level, first bool, m unsafe.Pointer, k, n int, x []T, stride int, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	panic(noAsm)
}
func archAddOuterK[T Float](lvl level, first bool, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	panic(noAsm)
}
func archAddOuterKNext[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	panic(noAsm)
}
func archAddRowsK[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, c unsafe.Pointer, k, n int) {
	panic(noAsm)
}
