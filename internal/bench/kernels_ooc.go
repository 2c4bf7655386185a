package bench

import (
	"github.com/cvarlearn/cvar/internal/bench/peak"
	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/rng"
)

// The kernel cases over the out-of-cache matrix (*-ooc*).

// outOfCacheCases are the cases over the OOCRows × OOCDim matrix, by name.
func outOfCacheCases[T kernel.Float]() map[string]caseFunc[T] {
	return map[string]caseFunc[T]{
		"margins-ooc":         marginsOOCCase[T],
		"margins-ooc-gather":  marginsOOCCase[T],
		"marginsk-ooc-gather": marginsKOOCCase[T],
	}
}

// marginsOOCCase is Margins over the whole out-of-cache matrix, a
// minibatch at a time. Rows come in order or drawn with replacement
// ("margins-ooc-gather"). Gonum's Gemv runs beside the rows in order, and
// so does the stream loop.
func marginsOOCCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := OOCRows
	x, w, m := randSlice[T](n*d, 1, 0, 1), randSlice[T](d, 2, -1, 1), make([]T, Batch)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d)
	// One call covers the whole matrix, a minibatch of rows at a time
	// (as training does); "gather" visits n rows drawn with replacement,
	// like Alg 3's sampling.
	idx := make([]int, n)
	r := rng.New(3, 4)
	for i := range idx {
		if k == "margins-ooc-gather" {
			idx[i] = r.IntN(n)
		} else {
			idx[i] = i
		}
	}
	gather := k == "margins-ooc-gather"
	b.each(func(ops kernel.Ops[T]) func() {
		return func() {
			for i := 0; i < n; i += Batch {
				b := min(Batch, n-i)
				if gather {
					ops.Margins(m[:b], x, d, idx[i:i+b], w)
				} else {
					ops.Margins(m[:b], x[i*d:], d, nil, w)
				}
			}
		}
	})
	if !gather {
		b.add(Gonum, true, func() {
			for i := 0; i < n; i += Batch {
				b := min(Batch, n-i)
				gonumGemv(false, b, d, 1, x[i*d:], d, w, 0, m[:b])
			}
		})
	}
	// The same bytes read once, front to back, by the stream loop.
	raw := asFloat32s(x)
	b.add(Stream, true, func() { sink += float64(peak.Sum32(raw)) })
}

// marginsKOOCCase is MarginsK over rows drawn with replacement from the
// out-of-cache matrix, a minibatch at a time. The stream loop runs beside
// it.
func marginsKOOCCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	// Softmax's forward pass as Alg 3 runs it. It takes k = 10 margins of
	// rows drawn with replacement from the 60000×784 matrix. It runs a
	// minibatch at a time.
	n, kk := OOCRows, Classes
	x, w, m := randSlice[T](n*d, 1, 0, 1), randSlice[T](kk*d, 2, -1, 1), make([]T, Batch*kk)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d*kk)
	idx := make([]int, n)
	r := rng.New(3, 4)
	for i := range idx {
		idx[i] = r.IntN(n)
	}
	b.each(func(ops kernel.Ops[T]) func() {
		return func() {
			for i := 0; i < n; i += Batch {
				b := min(Batch, n-i)
				ops.MarginsK(m[:b*kk], x, d, idx[i:i+b], w, kk)
			}
		}
	})
	raw := asFloat32s(x)
	b.add(Stream, true, func() { sink += float64(peak.Sum32(raw)) })
}
