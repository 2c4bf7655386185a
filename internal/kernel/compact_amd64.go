//go:build gc && !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasF16C reports VCVTPH2PS. AVX2 CPUs have it as a rule. Without it the
// halves are converted in Go.
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

// archCvtBF16 converts n bfloat16s (a multiple of 8) to float32.
func archCvtBF16(dst, src unsafe.Pointer, n int) { cvtBF16F32(dst, src, n) }

// archRowKernels reports row kernels that read the format directly
// (marginsU8F32, addRowsU8F32; marginsBF16F32, addRowsBF16F32;
// marginsF16F32, addRowsF16F32 with F16C); without them the driver
// converts blocks of rows.
func archRowKernels(f Format) bool { return f == U8 || f == BF16 || f == F16 && hasF16C }

// archMarginsC and archAddRowsC run the compact row kernels. They need d a
// multiple of 8, and a format archRowKernels takes. At isaWide they run the
// zmm twins (zMarginsU8F32, …), which read 16 features a register.
func archMarginsC(lvl level, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	switch {
	case lvl.isa == isaWide && f == U8:
		zMarginsU8F32(m, n, x, stride, idx, w, d)
	case lvl.isa == isaWide && f == BF16:
		zMarginsBF16F32(m, n, x, stride, idx, w, d)
	case lvl.isa == isaWide:
		zMarginsF16F32(m, n, x, stride, idx, w, d)
	case f == U8:
		marginsU8F32(m, n, x, stride, idx, w, d)
	case f == BF16:
		marginsBF16F32(m, n, x, stride, idx, w, d)
	default:
		marginsF16F32(m, n, x, stride, idx, w, d)
	}
}

func archAddRowsC(lvl level, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	switch {
	case lvl.isa == isaWide && f == U8:
		zAddRowsU8F32(g, d, x, stride, idx, c, n)
	case lvl.isa == isaWide && f == BF16:
		zAddRowsBF16F32(g, d, x, stride, idx, c, n)
	case lvl.isa == isaWide:
		zAddRowsF16F32(g, d, x, stride, idx, c, n)
	case f == U8:
		addRowsU8F32(g, d, x, stride, idx, c, n)
	case f == BF16:
		addRowsBF16F32(g, d, x, stride, idx, c, n)
	default:
		addRowsF16F32(g, d, x, stride, idx, c, n)
	}
}

func archPrefetch(p unsafe.Pointer, n int) { prefetchBytes(p, n) }

// archClassKernelsC reports the class kernels that read the format directly.
// At isaWide these are zMarginsKU8F32 and zAddOuterKU8F32, in ymm
// marginsKU8F32 and addOuterKU8F32. The BF16 ones count too, and the F16
// ones with F16C. They replace the conversion buffer for rows of at least 8
// features (classKernelsC).
func archClassKernelsC(lvl level, f Format) bool {
	return f == U8 || f == BF16 || f == F16 && hasF16C
}

// compactStreams reports whether x is big enough to prefetch from (as
// streams for a float32 matrix).
func compactStreams(lvl level, x *Compact) bool { return x.Len()*x.ElemBytes() > lvl.streamBytes }

// archMarginsKC runs the class margins kernel of lvl on compact rows, over
// gathered rows i0 ≤ i < i0+n and c classes. The format is one
// archClassKernelsC takes; in ymm d ≥ 8. When the matrix is out of cache,
// the first class block of a block of rows prefetches them.
func archMarginsKC(lvl level, first bool, m unsafe.Pointer, k, n int, x *Compact, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	xp, ip := compactRowBase(x, idx, i0)
	pf := first && compactStreams(lvl, x)
	s := float32(x.Scale)
	if lvl.isa != isaWide {
		switch {
		case x.Format == U8 && pf:
			marginsKPFU8F32(m, k, n, xp, x.Stride, ip, w, d, c, s)
		case x.Format == U8:
			marginsKU8F32(m, k, n, xp, x.Stride, ip, w, d, c, s)
		case x.Format == BF16 && pf:
			marginsKPFBF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
		case x.Format == BF16:
			marginsKBF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
		case pf:
			marginsKPFF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
		default:
			marginsKF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
		}
		return
	}
	switch {
	case x.Format == U8 && pf:
		zMarginsKPFU8F32(m, k, n, xp, x.Stride, ip, w, d, c, s)
	case x.Format == U8:
		zMarginsKU8F32(m, k, n, xp, x.Stride, ip, w, d, c, s)
	case x.Format == BF16 && pf:
		zMarginsKPFBF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
	case x.Format == BF16:
		zMarginsKBF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
	case pf:
		zMarginsKPFF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
	default:
		zMarginsKF16F32(m, k, n, xp, x.Stride, ip, w, d, c)
	}
}

// archAddOuterKC runs the class accumulation kernel of lvl on compact rows.
// It covers gathered rows i0 ≤ i < i0+n, columns l ≤ col < l+cols and nc
// classes. In ymm l+cols ≥ 8. archAddOuterKCNext is archAddOuterKC's first
// class block, for rows out of cache. Like archAddOuterKNext, it prefetches
// the same columns of the nnext rows at next. It does so instead of
// prefetching its own rows' next columns.
func archAddOuterKCNext(lvl level, g unsafe.Pointer, d int, x *Compact, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	if !compactStreams(lvl, x) {
		archAddOuterKC(lvl, true, g, d, x, idx, i0, l, c, k, n, cols, nc)
		return
	}
	xp, ip := compactRowBase(x, idx, i0)
	xl := unsafe.Add(xp, l*x.ElemBytes())
	s := float32(x.Scale)
	switch {
	case lvl.isa != isaWide && x.Format == U8:
		addOuterKNXU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s, next, nnext)
	case lvl.isa != isaWide && x.Format == BF16:
		addOuterKNXBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, next, nnext)
	case lvl.isa != isaWide:
		addOuterKNXF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, next, nnext)
	case x.Format == U8:
		zAddOuterKNXU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s, next, nnext)
	case x.Format == BF16:
		zAddOuterKNXBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, next, nnext)
	default:
		zAddOuterKNXF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, next, nnext)
	}
}

func archAddOuterKC(lvl level, first bool, g unsafe.Pointer, d int, x *Compact, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	xp, ip := compactRowBase(x, idx, i0)
	xl := unsafe.Add(xp, l*x.ElemBytes())
	pf := first && compactStreams(lvl, x)
	s := float32(x.Scale)
	if lvl.isa != isaWide {
		switch {
		case x.Format == U8 && pf:
			addOuterKPFU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s)
		case x.Format == U8:
			addOuterKU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s)
		case x.Format == BF16 && pf:
			addOuterKPFBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
		case x.Format == BF16:
			addOuterKBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
		case pf:
			addOuterKPFF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
		default:
			addOuterKF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
		}
		return
	}
	switch {
	case x.Format == U8 && pf:
		zAddOuterKPFU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s)
	case x.Format == U8:
		zAddOuterKU8F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc, s)
	case x.Format == BF16 && pf:
		zAddOuterKPFBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
	case x.Format == BF16:
		zAddOuterKBF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
	case pf:
		zAddOuterKPFF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
	default:
		zAddOuterKF16F32(g, d, xl, x.Stride, ip, c, k, n, cols, nc)
	}
}
