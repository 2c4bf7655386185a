//go:build gc && !purego

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// classKDims are the row lengths the compact class-kernel tests take: every
// tail of a 16-lane and of an 8-lane register, whole registers and
// two-register chunks, and MNIST-sized rows.
var classKDims = []int{1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 21, 26, 29, 31, 32, 33, 47, 48, 63, 64, 65, 127, 128, 129, 784, 800}

// TestCompactClassKernelsDirect runs the zmm class kernels on compact rows
// (zMarginsKU8F32, zAddOuterKU8F32 and the F16 and BF16 ones, plain and prefetching,
// through archMarginsKC and archAddOuterKC) for every class count 1..10,
// d of every tail, 0 to 8 rows, consecutive and gathered, with the last row
// ending where an unreadable page starts (a read past a row faults), NaN
// halves in the stride gaps, guard cells around m, w and g and an output
// slot (class c of k = c+1) the kernel must leave alone. Margins must equal
// the generic reference within the bound of a float32 sum and the float32
// zmm kernel on the converted matrix bit for bit (the kernels' contract);
// AddOuterK must be bit for bit the fused loop of the stub in row order, on
// a column strip from l on as the driver calls it.
//
// The ymm kernels (marginsKU8F32, …, at isaBase) are tested the same way on
// rows of at least 8 features (what classKernelsC gives them), for class
// counts 1..5.
func TestCompactClassKernelsDirect(t *testing.T) {
	t.Parallel()
	lvls := []isa{isaBase}
	if hasAVX512() {
		lvls = append(lvls, isaWide)
	} else {
		t.Log("no AVX-512: the zmm class kernels are not run")
	}
	for _, lvl := range lvls {
		testClassKernelsDirect(t, tunedLevel(lvl))
	}
}

// testClassKernelsDirect runs the class kernels of lvl's instruction set
// both as lvl has them and with their prefetching variants on every matrix
// (streamBytes zero).
func testClassKernelsDirect(t *testing.T, lvl level) {
	r := rand.New(rand.NewPCG(12, 5))
	for _, f := range []Format{U8, F16, BF16} {
		if !archClassKernelsC(lvl, f) {
			t.Logf("%v: no direct class kernels", f)
			continue
		}
		for _, d := range classKDims {
			if !classKernelsC(lvl, f, d, archClassBlock(lvl)) {
				continue
			}
			for _, n := range []int{0, 1, 2, 3, 4, 5, 8} {
				rows := n + 2
				stride := d + (d+n)%5
				cnt := (rows-1)*stride + d
				x := pageEndCompact(t, r, f, rows, d, stride, 1.0/255)
				xd := make([]float32, cnt) // the converted matrix
				for p := range xd {
					xd[p] = value[float32](&x, p)
				}
				// Gathered lists, and the consecutive rows 2..n+1, whose
				// last ends at the page.
				lists := gatherLists(r, n, rows)
				starts := make([]int, len(lists))
				lists, starts = append(lists, nil), append(starts, 2)
				for c := 1; c <= archClassBlock(lvl); c++ {
					k := c + 1
					w, gw := newGuarded[float32](c*d, c%3)
					fillRand(r, w)
					for li, idx := range lists {
						i0 := starts[li]
						for _, pf := range []bool{false, true} {
							at := lvl
							if pf {
								at.streamBytes = 0
							}
							what := fmt.Sprintf("lvl=%d %v d=%d n=%d c=%d list=%d pf=%v", lvl.isa, f, d, n, c, li, pf)
							testClassKMargins(t, at, what, &x, xd, idx, i0, n, w, d, c, k)
							gw.check(t, what+" w")
							testClassKOuter(t, at, r, what, &x, xd, idx, i0, n, d, c, k)
						}
					}
				}
			}
		}
	}
}

// testClassKMargins checks archMarginsKC on rows i0.. of x (gathered by idx)
// against the generic reference and the float32 kernel on xd.
func testClassKMargins(t *testing.T, lvl level, what string, x *Compact, xd []float32, idx []int, i0, n int, w []float32, d, c, k int) {
	t.Helper()
	m, gm := newGuarded[float32](n*k, c%4)
	if n > 0 {
		archMarginsKC(lvl, true, ptr(m), k, n, x, idx, i0, ptr(w), d, c)
	}
	gm.check(t, what+" margins m")
	rows := make([]int, n)
	for i := range rows {
		rows[i] = row(idx, i0+i)
	}
	want := make([]float32, n*c)
	marginsKCGeneric(want, x, rows, w, c)
	m2 := make([]float32, n*k)
	if n > 0 {
		archMarginsK(lvl, false, ptr(m2), k, n, xd, x.Stride, idx, i0, ptr(w), d, c)
	}
	for i, rr := range rows {
		if b := math.Float32bits(m[i*k+c]); b != math.Float32bits(guardValue[float32]()) {
			t.Fatalf("%s margins: m[%d][%d], past the block's classes, written: %v", what, i, c, m[i*k+c])
		}
		for j := 0; j < c; j++ {
			exact, abs := 0.0, 0.0
			for l := 0; l < d; l++ {
				p := float64(xd[rr*x.Stride+l]) * float64(w[j*d+l])
				exact += p
				abs += math.Abs(p)
			}
			bound := float64(d+1) * 0x1p-24 * abs
			got := float64(m[i*k+j])
			if !(math.Abs(got-exact) <= bound) || !(math.Abs(got-float64(want[i*c+j])) <= 2*bound) {
				t.Fatalf("%s margins: m[%d][%d] = %v, generic %v, exact %v (bound %g)", what, i, j, got, want[i*c+j], exact, bound)
			}
			if math.Float32bits(m[i*k+j]) != math.Float32bits(m2[i*k+j]) {
				t.Fatalf("%s margins: m[%d][%d] = %v, the float32 kernel on the converted rows %v", what, i, j, m[i*k+j], m2[i*k+j])
			}
		}
	}
}

// testClassKOuter checks archAddOuterKC on the columns l.. of rows i0.. of x
// (l = 0, then a strip further on) against the fused loop on xd and the
// generic reference.
func testClassKOuter(t *testing.T, lvl level, r *rand.Rand, what string, x *Compact, xd []float32, idx []int, i0, n, d, c, k int) {
	t.Helper()
	cs := make([]float32, n*k)
	fillRand(r, cs)
	for _, l := range []int{0, d / 3} {
		cols := d - l
		g, gg := newGuarded[float32](c*d, (c+l)%4)
		fillRand(r, g)
		g0 := append([]float32(nil), g...)
		if n > 0 && cols > 0 {
			archAddOuterKC(lvl, true, ptr(g[l:]), d, x, idx, i0, l, ptr(cs), k, n, cols, c)
		}
		gg.check(t, what+" addOuterK g")
		// The generic reference on the whole rows, for the bound.
		rows := make([]int, n)
		cg := make([]float32, n*c)
		for i := range rows {
			rows[i] = row(idx, i0+i)
			copy(cg[i*c:(i+1)*c], cs[i*k:i*k+c])
		}
		gen := append([]float32(nil), g0...)
		addOuterKCGeneric(gen, x, rows, cg, c)
		for j := 0; j < c; j++ {
			for col := 0; col < d; col++ {
				p := j*d + col
				want := g0[p]
				if col >= l {
					for i, rr := range rows {
						want = fma32(cs[i*k+j], xd[rr*x.Stride+col], want)
					}
				}
				if math.Float32bits(g[p]) != math.Float32bits(want) {
					t.Fatalf("%s addOuterK l=%d: g[%d][%d] = %v, want %v (the fused loop)", what, l, j, col, g[p], want)
				}
				if col < l {
					continue
				}
				abs := math.Abs(float64(g0[p]))
				for i, rr := range rows {
					abs += math.Abs(float64(cs[i*k+j]) * float64(xd[rr*x.Stride+col]))
				}
				// Each of the two sums rounds n times (and the generic its
				// products too), each error within 2⁻²⁴ of its magnitude.
				if bound := float64(2*n+2) * 0x1p-24 * abs; !(math.Abs(float64(g[p])-float64(gen[p])) <= bound) {
					t.Fatalf("%s addOuterK l=%d: g[%d][%d] = %v, generic %v (bound %g)", what, l, j, col, g[p], gen[p], bound)
				}
			}
		}
	}
}

// TestCompactClassDrivers runs MarginsKC and AddOuterKC of every
// implementation this CPU has for every class count 1..12 (two class blocks
// past 10), row blocks of several calls and long rows: against the same
// implementation's float32 MarginsK and AddOuterK on the converted matrix
// (bit for bit where they block alike: AddOuterK always, MarginsK from 4
// classes on) and against the generic reference within the bound.
func TestCompactClassDrivers(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 6))
	dims := []int{1, 7, 8, 15, 16, 17, 63, 64, 65, 129, 784, 800}
	for _, im := range Impls() {
		ops := im.F32()
		for _, f := range []Format{U8, F16, BF16} {
			for _, d := range dims {
				for _, n := range []int{1, 5, 70, 131} {
					if d > 200 && n > 70 {
						continue
					}
					x, xd := compactMatrix[float32](r, f, n+3, d+d%3, d, d%4)
					idx := gatherLists(r, n, n+3)[2]
					for k := 1; k <= 12; k++ {
						what := fmt.Sprintf("%s %v d=%d n=%d k=%d", im.Name(), f, d, n, k)
						w := make([]float32, k*d)
						fillRand(r, w)
						m, gm := newGuarded[float32](n*k, k%3)
						ops.MarginsKC(m, &x, idx, w, k)
						gm.check(t, what+" MarginsKC m")
						m2 := make([]float32, n*k)
						ops.MarginsK(m2, xd, x.Stride, idx, w, k)
						want := make([]float32, n*k)
						marginsKCGeneric(want, &x, idx, w, k)
						for i := range m {
							if k >= 4 && math.Float32bits(m[i]) != math.Float32bits(m2[i]) {
								t.Fatalf("%s MarginsKC[%d] = %v, float32 path %v", what, i, m[i], m2[i])
							}
							rr, j := idx[i/k], i%k
							xr, wj := xd[rr*x.Stride:rr*x.Stride+d], w[j*d:(j+1)*d]
							checkDotC(t, what+" MarginsKC", m[i], xr, wj)
							// Both within the bound of the exact sum.
							_, abs := exactDot(xr, wj)
							if bound := 2 * float64(d+3) * 0x1p-24 * abs; !(math.Abs(float64(m[i])-float64(want[i])) <= bound) {
								t.Fatalf("%s MarginsKC[%d] = %v, generic %v (bound %g)", what, i, m[i], want[i], bound)
							}
						}
						c := make([]float32, n*k)
						fillRand(r, c)
						g, gg := newGuarded[float32](k*d, k%4)
						fillRand(r, g)
						g2 := append([]float32(nil), g...)
						ops.AddOuterKC(g, &x, idx, c, k)
						gg.check(t, what+" AddOuterKC g")
						ops.AddOuterK(g2, xd, x.Stride, idx, c, k)
						for i := range g {
							if math.Float32bits(g[i]) != math.Float32bits(g2[i]) {
								t.Fatalf("%s AddOuterKC[%d] = %v, float32 path %v", what, i, g[i], g2[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestCompactClassKernelsSelected fails when avx512 or avx2 runs MarginsKC
// and AddOuterKC of MNIST's rows and ten classes without the direct class
// kernels, so that a silent fallback to the conversion buffer does not pass
// as the fast path.
func TestCompactClassKernelsSelected(t *testing.T) {
	t.Parallel()
	for _, i := range []isa{isaBase, isaWide} {
		lvl := tunedLevel(i)
		if !classKernelsC(lvl, U8, 784, 10) || !classKernelsC(lvl, BF16, 784, 10) || hasF16C && !classKernelsC(lvl, F16, 784, 10) {
			t.Fatalf("lvl %d runs the compact class products without the direct kernels", i)
		}
		if classKernelsC(lvl, U8, 7, 10) {
			t.Fatalf("lvl %d: rows of 7 features taken by the direct kernels, which need 8", i)
		}
	}
	if !classKernelsC(tunedLevel(isaWide), U8, 784, 100) || classKernelsC(tunedLevel(isaBase), U8, 784, 100) {
		t.Fatal("100 classes: direct in zmm, converted in ymm expected")
	}
}

// TestCompactAddOuterKCNext holds AddOuterKCNext to AddOuterKC's bits on
// every implementation, bytes and halves, with the threshold of the
// prefetching variants lowered to zero (so the NX class kernels run), for
// widths across the column strips and tails, row counts across blocks,
// class counts across class blocks, and prefetch lists short, as long as
// the rows and longer, holding a row far outside x, each ending where an
// unreadable page starts (a read past the list faults).
func TestCompactAddOuterKCNext(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(17, 18))
	for _, im := range retunedImpls(func(l *level) { l.streamBytes = 0 }) {
		ops := im.F32()
		for _, f := range []Format{U8, F16, BF16} {
			for _, d := range []int{8, 17, 64, 129, 784} {
				for _, n := range []int{1, 5, 70} {
					x, _ := compactMatrix[float32](r, f, n+3, d+d%3, d, d%4)
					idx := gatherLists(r, n, n+3)[2]
					for _, k := range []int{3, 10, 12} {
						c := make([]float32, n*k)
						fillRand(r, c)
						for _, nn := range []int{1, n / 2, n, n + 2} {
							if nn == 0 {
								continue
							}
							next := pageEndRows(t, r, nn, n+3)
							next[0] = 1 << 40
							want := make([]float32, k*d)
							fillRand(r, want)
							g, gg := newGuarded[float32](k*d, k%4)
							copy(g, want)
							ops.AddOuterKC(want, &x, idx, c, k)
							ops.AddOuterKCNext(g, &x, idx, c, k, next)
							gg.check(t, "AddOuterKCNext g")
							for i := range g {
								if math.Float32bits(g[i]) != math.Float32bits(want[i]) {
									t.Fatalf("%s %v d=%d n=%d k=%d next=%d: AddOuterKCNext[%d] = %v, AddOuterKC %v", im.Name(), f, d, n, k, nn, i, g[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	}
}
