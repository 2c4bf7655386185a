package batch

// The reduction of a gradient call, by blocks of coordinates. It sums the
// top level of the chunks' sum (combine.go) and computes a first layer's
// gradient.

// firstLayerTaskCols is the number of columns of one task of a first layer's
// gradient (firstLayerModel). It is a multiple of the widest vector's lanes.
// It is small enough that the MLP on MNIST (784 features) makes 13 tasks.
const firstLayerTaskCols = 64

// firstLayerModel is a model whose gradient begins with an h×d block, the
// first layer's weights. The Engine computes that block after the chunks'
// passes, by blocks of columns over the whole minibatch, the chunks in
// order. No chunk writes that block, so none is summed; the reduction covers
// the rest. Its tasks are as many as the blocks of columns, not the chunks.
// The MLP on dense float data is one, through the kernels.
type firstLayerModel[T Float] interface {
	// firstLayer returns h and d, and whether data is split so.
	firstLayer(data *Data[T]) (h, d int, ok bool)
	// backwardRest is Backward but for the first layer's weights, leaving
	// what firstLayerCols reads in wk.
	backwardRest(wk *Work[T], theta []T, data *Data[T], idx []int, coef, g []T)
	// firstLayerCols adds to dst a block of the first layer's gradient: h
	// rows of the columns [lo, lo+len(dst)/h). It sums over the n rows idx
	// of data, those of a backwardRest on wk.
	firstLayerCols(dst []T, wk *Work[T], data *Data[T], idx []int, n, lo int)
}

// maxReduceBlock is the most coordinates one task of the reduction sums over
// the chunks. A gradient of fewer than threads·maxReduceBlock coordinates is
// cut into about one block a thread, in multiples of minReduceBlock. So a
// small model's reduction is not left to one goroutine. Both are multiples
// of every vector width times the kernels' unrolling. So the blocks split
// the vector where the kernels' main loops would.
const (
	maxReduceBlock = 2048
	minReduceBlock = 256
)

// treeWaves: where the threads are at least the chunks over treeWaves, the
// chunks finish in one or two waves. The tree's levels climbed as they
// finish (combine) would then run one after the other. They would run on the
// goroutines that finish last, while the others wait. So the reduction's
// blocks sum every level instead, in parallel over the coordinates. Both add
// the same pairs in the same order, so the bits are the same.
const treeWaves = 2

// treeInBlocks reports whether the reduction's blocks sum every level of the
// tree over nc chunks (treeWaves). Otherwise they sum its top alone.
func (e *Engine[T]) treeInBlocks(nc int) bool {
	return !e.inline && e.threads > 1 && e.threads*treeWaves >= nc
}

// reduce is block j of the reduction, whichever worker runs it. It sums the
// chunks (combine.go) over its coordinates into chunk 0's, the caller's g.
// It sums the top level or, with e.blockTree, every level. Each sum added is
// cleared where it was. Then e.then runs on the block.
func (e *Engine[T]) reduce(j int) {
	if e.failed.Load() { // the call returns an error: no sums, no then
		return
	}
	if j < e.flTasks {
		e.firstLayerBlock(j)
		return
	}
	lo := e.flH*e.flD + (j-e.flTasks)*e.rblock
	hi := min(lo+e.rblock, len(e.sum))
	top := treeTop(e.nchunk)
	s := top // the level of the tree to add first
	if e.blockTree {
		s = 1
	}
	for ; s > 0 && s <= top; s *= 2 {
		for x := 0; x+s < e.nchunk; x += 2 * s {
			src := e.chunks[x+s].g[lo:hi]
			e.ops.Axpy(1, src, e.chunks[x].g[lo:hi])
			clear(src)
		}
	}
	if e.then != nil {
		e.then(lo, hi)
	}
}

// firstLayerBlock computes block j of firstLayerTaskCols columns of the
// first layer's gradient. It runs the chunks' rows in chunk order into a
// scratch of h rows. It then copies them into the gradient, each unit's row
// run through then.
func (e *Engine[T]) firstLayerBlock(j int) {
	fl := e.model.(firstLayerModel[T])
	h, d := e.flH, e.flD
	lo := j * firstLayerTaskCols
	w := min(firstLayerTaskCols, d-lo)
	buf := grow(e.flBuf[j], h*w)
	e.flBuf[j] = buf
	clear(buf)
	for _, c := range e.chunks[:e.nchunk] {
		fl.firstLayerCols(buf, &c.wk, c.bdata, c.bidx, c.n, lo)
	}
	for u := range h {
		copy(e.sum[u*d+lo:u*d+lo+w], buf[u*w:(u+1)*w])
		if e.then != nil {
			e.then(u*d+lo, u*d+lo+w)
		}
	}
}

// reduceBlock returns the block of the reduction of n coordinates on threads
// goroutines. It is maxReduceBlock, or for a smaller gradient about
// n/threads rounded up to a multiple of minReduceBlock.
func reduceBlock(n, threads int) int {
	b := (n + threads - 1) / max(threads, 1)
	return min(maxReduceBlock, max(minReduceBlock, (b+minReduceBlock-1)/minReduceBlock*minReduceBlock))
}
