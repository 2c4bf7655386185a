package batch

import (
	"math"
	"unsafe"
)

// The compact minibatch of GradientSparse. The minibatch's distinct
// columns are numbered 0 … m−1 in the order they first appear (rows in
// order, entries in order), its rows copied into a CSR matrix of m columns
// (with their targets or labels), and θ gathered at the coordinates those
// columns touch: k blocks of m weights (class-major) and the k biases. The
// chunks then run the model's sparse forward and backward passes on that
// matrix, each into a gradient of k·m + k entries, summed in chunk order by
// the dense reduction: the same kernels on the same entries in the same
// order as on the d columns, so every sum has the bits it has in Gradient,
// in memory of the minibatch's non-zeros (the L1 or L2 cache) rather than
// of d.

// colSlot is an entry of a column table: column col at local index idx−1
// (idx 0: the slot is empty).
type colSlot struct {
	col uint32
	idx int32
}

// colTable maps the columns of a minibatch to their local indices, in the
// order they were first added: an open-addressing table with linear
// probing, kept at most half full, and as small as that allows (its slots
// are read at random: the smaller, the more of it stays in L1 and L2).
type colTable struct {
	slots []colSlot
	shift uint
	cols  []uint32 // the distinct columns, in the order they were added
}

// reset empties the table, sized for n distinct columns (more grow it).
func (t *colTable) reset(n int) {
	size, bits := 16, uint(4)
	for size < 2*n {
		size, bits = size*2, bits+1
	}
	if len(t.slots) != size {
		t.slots = make([]colSlot, size)
	} else {
		clear(t.slots)
	}
	t.shift = 32 - bits
	t.cols = t.cols[:0]
}

// index returns col's local index, adding it (as the next index) if it is
// new. The table must have room (reserve).
func (t *colTable) index(col uint32) int32 {
	mask := uint32(len(t.slots) - 1)
	h := (col * 0x9E3779B1) >> t.shift
	for {
		s := &t.slots[h]
		if s.idx == 0 {
			t.cols = append(t.cols, col)
			s.col, s.idx = col, int32(len(t.cols))
			return s.idx - 1
		}
		if s.col == col {
			return s.idx - 1
		}
		h = (h + 1) & mask
	}
}

// reserve makes room for n more columns, the table staying at most half
// full.
func (t *colTable) reserve(n int) {
	for 2*(len(t.cols)+n) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the table, keeping every column's index.
func (t *colTable) grow() {
	cols := t.cols
	size := 2 * len(t.slots)
	t.slots = make([]colSlot, size)
	t.shift--
	mask := uint32(size - 1)
	for i, col := range cols {
		h := (col * 0x9E3779B1) >> t.shift
		for t.slots[h].idx != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = colSlot{col: col, idx: int32(i + 1)}
	}
}

// compactBatch is a minibatch of sparse data over its own columns.
type compactBatch[T Float] struct {
	tab      colTable
	local    Data[T] // the rows, in the call's order, over columns 0 … m−1
	ptr      []int64
	cols     []uint32
	vals     []T
	y        []T
	labels   []int32
	coords   []int // θ's index of each entry of theta and grad
	theta    []T   // θ at coords
	grad     []T   // the gradient at coords
	touched  uint32
	distinct int // the table's size for the next call
}

// touchRows is the block of rows build touches ahead of its work.
const touchRows = 32

// touchRowsOf loads a word of each cache line of the rows idx[lo:hi] (nil
// idx: rows lo … hi−1) and returns their sum: independent loads that the
// CPU runs at once, so that the rows' cache misses overlap (Go has no
// prefetch instruction), rather than one row's at a time in the
// hash-table work.
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

// build makes b the rows idx of data (sparse; nil idx: the first n rows)
// for a model of k blocks of d weights and k biases, and lists the
// coordinates: for each class j, j·d + c for the columns c in order of
// first appearance, then the biases k·d + j.
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
	b.tab.reset(min(nnz, b.distinct)) // the last minibatch's distinct columns: a guess that grows
	b.ptr, b.cols, b.vals = grow(b.ptr, n+1), grow(b.cols, nnz), grow(b.vals, nnz)
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
		b.tab.reserve(int(hi - lo))
		for _, col := range data.Cols[lo:hi] {
			b.cols[p] = uint32(b.tab.index(col))
			p++
		}
		b.ptr[i+1] = int64(p)
	}
	b.touched = touch
	m := len(b.tab.cols)
	b.distinct = m + m/8
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
		for u, col := range b.tab.cols {
			out[u] = j*d + int(col)
		}
		b.coords[k*m+j] = k*d + j
	}
}

// gatherTheta sets b.theta to θ at b.coords, laid out as the model's θ
// over m = local.D columns (an empty minibatch keeps one column, of
// weight 0).
func (b *compactBatch[T]) gatherTheta(theta []T, k int) {
	m := len(b.tab.cols)
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
