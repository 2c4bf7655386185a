//go:build gc && !purego

package kernel

import "unsafe"

// The arm64 primitives of the driver's row kernels (rows_driver.go): the
// assembly takes lists of row pointers, four at a time.

// archMargins gathers row pointers and hands them to dotRows. It takes them
// four at a time, so each load of w serves four rows. The last n mod 4 rows
// go through dot.
func archMargins[T Float](lvl level, m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	per := archRowsPerCall(lvl, d)
	var (
		rows [neonMaxRows]unsafe.Pointer
		out  [neonMaxRows]T
	)
	i := 0
	for i+4 <= n {
		nr := min(per, (n-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = rowAt(x, stride, idx, i0+i+j)
		}
		if mstride == 1 {
			dotRowsP[T](at[T](m, i), w, unsafe.Pointer(&rows[0]), nr, d)
		} else {
			dotRowsP[T](unsafe.Pointer(&out[0]), w, unsafe.Pointer(&rows[0]), nr, d)
			for j := 0; j < nr; j++ {
				*(*T)(at[T](m, (i+j)*mstride)) = out[j]
			}
		}
		i += nr
	}
	for ; i < n; i++ {
		*(*T)(at[T](m, i*mstride)) = archDot[T](lvl, w, rowAt(x, stride, idx, i0+i), d)
	}
}

// archAddRows hands gathered rows to axpyRows. It loads and stores g once
// per four rows. The FMAs run in row order, as in the generic code.
func archAddRows[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	per := archRowsPerCall(lvl, d)
	var (
		rows [neonMaxRows]unsafe.Pointer
		cf   [neonMaxRows]T
	)
	i := 0
	for i+4 <= n {
		nr := min(per, (n-i)&^3)
		for j := 0; j < nr; j++ {
			rows[j] = rowAt(x, stride, idx, i0+i+j)
		}
		cp := at[T](c, i)
		if cstride != 1 {
			for j := 0; j < nr; j++ {
				cf[j] = *(*T)(at[T](c, (i+j)*cstride))
			}
			cp = unsafe.Pointer(&cf[0])
		}
		axpyRowsP[T](g, d, cp, unsafe.Pointer(&rows[0]), nr)
		i += nr
	}
	for ; i < n; i++ {
		archAxpy(lvl, *(*T)(at[T](c, i*cstride)), rowAt(x, stride, idx, i0+i), g, d)
	}
}

// archAddRowsK runs the NEON row kernel once for each of the n rows of g.
func archAddRowsK[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, c unsafe.Pointer, k, n int) {
	for i := 0; i < n; i++ {
		archAddRows(lvl, at[T](g, i*d), d, x, stride, nil, 0, k, at[T](c, i*k), 1)
	}
}

func dotRowsP[T Float](out, a, rows unsafe.Pointer, nrows, n int) {
	if is32[T]() {
		dotRowsF32(out, a, rows, nrows, n)
		return
	}
	dotRowsF64(out, a, rows, nrows, n)
}

func axpyRowsP[T Float](y unsafe.Pointer, n int, c, rows unsafe.Pointer, nrows int) {
	if is32[T]() {
		axpyRowsF32(y, n, c, rows, nrows)
		return
	}
	axpyRowsF64(y, n, c, rows, nrows)
}
