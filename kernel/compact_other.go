//go:build purego || !(amd64 || arm64)

package kernel

import "unsafe"

func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { panic(noAsm) }
func archCvtF16(dst, src unsafe.Pointer, n int)               { panic(noAsm) }

func archRowKernels(f Format) bool { return false }

func archMarginsC(lvl isa, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	panic("kernel: no compact row kernels in this build")
}

func archAddRowsC(lvl isa, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	panic("kernel: no compact row kernels in this build")
}

func archPrefetch(p unsafe.Pointer, n int) {}
