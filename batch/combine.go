package batch

// The chunks' gradients are summed along a fixed binary tree over the chunk
// numbers. At level s = 1, 2, 4, … one partial sum is added into another.
// The sum of the chunks from j+s on goes into that of the chunks from j on.
// Here j is a multiple of 2s. The tree depends on the number of chunks
// alone. So every coordinate's sum has the same bits whatever the threads,
// and whichever goroutine gets there first. Every level but the top is added
// as the chunks finish, while the other chunks still run. The goroutine that
// completes the second of two sibling sums adds them. Only the top level
// (chunk 0's sum += the other half's) is left to the reduction's blocks,
// after all chunks are done. Where the threads are many for the chunks
// (treeInBlocks), the blocks add every level instead. They add the same
// pairs in the same order. A sum added into its sibling is cleared at once,
// for the next call.

// treeTop returns the chunk whose partial sum the top level adds into chunk
// 0's. It is the largest power of two below nc (0 for a single chunk).
func treeTop(nc int) int {
	top := 1
	for top*2 < nc {
		top *= 2
	}
	if nc <= 1 {
		return 0
	}
	return top
}

// combine climbs the tree from chunk j, whose gradient is complete. While
// the sum it holds has a sibling below the top level, the second of the two
// to be complete adds. It adds the right one into the left one (coordinates
// from off on), and climbs on from there. The first returns, leaving the add
// to the second.
func (e *Engine[T]) combine(j, off int) {
	nc := e.nchunk
	top := treeTop(nc)
	x, s := j, 1 // the sum of chunks x … x+s−1
	for s < top {
		if x%(2*s) == 0 { // a left sum
			r := x + s
			if r >= nc { // no right sibling: it is its own parent
				s *= 2
				continue
			}
			if e.chunks[r].joined.Add(1) == 1 {
				return // the right sum is not complete yet: its goroutine adds
			}
			e.addInto(x, r, off)
		} else { // a right sum: its left sibling starts at x−s
			if e.chunks[x].joined.Add(1) == 1 {
				return
			}
			x -= s
			e.addInto(x, x+s, off)
		}
		s *= 2
	}
}

// addInto adds chunk r's gradient into chunk x's from coordinate off on and
// clears it there.
func (e *Engine[T]) addInto(x, r, off int) {
	dst, src := e.chunks[x].g[off:], e.chunks[r].g[off:len(e.chunks[x].g)]
	e.ops.Axpy(1, src, dst)
	clear(src)
}
