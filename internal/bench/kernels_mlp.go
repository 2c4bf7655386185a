package bench

import "github.com/cvarlearn/cvar/internal/kernel"

// The kernel cases of the MLP's steps (mlp-*). They run the products, ReLU
// and its gradient on one chunk of rows, as the engine does.

// mlpCases are the cases of the MLP's steps on one chunk of rows, by
// name. The chunk is ChunkRows × OOCDim, with Hidden units and Classes
// outputs.
func mlpCases[T kernel.Float]() map[string]caseFunc[T] {
	return map[string]caseFunc[T]{
		"mlp-hidden":   mlpHiddenCase[T],
		"mlp-logits":   mlpLogitsCase[T],
		"mlp-gradw2":   mlpGradW2Case[T],
		"mlp-backh":    mlpBackHCase[T],
		"mlp-gradw1":   mlpGradW1Case[T],
		"mlp-relu":     mlpReLUCase[T],
		"mlp-relugrad": mlpReLUGradCase[T],
	}
}

// mlpHiddenCase is the hidden layer's product, H = X·W1ᵀ: n×d times d×h.
func mlpHiddenCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h := ChunkRows, Hidden
	x, w1, hh := randSlice[T](n*d, 1, 0, 1), randSlice[T](h*d, 2, -0.03, 0.03), make([]T, n*h)
	b.c.Bytes, b.c.Flops = int64(n*d+h*d)*b.s, 2*int64(n*d*h)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(hh, x, d, nil, w1, h) } })
	b.add(Gonum, true, func() { gonumGemm(false, true, n, h, d, 1, x, d, w1, d, 0, hh, h) })
}

// mlpLogitsCase is the logits' product, Z = H·W2ᵀ: n×h times h×k.
func mlpLogitsCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h, kk := ChunkRows, Hidden, Classes
	hh, w2, z := randSlice[T](n*h, 1, 0, 1), randSlice[T](kk*h, 2, -0.1, 0.1), make([]T, n*kk)
	b.c.Bytes, b.c.Flops = int64(n*h+kk*h)*b.s, 2*int64(n*h*kk)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(z, hh, h, nil, w2, kk) } })
	b.add(Gonum, true, func() { gonumGemm(false, true, n, kk, h, 1, hh, h, w2, h, 0, z, kk) })
}

// mlpGradW2Case is the output weights' gradient, gW2 += dZᵀ·H: k×n times n×h.
func mlpGradW2Case[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h, kk := ChunkRows, Hidden, Classes
	hh, dz, g := randSlice[T](n*h, 1, 0, 1), randSlice[T](n*kk, 2, -1e-4, 1e-4), make([]T, kk*h)
	b.c.Bytes, b.c.Flops = int64(n*h+n*kk)*b.s, 2*int64(n*h*kk)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, hh, h, nil, dz, kk) } })
	b.add(Gonum, true, func() { gonumGemm(true, false, kk, h, n, 1, dz, kk, hh, h, 1, g, h) })
}

// mlpBackHCase is the gradient back to the hidden layer, dH = dZ·W2: n×k times k×h.
func mlpBackHCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h, kk := ChunkRows, Hidden, Classes
	dz, w2, dh := randSlice[T](n*kk, 1, -1, 1), randSlice[T](kk*h, 2, -0.1, 0.1), make([]T, n*h)
	b.c.Bytes, b.c.Flops = int64(n*h+n*kk)*b.s, 2*int64(n*h*kk)
	b.each(func(ops kernel.Ops[T]) func() {
		return func() {
			clear(dh)
			ops.AddRowsK(dh, w2, h, dz, kk)
		}
	})
	b.add(Gonum, true, func() { gonumGemm(false, false, n, h, kk, 1, dz, kk, w2, h, 0, dh, h) })
}

// mlpGradW1Case is the hidden weights' gradient, gW1 += dHᵀ·X: h×n times n×d.
func mlpGradW1Case[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h := ChunkRows, Hidden
	x, dh, g := randSlice[T](n*d, 1, 0, 1), randSlice[T](n*h, 2, -1e-4, 1e-4), make([]T, h*d)
	b.c.Bytes, b.c.Flops = int64(n*d+h*d)*b.s, 2*int64(n*d*h)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, x, d, nil, dh, h) } })
	b.add(Gonum, true, func() { gonumGemm(true, false, h, d, n, 1, dh, h, x, d, 1, g, d) })
}

// mlpReLUCase is the bias and ReLU, H = max(H + b1, 0): n×h.
func mlpReLUCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h := ChunkRows, Hidden
	hh, b1 := randSlice[T](n*h, 1, -1, 1), randSlice[T](h, 2, -0.1, 0.1)
	b.c.Bytes, b.c.Elems = int64(2*n*h)*b.s, int64(n*h)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.BiasReLU(hh, b1) } })
}

// mlpReLUGradCase is the ReLU's backward pass, dH masked where H ≤ 0, gb1 += its rows: n×h.
func mlpReLUGradCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, h := ChunkRows, Hidden
	a, dh, gb := randSlice[T](n*h, 1, -1, 1), randSlice[T](n*h, 2, -1e-4, 1e-4), make([]T, h)
	b.c.Bytes, b.c.Elems = int64(3*n*h)*b.s, int64(n*h)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.ReLUBackward(gb, dh, a) } })
}
