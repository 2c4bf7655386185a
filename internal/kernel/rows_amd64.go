//go:build gc && !purego

package kernel

import "unsafe"

// The amd64 primitives of the driver's row kernels (rows_driver.go). They
// block the columns of long rows. They choose the prefetching variants for
// matrices out of cache (streams). They make the typed calls of the
// assembly.

// streams reports whether the matrix x is big enough to prefetch from:
// above lvl.streamBytes.
func streams[T Float](lvl level, x []T) bool {
	return uintptr(len(x))*unsafe.Sizeof(T(0)) > uintptr(lvl.streamBytes)
}

// rowBase returns the address of the block of rows that starts at gathered
// row i, as the assembly takes it. With idx the assembly indexes from x
// itself. Without idx it starts at row i.
func rowBase[T Float](x []T, stride int, idx []int, i int) (unsafe.Pointer, unsafe.Pointer) {
	if idx != nil {
		return ptr(x), unsafe.Pointer(&idx[i])
	}
	return at[T](ptr(x), i*stride), nil
}

// archMargins runs the margins kernel over gathered rows i0 ≤ i < i0+n. It
// splits rows longer than archColBlock into column blocks, and adds up their
// partial sums.
func archMargins[T Float](lvl level, m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	xp, ip := rowBase(x, stride, idx, i0)
	pf := streams(lvl, x)
	if d <= archColBlock {
		rowMargins[T](lvl, pf, m, mstride, n, xp, stride, ip, w, d)
		return
	}
	var part [4]T
	for i := 0; i < n; i += 4 {
		b := min(4, n-i)
		mi := at[T](m, i*mstride)
		xi, ii := xp, ip
		if ip != nil {
			ii = unsafe.Add(ip, uintptr(i)*unsafe.Sizeof(int(0)))
		} else {
			xi = at[T](xp, i*stride)
		}
		rowMargins[T](lvl, pf, mi, mstride, b, xi, stride, ii, w, archColBlock)
		for l := archColBlock; l < d; l += archColBlock {
			rowMargins[T](lvl, pf, unsafe.Pointer(&part[0]), 1, b, at[T](xi, l), stride, ii, at[T](w, l), min(archColBlock, d-l))
			for j := 0; j < b; j++ {
				*(*T)(at[T](mi, j*mstride)) += part[j]
			}
		}
	}
}

func rowMargins[T Float](lvl level, pf bool, m unsafe.Pointer, mstride, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	if lvl.isa == isaWide {
		switch {
		case is32[T]() && pf:
			zMarginsPFF32(m, mstride, n, x, stride, idx, w, d)
		case is32[T]():
			zMarginsF32(m, mstride, n, x, stride, idx, w, d)
		case pf:
			zMarginsPFF64(m, mstride, n, x, stride, idx, w, d)
		default:
			zMarginsF64(m, mstride, n, x, stride, idx, w, d)
		}
		return
	}
	switch {
	case is32[T]() && pf:
		marginsPFF32(m, mstride, n, x, stride, idx, w, d)
	case is32[T]():
		marginsF32(m, mstride, n, x, stride, idx, w, d)
	case pf:
		marginsPFF64(m, mstride, n, x, stride, idx, w, d)
	default:
		marginsF64(m, mstride, n, x, stride, idx, w, d)
	}
}

// archAddRows runs the accumulation kernel over gathered rows i0 ≤ i < i0+n.
// Rows longer than archColBlock go column block by column block.
func archAddRows[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	xp, ip := rowBase(x, stride, idx, i0)
	pf := streams(lvl, x)
	for l := 0; l < d; l += archColBlock {
		gl, xl, dl := at[T](g, l), at[T](xp, l), min(archColBlock, d-l)
		if lvl.isa == isaWide {
			switch {
			case is32[T]() && pf:
				zAddRowsPFF32(gl, dl, xl, stride, ip, c, cstride, n)
			case is32[T]():
				zAddRowsF32(gl, dl, xl, stride, ip, c, cstride, n)
			case pf:
				zAddRowsPFF64(gl, dl, xl, stride, ip, c, cstride, n)
			default:
				zAddRowsF64(gl, dl, xl, stride, ip, c, cstride, n)
			}
			continue
		}
		switch {
		case is32[T]() && pf:
			addRowsPFF32(gl, dl, xl, stride, ip, c, cstride, n)
		case is32[T]():
			addRowsF32(gl, dl, xl, stride, ip, c, cstride, n)
		case pf:
			addRowsPFF64(gl, dl, xl, stride, ip, c, cstride, n)
		default:
			addRowsF64(gl, dl, xl, stride, ip, c, cstride, n)
		}
	}
}

// archAddRowsK adds to n rows of d elements at g the k rows of x, weighted
// by each row's k coefficients at c. It is AddRowsK's kernel.
func archAddRowsK[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, c unsafe.Pointer, k, n int) {
	xp := ptr(x)
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zAddRowsKF32(g, d, xp, stride, c, k, n)
	case is32[T]():
		addRowsKF32(g, d, xp, stride, c, k, n)
	case lvl.isa == isaWide:
		zAddRowsKF64(g, d, xp, stride, c, k, n)
	default:
		addRowsKF64(g, d, xp, stride, c, k, n)
	}
}

// archMarginsK runs the register-blocked margins kernel over gathered rows
// i0 ≤ i < i0+n and c classes. When the matrix is out of cache, the first
// class block of a block of rows prefetches them.
func archMarginsK[T Float](lvl level, first bool, m unsafe.Pointer, k, n int, x []T, stride int, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	xp, ip := rowBase(x, stride, idx, i0)
	pf := first && streams(lvl, x)
	if lvl.isa == isaWide {
		switch {
		case is32[T]() && pf:
			zMarginsKPFF32(m, k, n, xp, stride, ip, w, d, c)
		case is32[T]():
			zMarginsKF32(m, k, n, xp, stride, ip, w, d, c)
		case pf:
			zMarginsKPFF64(m, k, n, xp, stride, ip, w, d, c)
		default:
			zMarginsKF64(m, k, n, xp, stride, ip, w, d, c)
		}
		return
	}
	switch {
	case is32[T]() && pf:
		marginsKPFF32(m, k, n, xp, stride, ip, w, d, c)
	case is32[T]():
		marginsKF32(m, k, n, xp, stride, ip, w, d, c)
	case pf:
		marginsKPFF64(m, k, n, xp, stride, ip, w, d, c)
	default:
		marginsKF64(m, k, n, xp, stride, ip, w, d, c)
	}
}

// archAddOuterK runs the register-blocked accumulation kernel over gathered
// rows i0 ≤ i < i0+n. It covers columns l ≤ col < l+cols and nc classes.
// archAddOuterKNext is archAddOuterK's first class block, for rows out of
// cache. It prefetches the same columns of the nnext rows at next, instead
// of its own rows' next columns. Row i of each walk asks for next[i].
func archAddOuterKNext[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	if !streams(lvl, x) {
		archAddOuterK(lvl, true, g, d, x, stride, idx, i0, l, c, k, n, cols, nc)
		return
	}
	xp, ip := rowBase(x, stride, idx, i0)
	xl := at[T](xp, l)
	switch {
	case is32[T]() && lvl.isa == isaWide:
		zAddOuterKNXF32(g, d, xl, stride, ip, c, k, n, cols, nc, next, nnext)
	case is32[T]():
		addOuterKNXF32(g, d, xl, stride, ip, c, k, n, cols, nc, next, nnext)
	case lvl.isa == isaWide:
		zAddOuterKNXF64(g, d, xl, stride, ip, c, k, n, cols, nc, next, nnext)
	default:
		addOuterKNXF64(g, d, xl, stride, ip, c, k, n, cols, nc, next, nnext)
	}
}

func archAddOuterK[T Float](lvl level, first bool, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	xp, ip := rowBase(x, stride, idx, i0)
	xl := at[T](xp, l)
	pf := first && streams(lvl, x)
	if lvl.isa == isaWide {
		switch {
		case is32[T]() && pf:
			zAddOuterKPFF32(g, d, xl, stride, ip, c, k, n, cols, nc)
		case is32[T]():
			zAddOuterKF32(g, d, xl, stride, ip, c, k, n, cols, nc)
		case pf:
			zAddOuterKPFF64(g, d, xl, stride, ip, c, k, n, cols, nc)
		default:
			zAddOuterKF64(g, d, xl, stride, ip, c, k, n, cols, nc)
		}
		return
	}
	switch {
	case is32[T]() && pf:
		addOuterKPFF32(g, d, xl, stride, ip, c, k, n, cols, nc)
	case is32[T]():
		addOuterKF32(g, d, xl, stride, ip, c, k, n, cols, nc)
	case pf:
		addOuterKPFF64(g, d, xl, stride, ip, c, k, n, cols, nc)
	default:
		addOuterKF64(g, d, xl, stride, ip, c, k, n, cols, nc)
	}
}
