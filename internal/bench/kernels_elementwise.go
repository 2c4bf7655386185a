package bench

import (
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// The kernel cases of the elementwise kernels (logistic … softmaxce).

// elementwiseCases are the cases of the elementwise kernels and SoftmaxCE,
// by name.
func elementwiseCases[T kernel.Float]() map[string]caseFunc[T] {
	return map[string]caseFunc[T]{
		"logistic":  logisticCase[T],
		"softplus":  softplusCase[T],
		"exp":       expCase[T],
		"log1p":     log1pCase[T],
		"softmaxce": softmaxCECase[T],
	}
}

// logisticCase is LinearLoss(Logistic) over d elements; the math loop
// beside it.
func logisticCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := d
	m, y := randSlice[T](n, 1, -8, 8), signs[T](n)
	loss, dl := make([]T, n), make([]T, n)
	b.c.Bytes, b.c.Elems = 4*int64(n)*b.s, int64(n)
	b.each(func(ops kernel.Ops[T]) func() {
		return func() { ops.LinearLoss(kernel.Logistic, loss, dl, m, y) }
	})
	b.add(MathLoop, true, func() {
		for i, mi := range m {
			yi := float64(y[i])
			z := yi * float64(mi)
			loss[i] = T(math.Max(-z, 0) + math.Log1p(math.Exp(-math.Abs(z))))
			dl[i] = T(-yi / (1 + math.Exp(z)))
		}
	})
}

// softplusCase is Plus(PlusSoftplus) over d elements; the math loop
// beside it.
func softplusCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := d
	sArg := randSlice[T](n, 1, -2, 2)
	rho, dr := make([]T, n), make([]T, n)
	const eps = 0.5
	b.c.Bytes, b.c.Elems = 3*int64(n)*b.s, int64(n)
	b.each(func(ops kernel.Ops[T]) func() {
		return func() { ops.Plus(kernel.PlusSoftplus, eps, rho, dr, sArg) }
	})
	b.add(MathLoop, true, func() {
		for i, si := range sArg {
			t := float64(si) / eps
			rho[i] = T(math.Max(float64(si), 0) + eps*math.Log1p(math.Exp(-math.Abs(t))))
			dr[i] = T(1 / (1 + math.Exp(-t)))
		}
	})
}

// expCase is Exp over d elements; the math loop beside it.
func expCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := d
	x, dst := randSlice[T](n, 1, -20, 20), make([]T, n)
	b.c.Bytes, b.c.Elems = 2*int64(n)*b.s, int64(n)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.Exp(dst, x) } })
	b.add(MathLoop, true, func() {
		for i, v := range x {
			dst[i] = T(math.Exp(float64(v)))
		}
	})
}

// log1pCase is Log1p over d elements; the math loop beside it.
func log1pCase[T kernel.Float](b *caseBuild[T], k string, d int) {
	n := d
	x, dst := randSlice[T](n, 1, -0.5, 20), make([]T, n)
	b.c.Bytes, b.c.Elems = 2*int64(n)*b.s, int64(n)
	b.each(func(ops kernel.Ops[T]) func() { return func() { ops.Log1p(dst, x) } })
	b.add(MathLoop, true, func() {
		for i, v := range x {
			dst[i] = T(math.Log1p(float64(v)))
		}
	})
}

// softmaxCECase is SoftmaxCE over a minibatch of Classes logits; the
// math loop beside it.
func softmaxCECase[T kernel.Float](b *caseBuild[T], k string, d int) {
	// The kernel overwrites z with its gradient. So each call starts from
	// a copy of the logits. The copy, 20 KiB, is part of every variant.
	n, kk := Batch, Classes
	z0, z := randSlice[T](n*kk, 1, -5, 5), make([]T, n*kk)
	loss, lab := make([]T, n), make([]int32, n)
	for i := range lab {
		lab[i] = int32(i * 7 % kk)
	}
	b.c.Bytes, b.c.Elems = int64(2*n*kk+n)*b.s, int64(n*kk)
	b.each(func(ops kernel.Ops[T]) func() {
		return func() { copy(z, z0); ops.SoftmaxCE(loss, z, lab, kk) }
	})
	b.add(MathLoop, true, func() {
		copy(z, z0)
		for i := range loss {
			zi := z[i*kk : (i+1)*kk]
			mx := math.Inf(-1)
			for _, v := range zi {
				mx = math.Max(mx, float64(v))
			}
			var sum float64
			for j, v := range zi {
				e := math.Exp(float64(v) - mx)
				zi[j] = T(e)
				sum += e
			}
			y := lab[i]
			loss[i] = T(math.Log(sum) - (float64(z0[i*kk+int(y)]) - mx))
			for j := range zi {
				zi[j] = T(float64(zi[j]) / sum)
			}
			zi[y]--
		}
	})
}
