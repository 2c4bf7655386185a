package kernel

// Tests of BiasReLU and ReLUBackward: every implementation against the
// generic reference, bit for bit, for h = 1..40 columns and some large ones
// (one above the driver's archChunk split), n = 1..9 and 64 rows, at several
// start offsets, on slices cut from NaN-filled buffers, with −0, +0, tiny
// negatives, ±Inf and NaN among the inputs.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reluEdges are the values the ReLU inputs are salted with. There is one NaN
// (all NaN inputs share its bits), so a NaN result has the same bits whichever
// operand a FADD propagates.
func reluEdges[T Float]() []T {
	tiny := math.SmallestNonzeroFloat64
	if isF32[T]() {
		tiny = math.SmallestNonzeroFloat32
	}
	return []T{
		0, T(math.Copysign(0, -1)), T(-tiny), T(tiny), T(-4 * tiny), 1, -1, -0.5,
		T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()),
	}
}

// fillReLU fills s with random values in [−8, 8), a quarter of them edge
// values.
func fillReLU[T Float](r *rand.Rand, s []T) {
	edges := reluEdges[T]()
	for i := range s {
		if r.IntN(4) == 0 {
			s[i] = edges[r.IntN(len(edges))]
			continue
		}
		s[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(7)-3))
	}
}

// checkSame fails unless got and want have the same bits; where anyNaN is
// set, a NaN want accepts any NaN (a sum that met NaNs of two different
// payloads propagates either, depending on operand order).
func checkSame[T Float](t testing.TB, what string, got, want []T, anyNaN bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", what, len(got), len(want))
	}
	for i := range want {
		if bitsOf(got[i]) == bitsOf(want[i]) || anyNaN && got[i] != got[i] && want[i] != want[i] {
			continue
		}
		t.Fatalf("%s: [%d] = %v (%#x), want %v (%#x)", what, i, got[i], bitsOf(got[i]), want[i], bitsOf(want[i]))
	}
}

// reluShape is one matrix shape: n rows of h columns.
type reluShape struct{ n, h int }

func reluShapes() []reluShape {
	var s []reluShape
	for h := 1; h <= 40; h++ {
		for n := 1; n <= 9; n++ {
			s = append(s, reluShape{n, h})
		}
		s = append(s, reluShape{64, h})
	}
	for _, n := range []int{1, 2, 7, 64} {
		s = append(s, reluShape{n, 100}, reluShape{n, 784})
	}
	// Above the driver's split: several column blocks (the last with a
	// tail), and rows taken in several calls.
	s = append(s, reluShape{1, archChunk*2 + 7232}, reluShape{3, archChunk*2 + 7232},
		reluShape{2, archChunk + 5}, reluShape{40, 1000}, reluShape{6000, 3})
	return s
}

func testBiasReLU[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(41, 42))
	for _, sh := range reluShapes() {
		n, h := sh.n, sh.h
		for _, off := range offsets {
			what := fmt.Sprintf("BiasReLU n=%d h=%d off=%d", n, h, off)
			z, gz := newGuarded[T](n*h, off)
			b, gbias := newGuarded[T](h, (off+3)%5)
			fillReLU(r, z)
			fillReLU(r, b)
			// Some sums exactly zero: z = −b gives +0, −0 + −0 gives −0.
			for l := range z {
				if j := l % h; r.IntN(8) == 0 && b[j] == b[j] {
					z[l] = -b[j]
				}
			}
			z0, b0 := append([]T(nil), z...), append([]T(nil), b...)
			want := append([]T(nil), z...)
			gen.BiasReLU(want, b0)
			ops.BiasReLU(z, b)
			checkSame(t, what+" z", z, want, false)
			checkSame(t, what+" b (unchanged)", b, b0, false)
			gz.check(t, what+" z")
			gbias.check(t, what+" b")
			// The generic reference is what the contract says.
			for l, v := range z0 {
				s := v + b0[l%h]
				if s <= 0 {
					s = 0
				}
				if bitsOf(want[l]) != bitsOf(s) {
					t.Fatalf("%s: generic [%d] = %v, want %v", what, l, want[l], s)
				}
				if want[l] == 0 && math.Signbit(float64(want[l])) {
					t.Fatalf("%s: [%d] = −0", what, l)
				}
			}
		}
	}
}

func testReLUBackward[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(43, 44))
	for _, sh := range reluShapes() {
		n, h := sh.n, sh.h
		for _, off := range offsets {
			what := fmt.Sprintf("ReLUBackward n=%d h=%d off=%d", n, h, off)
			extra := off % 3 // len(dh) ≥ len(a): the cells past len(a) stay
			a, ga := newGuarded[T](n*h, off)
			dh, gdh := newGuarded[T](n*h+extra, (off+2)%5)
			gb, ggb := newGuarded[T](h, (off+4)%5)
			fillReLU(r, a)
			fillReLU(r, dh)
			fillReLU(r, gb)
			a0 := append([]T(nil), a...)
			wantDh, wantGb := append([]T(nil), dh...), append([]T(nil), gb...)
			gen.ReLUBackward(wantGb, wantDh, a0)
			ops.ReLUBackward(gb, dh, a)
			checkSame(t, what+" dh", dh, wantDh, false)
			checkSame(t, what+" gb", gb, wantGb, true)
			checkSame(t, what+" a (unchanged)", a, a0, false)
			ga.check(t, what+" a")
			gdh.check(t, what+" dh")
			ggb.check(t, what+" gb")
			for l, v := range a0 {
				if v <= 0 && bitsOf(wantDh[l]) != 0 {
					t.Fatalf("%s: generic dh[%d] = %v where a = %v, want +0", what, l, wantDh[l], v)
				}
			}
		}
	}
}

func TestBiasReLU(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testBiasReLU(t, im.F32()) }, func(t *testing.T, im Impl) { testBiasReLU(t, im.F64()) })
}

func TestReLUBackward(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testReLUBackward(t, im.F32()) }, func(t *testing.T, im Impl) { testReLUBackward(t, im.F64()) })
}

// mustPanic fails unless f panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

func testReLUShapes[T Float](t *testing.T, ops Ops[T]) {
	// Not a whole number of rows, or rows of no columns.
	mustPanic(t, "BiasReLU len(z)=5 h=2", func() { ops.BiasReLU(make([]T, 5), make([]T, 2)) })
	mustPanic(t, "BiasReLU len(z)=3 h=0", func() { ops.BiasReLU(make([]T, 3), nil) })
	mustPanic(t, "ReLUBackward len(a)=5 h=2", func() { ops.ReLUBackward(make([]T, 2), make([]T, 5), make([]T, 5)) })
	mustPanic(t, "ReLUBackward len(a)=3 h=0", func() { ops.ReLUBackward(nil, make([]T, 3), make([]T, 3)) })
	// h = 0 with empty slices does nothing.
	ops.BiasReLU(nil, nil)
	ops.BiasReLU([]T{}, []T{})
	ops.ReLUBackward(nil, nil, nil)
	dh, g := newGuarded[T](0, 1)
	ops.ReLUBackward([]T{}, dh, []T{})
	g.check(t, "ReLUBackward h=0")
	// n = 0 rows of h > 0 columns leaves gb alone.
	gb := []T{1, T(math.Copysign(0, -1))}
	ops.ReLUBackward(gb, nil, nil)
	ops.BiasReLU(nil, gb)
	checkSame(t, "ReLUBackward n=0 gb", gb, []T{1, T(math.Copysign(0, -1))}, false)
}

func TestReLUShapes(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testReLUShapes(t, im.F32()) }, func(t *testing.T, im Impl) { testReLUShapes(t, im.F64()) })
}

// testReLUDefinition checks both kernels against ReLU's definition, not
// against the generic code, on the values where a mask goes wrong: NaN of
// either sign counts as positive (BiasReLU keeps a NaN, ReLUBackward keeps
// the gradient), ±0 and the subnormals of either sign decide by sign, and a
// zeroed result is +0. Seventeen columns reach the vector bodies and the
// masked tail alike.
func testReLUDefinition[T Float](t *testing.T, ops Ops[T]) {
	negNaN := T(math.Copysign(math.NaN(), -1))
	tiny := T(math.SmallestNonzeroFloat32)
	if !isF32[T]() {
		tiny = T(math.SmallestNonzeroFloat64)
	}
	vals := []T{negNaN, T(math.NaN()), 0, T(math.Copysign(0, -1)), tiny, -tiny,
		T(math.Inf(1)), T(math.Inf(-1)), 1, -1, 0.5, -3.25, T(math.MaxFloat32), -T(math.MaxFloat32), 2, -2, negNaN}
	h := len(vals)
	kept := func(v T) bool { return v != v || v > 0 }

	z := append([]T(nil), vals...)
	ops.BiasReLU(z, make([]T, h))
	for j, v := range vals {
		switch {
		case v != v:
			if z[j] == z[j] {
				t.Fatalf("BiasReLU(%v) = %v, want NaN", v, z[j])
			}
		case kept(v):
			if bitsOf(z[j]) != bitsOf(v) {
				t.Fatalf("BiasReLU(%v) = %v", v, z[j])
			}
		default:
			if bitsOf(z[j]) != 0 {
				t.Fatalf("BiasReLU(%v) = %v (%#x), want +0", v, z[j], bitsOf(z[j]))
			}
		}
	}

	dh := make([]T, 2*h)
	for i := range dh {
		dh[i] = T(i + 1)
	}
	a := append(append([]T(nil), vals...), vals...)
	gb := make([]T, h)
	ops.ReLUBackward(gb, dh, a)
	for i, v := range a {
		want := T(i + 1)
		if !kept(v) {
			want = 0
		}
		if bitsOf(dh[i]) != bitsOf(want) {
			t.Fatalf("ReLUBackward: a = %v: dh %v (%#x), want %v", v, dh[i], bitsOf(dh[i]), want)
		}
	}
	for j := range gb {
		if want := dh[j] + dh[h+j]; gb[j] != want {
			t.Fatalf("ReLUBackward: gb[%d] = %v, want %v", j, gb[j], want)
		}
	}
}

func TestReLUDefinition(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testReLUDefinition(t, im.F32()) }, func(t *testing.T, im Impl) { testReLUDefinition(t, im.F64()) })
}
