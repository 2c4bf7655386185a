//go:build purego || !(amd64 || arm64)

package kernel

import "unsafe"

// archImpls has no assembly to offer: the generic reference runs alone.
func archImpls() []*Impl { return nil }

// The driver (driver.go) is compiled everywhere; without assembly it never
// runs, and these declarations only let it compile.
const (
	archChunk        = 1 << 15
	archChunkFlops   = 1 << 16
	archGroup        = 1
	archClassKernels = false
	archClassBlock   = 1
	archColBlock     = 0
	archOuterRowsK   = 1
	archOuterStrip   = 1
	archFusedMax     = 1
)

const noAsm = "kernel: no assembly in this build"

func archRowsPerCall(d int) int                                                { panic(noAsm) }
func archOuterRows[T Float](d int) int                                         { panic(noAsm) }
func archFusedBlock[T Float](d int) int                                        { panic(noAsm) }
func archDot[T Float](x, y unsafe.Pointer, n int) T                            { panic(noAsm) }
func archDotF32(x, y unsafe.Pointer, n int) float32                            { panic(noAsm) }
func archDotF64(x, y unsafe.Pointer, n int) float64                            { panic(noAsm) }
func archAxpy[T Float](a T, x, y unsafe.Pointer, n int)                        { panic(noAsm) }
func archLerp[T Float](t T, x, y unsafe.Pointer, n int)                        { panic(noAsm) }
func archExp[T Float](dst, x unsafe.Pointer, n int)                            { panic(noAsm) }
func archLog1p[T Float](dst, x unsafe.Pointer, n int)                          { panic(noAsm) }
func archLoss[T Float](kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) { panic(noAsm) }
func archPlus[T Float](kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	panic(noAsm)
}
func archSoftmax[T Float](loss, z, label unsafe.Pointer, n, k int) { panic(noAsm) }
func archMargins[T Float](m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	panic(noAsm)
}
func archAddRows[T Float](g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	panic(noAsm)
}
func archMarginsK[T Float](first bool, m unsafe.Pointer, k, n int, x []T, stride int, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	panic(noAsm)
}
func archAddOuterK[T Float](first bool, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	panic(noAsm)
}
