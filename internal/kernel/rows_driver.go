package kernel

import "unsafe"

// The driver's row kernels: Margins, AddRows, AddRowsK, MarginsK, AddOuterK.
// It checks bounds. Then it takes rows, columns and classes in blocks that
// bound each assembly call.

func marginsDriver[T Float](lvl level, m, x []T, stride int, idx []int, w []T) {
	n, d := len(m), len(w)
	if n == 0 {
		return
	}
	if d == 0 {
		clear(m)
		return
	}
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	for i := 0; i < n; i += step {
		archMargins(lvl, ptr(m[i:]), 1, x, stride, idx, i, min(step, n-i), ptr(w), d)
	}
}

func addRowsDriver[T Float](lvl level, g, x []T, stride int, idx []int, c []T) {
	n, d := len(c), len(g)
	if n == 0 || d == 0 {
		return
	}
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	for i := 0; i < n; i += step {
		archAddRows(lvl, ptr(g), d, x, stride, idx, i, min(step, n-i), ptr(c[i:]), 1)
	}
}

// addRowsKDriver is AddRowsK: blocks of rows of g of about archChunkFlops
// multiply-adds each (a bounded assembly call) through archAddRowsK.
func addRowsKDriver[T Float](lvl level, g, x []T, stride int, c []T, k int) {
	if k <= 0 || len(c) < k {
		return
	}
	n := len(c) / k
	d := len(g) / n
	if d == 0 {
		return
	}
	checkRows(k, x, stride, nil, d)
	step := max(1, archChunkFlops/(k*d))
	for i := 0; i < n; i += step {
		b := min(step, n-i)
		archAddRowsK(lvl, ptr(g[i*d:]), d, x, stride, ptr(c[i*k:]), k, b)
	}
}

// classSplit returns the number of class blocks for k classes in blocks of
// at most cb. classBlockSize returns the size of block b of nb. They split k
// as evenly as possible: k = 16 in blocks of 5 runs as 4+4+4+4, not 5+5+5+1.
func classSplit(k, cb int) int { return (k + cb - 1) / cb }

func classBlockSize(k, nb, b int) int {
	s := k / nb
	if b < k%nb {
		s++
	}
	return s
}

func marginsKDriver[T Float](lvl level, m, x []T, stride int, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	if n == 0 {
		return
	}
	m = m[:n*k]
	if d == 0 {
		clear(m)
		return
	}
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	if k < 4 {
		// Few classes: one pass per class. Blocks of rows share each load of
		// the class's weights. Outputs are k apart.
		for j := 0; j < k; j++ {
			wj := ptr(w[j*d:])
			for i := 0; i < n; i += step {
				archMargins(lvl, ptr(m[i*k+j:]), k, x, stride, idx, i, min(step, n-i), wj, d)
			}
		}
		return
	}
	if !archClassKernels || d > archColBlock {
		// For each row, the k class vectors play the rows of the margins
		// primitive. On long rows it splits the columns.
		for i := 0; i < n; i++ {
			xi := rowAt(x, stride, idx, i)
			for j := 0; j < k; j += step {
				archMargins(lvl, ptr(m[i*k+j:]), 1, w, d, nil, j, min(step, k-j), xi, d)
			}
		}
		return
	}
	eachClassBlock[T](lvl, n, d, k, func(first bool, i, b, j, c int) {
		archMarginsK(lvl, first, ptr(m[i*k+j:]), k, b, x, stride, idx, i, ptr(w[j*d:]), d, c)
	})
}

// eachClassBlock runs call over the class kernels' schedule for n rows of d
// elements of T and k classes. It walks blocks of rows [i, i+b). Each stays
// in cache while each block of classes [j, j+c) takes its turn. A class
// block holds at most archMarginsKBlock classes. first marks a row block's
// first class block. Only that one may prefetch: the others find the rows in
// cache.
func eachClassBlock[T Float](lvl level, n, d, k int, call func(first bool, i, b, j, c int)) {
	cbMax := archMarginsKBlock[T](lvl, d)
	nb := classSplit(k, cbMax)
	rb := max(2, archRowBlockFlops(lvl)/(cbMax*d)) &^ 1
	for i := 0; i < n; i += rb {
		b := min(rb, n-i)
		j := 0
		for cb := 0; cb < nb; cb++ {
			c := classBlockSize(k, nb, cb)
			call(cb == 0, i, b, j, c)
			j += c
		}
	}
}

// addOuterKDriver is AddOuterK, and with next AddOuterKNext
// (archAddOuterKNext). The first class block of each block of gathered rows
// prefetches the same columns of the rows next lists, at the same places.
// Results are the same bits either way.
func addOuterKDriver[T Float](lvl level, g, x []T, stride int, idx []int, c []T, k int, next []int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	if n == 0 || d == 0 {
		return
	}
	c = c[:n*k]
	checkRows(n, x, stride, idx, d)
	if !archClassKernels || k < 3 {
		// Few classes: too few independent accumulators for the
		// register-blocked kernel; blocks of rows per class instead.
		step := archOuterRows[T](lvl, d)
		for i := 0; i < n; i += step {
			b := min(step, n-i)
			for j := 0; j < k; j++ {
				archAddRows(lvl, ptr(g[j*d:]), d, x, stride, idx, i, b, ptr(c[i*k+j:]), k)
			}
		}
		return
	}
	strip := archOuterStrip / int(unsafe.Sizeof(T(0)))
	eachOuterBlock(lvl, n, d, k, archOuterRowsK, strip, nil, func(first bool, i, b, l, cols, j, nc int) {
		if nb := blockNext(next, idx, i, b); first && len(nb) > 0 {
			archAddOuterKNext(lvl, ptr(g[j*d+l:]), d, x, stride, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc, ptr(nb), len(nb))
			return
		}
		archAddOuterK(lvl, first, ptr(g[j*d+l:]), d, x, stride, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc)
	})
}

// blockNext is the part of a prefetch list next for the gathered rows [i,
// i+b) of a call. Row i+r asks for next[i+r]. It is empty for consecutive
// rows (idx nil), which the hardware fetches ahead by itself.
func blockNext(next, idx []int, i, b int) []int {
	if idx == nil || i >= len(next) {
		return nil
	}
	return next[i:min(i+b, len(next))]
}

// eachOuterBlock runs the class kernels' accumulation schedule for n rows of
// d columns and k classes. It walks blocks of rows [i, i+b) in order. So
// each element of g still sees the rows in increasing order. Within a row
// block it walks column strips [l, l+cols) and calls atStrip (if not nil).
// Then it walks blocks of at most archClassBlock classes [j, j+nc). first
// marks a strip's first class block. Within a call each chunk of g stays in
// registers over the block's rows.
func eachOuterBlock(lvl level, n, d, k, rows, strip int, atStrip func(i, b, l, cols int), call func(first bool, i, b, l, cols, j, nc int)) {
	nb := classSplit(k, archClassBlock(lvl))
	for i := 0; i < n; i += rows {
		b := min(rows, n-i)
		for l := 0; l < d; l += strip {
			cols := min(strip, d-l)
			if atStrip != nil {
				atStrip(i, b, l, cols)
			}
			j := 0
			for cb := 0; cb < nb; cb++ {
				nc := classBlockSize(k, nb, cb)
				call(cb == 0, i, b, l, cols, j, nc)
				j += nc
			}
		}
	}
}

// addOuterKNoNext is AddOuterK: addOuterKDriver with no rows to prefetch.
func addOuterKNoNext[T Float](lvl level, g, x []T, stride int, idx []int, c []T, k int) {
	addOuterKDriver(lvl, g, x, stride, idx, c, k, nil)
}
