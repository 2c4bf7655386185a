package bench

import "github.com/cvarlearn/cvar/internal/kernel"

// The kernel cases of the level-1 and row kernels (dot … addouterk).

// rowCases are the cases of the level-1 and row kernels, by name.
func rowCases[T kernel.Float]() map[string]caseFunc[T] {
	return map[string]caseFunc[T]{
		"dot":            dotCase[T],
		"axpy":           axpyCase[T],
		"margins":        marginsCase[T],
		"margins-gather": marginsCase[T],
		"addrows":        addRowsCase[T],
		"addrows-gather": addRowsCase[T],
		"fused":          fusedCase[T],
		"fused-gather":   fusedCase[T],
		"marginsk":       marginsKCase[T],
		"addouterk":      addOuterKCase[T],
	}
}

// fastest returns the first (best) implementation, for the non-BLAS parts
// of a gonum baseline.
func fastest[T kernel.Float]() kernel.Ops[T] { return kernel.OpsOf[T](kernel.Impls()[0]) }

// dotCase is Dot on two vectors of d elements; gonum's Sdot/Ddot beside it.
func dotCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	x, y := randSlice[T](d, 1, -1, 1), randSlice[T](d, 2, -1, 1)
	b.c.Bytes, b.c.Flops = 2*int64(d)*b.s, 2*int64(d)
	b.each(func(ops kernel.Ops[T]) func() { return func() { sink += float64(ops.Dot(x, y)) } })
	b.add(Gonum, true, func() { sink += float64(gonumDot(x, y)) })
}

// axpyCase is Axpy on two vectors of d elements; gonum's Saxpy/Daxpy beside it.
func axpyCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	x, y := randSlice[T](d, 1, -1, 1), randSlice[T](d, 2, -1, 1)
	b.c.Bytes, b.c.Flops = 3*int64(d)*b.s, 2*int64(d)
	a := T(1e-4)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.Axpy(a, x, y) } })
	b.add(Gonum, true, func() { gonumAxpy(a, x, y) })
}

// marginsCase is Margins over a minibatch of rows of d features, in order
// or gathered ("margins-gather"). Gonum's Gemv runs beside the rows in
// order.
func marginsCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := Batch
	x, w, m := randSlice[T](n*d, 1, -1, 1), randSlice[T](d, 2, -1, 1), make([]T, n)
	idx := rowOrder(k, n)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.Margins(m, x, d, idx, w) } })
	if idx == nil {
		b.add(Gonum, true, func() { gonumGemv(false, n, d, 1, x, d, w, 0, m) })
	}
}

// addRowsCase is AddRows over a minibatch of rows of d features, in order
// or gathered ("addrows-gather"). Gonum's Gemv runs beside the rows in
// order.
func addRowsCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := Batch
	x, cf, g := randSlice[T](n*d, 1, -1, 1), randSlice[T](n, 2, -1e-4, 1e-4), make([]T, d)
	idx := rowOrder(k, n)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.AddRows(g, x, d, idx, cf) } })
	if idx == nil {
		b.add(Gonum, true, func() { gonumGemv(true, n, d, 1, x, d, cf, 1, g) })
	}
}

// fusedCase is FusedLinear (logistic loss, softplus weights) over a
// minibatch, in order or gathered ("fused-gather"). Beside the rows in
// order run gonum's two Gemv passes. The fastest elementwise kernels run
// between them.
func fusedCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := Batch
	x, w := randSlice[T](n*d, 1, -1, 1), randSlice[T](d, 2, -0.1, 0.1)
	y, loss, g := signs[T](n), make([]T, n), make([]T, d)
	idx := rowOrder(k, n)
	p := kernel.LinearStep[T]{Loss: kernel.Logistic, Plus: kernel.PlusSoftplus, Tau: 0.5, InvL: 1, Eps: 0.1, Scale: T(1.0 / (0.1 * float64(n)))}
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 4*int64(n*d)
	b.each(func(ops kernel.Ops[T]) func() {
		return func() {
			clear(g)
			sv, sc := ops.FusedLinear(g, loss, x, d, idx, y, w, &p)
			sink += float64(sv + sc)
		}
	})
	if idx != nil {
		return // gonum has no gathered matrix-vector product
	}
	// gonum: the two matrix passes through Sgemv/Dgemv, the loss and
	// weights in between through the fastest elementwise kernels.
	m, dl, sArg, rho, v := make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n)
	fast := fastest[T]()
	b.add(Gonum, true, func() {
		clear(g)
		gonumGemv(false, n, d, 1, x, d, w, 0, m)
		fast.LinearLoss(kernel.Logistic, loss, dl, m, y)
		for i, l := range loss {
			sArg[i] = l*p.InvL - p.Tau
		}
		fast.Plus(kernel.PlusSoftplus, p.Eps, rho, v, sArg)
		for i := range v {
			v[i] = p.Scale * v[i] * dl[i]
		}
		gonumGemv(true, n, d, 1, x, d, v, 1, g)
	})
}

// marginsKCase is MarginsK of a minibatch and Classes weight vectors;
// gonum's Gemm beside it.
func marginsKCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, kk := Batch, Classes
	x, w, m := randSlice[T](n*d, 1, -1, 1), randSlice[T](kk*d, 2, -1, 1), make([]T, n*kk)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d*kk)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(m, x, d, nil, w, kk) } })
	b.add(Gonum, true, func() { gonumGemm(false, true, n, kk, d, 1, x, d, w, d, 0, m, kk) })
}

// addOuterKCase is AddOuterK of a minibatch and Classes coefficient
// vectors; gonum's Gemm beside it.
func addOuterKCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n, kk := Batch, Classes
	x, cf, g := randSlice[T](n*d, 1, -1, 1), randSlice[T](n*kk, 2, -1e-4, 1e-4), make([]T, kk*d)
	b.c.Bytes, b.c.Flops = int64(n*d)*b.s, 2*int64(n*d*kk)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, x, d, nil, cf, kk) } })
	b.add(Gonum, true, func() { gonumGemm(true, false, kk, d, n, 1, cf, kk, x, d, 1, g, d) })
}
