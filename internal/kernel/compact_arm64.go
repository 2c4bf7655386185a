//go:build gc && !purego

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

// cvtBF16F32 computes, for n a multiple of 8,
//
//	for i := 0; i < n; i++ {
//		dst[i] = math.Float32frombits(uint32(src[i]) << 16) // src is []uint16
//	}
//
//go:noescape
func cvtBF16F32(dst, src unsafe.Pointer, n int)

func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { cvtU8F32(dst, src, n, scale) }
func archCvtF16(dst, src unsafe.Pointer, n int)               { cvtF16F32(dst, src, n) }
func archCvtBF16(dst, src unsafe.Pointer, n int)              { cvtBF16F32(dst, src, n) }

// marginsU8F32 computes the following for d a multiple of 8, with
// r_i = idx[i]. Here x is []uint8 and idx []int. With a nil idx, x advances
// by stride bytes a row.
//
//	for i := 0; i < n; i++ {
//		var s float32
//		for l := 0; l < d; l++ {
//			s += float32(x[r_i*stride+l]) * w[l]
//		}
//		m[i] = s
//	}
//
//go:noescape
func marginsU8F32(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)

// addRowsU8F32 computes, for d a multiple of 8, with r_i as for
// marginsU8F32,
//
//	for i := 0; i < n; i++ {
//		for l := 0; l < d; l++ {
//			dst[l] = fma(c[i], float32(x[r_i*stride+l]), dst[l])
//		}
//	}
//
//go:noescape
func addRowsU8F32(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)

// marginsF16F32 is marginsU8F32 on rows of IEEE halves (x is []uint16,
// stride in elements), each widened exactly to float32.
//
//go:noescape
func marginsF16F32(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)

// addRowsF16F32 is addRowsU8F32 on rows of IEEE halves (x is []uint16,
// stride in elements), each widened exactly to float32.
//
//go:noescape
func addRowsF16F32(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)

// marginsBF16F32 is marginsU8F32 on rows of bfloat16s (x is []uint16,
// stride in elements), each widened exactly to float32.
//
//go:noescape
func marginsBF16F32(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)

// addRowsBF16F32 is addRowsU8F32 on rows of bfloat16s (x is []uint16,
// stride in elements), each widened exactly to float32.
//
//go:noescape
func addRowsBF16F32(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)

// archRowKernels reports the NEON row kernels that read bytes, halves and
// bfloat16s directly (UXTL/UCVTF, FCVTL and ZIP1/ZIP2 as they load): all
// three formats.
func archRowKernels(f Format) bool { return f == U8 || f == F16 || f == BF16 }

// archMarginsC and archAddRowsC run the compact row kernels (d a multiple
// of 8); arm64 has one level, and lvl is ignored.
func archMarginsC(lvl level, f Format, m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	switch f {
	case U8:
		marginsU8F32(m, n, x, stride, idx, w, d)
	case BF16:
		marginsBF16F32(m, n, x, stride, idx, w, d)
	default:
		marginsF16F32(m, n, x, stride, idx, w, d)
	}
}

func archAddRowsC(lvl level, f Format, g unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int) {
	switch f {
	case U8:
		addRowsU8F32(g, d, x, stride, idx, c, n)
	case BF16:
		addRowsBF16F32(g, d, x, stride, idx, c, n)
	default:
		addRowsF16F32(g, d, x, stride, idx, c, n)
	}
}

// prefetchBytes asks for the cache lines of p[0:n] (PRFM PLDL1KEEP every 64
// bytes); it reads nothing and cannot fault.
//
//go:noescape
func prefetchBytes(p unsafe.Pointer, n int)

func archPrefetch(p unsafe.Pointer, n int) { prefetchBytes(p, n) }

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
