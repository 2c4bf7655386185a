package batch

import (
	"math"
	"unsafe"
)

// The compact minibatch of GradientSparse. The minibatch's distinct columns
// are numbered 0 … m−1 in the order they first appear: rows in order,
// entries in order. Its rows, with their targets or labels, are copied into
// a CSR matrix of m columns. Then θ is gathered at the coordinates those
// columns touch: k blocks of m weights (class-major) and the k biases. The
// chunks then run the model's sparse forward and backward passes on that
// matrix. Each writes a gradient of k·m + k entries. These are summed along
// the chunk tree of the dense reduction (combine.go). The same kernels run
// on the same entries in the same order as on the d columns. So every sum
// has the bits it has in Gradient. The memory is that of the minibatch's
// non-zeros (the L1 or L2 cache) rather than of d. The numbering reads and
// writes one d-long array (4 bytes a column) at the minibatch's columns.

// compactBatch is a minibatch of sparse data over its own columns.
type compactBatch[T Float] struct {
	local  Data[T] // the rows, in the call's order, over columns 0 … m−1
	ptr    []int64
	cols   []uint32 // local columns of the entries
	vals   []T
	y      []T
	labels []int32
	raw    []uint32 // the entries' columns in the data
	first  []int32  // first[p]: the local index of the column entry p was the first of
	pos    []int32  // pos[c]: the first entry of column c (d long; stale elsewhere)
	list   []uint32 // the distinct columns in order of first appearance
	coords []int    // θ's index of each entry of theta and grad
	theta  []T      // θ at coords
	grad   []T      // the gradient at coords
	sink   uint32   // the sum of touchRowsOf's loads, kept so they are not dropped
}

// number numbers the columns raw of the minibatch's entries 0 … m−1 in order
// of first appearance, into b.cols and b.list. It has no branch on whether a
// column is new. A backward pass leaves in pos[c] the first entry of column
// c. The forward pass then counts an entry as new where it is that first
// entry.
func (b *compactBatch[T]) number(d int) {
	b.pos = grow(b.pos, d)
	pos, raw := b.pos, b.raw
	for p := len(raw) - 1; p >= 0; p-- {
		pos[raw[p]] = int32(p)
	}
	b.list = grow(b.list, len(raw))
	first, cols, list := b.first[:len(raw)], b.cols[:len(raw)], b.list
	m := int32(0)
	for p, c := range raw {
		f := pos[c]
		first[p] = m
		list[m] = c
		if f == int32(p) {
			m++
		}
		cols[p] = uint32(first[f])
	}
	b.list = list[:m]
}

// touchRows is the block of rows build touches ahead of its work.
const touchRows = 32

// touchRowsOf loads a word of each cache line of the rows idx[lo:hi] and
// returns their sum. A nil idx means rows lo … hi−1. The loads are
// independent, so the CPU runs them at once, and the rows' cache misses
// overlap. Else they would come one row at a time in the hash-table work. Go
// has no prefetch instruction.
func touchRowsOf[T Float](data *Data[T], idx []int, lo, hi int) uint32 {
	var s uint32
	for i := lo; i < hi; i++ {
		r := i
		if idx != nil {
			r = idx[i]
		}
		a, b := data.Indptr[r], data.Indptr[r+1]
		for p := a; p < b; p += 16 { // 64-byte lines of 4-byte columns
			s += data.Cols[p]
		}
		vals := data.Vals[a:b]
		step := 64 / int(unsafe.Sizeof(T(0)))
		for p := 0; p < len(vals); p += step {
			s += uint32(math.Float32bits(float32(vals[p])))
		}
	}
	return s
}

// build makes b the rows idx of sparse data (nil idx: the first n rows). It
// is for a model of k blocks of d weights and k biases. It lists the
// coordinates: for each class j, j·d + c for the columns c in order of first
// appearance. Then come the biases k·d + j.
func (b *compactBatch[T]) build(data *Data[T], idx []int, n, d, k int) {
	row := func(i int) int {
		if idx == nil {
			return i
		}
		return idx[i]
	}
	nnz := 0
	for i := range n {
		r := row(i)
		nnz += int(data.Indptr[r+1] - data.Indptr[r])
	}
	b.ptr, b.cols, b.vals = grow(b.ptr, n+1), grow(b.cols, nnz), grow(b.vals, nnz)
	b.raw, b.first = grow(b.raw, nnz), grow(b.first, nnz)
	b.ptr[0] = 0
	p := 0
	touch := touchRowsOf(data, idx, 0, min(n, touchRows))
	for i := range n {
		if i%touchRows == 0 {
			touch += touchRowsOf(data, idx, i+touchRows, min(n, i+2*touchRows))
		}
		r := row(i)
		lo, hi := data.Indptr[r], data.Indptr[r+1]
		copy(b.vals[p:], data.Vals[lo:hi])
		copy(b.raw[p:], data.Cols[lo:hi])
		p += int(hi - lo)
		b.ptr[i+1] = int64(p)
	}
	b.number(d)
	b.sink = touch
	m := len(b.list)
	b.local = Data[T]{N: n, D: max(m, 1), Indptr: b.ptr, Cols: b.cols, Vals: b.vals, K: data.K}
	if data.Y != nil {
		b.local.Y = gather(&b.y, data.Y, idx, n)
	}
	if data.Labels != nil {
		b.local.Labels = gather(&b.labels, data.Labels, idx, n)
	}
	b.coords = grow(b.coords, k*m+k)
	for j := range k {
		out := b.coords[j*m : (j+1)*m]
		for u, col := range b.list {
			out[u] = j*d + int(col)
		}
		b.coords[k*m+j] = k*d + j
	}
}

// gatherTheta sets b.theta to θ at b.coords, laid out as the model's θ over
// m = local.D columns. An empty minibatch keeps one column, of weight 0.
func (b *compactBatch[T]) gatherTheta(theta []T, k int) {
	m := len(b.list)
	b.theta = grow(b.theta, k*b.local.D+k)
	clear(b.theta)
	for j := range k {
		w := b.theta[j*b.local.D:]
		for u, i := range b.coords[j*m : (j+1)*m] {
			w[u] = theta[i]
		}
		b.theta[k*b.local.D+j] = theta[b.coords[k*m+j]]
	}
}
