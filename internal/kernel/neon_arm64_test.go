//go:build gc && !purego

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// These tests compare the NEON kernels with the generic reference over every
// length 0..130 at several start offsets, on slices cut from NaN-filled
// buffers: a NaN in a result is an out-of-bounds read, a changed guard cell an
// out-of-bounds write. They add to the shared cross-implementation tests.

const neonGuard = 8

// TestNEONSelected fails when the CPU has ASIMD but the NEON kernels were not
// selected, so a silent fallback cannot pass as the fast path.
func TestNEONSelected(t *testing.T) {
	t.Parallel()
	if !cpu.ARM64.HasASIMD {
		t.Skip("no ASIMD")
	}
	if Impls()[0].Name() != "neon" || Default().Name() != "neon" {
		t.Fatalf("ASIMD present but the default implementation is %q", Default().Name())
	}
}

// neonGuarded returns a length-n slice at offset off inside a NaN-filled buffer,
// and the buffer, whose cells outside the slice must stay NaN.
func neonGuarded[T Float](n, off int) (s, buf []T) {
	buf = make([]T, off+n+neonGuard)
	for i := range buf {
		buf[i] = T(math.NaN())
	}
	return buf[off : off+n : off+n], buf
}

func neonCheckGuards[T Float](t *testing.T, what string, buf []T, off, n int) {
	t.Helper()
	for i, v := range buf {
		if (i < off || i >= off+n) && !math.IsNaN(float64(v)) {
			t.Fatalf("%s: guard cell %d of buffer (slice [%d,%d)) overwritten with %v", what, i, off, off+n, v)
		}
	}
}

func neonFill[T Float](r *rand.Rand, s []T, lo, hi float64) {
	for i := range s {
		s[i] = T(lo + (hi-lo)*r.Float64())
	}
}

// neonULPDiff is the distance in units in the last place of T between a and b;
// 0 when both are NaN or equal (±0 are equal).
func neonULPDiff[T Float](a, b T) float64 {
	if a == b || (a != a && b != b) {
		return 0
	}
	if a != a || b != b || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		return math.Inf(1)
	}
	var u float64
	if is32[T]() {
		m := math.Max(math.Abs(float64(a)), math.Abs(float64(b)))
		e := math.Max(float64(math.Float32frombits(0x00000001)), float64(neonULP32(float32(m))))
		u = e
	} else {
		m := math.Max(math.Abs(float64(a)), math.Abs(float64(b)))
		u = neonULP64(m)
	}
	return math.Abs(float64(a)-float64(b)) / u
}

func neonULP64(x float64) float64 {
	x = math.Abs(x)
	if x == 0 || x < math.SmallestNonzeroFloat64*(1<<52) {
		return math.SmallestNonzeroFloat64
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

func neonULP32(x float32) float32 {
	if x == 0 {
		return math.SmallestNonzeroFloat32
	}
	return math.Nextafter32(x, float32(math.Inf(1))) - x
}

func neonSameBits[T Float](a, b T) bool {
	if a != a && b != b {
		return true
	}
	return a == b && math.Signbit(float64(a)) == math.Signbit(float64(b))
}

func neonEachLen(t *testing.T, f func(t *testing.T, n, off int)) {
	for n := 0; n <= 130; n++ {
		for _, off := range []int{0, 1, 3} {
			f(t, n, off)
		}
	}
}

func neonImpl(t *testing.T) Impl {
	for _, im := range Impls() {
		if im.Name() == "neon" {
			return im
		}
	}
	t.Skip("neon not available")
	return Impl{}
}

func TestNEONLinalg(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestLinalg(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestLinalg(t, im.F64(), Generic().F64()) })
}

func neonTestLinalg[T Float](t *testing.T, ops, ref Ops[T]) {
	r := rand.New(rand.NewPCG(1, 2))
	u := 0x1p-53
	if is32[T]() {
		u = 0x1p-24
	}
	neonEachLen(t, func(t *testing.T, n, off int) {
		x, xb := neonGuarded[T](n, off)
		y, yb := neonGuarded[T](n, off+1)
		neonFill(r, x, -1, 1)
		neonFill(r, y, -1, 1)
		// Dot: rounding bound.
		got, want := ops.Dot(x, y), ref.Dot(x, y)
		var abs float64
		for i := range x {
			abs += math.Abs(float64(x[i]) * float64(y[i]))
		}
		if math.Abs(float64(got-want)) > 2*float64(n+1)*u*abs {
			t.Fatalf("Dot n=%d: got %v want %v", n, got, want)
		}
		// Axpy, Lerp: bit-exact (one FMA each, as Go compiles on arm64).
		y2 := append([]T(nil), y...)
		a := T(r.Float64() - 0.5)
		ops.Axpy(a, x, y)
		ref.Axpy(a, x, y2)
		for i := range y {
			if !neonSameBits(y[i], y2[i]) {
				t.Fatalf("Axpy n=%d i=%d: got %v want %v", n, i, y[i], y2[i])
			}
		}
		ops.Lerp(a, x, y)
		ref.Lerp(a, x, y2)
		for i := range y {
			if !neonSameBits(y[i], y2[i]) {
				t.Fatalf("Lerp n=%d i=%d: got %v want %v", n, i, y[i], y2[i])
			}
		}
		neonCheckGuards(t, "Axpy/Lerp x", xb, off, n)
		neonCheckGuards(t, "Axpy/Lerp y", yb, off+1, n)
	})
	// Row kernels: d = feature count 0..130, 9 rows, gathered and not.
	for d := 0; d <= 130; d++ {
		for _, gather := range []bool{false, true} {
			const rows = 9
			stride := d + 3
			x, _ := neonGuarded[T](rows*stride, 1)
			neonFill(r, x, -1, 1)
			var idx []int
			if gather {
				idx = r.Perm(rows)[:rows-1]
			}
			nr := rows
			if gather {
				nr = rows - 1
			}
			w, _ := neonGuarded[T](d, 2)
			neonFill(r, w, -1, 1)
			m, mb := neonGuarded[T](nr, 1)
			m2 := make([]T, nr)
			ops.Margins(m, x, stride, idx, w)
			ref.Margins(m2, x, stride, idx, w)
			for i := range m {
				if math.Abs(float64(m[i]-m2[i])) > 2*float64(d+1)*u*float64(d) {
					t.Fatalf("Margins d=%d i=%d: got %v want %v", d, i, m[i], m2[i])
				}
			}
			neonCheckGuards(t, "Margins m", mb, 1, nr)
			c := make([]T, nr)
			neonFill(r, c, -1, 1)
			g, gb := neonGuarded[T](d, 3)
			neonFill(r, g, -1, 1)
			g2 := append([]T(nil), g...)
			ops.AddRows(g, x, stride, idx, c)
			ref.AddRows(g2, x, stride, idx, c)
			for i := range g {
				if !neonSameBits(g[i], g2[i]) {
					t.Fatalf("AddRows d=%d i=%d: got %v want %v", d, i, g[i], g2[i])
				}
			}
			neonCheckGuards(t, "AddRows g", gb, 3, d)
			for _, k := range []int{1, 2, 3, 4, 5, 9} {
				W, _ := neonGuarded[T](k*d, 1)
				neonFill(r, W, -1, 1)
				mk, mkb := neonGuarded[T](nr*k, 2)
				mk2 := make([]T, nr*k)
				ops.MarginsK(mk, x, stride, idx, W, k)
				ref.MarginsK(mk2, x, stride, idx, W, k)
				for i := range mk {
					if math.Abs(float64(mk[i]-mk2[i])) > 2*float64(d+1)*u*float64(d) {
						t.Fatalf("MarginsK d=%d k=%d i=%d: got %v want %v", d, k, i, mk[i], mk2[i])
					}
				}
				neonCheckGuards(t, "MarginsK m", mkb, 2, nr*k)
				ck := make([]T, nr*k)
				neonFill(r, ck, -1, 1)
				gk, gkb := neonGuarded[T](k*d, 1)
				neonFill(r, gk, -1, 1)
				gk2 := append([]T(nil), gk...)
				ops.AddOuterK(gk, x, stride, idx, ck, k)
				ref.AddOuterK(gk2, x, stride, idx, ck, k)
				for i := range gk {
					if !neonSameBits(gk[i], gk2[i]) {
						t.Fatalf("AddOuterK d=%d k=%d i=%d: got %v want %v", d, k, i, gk[i], gk2[i])
					}
				}
				neonCheckGuards(t, "AddOuterK g", gkb, 1, k*d)
			}
		}
	}
}

// specials are edge inputs every elementwise kernel sees.
var neonSpecials = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1e-300, -1e-300, 5e-324, -5e-324,
	math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64,
	709.78, 709.79, 710, -708.39, -708.4, -745.13, -745.14, -746, -800, 800,
	88.72, 88.73, -87.33, -103.97, -104, 0.34657359027997264, -0.34657359027997264,
	1e-17, -1e-17, 2e-60, -0.9999999999999999, -1.0000000000000002, 1e308, -0.7, 0.42,
}

func neonMathInputs[T Float](r *rand.Rand, n int, lo, hi float64) []T {
	x := make([]T, 0, n)
	for _, v := range neonSpecials {
		x = append(x, T(v))
	}
	for len(x) < n {
		switch r.IntN(3) {
		case 0:
			x = append(x, T(lo+(hi-lo)*r.Float64()))
		case 1:
			x = append(x, T(math.Ldexp(r.Float64(), -r.IntN(80))*float64(1-2*r.IntN(2))))
		default:
			x = append(x, T(math.Ldexp(r.Float64()+0.5, r.IntN(20)-10)*float64(1-2*r.IntN(2))))
		}
	}
	return x
}

// neonCheckULP compares got and want within maxULP, after checking equal NaN-ness.
func neonCheckULP[T Float](t *testing.T, what string, in, got, want []T, maxULP float64) {
	t.Helper()
	for i := range want {
		if d := neonULPDiff(got[i], want[i]); d > maxULP {
			t.Fatalf("%s(%v) = %v, want %v (%.1f ulp)", what, in[i], got[i], want[i], d)
		}
		if got[i] == 0 && want[i] == 0 && math.Signbit(float64(got[i])) != math.Signbit(float64(want[i])) {
			t.Fatalf("%s(%v) = %v, want %v (sign of zero)", what, in[i], got[i], want[i])
		}
	}
}

func TestNEONMath(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestMath(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestMath(t, im.F64(), Generic().F64()) })
}

func neonTestMath[T Float](t *testing.T, ops, ref Ops[T]) {
	r := rand.New(rand.NewPCG(3, 4))
	// Against generic, which is itself within 1 ulp of the truth: 2 ulp.
	const tol = 2
	in := neonMathInputs[T](r, 4000, -750, 720)
	got, want := make([]T, len(in)), make([]T, len(in))
	ops.Exp(got, in)
	ref.Exp(want, in)
	neonCheckULP(t, "Exp", in, got, want, tol)
	ops.Log1p(got, in)
	ref.Log1p(want, in)
	neonCheckULP(t, "Log1p", in, got, want, tol)

	neonEachLen(t, func(t *testing.T, n, off int) {
		x, xb := neonGuarded[T](n, off)
		copy(x, in[r.IntN(len(in)-n):])
		d, db := neonGuarded[T](n, off+2)
		d2 := make([]T, n)
		ops.Exp(d, x)
		ref.Exp(d2, x)
		neonCheckULP(t, "Exp", x, d, d2, tol)
		neonCheckGuards(t, "Exp dst", db, off+2, n)
		ops.Log1p(d, x)
		ref.Log1p(d2, x)
		neonCheckULP(t, "Log1p", x, d, d2, tol)
		neonCheckGuards(t, "Log1p dst", db, off+2, n)
		neonCheckGuards(t, "x", xb, off, n)

		// Losses.
		m, _ := neonGuarded[T](n, off)
		y, _ := neonGuarded[T](n, off+1)
		copy(m, in[r.IntN(len(in)-n):])
		for _, kind := range []LossKind{Logistic, Squared, Absolute} {
			for i := range y {
				if kind == Logistic {
					y[i] = T(1 - 2*r.IntN(2))
				} else {
					y[i] = T(4*r.Float64() - 2)
				}
			}
			l, lb := neonGuarded[T](n, off+1)
			dl, dlb := neonGuarded[T](n, off)
			l2, dl2 := make([]T, n), make([]T, n)
			ops.LinearLoss(kind, l, dl, m, y)
			ref.LinearLoss(kind, l2, dl2, m, y)
			maxULP := 0.0
			if kind == Logistic {
				maxULP = tol
			}
			neonCheckULP(t, fmt.Sprintf("LinearLoss(%d) loss", kind), m, l, l2, maxULP)
			neonCheckULP(t, fmt.Sprintf("LinearLoss(%d) dloss", kind), m, dl, dl2, maxULP)
			neonCheckGuards(t, "loss", lb, off+1, n)
			neonCheckGuards(t, "dloss", dlb, off, n)
		}
		// Plus functions, with rho or drho nil.
		s, _ := neonGuarded[T](n, off)
		for i := range s {
			s[i] = T(4*r.Float64() - 2)
		}
		if n > 0 {
			copy(s, in[r.IntN(len(in)-n):][:min(n, 5)])
		}
		for _, kind := range []PlusKind{PlusNone, PlusHinge, PlusSoftplus, PlusQuadratic} {
			for _, eps := range []T{0.25, 1e-3, 3} {
				rho, rb := neonGuarded[T](n, off)
				drho, drb := neonGuarded[T](n, off+3)
				rho2, drho2 := make([]T, n), make([]T, n)
				ops.Plus(kind, eps, rho, drho, s)
				ref.Plus(kind, eps, rho2, drho2, s)
				maxULP := 0.0
				if kind == PlusSoftplus {
					maxULP = tol
				}
				neonCheckULP(t, fmt.Sprintf("Plus(%d,%v) rho", kind, eps), s, rho, rho2, maxULP)
				neonCheckULP(t, fmt.Sprintf("Plus(%d,%v) drho", kind, eps), s, drho, drho2, maxULP)
				neonCheckGuards(t, "rho", rb, off, n)
				neonCheckGuards(t, "drho", drb, off+3, n)
				ops.Plus(kind, eps, nil, drho, s)
				neonCheckULP(t, "Plus drho only", s, drho, drho2, maxULP)
				ops.Plus(kind, eps, rho, nil, s)
				neonCheckULP(t, "Plus rho only", s, rho, rho2, maxULP)
			}
		}
	})
}

func TestNEONSoftmaxCE(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestSoftmax(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestSoftmax(t, im.F64(), Generic().F64()) })
}

func neonTestSoftmax[T Float](t *testing.T, ops, ref Ops[T]) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 1; k <= 40; k++ {
		for _, n := range []int{0, 1, 5} {
			z, zb := neonGuarded[T](n*k, 1)
			neonFill(r, z, -30, 30)
			if n*k > 2 {
				z[1] = 700 // large logits must not overflow
			}
			label := make([]int32, n)
			for i := range label {
				label[i] = int32(r.IntN(k))
			}
			z2 := append([]T(nil), z...)
			l, lb := neonGuarded[T](n, 2)
			l2 := make([]T, n)
			ops.SoftmaxCE(l, z, label, k)
			ref.SoftmaxCE(l2, z2, label, k)
			for i := range l {
				if math.Abs(float64(l[i]-l2[i])) > 4*float64(neonULPScale(l2[i]))+1e-14 {
					t.Fatalf("SoftmaxCE k=%d loss[%d] = %v, want %v", k, i, l[i], l2[i])
				}
			}
			for i := range z {
				if math.Abs(float64(z[i]-z2[i])) > 4*float64(neonULPScale(T(1))) {
					t.Fatalf("SoftmaxCE k=%d z[%d] = %v, want %v", k, i, z[i], z2[i])
				}
			}
			neonCheckGuards(t, "SoftmaxCE z", zb, 1, n*k)
			neonCheckGuards(t, "SoftmaxCE loss", lb, 2, n)
		}
	}
}

// neonULPScale is one ulp of T at |v| (at least the ulp of 1 times 2^-10).
func neonULPScale[T Float](v T) T {
	if is32[T]() {
		return T(neonULP32(float32(math.Max(math.Abs(float64(v)), 1.0/1024))))
	}
	return T(neonULP64(math.Max(math.Abs(float64(v)), 1.0/1024)))
}

func TestNEONFusedLinear(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestFused(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestFused(t, im.F64(), Generic().F64()) })
}

func neonTestFused[T Float](t *testing.T, ops, ref Ops[T]) {
	r := rand.New(rand.NewPCG(7, 8))
	tol := 1e-12
	if is32[T]() {
		tol = 2e-5
	}
	for _, d := range []int{0, 1, 3, 4, 7, 16, 33, 100} {
		for _, n := range []int{0, 1, 3, 4, 15, 16, 17, 40} {
			for _, loss := range []LossKind{Logistic, Squared, Absolute} {
				for _, plus := range []PlusKind{PlusNone, PlusHinge, PlusSoftplus, PlusQuadratic} {
					stride := d + 1
					x := make([]T, (n+2)*stride)
					neonFill(r, x, -1, 1)
					idx := r.Perm(n + 2)[:n]
					y := make([]T, n)
					for i := range y {
						y[i] = T(1 - 2*r.IntN(2))
					}
					w := make([]T, d)
					neonFill(r, w, -1, 1)
					p := &LinearStep[T]{Loss: loss, Plus: plus, Bias: 0.1, Tau: 0.3, InvL: 0.7, Eps: 0.2, Scale: 0.05}
					g, gb := neonGuarded[T](d, 1)
					neonFill(r, g, -1, 1)
					g2 := append([]T(nil), g...)
					l, lb := neonGuarded[T](n, 2)
					l2 := make([]T, n)
					sv, sc := ops.FusedLinear(g, l, x, stride, idx, y, w, p)
					sv2, sc2 := ref.FusedLinear(g2, l2, x, stride, idx, y, w, p)
					scale := float64(n + d + 1)
					if math.Abs(float64(sv-sv2)) > tol*scale || math.Abs(float64(sc-sc2)) > tol*scale {
						t.Fatalf("FusedLinear d=%d n=%d %d/%d sums: got %v %v want %v %v", d, n, loss, plus, sv, sc, sv2, sc2)
					}
					for i := range g {
						if math.Abs(float64(g[i]-g2[i])) > tol*scale {
							t.Fatalf("FusedLinear g[%d] = %v, want %v", i, g[i], g2[i])
						}
					}
					for i := range l {
						if math.Abs(float64(l[i]-l2[i])) > tol*scale*(1+math.Abs(float64(l2[i]))) {
							t.Fatalf("FusedLinear loss[%d] = %v, want %v", i, l[i], l2[i])
						}
					}
					neonCheckGuards(t, "FusedLinear g", gb, 1, d)
					neonCheckGuards(t, "FusedLinear loss", lb, 2, n)
				}
			}
		}
	}
}

func TestNEONNoAllocs(t *testing.T) {
	im := neonImpl(t)
	o := im.F32()
	x, y := make([]float32, 67), make([]float32, 67)
	s, d := make([]float32, 67), make([]float32, 67)
	w := make([]float32, 10)
	g := make([]float32, 10)
	c := make([]float32, 6)
	m := make([]float32, 6)
	lab := make([]int32, 6)
	loss := make([]float32, 6)
	z := make([]float32, 6*10)
	p := &LinearStep[float32]{Plus: PlusSoftplus, InvL: 1, Eps: 0.1, Scale: 1}
	n := testing.AllocsPerRun(20, func() {
		o.Dot(x, y)
		o.Axpy(2, x, y)
		o.Exp(d, x)
		o.Log1p(d, x)
		o.Plus(PlusSoftplus, 0.1, s, d, x)
		o.LinearLoss(Logistic, s, d, x, y)
		o.Margins(m, x, 10, nil, w)
		o.AddRows(g, x, 10, nil, c)
		o.AddOuterK(g, x, 10, nil, c, 2)
		o.MarginsK(m, x, 10, nil, w, 2)
		o.SoftmaxCE(loss, z, lab, 10)
		o.FusedLinear(g, loss, x, 10, nil, y[:6], w, p)
	})
	if n != 0 {
		t.Fatalf("%v allocations per run", n)
	}
}

// TestNEONSpecialValues runs every loss and plus function over all pairs of
// edge values (±0, ±1, ±Inf, NaN, huge, tiny) in every lane position.
func TestNEONSpecialValues(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestSpecials(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestSpecials(t, im.F64(), Generic().F64()) })
}

func neonTestSpecials[T Float](t *testing.T, ops, ref Ops[T]) {
	var m, y []T
	ys := []float64{1, -1, 0.5, 0, math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -3}
	for _, a := range neonSpecials {
		for _, b := range ys {
			m = append(m, T(a))
			y = append(y, T(b))
		}
	}
	n := len(m)
	for _, kind := range []LossKind{Logistic, Squared, Absolute} {
		l, d, l2, d2 := make([]T, n), make([]T, n), make([]T, n), make([]T, n)
		ops.LinearLoss(kind, l, d, m, y)
		ref.LinearLoss(kind, l2, d2, m, y)
		tol := 0.0
		if kind == Logistic {
			tol = 2
		}
		for i := range l {
			if neonULPDiff(l[i], l2[i]) > tol || neonULPDiff(d[i], d2[i]) > tol {
				t.Errorf("LinearLoss(%d, m=%v, y=%v) = %v, %v; want %v, %v", kind, m[i], y[i], l[i], d[i], l2[i], d2[i])
			}
		}
	}
	for _, kind := range []PlusKind{PlusNone, PlusHinge, PlusSoftplus, PlusQuadratic} {
		for _, eps := range []T{1, 1e-30, T(math.SmallestNonzeroFloat32), 1e30} {
			r, d, r2, d2 := make([]T, n), make([]T, n), make([]T, n), make([]T, n)
			ops.Plus(kind, eps, r, d, m)
			ref.Plus(kind, eps, r2, d2, m)
			tol := 0.0
			if kind == PlusSoftplus {
				tol = 2
			}
			for i := range r {
				if neonULPDiff(r[i], r2[i]) > tol || neonULPDiff(d[i], d2[i]) > tol {
					t.Errorf("Plus(%d, eps=%v, s=%v) = %v, %v; want %v, %v", kind, eps, m[i], r[i], d[i], r2[i], d2[i])
				}
			}
		}
	}
}

// TestNEONManyRows covers the wrappers' splitting of long row lists into
// several assembly calls (d large enough that one call takes fewer rows than
// there are), for gathered and consecutive rows.
func TestNEONManyRows(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	t.Run("f32", func(t *testing.T) { neonTestManyRows(t, im.F32(), Generic().F32()) })
	t.Run("f64", func(t *testing.T) { neonTestManyRows(t, im.F64(), Generic().F64()) })
}

func neonTestManyRows[T Float](t *testing.T, ops, ref Ops[T]) {
	r := rand.New(rand.NewPCG(9, 10))
	u := 0x1p-53
	if is32[T]() {
		u = 0x1p-24
	}
	for _, d := range []int{1, 5, 1500, 3001} {
		for _, nr := range []int{70, 131} {
			stride := d + 1
			x := make([]T, (nr+3)*stride)
			neonFill(r, x, -1, 1)
			for _, idx := range [][]int{nil, r.Perm(nr + 3)[:nr]} {
				w := make([]T, d)
				neonFill(r, w, -1, 1)
				m, m2 := make([]T, nr), make([]T, nr)
				ops.Margins(m, x, stride, idx, w)
				ref.Margins(m2, x, stride, idx, w)
				for i := range m {
					if math.Abs(float64(m[i]-m2[i])) > 2*float64(d+1)*u*float64(d) {
						t.Fatalf("Margins d=%d i=%d: %v, want %v", d, i, m[i], m2[i])
					}
				}
				c := make([]T, nr)
				neonFill(r, c, -1, 1)
				g := make([]T, d)
				g2 := make([]T, d)
				ops.AddRows(g, x, stride, idx, c)
				ref.AddRows(g2, x, stride, idx, c)
				for i := range g {
					if !neonSameBits(g[i], g2[i]) {
						t.Fatalf("AddRows d=%d i=%d: %v, want %v", d, i, g[i], g2[i])
					}
				}
				for _, k := range []int{2, 7, 70} {
					if k*d > 20000 {
						continue
					}
					W := make([]T, k*d)
					neonFill(r, W, -1, 1)
					mk, mk2 := make([]T, nr*k), make([]T, nr*k)
					ops.MarginsK(mk, x, stride, idx, W, k)
					ref.MarginsK(mk2, x, stride, idx, W, k)
					for i := range mk {
						if math.Abs(float64(mk[i]-mk2[i])) > 2*float64(d+1)*u*float64(d) {
							t.Fatalf("MarginsK d=%d k=%d i=%d: %v, want %v", d, k, i, mk[i], mk2[i])
						}
					}
					ck := make([]T, nr*k)
					neonFill(r, ck, -1, 1)
					gk, gk2 := make([]T, k*d), make([]T, k*d)
					ops.AddOuterK(gk, x, stride, idx, ck, k)
					ref.AddOuterK(gk2, x, stride, idx, ck, k)
					for i := range gk {
						if !neonSameBits(gk[i], gk2[i]) {
							t.Fatalf("AddOuterK d=%d k=%d i=%d: %v, want %v", d, k, i, gk[i], gk2[i])
						}
					}
				}
				y := make([]T, nr)
				for i := range y {
					y[i] = T(1 - 2*r.IntN(2))
				}
				for i := range w {
					w[i] /= T(math.Sqrt(float64(d)))
				}
				p := &LinearStep[T]{Loss: Logistic, Plus: PlusSoftplus, Bias: 0.1, Tau: 0.3, InvL: 0.7, Eps: 0.2, Scale: 0.05}
				g, g2 = make([]T, d), make([]T, d)
				l, l2 := make([]T, nr), make([]T, nr)
				sv, sc := ops.FusedLinear(g, l, x, stride, idx, y, w, p)
				sv2, sc2 := ref.FusedLinear(g2, l2, x, stride, idx, y, w, p)
				tol := 1e3 * float64(d+nr) * u
				if math.Abs(float64(sv-sv2)) > tol || math.Abs(float64(sc-sc2)) > tol {
					t.Fatalf("FusedLinear d=%d: sums %v %v, want %v %v", d, sv, sc, sv2, sc2)
				}
				for i := range g {
					if math.Abs(float64(g[i]-g2[i])) > tol {
						t.Fatalf("FusedLinear d=%d g[%d] %v, want %v", d, i, g[i], g2[i])
					}
				}
				for i := range l {
					if math.Abs(float64(l[i]-l2[i])) > tol {
						t.Fatalf("FusedLinear d=%d loss[%d] %v, want %v", d, i, l[i], l2[i])
					}
				}
			}
		}
	}
}
