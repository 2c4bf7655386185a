package kernel

// Cross-implementation tests: every entry of Impls() against the generic
// reference, in both precisions, for every length 0..130 at several start
// offsets, on slices cut with 3-index slicing from NaN-filled buffers. A NaN
// in a result means an out-of-bounds read; a changed guard cell an
// out-of-bounds write. Elementwise arithmetic is compared bit-exactly (with
// the fused and the unfused evaluation of a multiply-add both accepted); a
// reduction within |got − exact| ≤ (n+1)·u·Σ|x_i y_i|; exp-based kernels
// within a stated number of ulps.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// ---- helpers -------------------------------------------------------------

func isF32[T Float]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

func typeName[T Float]() string {
	if isF32[T]() {
		return "float32"
	}
	return "float64"
}

// unitRoundoff is u = 2^−24 or 2^−53.
func unitRoundoff[T Float]() float64 {
	if isF32[T]() {
		return 0x1p-24
	}
	return 0x1p-53
}

func bitsOf[T Float](v T) uint64 {
	if isF32[T]() {
		return uint64(math.Float32bits(float32(v)))
	}
	return math.Float64bits(float64(v))
}

// guardValue is a quiet NaN with a payload: a guard cell that no longer holds
// exactly these bits was written.
func guardValue[T Float]() T {
	if isF32[T]() {
		return T(math.Float32frombits(0x7fc0beef))
	}
	return T(math.Float64frombits(0x7ff8dead0000beef))
}

// guarded is a NaN-filled buffer holding one test slice.
type guarded[T Float] struct {
	buf    []T
	lo, hi int
}

const guardCells = 19

// newGuarded returns a slice of n elements starting off cells into a
// NaN-filled buffer, with capacity n (3-index slicing), and its guard.
func newGuarded[T Float](n, off int) ([]T, guarded[T]) {
	buf := make([]T, guardCells+off+n+guardCells)
	nan := guardValue[T]()
	for i := range buf {
		buf[i] = nan
	}
	lo := guardCells + off
	return buf[lo : lo+n : lo+n], guarded[T]{buf, lo, lo + n}
}

// check reports any guard cell that changed.
func (g guarded[T]) check(t testing.TB, what string) {
	t.Helper()
	want := bitsOf(guardValue[T]())
	for i, v := range g.buf {
		if (i < g.lo || i >= g.hi) && bitsOf(v) != want {
			t.Fatalf("%s: guard cell %d (slice is [%d,%d)) overwritten with %v", what, i, g.lo, g.hi, v)
		}
	}
}

// fillRand fills s with values in [−1, 1) scaled by a random power of two in
// [2^−lo, 2^hi].
func fillRand[T Float](r *rand.Rand, s []T) {
	for i := range s {
		s[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(7)-3))
	}
}

// fma32 is a correctly rounded float32 fused multiply-add: the product is
// exact in float64, the sum is rounded to odd in float64 (53 ≥ 24+2 bits) and
// then to nearest float32, which rounds correctly.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	// TwoSum error of p + c.
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb)
	if e != 0 && !math.IsInf(s, 0) {
		u := math.Float64bits(s)
		if u&1 == 0 {
			if (e > 0) == (s > 0) {
				u++
			} else {
				u--
			}
			s = math.Float64frombits(u)
		}
	}
	return float32(s)
}

// fmaT is a correctly rounded a·b + c in T.
func fmaT[T Float](a, b, c T) T {
	if isF32[T]() {
		return T(fma32(float32(a), float32(b), float32(c)))
	}
	return T(math.FMA(float64(a), float64(b), float64(c)))
}

// mulAdd is c + a·b with the product rounded first (never fused).
func mulAdd[T Float](a, b, c T) T {
	p := T(a * b)
	return c + p
}

// sameFloat reports whether got and want are the same value, any NaN
// matching any NaN, with signed zeros distinguished.
func sameFloat[T Float](got, want T) bool {
	if got != got || want != want {
		return got != got && want != want
	}
	return bitsOf(got) == bitsOf(want)
}

// ulpOf returns the spacing of T's numbers at |v| (the subnormal spacing for
// tiny v).
func ulpOf[T Float](v float64) float64 {
	v = math.Abs(v)
	if isF32[T]() {
		if v < 0x1p-126 {
			return 0x1p-149
		}
		if v > math.MaxFloat32 {
			v = math.MaxFloat32
		}
		_, e := math.Frexp(v)
		return math.Ldexp(1, e-24)
	}
	if v < 0x1p-1022 {
		return 0x1p-1074
	}
	if v > math.MaxFloat64 {
		v = math.MaxFloat64
	}
	_, e := math.Frexp(v)
	return math.Ldexp(1, e-53)
}

// ulpDiff returns |got − want| in ulps of want in T; NaN matches NaN, equal
// infinities match, an infinity against a finite value is +Inf ulps.
func ulpDiff[T Float](got, want T) float64 {
	g, w := float64(got), float64(want)
	switch {
	case g != g || w != w:
		if g != g && w != w {
			return 0
		}
		return math.Inf(1)
	case g == w:
		return 0
	case math.IsInf(g, 0) || math.IsInf(w, 0):
		return math.Inf(1)
	}
	return math.Abs(g-w) / ulpOf[T](w)
}

// exactDot returns Σ x_i y_i, computed as if in twice float64's precision
// (Ogita–Rump–Oishi Dot2: error-free products and sums, the errors summed
// alongside) and then rounded, and Σ|x_i y_i|. Its error, about
// 2^−53·|Σ x_i y_i| + n·2^−106·Σ|x_i y_i|, is far below the bounds tested.
func exactDot[T Float](x, y []T) (dot, abs float64) {
	var s, c float64
	for i := range x {
		a, b := float64(x[i]), float64(y[i])
		p := a * b
		pe := math.FMA(a, b, -p)
		t := s + p
		z := t - s
		se := (s - (t - z)) + (p - z)
		s = t
		c += se + pe
		abs += math.Abs(p)
	}
	return s + c, abs
}

// checkDot checks got against the rounding bound of an n-term dot product,
// |got − exact| ≤ (n+1)·(u·Σ|x_i y_i| + η), η the smallest subnormal.
func checkDot[T Float](t testing.TB, what string, got T, x, y []T) {
	t.Helper()
	exact, abs := exactDot(x, y)
	// The relative bound, plus one smallest subnormal per rounding for the
	// absolute errors of results in the subnormal range.
	bound := float64(len(x)+1) * (unitRoundoff[T]()*abs + ulpOf[T](0))
	if d := math.Abs(float64(got) - exact); !(d <= bound) {
		t.Fatalf("%s: n=%d got %v, exact %v, |diff| %g > bound %g", what, len(x), got, exact, d, bound)
	}
}

// forImpls runs f for every implementation and both precisions.
func forImpls(t *testing.T, f32 func(t *testing.T, im Impl), f64 func(t *testing.T, im Impl)) {
	forEachImpl(t, Impls(), f32, f64)
}

// forEachImpl is forImpls over the implementations ims.
func forEachImpl(t *testing.T, ims []Impl, f32 func(t *testing.T, im Impl), f64 func(t *testing.T, im Impl)) {
	for _, im := range ims {
		t.Run(im.Name()+"/float32", func(t *testing.T) { f32(t, im) })
		t.Run(im.Name()+"/float64", func(t *testing.T) { f64(t, im) })
	}
}

// retunedImpls returns this CPU's assembly implementations (Impls less the
// generic one), each built anew at its level as tune changes it: smaller
// sizes send small inputs down the paths that large ones take.
func retunedImpls(tune func(*level)) []Impl {
	var ims []Impl
	for _, p := range impls {
		if p == generic {
			continue
		}
		lvl := p.lvl
		tune(&lvl)
		ims = append(ims, Impl{newImpl(p.name, lvl)})
	}
	return ims
}

var offsets = []int{0, 1, 2, 3, 5}

const maxLen = 130

// gatherLists returns index lists for n rows out of rows: nil (consecutive),
// reversed, and random with repeats.
func gatherLists(r *rand.Rand, n, rows int) [][]int {
	lists := [][]int{nil}
	if rows == 0 {
		return lists
	}
	rev := make([]int, n)
	rnd := make([]int, n)
	for i := range rev {
		rev[i] = (rows - 1 - i%rows)
		rnd[i] = r.IntN(rows)
	}
	if n > 2 {
		rnd[n-1] = rnd[0] // a repeat for sure
	}
	return append(lists, rev, rnd)
}

// matrix returns rows×stride values in a NaN-filled buffer, with the d
// leading columns of each row random and the stride gap left NaN.
func matrix[T Float](r *rand.Rand, rows, stride, d, off int) ([]T, guarded[T]) {
	n := 0
	if rows > 0 {
		n = (rows-1)*stride + d
	}
	x, g := newGuarded[T](n, off)
	for i := 0; i < rows; i++ {
		fillRand(r, x[i*stride:i*stride+d])
	}
	return x, g
}

// ---- Level 1 ---------------------------------------------------------------

func testDot[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= maxLen; n++ {
		for _, off := range offsets {
			x, gx := newGuarded[T](n, off)
			y, gy := newGuarded[T](n+off%2, 3-off%3) // len(y) ≥ len(x)
			fillRand(r, x)
			fillRand(r, y)
			got := ops.Dot(x, y)
			checkDot(t, fmt.Sprintf("Dot n=%d off=%d", n, off), got, x, y[:n])
			gx.check(t, "Dot x")
			gy.check(t, "Dot y")
		}
	}
}

func testAxpyLerp[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= maxLen; n++ {
		for _, off := range offsets {
			x, gx := newGuarded[T](n, off)
			y, gy := newGuarded[T](n+1, off+1)
			fillRand(r, x)
			fillRand(r, y)
			a := T(r.Float64()*4 - 2)
			y0 := append([]T(nil), y...)
			ops.Axpy(a, x, y)
			for i := range x {
				f, u := fmaT(a, x[i], y0[i]), mulAdd(a, x[i], y0[i])
				if !sameFloat(y[i], f) && !sameFloat(y[i], u) {
					t.Fatalf("Axpy n=%d off=%d: y[%d] = %v, want %v (fused) or %v", n, off, i, y[i], f, u)
				}
			}
			if n < len(y) && !sameFloat(y[n], y0[n]) {
				t.Fatalf("Axpy n=%d wrote y[%d] past len(x)", n, n)
			}
			copy(y, y0)
			ops.Lerp(a, x, y)
			for i := range x {
				d := x[i] - y0[i]
				f, u := fmaT(a, d, y0[i]), mulAdd(a, d, y0[i])
				if !sameFloat(y[i], f) && !sameFloat(y[i], u) {
					t.Fatalf("Lerp n=%d off=%d: y[%d] = %v, want %v (fused) or %v", n, off, i, y[i], f, u)
				}
			}
			gx.check(t, "x")
			gy.check(t, "y")
		}
	}
}

func TestDot(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testDot(t, im.F32()) }, func(t *testing.T, im Impl) { testDot(t, im.F64()) })
}

func TestAxpyLerp(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testAxpyLerp(t, im.F32()) }, func(t *testing.T, im Impl) { testAxpyLerp(t, im.F64()) })
}

// ---- Rows ------------------------------------------------------------------

var rowCounts = []int{0, 1, 3, 4, 5, 8, 9, 17}

func testMargins[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(5, 6))
	for d := 0; d <= maxLen; d++ {
		for _, n := range rowCounts {
			off := offsets[(d+n)%len(offsets)]
			rows := n + 2
			stride := d + (d+n)%4
			x, gx := matrix[T](r, rows, stride, d, off)
			w, gw := newGuarded[T](d, (off+1)%4)
			fillRand(r, w)
			for li, idx := range gatherLists(r, n, rows) {
				m, gm := newGuarded[T](n, off)
				ops.Margins(m, x, stride, idx, w)
				for i := range m {
					rr := row(idx, i)
					checkDot(t, fmt.Sprintf("Margins d=%d n=%d list=%d row %d", d, n, li, i), m[i], x[rr*stride:rr*stride+d], w)
				}
				gm.check(t, "Margins m")
			}
			gx.check(t, "Margins x")
			gw.check(t, "Margins w")
		}
	}
}

func testAddRows[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(7, 8))
	for d := 0; d <= maxLen; d++ {
		for _, n := range rowCounts {
			off := offsets[(d+n)%len(offsets)]
			rows := n + 2
			stride := d + (d+2*n)%3
			x, gx := matrix[T](r, rows, stride, d, off)
			c, gc := newGuarded[T](n, 2)
			fillRand(r, c)
			for li, idx := range gatherLists(r, n, rows) {
				g, gg := newGuarded[T](d, (off+li)%4)
				fillRand(r, g)
				g0 := append([]T(nil), g...)
				ops.AddRows(g, x, stride, idx, c)
				for l := range g {
					f, u := g0[l], g0[l]
					for i := range c {
						xv := x[row(idx, i)*stride+l]
						f, u = fmaT(c[i], xv, f), mulAdd(c[i], xv, u)
					}
					if !sameFloat(g[l], f) && !sameFloat(g[l], u) {
						t.Fatalf("AddRows d=%d n=%d list=%d: g[%d] = %v, want %v (fused) or %v", d, n, li, l, g[l], f, u)
					}
				}
				gg.check(t, "AddRows g")
			}
			gx.check(t, "AddRows x")
			gc.check(t, "AddRows c")
		}
	}
}

// testAddRowsK checks AddRowsK element by element against the multiply-adds
// over j in order, fused or not, for every width up to maxLen (whole
// groups of four registers, the rest, the masked tail), several class and
// row counts, with guard cells around g, x and c.
func testAddRowsK[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(17, 18))
	for d := 0; d <= maxLen; d++ {
		for _, k := range []int{1, 2, 3, 10} {
			for _, n := range []int{1, 2, 5} {
				off := offsets[(d+k+n)%len(offsets)]
				stride := d + (d+k)%3
				x, gx := matrix[T](r, k, stride, d, off)
				c, gc := newGuarded[T](n*k, (off+1)%4)
				fillRand(r, c)
				g, gg := newGuarded[T](n*d, (off+2)%4)
				fillRand(r, g)
				g0 := append([]T(nil), g...)
				ops.AddRowsK(g, x, stride, c, k)
				for i := 0; i < n; i++ {
					for l := 0; l < d; l++ {
						f, u := g0[i*d+l], g0[i*d+l]
						for j := 0; j < k; j++ {
							cv, xv := c[i*k+j], x[j*stride+l]
							f, u = fmaT(cv, xv, f), mulAdd(cv, xv, u)
						}
						if got := g[i*d+l]; !sameFloat(got, f) && !sameFloat(got, u) {
							t.Fatalf("AddRowsK d=%d k=%d n=%d: g[%d][%d] = %v, want %v (fused) or %v", d, k, n, i, l, got, f, u)
						}
					}
				}
				gg.check(t, "AddRowsK g")
				gx.check(t, "AddRowsK x")
				gc.check(t, "AddRowsK c")
			}
		}
	}
}

func TestAddRowsK(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testAddRowsK(t, im.F32()) }, func(t *testing.T, im Impl) { testAddRowsK(t, im.F64()) })
}

var classCounts = []int{1, 2, 3, 4, 5, 7, 9, 10, 11, 16, 20, 21}

var kDims = []int{0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 130}

func testMarginsK[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range classCounts {
		for _, d := range kDims {
			for _, n := range []int{0, 1, 3, 5, 8} {
				rows := n + 1
				stride := d + k%3
				off := (k + d) % 4
				x, gx := matrix[T](r, rows, stride, d, off)
				w, gw := newGuarded[T](k*d, off)
				fillRand(r, w)
				for li, idx := range gatherLists(r, n, rows) {
					m, gm := newGuarded[T](n*k, 1)
					ops.MarginsK(m, x, stride, idx, w, k)
					for i := 0; i < n; i++ {
						rr := row(idx, i)
						for j := 0; j < k; j++ {
							checkDot(t, fmt.Sprintf("MarginsK k=%d d=%d n=%d list=%d (%d,%d)", k, d, n, li, i, j),
								m[i*k+j], x[rr*stride:rr*stride+d], w[j*d:(j+1)*d])
						}
					}
					gm.check(t, "MarginsK m")
				}
				gx.check(t, "MarginsK x")
				gw.check(t, "MarginsK w")
			}
		}
	}
}

// testMarginsKBlocks runs MarginsK on rows long enough that an
// implementation may shrink its class blocks (the zmm kernel keeps a block's
// weights within 32 KiB) and over more rows than one call takes.
func testMarginsKBlocks[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, d := range []int{1000, 1531} {
		for _, k := range []int{4, 10, 13} {
			for _, n := range []int{1, 5, 70} {
				rows := n + 3
				stride := d + 1
				x, gx := matrix[T](r, rows, stride, d, 1)
				w, gw := newGuarded[T](k*d, 2)
				fillRand(r, w)
				for li, idx := range gatherLists(r, n, rows) {
					m, gm := newGuarded[T](n*k, 1)
					ops.MarginsK(m, x, stride, idx, w, k)
					for i := 0; i < n; i++ {
						rr := row(idx, i)
						for j := 0; j < k; j++ {
							checkDot(t, fmt.Sprintf("MarginsK blocks k=%d d=%d n=%d list=%d (%d,%d)", k, d, n, li, i, j),
								m[i*k+j], x[rr*stride:rr*stride+d], w[j*d:(j+1)*d])
						}
					}
					gm.check(t, "MarginsK m")
				}
				gx.check(t, "MarginsK x")
				gw.check(t, "MarginsK w")
			}
		}
	}
}

func testAddOuterK[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, k := range classCounts {
		for _, d := range kDims {
			for _, n := range []int{0, 1, 3, 5, 8, 13} {
				rows := n + 1
				stride := d + (k+1)%3
				off := (k + 2*d) % 4
				x, gx := matrix[T](r, rows, stride, d, off)
				c, gc := newGuarded[T](n*k, off)
				fillRand(r, c)
				for li, idx := range gatherLists(r, n, rows) {
					g, gg := newGuarded[T](k*d, 3)
					fillRand(r, g)
					g0 := append([]T(nil), g...)
					ops.AddOuterK(g, x, stride, idx, c, k)
					for j := 0; j < k; j++ {
						for l := 0; l < d; l++ {
							f, u := g0[j*d+l], g0[j*d+l]
							for i := 0; i < n; i++ {
								xv := x[row(idx, i)*stride+l]
								f, u = fmaT(c[i*k+j], xv, f), mulAdd(c[i*k+j], xv, u)
							}
							if got := g[j*d+l]; !sameFloat(got, f) && !sameFloat(got, u) {
								t.Fatalf("AddOuterK k=%d d=%d n=%d list=%d: g[%d] = %v, want %v (fused) or %v", k, d, n, li, j*d+l, got, f, u)
							}
						}
					}
					gg.check(t, "AddOuterK g")
				}
				gx.check(t, "AddOuterK x")
				gc.check(t, "AddOuterK c")
			}
		}
	}
}

func TestMargins(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testMargins(t, im.F32()) }, func(t *testing.T, im Impl) { testMargins(t, im.F64()) })
}

func TestAddRows(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testAddRows(t, im.F32()) }, func(t *testing.T, im Impl) { testAddRows(t, im.F64()) })
}

func TestMarginsK(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testMarginsK(t, im.F32()) }, func(t *testing.T, im Impl) { testMarginsK(t, im.F64()) })
}

func TestMarginsKBlocks(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testMarginsKBlocks(t, im.F32()) }, func(t *testing.T, im Impl) { testMarginsKBlocks(t, im.F64()) })
}

func TestAddOuterK(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testAddOuterK(t, im.F32()) }, func(t *testing.T, im Impl) { testAddOuterK(t, im.F64()) })
}

// testAddOuterKNext holds AddOuterKNext to AddOuterK's bits, for every
// class count, width and row count of testAddOuterK, rows listed or not,
// and prefetch lists (next) nil, empty, shorter than, as long as and longer
// than the call's rows, with rows anywhere in x and out of its range.
func testAddOuterKNext[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, k := range classCounts {
		for _, d := range kDims {
			for _, n := range []int{0, 1, 3, 5, 8, 13, 70} {
				rows := n + 1
				stride := d + (k+1)%3
				x, gx := matrix[T](r, rows, stride, d, 1)
				c := make([]T, n*k)
				fillRand(r, c)
				for li, idx := range gatherLists(r, n, rows) {
					for _, nn := range []int{-1, 0, n / 2, n, n + 3} {
						var next []int
						if nn >= 0 {
							next = make([]int, nn)
							for i := range next {
								next[i] = r.IntN(rows)
							}
							if nn > 0 {
								next[0] = int(min(uint64(1)<<40, math.MaxInt)) // far outside x: a prefetch, never a read
							}
						}
						want := make([]T, k*d)
						fillRand(r, want)
						g, gg := newGuarded[T](k*d, 2)
						copy(g, want)
						ops.AddOuterK(want, x, stride, idx, c, k)
						ops.AddOuterKNext(g, x, stride, idx, c, k, next)
						for i := range want {
							if !sameFloat(g[i], want[i]) {
								t.Fatalf("AddOuterKNext k=%d d=%d n=%d list=%d next=%d: g[%d] = %v, AddOuterK gives %v", k, d, n, li, nn, i, g[i], want[i])
							}
						}
						gg.check(t, "AddOuterKNext g")
					}
				}
				gx.check(t, "AddOuterKNext x")
			}
		}
	}
}

func TestAddOuterKNext(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testAddOuterKNext(t, im.F32()) }, func(t *testing.T, im Impl) { testAddOuterKNext(t, im.F64()) })
}

// ---- Elementwise -------------------------------------------------------------

// edgeValues are inputs every elementwise kernel sees.
var edgeValues = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1e-300, -1e-300, 5e-324, -5e-324, 1e-8, -1e-8,
	0.34657359027997264, -0.34657359027997264, 0.6931471805599453, -0.6931471805599453,
	20, -20, 40, -40, 88.7, -88.7, 103.9, -103.9, 709.7, -708.4, 709.79, -745.1, 710, -746, 800, -800,
	1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
}

// elemInputs returns n inputs: edge values first, then random values whose
// magnitudes span many binades.
func elemInputs[T Float](r *rand.Rand, x []T, scale float64) {
	for i := range x {
		if i < len(edgeValues) && r.IntN(2) == 0 {
			x[i] = T(edgeValues[(i*7)%len(edgeValues)])
			continue
		}
		x[i] = T((2*r.Float64() - 1) * math.Ldexp(scale, -r.IntN(12)))
	}
}

// maxUlp returns the ulp bound of exp-based results against the generic
// reference (which is within 1 ulp itself).
func expUlp[T Float]() float64 {
	if isF32[T]() {
		return 2
	}
	return 5
}

func testExpLog1p[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(13, 14))
	for n := 0; n <= maxLen; n++ {
		for _, off := range offsets {
			x, gx := newGuarded[T](n, off)
			elemInputs(r, x, 50)
			for _, f := range []struct {
				name      string
				got, want func(dst, x []T)
			}{{"Exp", ops.Exp, gen.Exp}, {"Log1p", ops.Log1p, gen.Log1p}} {
				dst, gd := newGuarded[T](n, (off+2)%5)
				want := make([]T, n)
				f.got(dst, x)
				f.want(want, x)
				for i := range x {
					if d := ulpDiff(dst[i], want[i]); d > expUlp[T]() {
						t.Fatalf("%s(%v) = %v, generic %v (%g ulp)", f.name, x[i], dst[i], want[i], d)
					}
				}
				gd.check(t, f.name+" dst")
			}
			gx.check(t, "x")
		}
	}
}

func TestExpLog1p(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testExpLog1p(t, im.F32()) }, func(t *testing.T, im Impl) { testExpLog1p(t, im.F64()) })
}

func testLinearLoss[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(15, 16))
	for _, kind := range []LossKind{Logistic, Squared, Absolute} {
		for n := 0; n <= maxLen; n++ {
			for _, off := range offsets {
				m, gm := newGuarded[T](n, off)
				y, gy := newGuarded[T](n, (off+1)%5)
				elemInputs(r, m, 30)
				for i := range y {
					if kind == Logistic && r.IntN(4) != 0 {
						y[i] = T(2*r.IntN(2) - 1)
					} else {
						y[i] = T(r.Float64()*6 - 3)
					}
				}
				loss, gl := newGuarded[T](n, (off+2)%5)
				dloss, gd := newGuarded[T](n, (off+3)%5)
				ops.LinearLoss(kind, loss, dloss, m, y)
				wl, wd := make([]T, n), make([]T, n)
				gen.LinearLoss(kind, wl, wd, m, y)
				for i := range m {
					if kind == Logistic {
						// The logistic loss is conditioned like exp in z = y·m.
						tol := expUlp[T]() * (1 + math.Abs(float64(y[i]*m[i])))
						if dl, dd := ulpDiff(loss[i], wl[i]), ulpDiff(dloss[i], wd[i]); dl > tol || dd > tol {
							t.Fatalf("Logistic(m=%v, y=%v) = %v, %v; generic %v, %v (%g, %g ulp)", m[i], y[i], loss[i], dloss[i], wl[i], wd[i], dl, dd)
						}
					} else if !sameFloat(loss[i], wl[i]) || !sameFloat(dloss[i], wd[i]) {
						t.Fatalf("kind %d (m=%v, y=%v) = %v, %v; generic %v, %v", kind, m[i], y[i], loss[i], dloss[i], wl[i], wd[i])
					}
				}
				gm.check(t, "m")
				gy.check(t, "y")
				gl.check(t, "loss")
				gd.check(t, "dloss")
			}
		}
	}
}

func TestLinearLoss(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testLinearLoss(t, im.F32()) }, func(t *testing.T, im Impl) { testLinearLoss(t, im.F64()) })
}

func testPlus[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(17, 18))
	for _, kind := range []PlusKind{PlusNone, PlusHinge, PlusSoftplus, PlusQuadratic} {
		for n := 0; n <= maxLen; n++ {
			for _, off := range offsets {
				eps := T([]float64{1e-3, 0.1, 0.5, 1, 3}[(n+off)%5])
				s, gs := newGuarded[T](n, off)
				elemInputs(r, s, 2)
				rho, gr := newGuarded[T](n, (off+1)%5)
				drho, gd := newGuarded[T](n, (off+2)%5)
				wr, wd := make([]T, n), make([]T, n)
				gen.Plus(kind, eps, wr, wd, s)
				var rr, dd []T // nil, nil cases alternate
				switch n % 3 {
				case 0:
					rr, dd = rho, drho
				case 1:
					rr = rho
				case 2:
					dd = drho
				}
				ops.Plus(kind, eps, rr, dd, s)
				for i := range s {
					gotR, gotD := wr[i], wd[i]
					if rr != nil {
						gotR = rr[i]
					}
					if dd != nil {
						gotD = dd[i]
					}
					if kind == PlusSoftplus {
						tol := expUlp[T]() * (1 + math.Abs(float64(s[i]/eps)))
						if a, b := ulpDiff(gotR, wr[i]), ulpDiff(gotD, wd[i]); a > tol || b > tol {
							t.Fatalf("Softplus(%v, eps=%v) = %v, %v; generic %v, %v (%g, %g ulp)", s[i], eps, gotR, gotD, wr[i], wd[i], a, b)
						}
					} else if !sameFloat(gotR, wr[i]) || !sameFloat(gotD, wd[i]) {
						t.Fatalf("Plus kind %d (%v, eps=%v) = %v, %v; generic %v, %v", kind, s[i], eps, gotR, gotD, wr[i], wd[i])
					}
				}
				if rr == nil {
					for i := range rho {
						if !sameFloat(rho[i], guardValue[T]()) {
							t.Fatalf("Plus wrote rho though it was nil")
						}
					}
				}
				gs.check(t, "s")
				gr.check(t, "rho")
				gd.check(t, "drho")
			}
		}
	}
}

func TestPlus(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testPlus(t, im.F32()) }, func(t *testing.T, im Impl) { testPlus(t, im.F64()) })
}

// testSlowLanes puts one input whose e = exp(−|t|) is below float32's
// normal range (the float32 kernels' slow path, taken per register) at every
// position of a 40-element slice (two 16-lane registers and a tail), the
// other lanes moderate and every lane different, and checks the logistic
// loss and softplus against the generic reference: a result taken from the
// wrong lane or half of a register would be orders of magnitude off.
func testSlowLanes[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	const n = 40
	const eps = 0.5
	for p := 0; p < n; p++ {
		m, y, s := make([]T, n), make([]T, n), make([]T, n)
		for i := range m {
			m[i] = T(0.1 * float64(i+1) * float64(1-2*(i%2)))
			y[i] = T(1 + 0.25*float64(i%3))
			s[i] = T(eps * 0.05 * float64(i-n/2))
		}
		big := 88 + 0.5*float64(p)
		m[p] = T(big / float64(y[p]))
		s[p] = T(-big * eps)
		loss, dl, wl, wd := make([]T, n), make([]T, n), make([]T, n), make([]T, n)
		ops.LinearLoss(Logistic, loss, dl, m, y)
		gen.LinearLoss(Logistic, wl, wd, m, y)
		for i := range m {
			tol := expUlp[T]() * (1 + math.Abs(float64(y[i]*m[i])))
			if a, b := ulpDiff(loss[i], wl[i]), ulpDiff(dl[i], wd[i]); a > tol || b > tol {
				t.Fatalf("slow lane %d: Logistic(m=%v, y=%v) at %d = %v, %v; generic %v, %v", p, m[i], y[i], i, loss[i], dl[i], wl[i], wd[i])
			}
		}
		rho, dr, wr, wdr := make([]T, n), make([]T, n), make([]T, n), make([]T, n)
		ops.Plus(PlusSoftplus, eps, rho, dr, s)
		gen.Plus(PlusSoftplus, eps, wr, wdr, s)
		for i := range s {
			tol := expUlp[T]() * (1 + math.Abs(float64(s[i]/eps)))
			if a, b := ulpDiff(rho[i], wr[i]), ulpDiff(dr[i], wdr[i]); a > tol || b > tol {
				t.Fatalf("slow lane %d: Softplus(%v) at %d = %v, %v; generic %v, %v", p, s[i], i, rho[i], dr[i], wr[i], wdr[i])
			}
		}
	}
}

func TestSlowLanes(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testSlowLanes(t, im.F32()) }, func(t *testing.T, im Impl) { testSlowLanes(t, im.F64()) })
}

// checkSoftmax compares one implementation's SoftmaxCE result with the
// generic's: losses within 8(k+4)·u·(|loss| + |z_y − max| + 1), gradient
// entries within 8(k+4)·u absolutely (they lie in [−1, 1]).
func checkSoftmax[T Float](t testing.TB, what string, z0, gotZ, wantZ, gotL, wantL []T, label []int32, k int) {
	t.Helper()
	u := unitRoundoff[T]()
	tol := 8 * float64(k+4) * u
	for i := range gotL {
		zi := z0[i*k : (i+1)*k]
		mx := math.Inf(-1)
		for _, v := range zi {
			mx = math.Max(mx, float64(v))
		}
		scale := math.Abs(float64(wantL[i])) + math.Abs(float64(zi[label[i]])-mx) + 1
		if !sameFloat(gotL[i], wantL[i]) && !(math.Abs(float64(gotL[i]-wantL[i])) <= tol*scale) {
			t.Fatalf("%s: row %d loss %v, generic %v", what, i, gotL[i], wantL[i])
		}
		for j := i * k; j < (i+1)*k; j++ {
			if !sameFloat(gotZ[j], wantZ[j]) && !(math.Abs(float64(gotZ[j]-wantZ[j])) <= tol) {
				t.Fatalf("%s: row %d grad[%d] %v, generic %v", what, i, j-i*k, gotZ[j], wantZ[j])
			}
		}
	}
}

func testSoftmaxCE[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(19, 20))
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 10, 16, 33} {
		for n := 0; n <= 9; n++ {
			off := (n + k) % 4
			z, gz := newGuarded[T](n*k, off)
			for i := range z {
				z[i] = T((2*r.Float64() - 1) * 20)
			}
			if n > 1 {
				for j := 0; j < k; j++ {
					z[j] = 3 // a row of equal logits
				}
				z[k] = 800 // one dominant logit
			}
			label := make([]int32, n)
			for i := range label {
				label[i] = int32(r.IntN(k))
			}
			if n > 0 {
				label[n-1] = int32(k - 1) // in the last register's lanes (a tail for most k)
			}
			if n > 4 {
				label[3] = int32(k - 1) // the same in a block of four rows
			}
			z0 := append([]T(nil), z...)
			wz := append([]T(nil), z...)
			loss, gl := newGuarded[T](n, (off+1)%4)
			wl := make([]T, n)
			ops.SoftmaxCE(loss, z, label, k)
			gen.SoftmaxCE(wl, wz, label, k)
			checkSoftmax(t, fmt.Sprintf("SoftmaxCE k=%d n=%d", k, n), z0, z, wz, loss, wl, label, k)
			gz.check(t, "z")
			gl.check(t, "loss")
		}
	}
}

func TestSoftmaxCE(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testSoftmaxCE(t, im.F32()) }, func(t *testing.T, im Impl) { testSoftmaxCE(t, im.F64()) })
}

// ---- Fused step --------------------------------------------------------------

// fusedCases are the step parameters the fused tests use.
func fusedCases[T Float]() []LinearStep[T] {
	var cs []LinearStep[T]
	for _, loss := range []LossKind{Logistic, Squared, Absolute} {
		for _, plus := range []PlusKind{PlusNone, PlusHinge, PlusSoftplus, PlusQuadratic} {
			cs = append(cs, LinearStep[T]{Loss: loss, Plus: plus, Bias: 0.25, Tau: 0.3, InvL: 0.5, Eps: 0.2, Scale: 0.01})
		}
	}
	return cs
}

// composeLinear is FusedLinear spelled out with the implementation's own
// kernels: it must give what FusedLinear gives, up to the rounding of the
// scalar glue.
func composeLinear[T Float](ops Ops[T], g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	n := len(loss)
	m, dl, s, v, c := make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n)
	ops.Margins(m, x, stride, idx, w)
	for i := range m {
		m[i] += p.Bias
	}
	ops.LinearLoss(p.Loss, loss, dl, m, y)
	for i := range s {
		s[i] = loss[i]*p.InvL - p.Tau
	}
	ops.Plus(p.Plus, p.Eps, nil, v, s)
	for i := range c {
		c[i] = p.Scale * v[i] * dl[i]
		sumV += v[i]
		sumC += c[i]
	}
	ops.AddRows(g, x, stride, idx, c)
	return sumV, sumC
}

func testFusedLinear[T Float](t *testing.T, ops Ops[T]) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(21, 22))
	u := unitRoundoff[T]()
	for ci, p := range fusedCases[T]() {
		for _, d := range []int{0, 1, 3, 8, 15, 16, 17, 40, 100, 130, 300} {
			for _, n := range []int{0, 1, 5, 16, 17, 40} {
				rows := n + 3
				stride := d + ci%3
				x, gx := matrix[T](r, rows, stride, d, ci%4)
				w := make([]T, d)
				fillRand(r, w)
				for i := range w {
					w[i] /= T(math.Sqrt(float64(d + 1)))
				}
				y := make([]T, n)
				for i := range y {
					y[i] = T(2*r.IntN(2) - 1)
				}
				for li, idx := range gatherLists(r, n, rows) {
					what := fmt.Sprintf("FusedLinear case %d d=%d n=%d list=%d", ci, d, n, li)
					g, gg := newGuarded[T](d, li)
					fillRand(r, g)
					g0 := append([]T(nil), g...)
					loss, gl := newGuarded[T](n, 2)
					sv, sc := ops.FusedLinear(g, loss, x, stride, idx, y, w, &p)
					gg.check(t, "g")
					gl.check(t, "loss")

					// Against the same implementation's kernels, composed.
					g2 := append([]T(nil), g0...)
					l2 := make([]T, n)
					sv2, sc2 := composeLinear(ops, g2, l2, x, stride, idx, y, w, &p)
					tight := 64 * u
					near := func(a, b, scale T) bool {
						return sameFloat(a, b) || math.Abs(float64(a-b)) <= tight*(math.Abs(float64(scale))+1)
					}
					for i := range loss {
						if !near(loss[i], l2[i], l2[i]) {
							t.Fatalf("%s: loss[%d] %v, composed %v", what, i, loss[i], l2[i])
						}
					}
					if !near(sv, sv2, T(n)) || !near(sc, sc2, T(n)) {
						t.Fatalf("%s: sums %v %v, composed %v %v", what, sv, sc, sv2, sc2)
					}
					for l := range g {
						if !near(g[l], g2[l], 1) {
							t.Fatalf("%s: g[%d] %v, composed %v", what, l, g[l], g2[l])
						}
					}

					// Against the generic reference, within the rounding of d-term
					// dot products propagated through a Lipschitz loss and weight.
					g3 := append([]T(nil), g0...)
					l3 := make([]T, n)
					sv3, sc3 := gen.FusedLinear(g3, l3, x, stride, idx, y, w, &p)
					loose := 256 * float64(d+16) * u
					far := func(a, b, scale T) bool {
						return !sameFloat(a, b) && !(math.Abs(float64(a-b)) <= loose*(math.Abs(float64(scale))+1))
					}
					for i := range loss {
						if far(loss[i], l3[i], l3[i]) {
							t.Fatalf("%s: loss[%d] %v, generic %v", what, i, loss[i], l3[i])
						}
					}
					if p.Plus != PlusHinge && (far(sv, sv3, T(n)) || far(sc, sc3, T(n))) {
						t.Fatalf("%s: sums %v %v, generic %v %v", what, sv, sc, sv3, sc3)
					}
					for l := range g {
						if p.Plus != PlusHinge && far(g[l], g3[l], 1) {
							t.Fatalf("%s: g[%d] %v, generic %v", what, l, g[l], g3[l])
						}
					}
				}
				gx.check(t, "x")
			}
		}
	}
}

func TestFusedLinear(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testFusedLinear(t, im.F32()) }, func(t *testing.T, im Impl) { testFusedLinear(t, im.F64()) })
}

// ---- The reference itself -------------------------------------------------------

// TestGenericReference checks the formulas of every implementation (the
// generic one first of all) against their definitions.
func TestGenericReference(t *testing.T) {
	t.Parallel()
	for _, im := range Impls() {
		ops := im.F64()
		t.Run(im.Name(), func(t *testing.T) {
			// Logistic loss against log(1+e^{−z}) in 200-bit arithmetic.
			ms := []float64{-800, -40, -3, -1, -1e-9, 0, 1e-9, 0.5, 1, 3, 40, 700}
			for _, y := range []float64{1, -1} {
				loss, dl := make([]float64, len(ms)), make([]float64, len(ms))
				ops.LinearLoss(Logistic, loss, dl, ms, []float64{y, y, y, y, y, y, y, y, y, y, y, y})
				for i, m := range ms {
					want := bigLogistic(-y * m)
					if d := ulpDiff(loss[i], want); d > 4 {
						t.Errorf("logistic(m=%v, y=%v) = %v, want %v (%g ulp)", m, y, loss[i], want, d)
					}
					ws := -y * bigSigmoid(-y*m)
					if d := ulpDiff(dl[i], ws); d > 4 {
						t.Errorf("logistic'(m=%v, y=%v) = %v, want %v (%g ulp)", m, y, dl[i], ws, d)
					}
				}
			}
			// Softmax probabilities sum to 1 and the loss is −log p_y.
			k := 7
			z := []float64{1, -2, 3, 0.5, 0.5, -7, 2}
			z0 := append([]float64(nil), z...)
			loss := []float64{0}
			ops.SoftmaxCE(loss, z, []int32{2}, k)
			sum := 0.0
			for j := range z {
				p := z[j]
				if j == 2 {
					p++
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-15 {
				t.Errorf("softmax probabilities sum to %v", sum)
			}
			if want := -math.Log(z[2] + 1); math.Abs(loss[0]-want) > 1e-15 {
				t.Errorf("softmax loss %v, −log p_y %v", loss[0], want)
			}
			// ... and both are those of the logits: p_j = e^{z_j − lse(z)},
			// loss = lse(z) − z_y.
			mx := math.Inf(-1)
			for _, v := range z0 {
				mx = math.Max(mx, v)
			}
			lse := 0.0
			for _, v := range z0 {
				lse += math.Exp(v - mx)
			}
			lse = mx + math.Log(lse)
			for j := range z {
				p := z[j]
				if j == 2 {
					p++
				}
				if want := math.Exp(z0[j] - lse); math.Abs(p-want) > 1e-15 {
					t.Errorf("softmax p_%d = %v, want %v", j, p, want)
				}
			}
			if want := lse - z0[2]; math.Abs(loss[0]-want) > 1e-14 {
				t.Errorf("softmax loss %v, want lse − z_y = %v", loss[0], want)
			}
			// Smoothed plus functions: continuity at ±ε, bounds [s]_+ ≤ ρ ≤ [s]_+ + ε.
			for _, eps := range []float64{0.01, 0.5, 2} {
				for _, s := range []float64{-eps, eps} {
					ss := []float64{math.Nextafter(s, math.Inf(-1)), s, math.Nextafter(s, math.Inf(1))}
					rho, drho := make([]float64, 3), make([]float64, 3)
					ops.Plus(PlusQuadratic, eps, rho, drho, ss)
					for i := 1; i < 3; i++ {
						if math.Abs(rho[i]-rho[0]) > 4e-16*(1+eps) || math.Abs(drho[i]-drho[0]) > 1e-15 {
							t.Errorf("quadratic plus discontinuous at %v (eps %v): %v %v", s, eps, rho, drho)
						}
					}
				}
				ss := []float64{-10, -1, -0.1, 0, 0.1, 1, 10}
				for _, kind := range []PlusKind{PlusSoftplus, PlusQuadratic} {
					rho, drho := make([]float64, len(ss)), make([]float64, len(ss))
					ops.Plus(kind, eps, rho, drho, ss)
					for i, s := range ss {
						pos := math.Max(s, 0)
						if rho[i] < pos-1e-15 || rho[i] > pos+eps+1e-15 || drho[i] < 0 || drho[i] > 1 {
							t.Errorf("plus kind %d at %v (eps %v): ρ=%v ρ'=%v out of bounds", kind, s, eps, rho[i], drho[i])
						}
					}
				}
			}
			// Hinge subgradient uses t = 0 at s = 0.
			rho, drho := make([]float64, 3), make([]float64, 3)
			ops.Plus(PlusHinge, 1, rho, drho, []float64{-1, 0, 2})
			if rho[0] != 0 || rho[1] != 0 || rho[2] != 2 || drho[0] != 0 || drho[1] != 0 || drho[2] != 1 {
				t.Errorf("hinge: %v %v", rho, drho)
			}
		})
	}
}

// ---- Dispatch ------------------------------------------------------------------

// TestFastPathSelected fails when the CPU supports a SIMD implementation of
// this architecture, the build allows assembly and GODEBUG does not disable the
// features (x/sys/cpu honours GODEBUG=cpu.avx2=off etc.), but the default
// implementation is another: a silent fallback must not pass as a fast path.
func TestFastPathSelected(t *testing.T) {
	t.Parallel()
	want := ""
	switch runtime.GOARCH {
	case "amd64":
		if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
			want = "avx2"
			// AVX-512 is the default where 512-bit FMA is full width
			// (the table, tested by TestFullWidthTable; AMD Zen 5 checked
			// here independently of it).
			if expectWide() {
				want = "avx512"
			}
			if !puregoBuild && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2 &&
				cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family >= 0x1a && want != "avx512" {
				t.Fatal("AMD family 0x1a or later with AVX-512 is not taken as full width")
			}
		}
	case "arm64":
		if cpu.ARM64.HasASIMD {
			want = "neon"
		}
	}
	if puregoBuild {
		want = ""
	}
	if env := os.Getenv("CVAR_KERNEL"); env != "" {
		if _, err := Lookup(env); err == nil {
			want = env
		}
	}
	names := []string{}
	for _, im := range Impls() {
		names = append(names, im.Name())
	}
	if last := Impls()[len(Impls())-1]; last != Generic() {
		t.Fatalf("last implementation is %q, want generic", last.Name())
	}
	if want == "" {
		t.Logf("no fast path expected here (GOARCH %s, purego %v); implementations %v", runtime.GOARCH, puregoBuild, names)
		if puregoBuild && Default() != Generic() {
			t.Fatalf("purego build uses %q", Default().Name())
		}
		return
	}
	if Default().Name() != want {
		_, why, _ := Choice()
		t.Fatalf("CPU supports %q but the default implementation is %q (available: %v; %s)", want, Default().Name(), names, why)
	}
	if im, err := Lookup(want); err != nil || im != Default() {
		t.Fatalf("Lookup(%q) = %v, %v; want the default", want, im, err)
	}
	if For[float32]() != Default().F32() || For[float64]() != Default().F64() {
		t.Fatal("For does not return the default tables")
	}
}

// ---- Allocations ---------------------------------------------------------------

func allocsFor[T Float](t *testing.T, name string, ops Ops[T]) {
	d, n, k := 100, 37, 5
	x := make([]T, n*d)
	w := make([]T, k*d)
	g := make([]T, k*d)
	m := make([]T, n*k)
	c := make([]T, n*k)
	y := make([]T, n)
	loss := make([]T, n)
	dl := make([]T, n)
	idx := make([]int, n)
	label := make([]int32, n)
	for i := range idx {
		idx[i] = (i * 7) % n
		y[i] = 1
	}
	for i := range x {
		x[i] = T(i%13) / 13
	}
	p := LinearStep[T]{Loss: Logistic, Plus: PlusSoftplus, InvL: 1, Eps: 0.1, Scale: 0.01}
	z := make([]T, n*k)
	cases := map[string]func(){
		"Dot":         func() { ops.Dot(x[:d], w[:d]) },
		"Axpy":        func() { ops.Axpy(0.5, x[:d], g[:d]) },
		"Lerp":        func() { ops.Lerp(0.5, x[:d], g[:d]) },
		"Margins":     func() { ops.Margins(m[:n], x, d, idx, w[:d]) },
		"AddRows":     func() { ops.AddRows(g[:d], x, d, idx, c[:n]) },
		"MarginsK":    func() { ops.MarginsK(m, x, d, idx, w, k) },
		"AddOuterK":   func() { ops.AddOuterK(g, x, d, nil, c, k) },
		"LinearLoss":  func() { ops.LinearLoss(Logistic, loss, dl, m[:n], y) },
		"SoftmaxCE":   func() { copy(z, m); ops.SoftmaxCE(loss, z, label, k) },
		"Plus":        func() { ops.Plus(PlusSoftplus, 0.1, nil, dl, loss) },
		"Exp":         func() { ops.Exp(dl, m[:n]) },
		"Log1p":       func() { ops.Log1p(dl, loss) },
		"FusedLinear": func() { ops.FusedLinear(g[:d], loss, x, d, idx, y, w[:d], &p) },
	}
	for kn, f := range cases {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s %s %s: %v allocations per call", name, typeName[T](), kn, a)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	for _, im := range Impls() {
		allocsFor(t, im.Name(), im.F32())
		allocsFor(t, im.Name(), im.F64())
	}
}

// TestLongRows uses rows longer than any column block an implementation may
// split them into, in both precisions.
func TestLongRows(t *testing.T) {
	t.Parallel()
	forImpls(t, func(t *testing.T, im Impl) { testLongRows(t, im.F32()) }, func(t *testing.T, im Impl) { testLongRows(t, im.F64()) })
}

func testLongRows[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(41, 42))
	const d, n, rows = 33031, 6, 7
	stride := d + 3
	x, gx := matrix[T](r, rows, stride, d, 1)
	for li, idx := range gatherLists(r, n, rows) {
		for _, k := range []int{1, 4} {
			w, gw := newGuarded[T](k*d, 2)
			fillRand(r, w)
			m, gm := newGuarded[T](n*k, 3)
			ops.MarginsK(m, x, stride, idx, w, k)
			for i := 0; i < n; i++ {
				rr := row(idx, i)
				for j := 0; j < k; j++ {
					checkDot(t, fmt.Sprintf("long MarginsK k=%d list=%d", k, li), m[i*k+j], x[rr*stride:rr*stride+d], w[j*d:(j+1)*d])
				}
			}
			if k == 1 {
				ops.Margins(m, x, stride, idx, w)
				for i := 0; i < n; i++ {
					rr := row(idx, i)
					checkDot(t, fmt.Sprintf("long Margins list=%d", li), m[i], x[rr*stride:rr*stride+d], w)
				}
			}
			gm.check(t, "m")
			gw.check(t, "w")
			c := make([]T, n*k)
			fillRand(r, c)
			g, gg := newGuarded[T](k*d, 1)
			fillRand(r, g)
			g0 := append([]T(nil), g...)
			if k == 1 {
				ops.AddRows(g, x, stride, idx, c)
			} else {
				ops.AddOuterK(g, x, stride, idx, c, k)
			}
			for j := 0; j < k; j++ {
				for l := 0; l < d; l++ {
					if l%97 != 0 && l%(1<<14) > 3 && l%(1<<14) < (1<<14)-3 && l < d-5 {
						continue // spot checks, and every power-of-two block boundary
					}
					f, u := g0[j*d+l], g0[j*d+l]
					for i := 0; i < n; i++ {
						xv := x[row(idx, i)*stride+l]
						f, u = fmaT(c[i*k+j], xv, f), mulAdd(c[i*k+j], xv, u)
					}
					if got := g[j*d+l]; !sameFloat(got, f) && !sameFloat(got, u) {
						t.Fatalf("long accumulation k=%d list=%d: g[%d] = %v, want %v or %v", k, li, j*d+l, got, f, u)
					}
				}
			}
			gg.check(t, "g")
		}
	}
	gx.check(t, "x")
}

func TestLookup(t *testing.T) {
	t.Parallel()
	for _, im := range Impls() {
		got, err := Lookup(im.Name())
		if err != nil || got != im {
			t.Errorf("Lookup(%q) = %v, %v; want %v", im.Name(), got, err, im)
		}
	}
	if im, err := Lookup("no-such-kernel"); err == nil || im != (Impl{}) {
		t.Errorf("Lookup of an unknown name = %v, %v; want an error", im, err)
	} else if !strings.Contains(err.Error(), "generic") {
		t.Errorf("Lookup's error %q does not list the available implementations", err)
	}
}

// TestOverride checks the CVAR_KERNEL choice: a name available here wins, a
// bad value leaves the architecture's choice and is reported, never a panic.
func TestOverride(t *testing.T) {
	t.Parallel()
	arch, _ := archDefault(impls)
	for _, im := range Impls() {
		c := chooseDefault(im.Name())
		if got := (Impl{c.im}); got != im || c.note != "" || !strings.Contains(c.why, im.Name()) {
			t.Errorf("CVAR_KERNEL=%s: got %v (%q, %q)", im.Name(), got, c.why, c.note)
		}
	}
	for _, bad := range []string{"no-such", "AVX2 ", "\x00"} {
		c := chooseDefault(bad)
		if c.im != arch || !strings.Contains(c.note, "ignored") {
			t.Errorf("CVAR_KERNEL=%q: got %v, note %q; want %v and a note", bad, Impl{c.im}, c.note, Impl{arch})
		}
	}
	if c := chooseDefault(""); c.im != arch || c.note != "" {
		t.Errorf("no CVAR_KERNEL: got %v, %q; want %v", Impl{c.im}, c.note, Impl{arch})
	}
}

// TestDefaultReadsEnvOnFirstUse checks that the default is chosen when it is
// first asked for, from CVAR_KERNEL as it is then, and never again.
func TestDefaultReadsEnvOnFirstUse(t *testing.T) {
	t.Parallel()
	env, reads := "", 0
	def := newDefault(func(key string) string {
		if key != "CVAR_KERNEL" {
			t.Errorf("read %q, want CVAR_KERNEL", key)
		}
		reads++
		return env
	})
	if reads != 0 {
		t.Fatal("CVAR_KERNEL read before the default was asked for")
	}
	env = "generic"
	if c := def(); c.im != generic || c.why != "CVAR_KERNEL=generic" {
		t.Errorf("CVAR_KERNEL=generic set before the first call: got %v (%q)", Impl{c.im}, c.why)
	}
	env = "no-such"
	if c := def(); c.im != generic || c.note != "" || reads != 1 {
		t.Errorf("the choice changed after the first call: %v, note %q, %d reads", Impl{c.im}, c.note, reads)
	}
}
