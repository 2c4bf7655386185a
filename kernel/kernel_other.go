//go:build !gc || purego || !(amd64 || arm64)

package kernel

import "unsafe"

// archImpls has no assembly to offer: the generic reference runs alone.
func archImpls() []*impl { return nil }

// The driver (driver.go) is compiled everywhere; without assembly it never
// runs, and these declarations only let it compile.
const (
	archChunk        = 1 << 15
	archChunkFlops   = 1 << 16
	archGroup        = 1
	archClassKernels = false
	archColBlock     = 0
	archOuterRowsK   = 1
	archOuterStrip   = 1
	archFusedMax     = 1
)

// archDefault: without assembly the generic reference is the only choice.
func archDefault(impls []*impl) (*impl, string) { return impls[0], "no assembly in this build" }

const noAsm = "kernel: no assembly in this build"

func archMarginsKBlock[T Float](lvl level, d int) int              { panic(noAsm) }
func archRowBlockFlops(lvl level) int                              { panic(noAsm) }
func archClassBlock(lvl level) int                                 { panic(noAsm) }
func archRowsPerCall(lvl level, d int) int                         { panic(noAsm) }
func archOuterRows[T Float](lvl level, d int) int                  { panic(noAsm) }
func archFusedBlock[T Float](lvl level, d int) int                 { panic(noAsm) }
func archDot[T Float](lvl level, x, y unsafe.Pointer, n int) T     { panic(noAsm) }
func archDotF32(x, y unsafe.Pointer, n int) float32                { panic(noAsm) }
func archDotF64(x, y unsafe.Pointer, n int) float64                { panic(noAsm) }
func archWideDotF32(x, y unsafe.Pointer, n int) float32            { panic(noAsm) }
func archWideDotF64(x, y unsafe.Pointer, n int) float64            { panic(noAsm) }
func archAxpy[T Float](lvl level, a T, x, y unsafe.Pointer, n int) { panic(noAsm) }
func archLerp[T Float](lvl level, t T, x, y unsafe.Pointer, n int) { panic(noAsm) }
func archExp[T Float](lvl level, dst, x unsafe.Pointer, n int)     { panic(noAsm) }
func archLog1p[T Float](lvl level, dst, x unsafe.Pointer, n int)   { panic(noAsm) }
func archLoss[T Float](lvl level, kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	panic(noAsm)
}
func archPlus[T Float](lvl level, kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	panic(noAsm)
}
func archBiasReLU[T Float](lvl level, z, b unsafe.Pointer, n, h, stride int)          { panic(noAsm) }
func archReLUBackward[T Float](lvl level, gb, dh, a unsafe.Pointer, n, h, stride int) { panic(noAsm) }
func archSoftmax[T Float](lvl level, loss, z, label unsafe.Pointer, n, k int)         { panic(noAsm) }
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
