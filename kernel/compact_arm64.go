//go:build !purego

package kernel

import "unsafe"

// cvtU8F32 computes, for n a multiple of 8,
//
//	for i := 0; i < n; i++ {
//		dst[i] = scale * float32(src[i]) // src is []uint8
//	}
//
//go:noescape
func cvtU8F32(dst, src unsafe.Pointer, n int, scale float32)

// cvtF16F32 computes, for n a multiple of 8,
//
//	for i := 0; i < n; i++ {
//		dst[i] = float32 value of the IEEE half src[i] // src is []uint16
//	}
//
//go:noescape
func cvtF16F32(dst, src unsafe.Pointer, n int)

func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { cvtU8F32(dst, src, n, scale) }
func archCvtF16(dst, src unsafe.Pointer, n int)               { cvtF16F32(dst, src, n) }

func archRowKernels(f Format) bool { return false }

func archMarginsC(lvl isa, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	panic("kernel: no compact row kernels in this build")
}

func archAddRowsC(lvl isa, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	panic("kernel: no compact row kernels in this build")
}

// prefetchBytes asks for the cache lines of p[0:n] (PRFM PLDL1KEEP every 64
// bytes); it reads nothing and cannot fault.
//
//go:noescape
func prefetchBytes(p unsafe.Pointer, n int)

func archPrefetch(p unsafe.Pointer, n int) { prefetchBytes(p, n) }
