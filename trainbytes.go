package cvar

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/cvarlearn/cvar/batch"
)

// TrainingBytes estimates the memory that training a model of the given
// kind and shapes (d features, k classes, 0 for regression, and the mlp's
// hidden units) takes besides the data: the parameters, their gradient and
// a few copies (iterate averaging, the best point), a gradient per worker
// thread (threads ≤ 0: GOMAXPROCS), and for the mlp the hidden activations
// of a minibatch of batchSize rows (at least DefaultBatch). It lets a
// program refuse a model beyond a memory bound before anything is
// allocated. The arithmetic saturates: absurd shapes give math.MaxInt64.
func TrainingBytes[T batch.Float](kind string, d, k, hidden, threads, batchSize int) int64 {
	mul := func(a, b int64) int64 {
		if a != 0 && b > math.MaxInt64/a {
			return math.MaxInt64
		}
		return a * b
	}
	add := func(a, b int64) int64 {
		if a > math.MaxInt64-b {
			return math.MaxInt64
		}
		return a + b
	}
	outs := int64(max(k, 1))
	params := add(mul(int64(d), outs), outs)
	var act int64
	if kind == batch.KindMLP {
		h := int64(hidden)
		params = add(add(mul(h, int64(d)), h), add(mul(outs, h), outs))
		act = mul(mul(int64(max(batchSize, DefaultBatch)), h), 2)
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	copies := int64(4 + threads)
	var z T
	return mul(add(mul(params, copies), act), int64(unsafe.Sizeof(z)))
}
