package kernel

import "unsafe"

// The driver of the CSR kernels (Ops.SparseMargins, SparseAddRows,
// SparseMarginsK, SparseAddOuterK), shared by the architectures whose
// assembly has them (archSparse). The primitives, for T float32 or float64:
//
//	archSparseMargins(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget, ahead) (done, maxcol)
//	archSparseAddRows(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget, ahead) (done, bad)
//
// take rows 0 ≤ i < n: row idx[i], or i when idx is nil. They go on while
// each row is valid and its k·(non-zeros) fit in what is left of budget. A
// valid row has r < nrows and indptr[r] ≤ indptr[r+1] ≤ nnz. They return the
// number of rows done. Margins clamps column indices to d−1 and returns the
// largest it saw. AddRows stops with bad set at the first column ≥ d, its
// row then partly added.
//
// The driver gives each call a fresh budget. So a row goes to the assembly
// whenever it fits in one budget, however the rows are split between calls
// or threads. The results depend on the row, not on the split. A row longer
// than one budget is taken in pieces of one budget. The pieces are the same
// wherever the row falls. Bad input runs through the generic loop, which
// then panics through Go's own bounds checks.

// defaultSparseBudget is the sparseBudget of a level (tunedLevel). It bounds
// the multiply-adds of one assembly call. Such a call takes a few
// microseconds with the weights in cache, some tens out of cache.
const defaultSparseBudget = 1 << 13

// defaultSparseAhead is the sparseAhead of a level. It is how many gathered
// rows ahead the kernels prefetch a row's entries; they prefetch its offsets
// twice as far. Rows picked at random from a large set are out of cache. One
// row's work is far shorter than a miss.
const defaultSparseAhead = 8

// sparseMaxCols is the most columns the gathering kernels take: the gathers
// use signed 32-bit indices. Wider weight vectors run the generic loops.
const sparseMaxCols = 1<<31 - 1

// sparseOps points the CSR entries of ops at the driver over the
// architecture's kernels. The level gives the budget and prefetch distance.
func sparseOps[T Float](ops *table[T]) {
	ops.sparseMargins = sparseMarginsDriver[T]
	ops.sparseAddRows = sparseAddRowsDriver[T]
	ops.sparseMarginsK = sparseMarginsKDriver[T]
	ops.sparseAddOuterK = sparseAddOuterKDriver[T]
}

// sparseMarginsDriver is SparseMargins: SparseMarginsK with one class.
func sparseMarginsDriver[T Float](lvl level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T) {
	sparseMarginsKDriver(lvl, m, indptr, cols, vals, idx, w, 1)
}

// sparseAddRowsDriver is SparseAddRows: SparseAddOuterK with one class.
func sparseAddRowsDriver[T Float](lvl level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T) {
	sparseAddOuterKDriver(lvl, g, indptr, cols, vals, idx, c, 1)
}

// sparseRows checks what the assembly relies on besides each row. There are
// n rows (idx cut to n), and with idx nil at most nrows rows. It reports
// whether the assembly can run. Otherwise the generic loop runs, and panics
// where the input is bad.
func sparseRows(n int, indptr []int64, idx []int, d int) bool {
	if d == 0 || d > sparseMaxCols || len(indptr) == 0 {
		return false
	}
	return idx != nil || n <= len(indptr)-1
}

// sparseRowArgs returns the row arguments of a call starting at gathered row
// i. With idx the assembly indexes indptr itself. Without idx it starts at
// row i, and has nrows−i rows.
func sparseRowArgs(indptr []int64, idx []int, i int) (ip, xp unsafe.Pointer, nrows int) {
	if idx != nil {
		return ptr(indptr), unsafe.Pointer(&idx[i]), len(indptr) - 1
	}
	return unsafe.Pointer(&indptr[i]), nil, len(indptr) - 1 - i
}

// sparseStopped looks at gathered row i, where a call stopped. It returns
// the row's entries lo..hi and whether it is valid. The callers take a valid
// row longer than one budget in pieces. That is,
// k·(hi−lo) > lvl.sparseBudget. The next call takes a valid shorter one.
func sparseStopped(indptr []int64, cols []uint32, nvals int, idx []int, i int) (lo, hi int64, ok bool) {
	r := row(idx, i)
	if r < 0 || r >= len(indptr)-1 {
		return 0, 0, false
	}
	lo, hi = indptr[r], indptr[r+1]
	ok = lo >= 0 && lo <= hi && hi <= int64(len(cols)) && hi <= int64(nvals)
	return lo, hi, ok
}

// sparseLong reports whether entries lo..hi of k vectors exceed one budget.
func sparseLong(lo, hi int64, k, budget int) bool { return (hi-lo)*int64(k) > int64(budget) }

func sparseMarginsKDriver[T Float](lvl level, m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	if n == 0 {
		return
	}
	m = m[:n*k]
	if idx != nil {
		idx = idx[:n]
	}
	if !sparseRows(n, indptr, idx, d) {
		sparseMarginsKGeneric(m, indptr, cols, vals, idx, w, k)
		return
	}
	nnz := min(len(cols), len(vals))
	for i := 0; i < n; {
		ip, xp, nrows := sparseRowArgs(indptr, idx, i)
		done, maxcol := archSparseMargins[T](ptr(m[i*k:]), k, n-i, ip, xp, nrows, ptr(cols), ptr(vals), nnz, ptr(w), d, lvl.sparseBudget, lvl.sparseAhead)
		if int(maxcol) >= d {
			sparseBadColumn(m[i*k:(i+done)*k], indptr, cols, vals, sparseSub(idx, i, done), w, k)
		}
		i += done
		if i == n {
			break
		}
		lo, hi, ok := sparseStopped(indptr, cols, len(vals), idx, i)
		switch {
		case !ok:
			// The generic loop panics on the bad row.
			one := [1]int{row(idx, i)}
			sparseMarginsKGeneric(m[i*k:(i+1)*k], indptr, cols, vals, one[:], w, k)
			panic("kernel: SparseMargins: bad row")
		case sparseLong(lo, hi, k, lvl.sparseBudget):
			// In pieces of one budget, each weight vector in turn; the
			// pieces' sums are added in order.
			for j := 0; j < k; j++ {
				var s T
				for a := lo; a < hi; a += int64(lvl.sparseBudget) {
					piece := [2]int64{a, min(hi, a+int64(lvl.sparseBudget))}
					var part T
					_, maxcol := archSparseMargins[T](unsafe.Pointer(&part), 1, 1, unsafe.Pointer(&piece[0]), nil, 1, ptr(cols), ptr(vals), nnz, ptr(w[j*d:]), d, lvl.sparseBudget, 0)
					if int(maxcol) >= d {
						one := [1]int{row(idx, i)}
						sparseBadColumn(m[i*k:(i+1)*k], indptr, cols, vals, one[:], w, k)
					}
					s += part
				}
				m[i*k+j] = s
			}
			i++
		}
	}
}

// sparseBadColumn runs the generic loop over rows that hold a column index
// out of range. So it panics as the generic implementation does.
func sparseBadColumn[T Float](m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
	sparseMarginsKGeneric(m, indptr, cols, vals, idx, w, k)
	panic("kernel: SparseMargins: column index out of range")
}

func sparseAddOuterKDriver[T Float](lvl level, g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	if n == 0 {
		return
	}
	c = c[:n*k]
	g = g[:d*k]
	if idx != nil {
		idx = idx[:n]
	}
	if !sparseRows(n, indptr, idx, d) {
		sparseAddOuterKGeneric(g, indptr, cols, vals, idx, c, k)
		return
	}
	nnz := min(len(cols), len(vals))
	for i := 0; i < n; {
		ip, xp, nrows := sparseRowArgs(indptr, idx, i)
		done, bad := archSparseAddRows[T](ptr(g), k, n-i, ip, xp, nrows, ptr(cols), ptr(vals), nnz, ptr(c[i*k:]), d, lvl.sparseBudget, lvl.sparseAhead)
		i += done
		if i == n {
			break
		}
		lo, hi, ok := sparseStopped(indptr, cols, len(vals), idx, i)
		switch {
		case bad || !ok:
			// A column or row out of range: the generic loop panics on it.
			one := [1]int{row(idx, i)}
			sparseAddOuterKGeneric(g, indptr, cols, vals, one[:], c[i*k:(i+1)*k], k)
			panic("kernel: SparseAddRows: bad row")
		case sparseLong(lo, hi, k, lvl.sparseBudget):
			// In pieces of one budget, in order: the same sequence of
			// multiply-adds as in one call.
			for j := 0; j < k; j++ {
				for a := lo; a < hi; a += int64(lvl.sparseBudget) {
					piece := [2]int64{a, min(hi, a+int64(lvl.sparseBudget))}
					_, bad := archSparseAddRows[T](ptr(g[j*d:]), 1, 1, unsafe.Pointer(&piece[0]), nil, 1, ptr(cols), ptr(vals), nnz, ptr(c[i*k+j:]), d, lvl.sparseBudget, 0)
					if bad {
						one := [1]int{row(idx, i)}
						sparseAddOuterKGeneric(g, indptr, cols, vals, one[:], c[i*k:(i+1)*k], k)
						panic("kernel: SparseAddRows: column index out of range")
					}
				}
			}
			i++
		}
	}
}

// sparseSub returns the gathered rows i ≤ r < i+n as an idx of their own.
func sparseSub(idx []int, i, n int) []int {
	if idx != nil {
		return idx[i : i+n]
	}
	s := make([]int, n)
	for j := range s {
		s[j] = i + j
	}
	return s
}
