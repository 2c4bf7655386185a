// Package footprint estimates the memory a training run takes besides its
// data. With it cvar refuses a model beyond its -max-memory bound before
// anything is allocated.
package footprint

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/cvarlearn/cvar/batch"
)

// Training estimates the memory that training a model takes besides the
// data. The model has a kind and shapes: d features, k classes (0 for
// regression) and the mlp's hidden units. The estimate counts the
// parameters, their gradient and a few copies (iterate averaging, the best
// point). It counts a gradient per worker thread (threads ≤ 0: GOMAXPROCS)
// or per chunk of the minibatch. It counts the scratch of the passes over
// the rows: the scores of each class and the mlp's hidden activations. A
// minibatch holds batchSize rows, at least 1024 (the losses at the start).
// An evaluation holds some rows at once too. Neither holds more than the
// data's rows (0: not known). The arithmetic saturates: absurd shapes give
// math.MaxInt64.
func Training[T batch.Float](kind string, d, k, hidden, threads, batchSize, rows int) int64 {
	outs := int64(max(k, 1))
	params := satAdd(satMul(int64(d), outs), outs)
	perRow := int64(8) // a linear model's margins, losses and weights
	width := int64(1)  // the scores or hidden units of a row
	switch kind {
	case batch.KindSoftmax: // the logits and the biases tiled over the rows
		perRow, width = satAdd(satMul(2, outs), 4), outs
	case batch.KindMLP: // the rows gathered, the hidden layer and its gradient, the logits
		h := int64(hidden)
		params = satAdd(satAdd(satMul(h, int64(d)), h), satAdd(satMul(outs, h), outs))
		perRow = satAdd(satAdd(int64(d), satMul(4, h)), satAdd(satMul(2, outs), 4))
		width = max(outs, satMul(2, h))
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// The engine holds the scratch of a minibatch, or of 16 chunks of 64
	// rows. An evaluation holds that of 16 pieces of 16 to 1024 rows. A
	// piece holds 32 768 scores where a row has fewer.
	trainRows := max(int64(batchSize), 1024)
	evalRows := 16 * min(1024, max(16, wholeDataPiece/width))
	if rows > 0 {
		trainRows, evalRows = min(trainRows, int64(rows)), min(evalRows, int64(rows))
	}
	scratch := satMul(satAdd(trainRows, evalRows), perRow)
	// A gradient per worker, or per chunk of the minibatch where there are
	// more chunks. A chunk is 64 rows, or 16 where the gradient is small.
	chunkRows := int64(64)
	if params <= 1<<14 {
		chunkRows = 16
	}
	chunks := (int64(max(batchSize, 1)) + chunkRows - 1) / chunkRows
	copies := 4 + max(int64(threads), chunks)
	var z T
	return satMul(satAdd(satMul(params, copies), scratch), int64(unsafe.Sizeof(z)))
}

// Dense returns the bytes of an n × d matrix of T, or math.MaxInt64 when
// that does not fit in an int64.
func Dense[T batch.Float](n, d int) int64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	var z T
	return satMul(satMul(int64(n), int64(d)), int64(unsafe.Sizeof(z)))
}

// wholeDataPiece is the most scores a piece of an evaluation's rows holds
// when a row has fewer (batch's whole-data passes).
const wholeDataPiece = 1 << 15

// satMul and satAdd are a·b and a+b of non-negative numbers, saturating
// at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
