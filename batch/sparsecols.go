package batch

// The compact accumulation of GradientSparse. Each chunk renumbers the
// distinct columns of its rows 0 … m−1 in the order they first appear (rows
// in order, entries in order), copies its rows into a small CSR matrix of m
// columns, and runs the model's sparse backward pass on it into a gradient
// of k·m weights and k biases: the same kernel, on the same entries in the
// same order, as on the d columns, so each partial sum has the bits it had
// in a d-long scratch, in memory of the chunk's non-zeros (the L1 or L2
// cache) rather than of d. The merge then walks each chunk's distinct
// columns.

// colSlot is an entry of a column table: column col at local index idx−1
// (idx 0: the slot is empty).
type colSlot struct {
	col uint32
	idx int32
}

// colTable maps the columns of a chunk (or of a minibatch) to their local
// indices, in the order they were first added: an open-addressing table
// with linear probing, kept under half full.
type colTable struct {
	slots []colSlot
	shift uint
	cols  []uint32 // the distinct columns, in the order they were added
}

// reset empties the table for up to n distinct columns.
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
// new.
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

// compactRows makes c.local the rows idx of data (sparse) with their
// columns renumbered by c.tab (first appearance), and returns it.
func (c *chunk[T]) compactRows(data *Data[T], idx []int) *Data[T] {
	nnz := 0
	for _, r := range idx {
		nnz += int(data.Indptr[r+1] - data.Indptr[r])
	}
	c.tab.reset(nnz)
	c.lptr = grow(c.lptr, len(idx)+1)
	c.lcols = grow(c.lcols, nnz)
	c.lvals = grow(c.lvals, nnz)
	p := 0
	c.lptr[0] = 0
	for i, r := range idx {
		lo, hi := data.Indptr[r], data.Indptr[r+1]
		copy(c.lvals[p:], data.Vals[lo:hi])
		for _, col := range data.Cols[lo:hi] {
			c.lcols[p] = uint32(c.tab.index(col))
			p++
		}
		c.lptr[i+1] = int64(p)
	}
	c.local = Data[T]{N: len(idx), D: max(len(c.tab.cols), 1), Indptr: c.lptr, Cols: c.lcols, Vals: c.lvals, K: data.K}
	return &c.local
}
