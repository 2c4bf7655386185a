package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// compactMatrix returns a compact matrix of rows×stride elements of the
// given format, starting off elements into its storage (cut with 3-index
// slicing, so a Go-level read past it panics), and its dense twin in T: the
// values the kernels must see.
func compactMatrix[T Float](r *rand.Rand, f Format, rows, stride, d, off int) (Compact, []T) {
	n := 0
	if rows > 0 {
		n = (rows-1)*stride + d
	}
	x := Compact{Format: f, Stride: stride, Scale: 1.0 / 255}
	switch f {
	case U8:
		buf := make([]uint8, off+n+7)
		for i := range buf {
			buf[i] = uint8(r.IntN(256))
		}
		x.U8 = buf[off : off+n : off+n]
	case F16:
		buf := make([]uint16, off+n+7)
		for i := range buf {
			buf[i] = F32ToF16(float32((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(7)-3)))
		}
		x.F16 = buf[off : off+n : off+n]
	case BF16:
		buf := make([]uint16, off+n+7)
		for i := range buf {
			buf[i] = F32ToBF16(float32((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(7)-3)))
		}
		x.BF16 = buf[off : off+n : off+n]
	}
	dense := make([]T, n)
	for p := range dense {
		dense[p] = value[T](&x, p)
	}
	return x, dense
}

// checkDotC is checkDot with two more roundings a term: the compact
// kernels may multiply by the scale after the sum (margins) or into the
// coefficient (accumulation) rather than into each feature.
func checkDotC[T Float](t testing.TB, what string, got T, x, y []T) {
	t.Helper()
	exact, abs := exactDot(x, y)
	bound := float64(len(x)+3) * (unitRoundoff[T]()*abs + ulpOf[T](0))
	if d := math.Abs(float64(got) - exact); !(d <= bound) {
		t.Fatalf("%s: n=%d got %v, exact %v, |diff| %g > bound %g", what, len(x), got, exact, d, bound)
	}
}

// near reports |got − want| ≤ bound, or both NaN.
func near(got, want, bound float64) bool {
	return math.Abs(got-want) <= bound || math.IsNaN(got) && math.IsNaN(want)
}

var compactDims = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 40, 63, 64, 65, 100, 127, 130, 784}

func testCompact[T Float](t *testing.T, ops Ops[T], f Format) {
	r := rand.New(rand.NewPCG(uint64(f), 77))
	u := unitRoundoff[T]()
	dims := compactDims
	if !testing.Short() {
		for d := 0; d <= maxLen; d++ {
			dims = append(dims, d)
		}
	}
	dims = append(dims, compactBuf+9) // long rows: the column blocks
	for _, d := range dims {
		for _, n := range []int{0, 1, 3, 4, 5, 9, 13} {
			if d > 1000 && n > 3 {
				continue
			}
			off := offsets[(d+n)%len(offsets)]
			rows := n + 2
			stride := d + (d+n)%3
			x, xd := compactMatrix[T](r, f, rows, stride, d, off)
			w := make([]T, d)
			fillRand(r, w)
			for li, idx := range gatherLists(r, n, rows) {
				what := fmt.Sprintf("%v d=%d n=%d list=%d", f, d, n, li)
				// Margins.
				m, gm := newGuarded[T](n, li)
				ops.MarginsC(m, &x, idx, w)
				gm.check(t, what+" MarginsC m")
				for i := range m {
					rr := row(idx, i) * stride
					checkDotC(t, what+" MarginsC", m[i], xd[rr:rr+d], w)
				}
				// AddRows.
				c := make([]T, n)
				fillRand(r, c)
				g, gg := newGuarded[T](d, li)
				fillRand(r, g)
				g0 := append([]T(nil), g...)
				ops.AddRowsC(g, &x, idx, c)
				gg.check(t, what+" AddRowsC g")
				for l := range g {
					want, abs := float64(g0[l]), math.Abs(float64(g0[l]))
					for i, ci := range c {
						p := float64(ci) * float64(xd[row(idx, i)*stride+l])
						want += p
						abs += math.Abs(p)
					}
					if !near(float64(g[l]), want, float64(n+3)*(u*abs+ulpOf[T](0))) {
						t.Fatalf("%s AddRowsC: g[%d] = %v, want %v", what, l, g[l], want)
					}
				}
				// MarginsK and AddOuterK.
				for _, k := range []int{1, 2, 3, 5, 10} {
					if d > 1000 && k > 3 {
						continue
					}
					wk := make([]T, k*d)
					fillRand(r, wk)
					mk, gmk := newGuarded[T](n*k, li)
					ops.MarginsKC(mk, &x, idx, wk, k)
					gmk.check(t, what+" MarginsKC m")
					for i := 0; i < n; i++ {
						rr := row(idx, i) * stride
						for j := 0; j < k; j++ {
							checkDotC(t, fmt.Sprintf("%s k=%d MarginsKC", what, k), mk[i*k+j], xd[rr:rr+d], wk[j*d:(j+1)*d])
						}
					}
					ck := make([]T, n*k)
					fillRand(r, ck)
					gk, ggk := newGuarded[T](k*d, li)
					fillRand(r, gk)
					gk0 := append([]T(nil), gk...)
					ops.AddOuterKC(gk, &x, idx, ck, k)
					ggk.check(t, what+" AddOuterKC g")
					for j := 0; j < k; j++ {
						for l := 0; l < d; l++ {
							want, abs := float64(gk0[j*d+l]), math.Abs(float64(gk0[j*d+l]))
							for i := 0; i < n; i++ {
								p := float64(ck[i*k+j]) * float64(xd[row(idx, i)*stride+l])
								want += p
								abs += math.Abs(p)
							}
							if got := gk[j*d+l]; !near(float64(got), want, float64(n+3)*(u*abs+ulpOf[T](0))) {
								t.Fatalf("%s k=%d AddOuterKC: g[%d][%d] = %v, want %v", what, k, j, l, got, want)
							}
						}
					}
				}
				// The fused step against the generic one on the dense twin.
				y := make([]T, n)
				for i := range y {
					y[i] = T(2*r.IntN(2) - 1)
				}
				wf := make([]T, d)
				fillRand(r, wf)
				for i := range wf {
					wf[i] /= T(max(1, d))
				}
				p := LinearStep[T]{Loss: Logistic, Plus: PlusSoftplus, Bias: 0.1, Tau: 0.3, InvL: 1, Eps: 0.5, Scale: 0.25}
				loss, gl := newGuarded[T](n, li)
				gf, ggf := newGuarded[T](d, li)
				clear(gf)
				sv, sc := ops.FusedLinearC(gf, loss, &x, idx, y, wf, &p)
				gl.check(t, what+" FusedLinearC loss")
				ggf.check(t, what+" FusedLinearC g")
				wantL, wantG := make([]T, n), make([]T, d)
				wv, wc := OpsOf[T](Generic()).FusedLinear(wantG, wantL, xd, stride, idx, y, wf, &p)
				tol := 1e-4
				if !isF32[T]() {
					tol = 1e-12
				}
				tol *= float64(d + n + 1)
				if !near(float64(sv), float64(wv), tol) || !near(float64(sc), float64(wc), tol) {
					t.Fatalf("%s FusedLinearC: sums %v %v, want %v %v", what, sv, sc, wv, wc)
				}
				for i := range loss {
					if !near(float64(loss[i]), float64(wantL[i]), tol) {
						t.Fatalf("%s FusedLinearC: loss[%d] = %v, want %v", what, i, loss[i], wantL[i])
					}
				}
				for l := range gf {
					if !near(float64(gf[l]), float64(wantG[l]), tol) {
						t.Fatalf("%s FusedLinearC: g[%d] = %v, want %v", what, l, gf[l], wantG[l])
					}
				}
			}
		}
	}
}

func TestCompactKernels(t *testing.T) {
	t.Parallel()
	for _, f := range []Format{U8, F16, BF16} {
		forImpls(t,
			func(t *testing.T, im Impl) { testCompact(t, im.F32(), f) },
			func(t *testing.T, im Impl) { testCompact(t, im.F64(), f) })
	}
}

// TestCompactMatchesF32 checks the contract of u8 storage: on MNIST-shaped
// rows, each implementation's u8 kernels give its own float32 kernels'
// results on the float32 matrix of the same values (fl(fl(1/255)·u)), to
// the rounding of a reduction's order.
func TestCompactMatchesF32(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	const n, d, k = 70, 784, 10
	x, xd := compactMatrix[float32](r, U8, n, d, d, 0)
	idx := make([]int, 50)
	for i := range idx {
		idx[i] = r.IntN(n)
	}
	w := make([]float32, k*d)
	fillRand(r, w)
	c := make([]float32, len(idx)*k)
	fillRand(r, c)
	for _, im := range Impls() {
		ops := im.F32()
		m1, m2 := make([]float32, len(idx)*k), make([]float32, len(idx)*k)
		ops.MarginsKC(m1, &x, idx, w, k)
		ops.MarginsK(m2, xd, d, idx, w, k)
		for i := range m1 {
			if !near(float64(m1[i]), float64(m2[i]), 1e-5*math.Max(1, math.Abs(float64(m2[i])))) {
				t.Fatalf("%s MarginsKC[%d] = %v, float32 path %v", im.Name(), i, m1[i], m2[i])
			}
		}
		g1, g2 := make([]float32, k*d), make([]float32, k*d)
		ops.AddOuterKC(g1, &x, idx, c, k)
		ops.AddOuterK(g2, xd, d, idx, c, k)
		for i := range g1 {
			if g1[i] != g2[i] { // the same FMAs in the same order
				t.Fatalf("%s AddOuterKC[%d] = %v, float32 path %v", im.Name(), i, g1[i], g2[i])
			}
		}
		// The linear models' byte rows meet c·scale rather than c meeting
		// fl(scale·u) (amd64): two roundings a term apart.
		a1, a2 := make([]float32, d), make([]float32, d)
		ops.AddRowsC(a1, &x, idx, c[:len(idx)])
		ops.AddRows(a2, xd, d, idx, c[:len(idx)])
		for i := range a1 {
			var abs float64
			for j, r := range idx {
				abs += math.Abs(float64(c[j]) * float64(xd[r*d+i]))
			}
			if !near(float64(a1[i]), float64(a2[i]), float64(len(idx)+3)*0x1p-24*abs) {
				t.Fatalf("%s AddRowsC[%d] = %v, float32 path %v", im.Name(), i, a1[i], a2[i])
			}
		}
		m3, m4 := make([]float32, len(idx)), make([]float32, len(idx))
		ops.MarginsC(m3, &x, idx, w[:d])
		ops.Margins(m4, xd, d, idx, w[:d])
		for i := range m3 {
			checkDotC(t, im.Name()+" MarginsC vs float32", m3[i], xd[idx[i]*d:(idx[i]+1)*d], w[:d])
			checkDotC(t, im.Name()+" Margins vs exact", m4[i], xd[idx[i]*d:(idx[i]+1)*d], w[:d])
		}
	}
}

// TestCompactConvert checks the assembly conversions against Go, for every
// length a call takes and with guard cells after the output.
func TestCompactConvert(t *testing.T) {
	t.Parallel()
	if len(Impls()) == 1 {
		t.Skip("no assembly in this build")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 200; n += 8 {
		u := make([]uint8, n)
		h := make([]uint16, n)
		for i := range u {
			u[i] = uint8(r.IntN(256))
			h[i] = uint16(r.IntN(1 << 16))
		}
		for _, scale := range []float32{1, 1.0 / 255, 0.37} {
			dst, g := newGuarded[float32](n, 1)
			if n > 0 {
				archCvtU8(unsafe.Pointer(&dst[0]), unsafe.Pointer(&u[0]), n, scale)
			}
			g.check(t, "cvtU8")
			for i := range dst {
				if want := scale * float32(u[i]); dst[i] != want {
					t.Fatalf("cvtU8 n=%d: [%d] = %v, want %v", n, i, dst[i], want)
				}
			}
		}
		dst, g := newGuarded[float32](n, 2)
		if n > 0 {
			archCvtF16(unsafe.Pointer(&dst[0]), unsafe.Pointer(&h[0]), n)
		}
		g.check(t, "cvtF16")
		for i := range dst {
			want := F16ToF32(h[i])
			if math.Float32bits(dst[i]) != math.Float32bits(want) && !(isNaN32(dst[i]) && isNaN32(want)) {
				t.Fatalf("cvtF16 n=%d: [%d] (%#04x) = %v, want %v", n, i, h[i], dst[i], want)
			}
		}
		dst, g = newGuarded[float32](n, 3)
		if n > 0 {
			archCvtBF16(unsafe.Pointer(&dst[0]), unsafe.Pointer(&h[0]), n)
		}
		g.check(t, "cvtBF16")
		for i := range dst {
			if want := BF16ToF32(h[i]); math.Float32bits(dst[i]) != math.Float32bits(want) {
				t.Fatalf("cvtBF16 n=%d: [%d] (%#04x) = %v, want %v", n, i, h[i], dst[i], want)
			}
		}
	}
}

func isNaN32(f float32) bool { return f != f }

// TestF16 checks the half-precision conversions: every half round-trips,
// and F32ToF16 rounds to nearest, ties to even, at the edges of the format.
func TestF16(t *testing.T) {
	t.Parallel()
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		if isNaN32(f) {
			if back := F32ToF16(f); back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#04x → %v → %#04x, not a NaN", h, f, back)
			}
			continue
		}
		if back := F32ToF16(f); back != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, f, back)
		}
	}
	cases := []struct {
		f    float32
		want uint16
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff},
		{65519.99, 0x7bff}, {65520, 0x7c00}, {1e10, 0x7c00}, {-1e10, 0xfc00},
		{float32(math.Inf(1)), 0x7c00}, {float32(math.Inf(-1)), 0xfc00},
		{0x1p-14, 0x0400},         // smallest normal
		{0x1p-24, 0x0001},         // smallest subnormal
		{0x1p-25, 0x0000},         // a tie between 0 and it: even, 0
		{0x1.000002p-25, 0x0001},  // just above the tie
		{0x3p-25, 0x0002},         // a tie between 1 and 2 subnormal units: 2
		{0x5p-25, 0x0002},         // between 2 and 3: 2
		{0x1.ffcp-15, 0x0400},     // the largest subnormal rounds up to the smallest normal
		{1 + 0x1p-11, 0x3c00},     // a tie: even
		{1 + 0x3p-11, 0x3c02},     // a tie: even (up)
		{1 + 0x1.002p-11, 0x3c01}, // above the tie
		{0x1p-30, 0},
	}
	for _, c := range cases {
		if got := F32ToF16(c.f); got != c.want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
	if h := F32ToF16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("F32ToF16(NaN) = %#04x", h)
	}
	// Random values: the nearest half, ties to even.
	r := rand.New(rand.NewPCG(1, 1))
	for range 200000 {
		f := math.Float32frombits(r.Uint32())
		if isNaN32(f) || math.Abs(float64(f)) >= 65520 {
			continue
		}
		h := F32ToF16(f)
		v := float64(F16ToF32(h))
		dv := math.Abs(float64(f) - v)
		for _, nb := range []uint16{h + 1, h - 1} {
			if nb&0x7fff >= 0x7c00 || (h&0x7fff == 0 && nb&0x7fff != 1) {
				continue
			}
			dn := math.Abs(float64(f) - float64(F16ToF32(nb)))
			if dn < dv || dn == dv && nb&1 == 0 && nb>>15 == h>>15 {
				t.Fatalf("F32ToF16(%v) = %#04x (%v), but %#04x (%v) is nearer or an even tie", f, h, v, nb, F16ToF32(nb))
			}
		}
	}
}

// TestCompactRowKernelsSelected fails when the AVX2 or NEON implementation
// runs without the row kernels it is meant to have, so that a silent
// fallback to the conversion buffer does not pass as the fast path.
func TestCompactRowKernelsSelected(t *testing.T) {
	t.Parallel()
	if runtime.GOARCH == "amd64" && Default().Name() == "avx2" && !(archRowKernels(U8) && archRowKernels(BF16)) {
		t.Fatal("avx2 is the default but the byte- or bfloat16-row kernels are off")
	}
	if runtime.GOARCH == "arm64" && Default().Name() == "neon" && !(archRowKernels(U8) && archRowKernels(F16) && archRowKernels(BF16)) {
		t.Fatal("neon is the default but the compact row kernels are off")
	}
}

// FuzzF32ToF16 checks, for any float32, that the half is the nearest one
// (ties to even), that it round-trips, and that NaN stays NaN.
func FuzzF32ToF16(f *testing.F) {
	for _, b := range []uint32{0, 0x80000000, 0x3f800000, 0x477fe000, 0x477ff000, 0x33000000, 0x33000001, 0x387fc000, 0x7f800000, 0x7fc00000, 0xff800001} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b uint32) {
		v := math.Float32frombits(b)
		h := F32ToF16(v)
		back := F16ToF32(h)
		if isNaN32(v) {
			if !isNaN32(back) {
				t.Fatalf("NaN %#08x → %#04x, not a NaN", b, h)
			}
			return
		}
		if F32ToF16(back) != h {
			t.Fatalf("%v → %#04x → %v does not round-trip", v, h, back)
		}
		if math.Abs(float64(v)) >= 65520 {
			if h&0x7fff != 0x7c00 {
				t.Fatalf("%v → %#04x, want ±Inf", v, h)
			}
			return
		}
		dv := math.Abs(float64(v) - float64(back))
		for _, nb := range []uint16{h + 1, h - 1} {
			if nb&0x7fff >= 0x7c00 || (h&0x7fff == 0 && nb&0x7fff != 1) {
				continue
			}
			dn := math.Abs(float64(v) - float64(F16ToF32(nb)))
			if dn < dv || dn == dv && nb&1 == 0 && nb>>15 == h>>15 {
				t.Fatalf("F32ToF16(%v) = %#04x, but %#04x is nearer or an even tie", v, h, nb)
			}
		}
	})
}

// TestBF16 checks the bfloat16 conversions: every bfloat16 round-trips,
// and F32ToBF16 rounds to nearest, ties to even, with overflow to ±Inf and
// NaNs kept NaNs.
func TestBF16(t *testing.T) {
	t.Parallel()
	for h := 0; h < 1<<16; h++ {
		f := BF16ToF32(uint16(h))
		if math.Float32bits(f) != uint32(h)<<16 {
			t.Fatalf("BF16ToF32(%#04x) = %#08x, want the top half", h, math.Float32bits(f))
		}
		back := F32ToBF16(f)
		if isNaN32(f) {
			if !isNaN32(BF16ToF32(back)) || back&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("NaN %#04x → %#04x, not a NaN of the same sign", h, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, f, back)
		}
	}
	cases := []struct {
		f    float32
		want uint16
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3f80}, {-2, 0xc000},
		{1 + 0x1p-8, 0x3f80},      // a tie between 1 and 1+2⁻⁷: even, 1
		{1 + 0x3p-8, 0x3f82},      // a tie between 1+2⁻⁷ and 1+2⁻⁶: even, up
		{1 + 0x1.02p-8, 0x3f81},   // just above the tie
		{math.MaxFloat32, 0x7f80}, // past the largest bfloat16 (0x7f7f) by more than half an ulp
		{0x1.fep127, 0x7f7f},      // the largest bfloat16
		{0x1.fefffep127, 0x7f7f},  // below the tie with Inf
		{0x1.ffp127, 0x7f80},      // the tie with Inf: even, Inf
		{float32(math.Inf(-1)), 0xff80},
		{0x1p-149, 0x0000}, // the smallest float32 subnormal rounds to 0
		{0x1p-133, 0x0001}, // the smallest bfloat16 subnormal
	}
	for _, c := range cases {
		if got := F32ToBF16(c.f); got != c.want {
			t.Errorf("F32ToBF16(%v) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
	for _, b := range []uint32{0x7f800001, 0xff800001, 0x7fc00000, 0x7fffffff} {
		if h := F32ToBF16(math.Float32frombits(b)); !isNaN32(BF16ToF32(h)) || uint32(h>>15) != b>>31 {
			t.Errorf("F32ToBF16(NaN %#08x) = %#04x, not a NaN of its sign", b, h)
		}
	}
}

// FuzzF32ToBF16 checks, for any float32, that the bfloat16 is the nearest
// one (ties to even; ±Inf past the largest by half an ulp) and that NaN
// stays NaN.
func FuzzF32ToBF16(f *testing.F) {
	for _, b := range []uint32{0, 0x80000000, 0x3f808000, 0x3f818000, 0x7f7f8000, 0x7f7fffff, 0x00008000, 0x7f800000, 0x7fc00000, 0xff800001} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b uint32) {
		v := math.Float32frombits(b)
		h := F32ToBF16(v)
		back := BF16ToF32(h)
		if isNaN32(v) {
			if !isNaN32(back) {
				t.Fatalf("NaN %#08x → %#04x, not a NaN", b, h)
			}
			return
		}
		// The two bfloat16s around v: its bits cut, and the next one up in
		// magnitude (Inf past the largest).
		lo := uint16(b >> 16)
		hi := lo + 1
		dlo := math.Abs(float64(v) - float64(BF16ToF32(lo)))
		var want uint16
		if lo&0x7fff == 0x7f80 { // v is ±Inf
			want = lo
		} else {
			dhi := math.Abs(float64(v) - float64(BF16ToF32(hi)))
			if hi&0x7fff == 0x7f80 {
				// Inf counts as the value 2^128 for the rounding.
				dhi = math.Abs(math.Abs(float64(v)) - 0x1p128)
			}
			switch {
			case dlo < dhi, dlo == dhi && lo&1 == 0:
				want = lo
			default:
				want = hi
			}
		}
		if h != want {
			t.Fatalf("F32ToBF16(%v) = %#04x, want %#04x", v, h, want)
		}
	})
}

// FuzzCompactMargins checks every implementation's byte and half margins
// and accumulation against the generic ones on fuzzed bytes.
func FuzzCompactMargins(f *testing.F) {
	f.Add([]byte{0, 255, 1, 128, 7, 9, 250, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(9), uint8(1))
	f.Add(make([]byte, 100), uint8(33), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, dd, fmtSel uint8) {
		d := int(dd)%40 + 1
		n := len(data) / d
		if n == 0 {
			return
		}
		x := Compact{Format: U8, U8: data[: n*d : n*d], Stride: d, Scale: 1.0 / 255}
		switch fmtSel % 3 {
		case 1:
			h := make([]uint16, n*d)
			for i := range h {
				h[i] = uint16(data[i])<<6 | uint16(data[(i+1)%len(data)]) // finite halves below 2^15
			}
			x = Compact{Format: F16, F16: h, Stride: d}
		case 2:
			h := make([]uint16, n*d)
			for i := range h {
				// Finite bfloat16s of magnitudes 2⁻³²…2³¹: exponents 95…158.
				h[i] = uint16(data[i]&0x80)<<8 | uint16(95+data[i]&0x3f)<<7 | uint16(data[(i+1)%len(data)]&0x7f)
			}
			x = Compact{Format: BF16, BF16: h, Stride: d}
		}
		r := rand.New(rand.NewPCG(uint64(len(data)), uint64(d)))
		w := make([]float32, d)
		fillRand(r, w)
		c := make([]float32, n)
		fillRand(r, c)
		want := make([]float32, n)
		Generic().F32().MarginsC(want, &x, nil, w)
		gw := make([]float32, d)
		Generic().F32().AddRowsC(gw, &x, nil, c)
		for _, im := range Impls() {
			m := make([]float32, n)
			im.F32().MarginsC(m, &x, nil, w)
			g := make([]float32, d)
			im.F32().AddRowsC(g, &x, nil, c)
			for i := range m {
				var abs float64
				for l := 0; l < d; l++ {
					abs += math.Abs(float64(CompactAt[float32](&x, i*d+l)) * float64(w[l]))
				}
				if !near(float64(m[i]), float64(want[i]), float64(d+3)*0x1p-24*abs*2) {
					t.Fatalf("%s MarginsC[%d] = %v, generic %v", im.Name(), i, m[i], want[i])
				}
			}
			for l := range g {
				var abs float64
				for i := 0; i < n; i++ {
					abs += math.Abs(float64(CompactAt[float32](&x, i*d+l)) * float64(c[i]))
				}
				if !near(float64(g[l]), float64(gw[l]), float64(n+3)*0x1p-24*abs*2) {
					t.Fatalf("%s AddRowsC[%d] = %v, generic %v", im.Name(), l, g[l], gw[l])
				}
			}
		}
	})
}
