package kernel

import "unsafe"

// The driver of the CSR kernels (Ops.SparseMargins, SparseAddRows,
// SparseMarginsK, SparseAddOuterK), shared by the architectures whose
// assembly has them (archSparse). The primitives, for T float32 or float64:
//
//	archSparseMargins(m, k, n, indptr, idx, nrows, cols, vals, nnz, w, d, budget) (done, maxcol)
//	archSparseAddRows(g, k, n, indptr, idx, nrows, cols, vals, nnz, c, d, budget) (done, bad)
//
// take rows 0 ≤ i < n (row idx[i], or i when idx is nil) while each is valid
// (r < nrows, indptr[r] ≤ indptr[r+1] ≤ nnz) and its k·(non-zeros) fit in
// what is left of budget, and return the number of rows done. Margins clamps
// column indices to d−1 and returns the largest it saw; AddRows stops with
// bad set at the first column ≥ d (its row then partly added). The driver
// gives each call a fresh budget, so a row goes to the assembly whenever it
// fits in one budget, however the rows are split between calls or threads:
// the results depend on the row, not on the split. A row longer than one
// budget runs through the generic loop (preemptible), and so does any bad
// input, which then panics through Go's own bounds checks.

// sparseBudget bounds the multiply-adds of one assembly call (a few
// microseconds with the weights in cache, some tens out of cache).
const sparseBudget = 1 << 13

// sparseMaxCols is the most columns the gathering kernels take: the gathers
// use signed 32-bit indices. Wider weight vectors run the generic loops.
const sparseMaxCols = 1<<31 - 1

func sparseMarginsDriver[T Float](m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T) {
	sparseMarginsKDriver(m, indptr, cols, vals, idx, w, 1)
}

func sparseAddRowsDriver[T Float](g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T) {
	sparseAddOuterKDriver(g, indptr, cols, vals, idx, c, 1)
}

// sparseRows checks what the assembly relies on besides each row: n rows
// (idx cut to n), and with idx nil at most nrows rows. It reports whether the
// assembly can run; otherwise the generic loop runs (and panics where the
// input is bad).
func sparseRows(n int, indptr []int64, idx []int, d int) bool {
	if d == 0 || d > sparseMaxCols || len(indptr) == 0 {
		return false
	}
	return idx != nil || n <= len(indptr)-1
}

// sparseRowArgs returns the row arguments of a call starting at gathered row
// i: with idx the assembly indexes indptr itself, without idx it starts at
// row i (and has nrows−i rows).
func sparseRowArgs(indptr []int64, idx []int, i int) (ip, xp unsafe.Pointer, nrows int) {
	if idx != nil {
		return ptr(indptr), unsafe.Pointer(&idx[i]), len(indptr) - 1
	}
	return unsafe.Pointer(&indptr[i]), nil, len(indptr) - 1 - i
}

// sparseStopped handles a call that stopped before gathered row i: it
// reports whether row i is a valid row that fits in one budget (the next call
// takes it); otherwise the caller runs row i through the generic loop.
func sparseStopped(indptr []int64, cols []uint32, nvals int, idx []int, i, k int) bool {
	r := row(idx, i)
	if r < 0 || r >= len(indptr)-1 {
		return false
	}
	lo, hi := indptr[r], indptr[r+1]
	if lo < 0 || lo > hi || hi > int64(len(cols)) || hi > int64(nvals) {
		return false
	}
	return (hi-lo)*int64(k) <= sparseBudget
}

func sparseMarginsKDriver[T Float](m []T, indptr []int64, cols []uint32, vals []T, idx []int, w []T, k int) {
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
		done, maxcol := archSparseMargins[T](ptr(m[i*k:]), k, n-i, ip, xp, nrows, ptr(cols), ptr(vals), nnz, ptr(w), d, sparseBudget)
		if int(maxcol) >= d {
			// A column out of range: the generic loop panics on it.
			sparseMarginsKGeneric(m[i*k:(i+done)*k], indptr, cols, vals, sparseSub(idx, i, done), w, k)
			panic("kernel: SparseMargins: column index out of range")
		}
		i += done
		if i < n && !sparseStopped(indptr, cols, len(vals), idx, i, k) {
			one := [1]int{row(idx, i)}
			sparseMarginsKGeneric(m[i*k:(i+1)*k], indptr, cols, vals, one[:], w, k)
			i++
		}
	}
}

func sparseAddOuterKDriver[T Float](g []T, indptr []int64, cols []uint32, vals []T, idx []int, c []T, k int) {
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
		done, bad := archSparseAddRows[T](ptr(g), k, n-i, ip, xp, nrows, ptr(cols), ptr(vals), nnz, ptr(c[i*k:]), d, sparseBudget)
		i += done
		if i < n && (bad || !sparseStopped(indptr, cols, len(vals), idx, i, k)) {
			// A bad column (the generic loop panics on it), a bad row (the
			// same) or a row longer than one budget.
			one := [1]int{row(idx, i)}
			sparseAddOuterKGeneric(g, indptr, cols, vals, one[:], c[i*k:(i+1)*k], k)
			if bad {
				panic("kernel: SparseAddRows: column index out of range")
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
