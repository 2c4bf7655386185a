package kernel

// Fuzz targets, one per kernel family: each compares every implementation in
// Impls() with the generic reference (or with math/big) under the same rules
// as the table tests, on slices cut from NaN-filled buffers. Run one with
// e.g. `go test -fuzz FuzzMargins ./kernel/`; without -fuzz the seeds run as
// ordinary tests.

import (
	"encoding/binary"
	"math"
	"testing"
)

// seedFloats are the edge values every fuzz target is seeded with.
var seedFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 1e-300, 5e-324, -5e-324, 0.34657359027997264,
	88.72283935546875, -103.97208, 709.782712893384, -745.1332191019412, 710, -746,
	1e300, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), -0.9999999999999999,
}

func floatsBytes(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return b
}

// decode reads float64 bit patterns from b into a T slice of at most max
// elements; finite keeps only finite values (replacing others by 1) and
// scales keeps |v| ≤ limit.
func decode[T Float](b []byte, max int, limit float64) []T {
	n := min(len(b)/8, max)
	out := make([]T, n)
	for i := range out {
		v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		if limit > 0 && !(math.Abs(v) <= limit) {
			v = math.Mod(v, limit)
			if v != v {
				v = 1
			}
		}
		out[i] = T(v)
	}
	return out
}

// inGuard copies v into a slice cut from a NaN-filled buffer at offset off.
func inGuard[T Float](v []T, off int) ([]T, guarded[T]) {
	s, g := newGuarded[T](len(v), off)
	copy(s, v)
	return s, g
}

func fuzzDot[T Float](t *testing.T, data []byte, off int) {
	v := decode[T](data, 600, 1e15)
	n := len(v) / 2
	for _, im := range Impls() {
		x, gx := inGuard(v[:n], off%4)
		y, gy := inGuard(v[n:2*n], (off/4)%4)
		got := OpsOf[T](im).Dot(x, y)
		checkDot(t, im.Name()+" Dot", got, x, y)
		gx.check(t, "x")
		gy.check(t, "y")
	}
}

func FuzzDot(f *testing.F) {
	f.Add(floatsBytes(seedFloats[:12]...), uint8(0))
	f.Add(floatsBytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		fuzzDot[float32](t, data, int(off))
		fuzzDot[float64](t, data, int(off))
	})
}

// fuzzRows builds a gathered matrix problem from the fuzz input and checks
// Margins, AddRows, MarginsK and AddOuterK of every implementation.
func fuzzRows[T Float](t *testing.T, data []byte, d, n, extra, k int, seed uint64) {
	vals := decode[T](data, 4096, 1e6)
	if len(vals) == 0 {
		vals = []T{1}
	}
	rows := n + 2
	stride := d + extra
	x, gx := newGuarded[T]((rows-1)*stride+d, int(seed%4))
	for i := 0; i < rows; i++ {
		for l := 0; l < d; l++ {
			x[i*stride+l] = vals[(i*d+l)%len(vals)]
		}
	}
	idx := make([]int, n)
	for i := range idx {
		seed = seed*6364136223846793005 + 1442695040888963407
		idx[i] = int(seed>>33) % rows
	}
	var lists [][]int
	lists = append(lists, nil, idx)
	w := make([]T, k*d)
	for i := range w {
		w[i] = vals[(i*7+3)%len(vals)]
	}
	c := make([]T, n*k)
	for i := range c {
		c[i] = vals[(i*5+1)%len(vals)]
	}
	for _, im := range Impls() {
		ops := OpsOf[T](im)
		for _, ix := range lists {
			m, gm := newGuarded[T](n, 1)
			ops.Margins(m, x, stride, ix, w[:d])
			for i := range m {
				r := row(ix, i)
				checkDot(t, im.Name()+" Margins", m[i], x[r*stride:r*stride+d], w[:d])
			}
			gm.check(t, "m")
			mk, gk := newGuarded[T](n*k, 2)
			ops.MarginsK(mk, x, stride, ix, w, k)
			for i := 0; i < n; i++ {
				r := row(ix, i)
				for j := 0; j < k; j++ {
					checkDot(t, im.Name()+" MarginsK", mk[i*k+j], x[r*stride:r*stride+d], w[j*d:(j+1)*d])
				}
			}
			gk.check(t, "mk")
			g, gg := newGuarded[T](k*d, 3)
			for i := range g {
				g[i] = vals[(i*3)%len(vals)]
			}
			g0 := append([]T(nil), g...)
			ops.AddOuterK(g, x, stride, ix, c, k)
			for j := 0; j < k; j++ {
				for l := 0; l < d; l++ {
					fu, un := g0[j*d+l], g0[j*d+l]
					for i := 0; i < n; i++ {
						xv := x[row(ix, i)*stride+l]
						fu, un = fmaT(c[i*k+j], xv, fu), mulAdd(c[i*k+j], xv, un)
					}
					if got := g[j*d+l]; !sameFloat(got, fu) && !sameFloat(got, un) {
						t.Fatalf("%s AddOuterK k=%d d=%d n=%d: g[%d] = %v, want %v or %v", im.Name(), k, d, n, j*d+l, got, fu, un)
					}
				}
			}
			gg.check(t, "g")
			if k == 1 {
				g1, g1g := inGuard(g0[:d], 1)
				ops.AddRows(g1, x, stride, ix, c[:n])
				for l := range g1 {
					if !sameFloat(g1[l], g[l]) {
						// AddRows and AddOuterK with k = 1 are the same loop.
						fu, un := g0[l], g0[l]
						for i := 0; i < n; i++ {
							xv := x[row(ix, i)*stride+l]
							fu, un = fmaT(c[i], xv, fu), mulAdd(c[i], xv, un)
						}
						if !sameFloat(g1[l], fu) && !sameFloat(g1[l], un) {
							t.Fatalf("%s AddRows d=%d n=%d: g[%d] = %v, want %v or %v", im.Name(), d, n, l, g1[l], fu, un)
						}
					}
				}
				g1g.check(t, "g1")
			}
		}
	}
	gx.check(t, "x")
}

func FuzzMargins(f *testing.F) {
	f.Add(floatsBytes(seedFloats[:14]...), uint8(17), uint8(5), uint8(1), uint8(1), uint64(1))
	f.Add(floatsBytes(1, -2, 3), uint8(33), uint8(9), uint8(3), uint8(7), uint64(42))
	f.Add(floatsBytes(0.5), uint8(0), uint8(3), uint8(0), uint8(16), uint64(7))
	f.Fuzz(func(t *testing.T, data []byte, d, n, extra, k uint8, seed uint64) {
		dd, nn, ee, kk := int(d)%140, int(n)%20, int(extra)%5, 1+int(k)%17
		fuzzRows[float32](t, data, dd, nn, ee, kk, seed)
		fuzzRows[float64](t, data, dd, nn, ee, kk, seed)
	})
}

// lanes spreads one fuzz value over a short vector so both the vector body
// and the masked tail of a kernel see it.
func lanes(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch i % 4 {
		case 0:
			out[i] = v
		case 1:
			out[i] = -v
		case 2:
			out[i] = v / 3
		default:
			out[i] = v * 1.5
		}
	}
	return out
}

func fuzzLinearLoss[T Float](t *testing.T, m, y float64, kind LossKind, n int) {
	ms := make([]T, n)
	ys := make([]T, n)
	for i, v := range lanes(m, n) {
		ms[i] = T(v)
	}
	for i, v := range lanes(y, n) {
		ys[i] = T(v)
	}
	gen := OpsOf[T](Generic())
	wl, wd := make([]T, n), make([]T, n)
	gen.LinearLoss(kind, wl, wd, ms, ys)
	for _, im := range Impls() {
		mm, gm := inGuard(ms, 1)
		yy, gy := inGuard(ys, 2)
		loss, gl := newGuarded[T](n, 3)
		dl, gd := newGuarded[T](n, 0)
		OpsOf[T](im).LinearLoss(kind, loss, dl, mm, yy)
		for i := range loss {
			if kind == Logistic {
				tol := expUlp[T]() * (1 + math.Abs(float64(ys[i]*ms[i])))
				if a, b := ulpDiff(loss[i], wl[i]), ulpDiff(dl[i], wd[i]); a > tol || b > tol {
					t.Fatalf("%s Logistic(m=%v, y=%v) = %v, %v; generic %v, %v", im.Name(), ms[i], ys[i], loss[i], dl[i], wl[i], wd[i])
				}
			} else if !sameFloat(loss[i], wl[i]) || !sameFloat(dl[i], wd[i]) {
				t.Fatalf("%s kind %d (m=%v, y=%v) = %v, %v; generic %v, %v", im.Name(), kind, ms[i], ys[i], loss[i], dl[i], wl[i], wd[i])
			}
		}
		gm.check(t, "m")
		gy.check(t, "y")
		gl.check(t, "loss")
		gd.check(t, "dloss")
	}
}

func FuzzLinearLoss(f *testing.F) {
	for i, v := range seedFloats {
		f.Add(v, 1.0, uint8(i%3), uint8(9))
		f.Add(v, -1.0, uint8(i%3), uint8(5))
	}
	f.Fuzz(func(t *testing.T, m, y float64, kind, n uint8) {
		k := LossKind(int(kind) % 3)
		nn := 1 + int(n)%19
		fuzzLinearLoss[float32](t, m, y, k, nn)
		fuzzLinearLoss[float64](t, m, y, k, nn)
	})
}

func fuzzPlus[T Float](t *testing.T, s, eps float64, kind PlusKind, n int) {
	ss := make([]T, n)
	for i, v := range lanes(s, n) {
		ss[i] = T(v)
	}
	e := T(eps)
	if kind == PlusSoftplus && !(e > 0) {
		return // the smoothing ε of softplus is positive (ρ_ε is not defined otherwise)
	}
	gen := OpsOf[T](Generic())
	wr, wd := make([]T, n), make([]T, n)
	gen.Plus(kind, e, wr, wd, ss)
	for _, im := range Impls() {
		sg, gs := inGuard(ss, 2)
		rho, gr := newGuarded[T](n, 1)
		drho, gd := newGuarded[T](n, 3)
		OpsOf[T](im).Plus(kind, e, rho, drho, sg)
		for i := range rho {
			if kind == PlusSoftplus {
				tol := expUlp[T]() * (1 + math.Abs(float64(ss[i])/float64(e)))
				if a, b := ulpDiff(rho[i], wr[i]), ulpDiff(drho[i], wd[i]); (a > tol || b > tol) && !math.IsInf(tol, 0) && tol == tol {
					t.Fatalf("%s Softplus(%v, eps=%v) = %v, %v; generic %v, %v", im.Name(), ss[i], e, rho[i], drho[i], wr[i], wd[i])
				}
			} else if !sameFloat(rho[i], wr[i]) || !sameFloat(drho[i], wd[i]) {
				t.Fatalf("%s Plus kind %d (%v, eps=%v) = %v, %v; generic %v, %v", im.Name(), kind, ss[i], e, rho[i], drho[i], wr[i], wd[i])
			}
		}
		gs.check(t, "s")
		gr.check(t, "rho")
		gd.check(t, "drho")
	}
}

func FuzzPlus(f *testing.F) {
	for i, v := range seedFloats {
		f.Add(v, 0.1, uint8(i%4), uint8(9))
		f.Add(v, 1.0, uint8(i%4), uint8(6))
	}
	f.Add(0.1, 0.1, uint8(3), uint8(4))
	f.Add(-0.1, 0.1, uint8(3), uint8(4))
	f.Fuzz(func(t *testing.T, s, eps float64, kind, n uint8) {
		k := PlusKind(int(kind) % 4)
		nn := 1 + int(n)%19
		fuzzPlus[float32](t, s, eps, k, nn)
		fuzzPlus[float64](t, s, eps, k, nn)
	})
}

func fuzzExpLog1p[T Float](t *testing.T, x float64) {
	xv := T(x)
	xs := make([]T, 11)
	for i := range xs {
		xs[i] = xv
	}
	var wantExp, wantLog *accPoint
	xf := float64(xv)
	switch {
	case xf != xf:
		wantExp, wantLog = &accPoint{want: xf}, &accPoint{want: xf}
	case math.IsInf(xf, 1):
		wantExp, wantLog = &accPoint{want: xf}, &accPoint{want: xf}
	case math.IsInf(xf, -1):
		wantExp, wantLog = &accPoint{want: 0}, &accPoint{want: math.NaN()}
	default:
		wantExp = &accPoint{exact: bigExp(bigF(math.Max(math.Min(xf, 1e4), -1e4)))}
		switch {
		case xf == -1:
			wantLog = &accPoint{want: math.Inf(-1)}
		case xf < -1:
			wantLog = &accPoint{want: math.NaN()}
		case xf == 0:
			wantLog = &accPoint{want: xf}
		default:
			wantLog = &accPoint{exact: bigLog1p(bigF(xf))}
		}
	}
	for _, im := range Impls() {
		ops := OpsOf[T](im)
		for _, c := range []struct {
			name string
			f    func(dst, x []T)
			want *accPoint
		}{{"Exp", ops.Exp, wantExp}, {"Log1p", ops.Log1p, wantLog}} {
			src, gs := inGuard(xs, 1)
			dst, gd := newGuarded[T](len(xs), 2)
			c.f(dst, src)
			for i, v := range dst {
				if c.want.exact == nil {
					if !sameFloat(v, T(c.want.want)) {
						t.Fatalf("%s %s(%v)[%d] = %v, want %v", im.Name(), c.name, xv, i, v, T(c.want.want))
					}
				} else if e := ulpErr(v, c.want.exact); e > 2 {
					t.Fatalf("%s %s(%v)[%d] = %v: %.3g ulp", im.Name(), c.name, xv, i, v, e)
				}
			}
			gs.check(t, "x")
			gd.check(t, "dst")
		}
	}
}

func FuzzExpLog1p(f *testing.F) {
	for _, v := range seedFloats {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		fuzzExpLog1p[float32](t, x)
		fuzzExpLog1p[float64](t, x)
	})
}

func fuzzSoftmax[T Float](t *testing.T, data []byte, k int, labelSeed uint32) {
	vals := decode[T](data, 512, 300)
	n := len(vals) / k
	if n == 0 {
		return
	}
	z := vals[:n*k]
	label := make([]int32, n)
	for i := range label {
		label[i] = int32((labelSeed + uint32(7*i)) % uint32(k))
	}
	gen := OpsOf[T](Generic())
	wz := append([]T(nil), z...)
	wl := make([]T, n)
	gen.SoftmaxCE(wl, wz, label, k)
	for _, im := range Impls() {
		zz, gz := inGuard(z, 1)
		loss, gl := newGuarded[T](n, 2)
		OpsOf[T](im).SoftmaxCE(loss, zz, label, k)
		checkSoftmax(t, im.Name()+" SoftmaxCE", z, zz, wz, loss, wl, label, k)
		gz.check(t, "z")
		gl.check(t, "loss")
	}
}

func FuzzSoftmaxCE(f *testing.F) {
	f.Add(floatsBytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), uint8(10), uint32(3))
	f.Add(floatsBytes(seedFloats[:16]...), uint8(3), uint32(1))
	f.Add(floatsBytes(0, 0, 0, 0, 0, 0, 0), uint8(7), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, k uint8, labelSeed uint32) {
		kk := 1 + int(k)%17
		fuzzSoftmax[float32](t, data, kk, labelSeed)
		fuzzSoftmax[float64](t, data, kk, labelSeed)
	})
}

func fuzzFused[T Float](t *testing.T, data []byte, d, n int, loss LossKind, plus PlusKind, tau, eps float64) {
	vals := decode[T](data, 2048, 4)
	if len(vals) == 0 {
		vals = []T{0.5, -0.25}
	}
	rows := n + 1
	x := make([]T, rows*d)
	for i := range x {
		x[i] = vals[i%len(vals)]
	}
	w := make([]T, d)
	for i := range w {
		w[i] = vals[(3*i+1)%len(vals)] / T(d+1)
	}
	y := make([]T, n)
	idx := make([]int, n)
	for i := range y {
		y[i] = T(1 - 2*(i%2))
		idx[i] = (i * 5) % rows
	}
	p := LinearStep[T]{Loss: loss, Plus: plus, Bias: 0.1, Tau: T(tau), InvL: 0.5, Eps: T(eps), Scale: 0.01}
	for _, im := range Impls() {
		ops := OpsOf[T](im)
		g, gg := newGuarded[T](d, 1)
		clear(g)
		l, gl := newGuarded[T](n, 2)
		sv, sc := ops.FusedLinear(g, l, x, d, idx, y, w, &p)
		g2, l2 := make([]T, d), make([]T, n)
		sv2, sc2 := composeLinear(ops, g2, l2, x, d, idx, y, w, &p)
		tight := 64 * unitRoundoff[T]()
		near := func(a, b, scale T) bool {
			return sameFloat(a, b) || math.Abs(float64(a-b)) <= tight*(math.Abs(float64(scale))+1)
		}
		for i := range l {
			if !near(l[i], l2[i], l2[i]) {
				t.Fatalf("%s FusedLinear loss[%d] %v, composed %v", im.Name(), i, l[i], l2[i])
			}
		}
		if !near(sv, sv2, T(n)) || !near(sc, sc2, T(n)) {
			t.Fatalf("%s FusedLinear sums %v %v, composed %v %v", im.Name(), sv, sc, sv2, sc2)
		}
		for i := range g {
			if !near(g[i], g2[i], 1) {
				t.Fatalf("%s FusedLinear g[%d] %v, composed %v", im.Name(), i, g[i], g2[i])
			}
		}
		gg.check(t, "g")
		gl.check(t, "loss")
	}
}

func FuzzFusedLinear(f *testing.F) {
	f.Add(floatsBytes(1, -0.5, 0.25, 2), uint8(17), uint8(19), uint8(0), uint8(2), 0.3, 0.1)
	f.Add(floatsBytes(3, 1, -1), uint8(100), uint8(40), uint8(1), uint8(3), 0.0, 0.5)
	f.Fuzz(func(t *testing.T, data []byte, d, n, loss, plus uint8, tau, eps float64) {
		if !(eps > 1e-6 && eps < 1e6) || !(math.Abs(tau) < 1e6) {
			return
		}
		dd, nn := int(d)%150, int(n)%70
		lk, pk := LossKind(int(loss)%3), PlusKind(int(plus)%4)
		fuzzFused[float32](t, data, dd, nn, lk, pk, tau, eps)
		fuzzFused[float64](t, data, dd, nn, lk, pk, tau, eps)
	})
}

// fuzzReLU runs BiasReLU and ReLUBackward on n rows of h columns whose
// values cycle through the fuzz data, every implementation against the
// generic reference: bit-exact, except that any NaN matches any NaN (fuzzed
// NaNs of different payloads meet in one FADD, and which one propagates
// depends on operand order).
func fuzzReLU[T Float](t *testing.T, data []byte, n, h, off int) {
	v := decode[T](data, 4096, 0)
	if len(v) == 0 {
		v = []T{0}
	}
	cyc := func(m, shift int) []T {
		s := make([]T, m)
		for i := range s {
			s[i] = v[(i*5+shift)%len(v)]
		}
		return s
	}
	z0, b0 := cyc(n*h, 0), cyc(h, 3)
	a0, dh0, gb0 := cyc(n*h, 1), cyc(n*h, 2), cyc(h, 4)
	gen := OpsOf[T](Generic())
	wantZ := append([]T(nil), z0...)
	gen.BiasReLU(wantZ, b0)
	wantDh, wantGb := append([]T(nil), dh0...), append([]T(nil), gb0...)
	gen.ReLUBackward(wantGb, wantDh, a0)
	same := func(what string, got, want []T) {
		t.Helper()
		for i := range want {
			if !sameFloat(got[i], want[i]) {
				t.Fatalf("%s[%d] = %v, generic %v (n=%d h=%d)", what, i, got[i], want[i], n, h)
			}
		}
	}
	for _, im := range Impls() {
		ops := OpsOf[T](im)
		z, gz := inGuard(z0, off)
		b, gb := inGuard(b0, (off+1)%4)
		ops.BiasReLU(z, b)
		same(im.Name()+" BiasReLU z", z, wantZ)
		gz.check(t, "z")
		gb.check(t, "b")
		a, ga := inGuard(a0, off)
		dh, gd := inGuard(dh0, (off+2)%4)
		g, gg := inGuard(gb0, (off+3)%4)
		ops.ReLUBackward(g, dh, a)
		same(im.Name()+" ReLUBackward dh", dh, wantDh)
		same(im.Name()+" ReLUBackward gb", g, wantGb)
		ga.check(t, "a")
		gd.check(t, "dh")
		gg.check(t, "gb")
	}
}

func FuzzReLU(f *testing.F) {
	f.Add(floatsBytes(seedFloats...), uint8(5), uint8(9), uint8(1))
	f.Add(floatsBytes(0, math.Copysign(0, -1), -5e-324, -1e-40, 1, -1, math.Inf(1), math.Inf(-1), math.NaN()), uint8(3), uint8(18), uint8(2))
	f.Add(floatsBytes(2, -2, 0.5), uint8(40), uint8(39), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, n, h, off uint8) {
		nn, hh, oo := 1+int(n)%12, 1+int(h)%40, int(off)%4
		fuzzReLU[float32](t, data, nn, hh, oo)
		fuzzReLU[float64](t, data, nn, hh, oo)
	})
}
