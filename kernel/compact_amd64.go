//go:build !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasF16C reports VCVTPH2PS (every AVX2 CPU we know of has it; without it
// the halves are converted in Go).
var hasF16C = cpu.X86.HasF16C

// archCvtU8 converts n bytes (a multiple of 8) to float32 scale·u.
func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { cvtU8F32(dst, src, n, scale) }

// archCvtF16 converts n IEEE halves (a multiple of 8) to float32.
func archCvtF16(dst, src unsafe.Pointer, n int) {
	if hasF16C {
		cvtF16F32(dst, src, n)
		return
	}
	d, s := unsafe.Slice((*float32)(dst), n), unsafe.Slice((*uint16)(src), n)
	for i, h := range s {
		d[i] = F16ToF32(h)
	}
}

// archRowKernels reports row kernels that read the format directly
// (marginsU8F32, addRowsU8F32; marginsF16F32, addRowsF16F32 with F16C);
// without them the driver converts blocks of rows.
func archRowKernels(f Format) bool { return f == U8 || f == F16 && hasF16C }

// archMarginsC and archAddRowsC run the compact row kernels (d a multiple
// of 8; a format archRowKernels takes): at isaWide their zmm twins
// (zMarginsU8F32, …), which read 16 features a register.
func archMarginsC(lvl isa, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	switch {
	case lvl == isaWide && f == U8:
		zMarginsU8F32(m, n, x, stride, idx, w, d)
	case lvl == isaWide:
		zMarginsF16F32(m, n, x, stride, idx, w, d)
	case f == U8:
		marginsU8F32(m, n, x, stride, idx, w, d)
	default:
		marginsF16F32(m, n, x, stride, idx, w, d)
	}
}

func archAddRowsC(lvl isa, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	switch {
	case lvl == isaWide && f == U8:
		zAddRowsU8F32(g, d, x, stride, idx, c, n)
	case lvl == isaWide:
		zAddRowsF16F32(g, d, x, stride, idx, c, n)
	case f == U8:
		addRowsU8F32(g, d, x, stride, idx, c, n)
	default:
		addRowsF16F32(g, d, x, stride, idx, c, n)
	}
}

func archPrefetch(p unsafe.Pointer, n int) { prefetchBytes(p, n) }
