//go:build !gc || purego || !(amd64 || arm64)

package kernel

import "unsafe"

func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { panic(noAsm) }
func archCvtF16(dst, src unsafe.Pointer, n int)               { panic(noAsm) }
func archCvtBF16(dst, src unsafe.Pointer, n int)              { panic(noAsm) }

func archRowKernels(f Format) bool { return false }

func archMarginsC(lvl level, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	panic("kernel: no compact row kernels in this build")
}

func archAddRowsC(lvl level, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	panic("kernel: no compact row kernels in this build")
}

func archPrefetch(p unsafe.Pointer, n int) {}

// archClassKernelsC reports no class kernels that read compact rows
// directly: the class products convert blocks of rows.
func archClassKernelsC(lvl level, f Format) bool { return false }

func archMarginsKC(lvl level, first bool, m unsafe.Pointer, k, n int, x *Compact, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	panic("kernel: no compact class kernels in this build")
}

func archAddOuterKC(lvl level, first bool, g unsafe.Pointer, d int, x *Compact, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	panic("kernel: no compact class kernels in this build")
}

func archAddOuterKCNext(lvl level, g unsafe.Pointer, d int, x *Compact, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	panic("kernel: no compact class kernels in this build")
}
