//go:build !gc || purego || !(amd64 || arm64)

package kernel

import "unsafe"

// The primitives of elementwise_driver.go without assembly: never called.

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
