//go:build gc && !purego && (amd64 || arm64)

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// pageEndCompact returns rows random rows of d features, stride apart, in
// format f and ending where a PROT_NONE page starts (pageEnd): bytes, or
// halves or bfloat16s of magnitudes 2⁻⁴…2⁴ with NaNs in the gaps between rows, so that
// a kernel that reads past a row or into a gap shows it.
func pageEndCompact(t *testing.T, r *rand.Rand, f Format, rows, d, stride int, scale float64) Compact {
	t.Helper()
	cnt := (rows-1)*stride + d
	x := Compact{Format: f, Stride: stride, Scale: scale}
	if f == U8 {
		x.U8 = pageEnd(t, cnt)
		for p := range x.U8 {
			x.U8[p] = uint8(r.IntN(256))
		}
		return x
	}
	mem := pageEnd(t, 2*cnt)
	h := unsafe.Slice((*uint16)(unsafe.Pointer(&mem[0])), cnt)
	round, nan := F32ToF16, uint16(0x7e00)
	if f == BF16 {
		round, nan = F32ToBF16, 0x7fc0
	}
	for p := range h {
		if p%stride < d {
			h[p] = round(float32((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(9)-4)))
		} else {
			h[p] = nan // NaN: a read of the gap shows
		}
	}
	if f == BF16 {
		x.BF16 = h
	} else {
		x.F16 = h
	}
	return x
}

// pageEnd returns n bytes that end where a PROT_NONE page starts, so that an
// assembly read past them faults; the mapping is released at the end of the
// test.
func pageEnd(t *testing.T, n int) []byte {
	t.Helper()
	page := os.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	return mem[size-page-n : size-page : size-page]
}

// TestCompactRowKernelsDirect runs the compact row kernels of every level
// this CPU has (compactRowLevels: on amd64 marginsU8F32 … at isaBase, their
// zmm twins at isaWide; on arm64 the NEON kernels) directly, for d every multiple of 8 up to 208 and long rows, 0 to 9 rows,
// consecutive and gathered (reversed, random with repeats), with the last
// row ending where an unreadable page starts (a read past it faults), NaN
// halves in the stride gaps of half rows, NaN after w and guard cells around
// m and g. AddRows must be bit for bit the fused multiply-adds of the stub's
// loop in row order; margins within the bound of a float32 sum. Then the
// drivers of both levels (d any, tails in Go) must accumulate bit for bit
// alike.
func TestCompactRowKernelsDirect(t *testing.T) {
	t.Parallel()
	if !archRowKernels(U8) {
		t.Skip("no compact row kernels")
	}
	lvls := compactRowLevels(t)
	r := rand.New(rand.NewPCG(11, 4))
	var dims []int
	for d := 8; d <= 208; d += 8 {
		dims = append(dims, d)
	}
	dims = append(dims, 784, 1000, 8200)
	for _, f := range []Format{U8, F16, BF16} {
		for _, d := range dims {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9} {
				if d > 1000 && n > 5 {
					continue
				}
				rows := n + 2
				stride := d + (d/8+n)%5
				x := pageEndCompact(t, r, f, rows, d, stride, 1)
				w, _ := newGuarded[float32](d, n%3)
				fillRand(r, w)
				for li, idx := range gatherLists(r, n, rows) {
					c := make([]float32, n)
					fillRand(r, c)
					g0 := make([]float32, d)
					fillRand(r, g0)
					// The stub's loop: fma(c[i], x, g) in row order.
					want := append([]float32(nil), g0...)
					for i, ci := range c {
						rr := row(idx, i) * stride
						for l := range want {
							want[l] = fma32(ci, raw(&x, rr+l), want[l])
						}
					}
					for _, lvl := range lvls {
						what := fmt.Sprintf("%v lvl=%d d=%d n=%d list=%d", f, lvl.isa, d, n, li)
						var xp, ip unsafe.Pointer
						if n > 0 {
							xp, ip = compactRowBase(&x, idx, 0)
						}
						m, gm := newGuarded[float32](n, li)
						if n > 0 {
							archMarginsC(lvl, f, ptr(m), n, xp, stride, ip, ptr(w), d)
						}
						gm.check(t, what+" margins m")
						for i := range m {
							rr := row(idx, i) * stride
							exact, abs := 0.0, 0.0
							for l := 0; l < d; l++ {
								p := float64(raw(&x, rr+l)) * float64(w[l])
								exact += p
								abs += math.Abs(p)
							}
							if bound := float64(d+1) * 0x1p-24 * abs; !(math.Abs(float64(m[i])-exact) <= bound) {
								t.Fatalf("%s margins: m[%d] = %v, exact %v (bound %g)", what, i, m[i], exact, bound)
							}
						}
						g, gg := newGuarded[float32](d, li)
						copy(g, g0)
						if n > 0 {
							archAddRowsC(lvl, f, ptr(g), d, xp, stride, ip, ptr(c), n)
						}
						gg.check(t, what+" addRows g")
						for l := range g {
							if math.Float32bits(g[l]) != math.Float32bits(want[l]) {
								t.Fatalf("%s addRows: g[%d] = %v, want %v (the fused loop)", what, l, g[l], want[l])
							}
						}
					}
				}
			}
		}
	}
	// The drivers, tails in Go included: both levels alike, bit for bit
	// (amd64 with AVX-512; arm64 has one level).
	if len(lvls) < 2 {
		return
	}
	for _, f := range []Format{U8, F16, BF16} {
		for d := 1; d <= 140; d++ {
			for _, n := range []int{1, 3, 4, 6, 70} {
				off := offsets[(d+n)%len(offsets)]
				x, _ := compactMatrix[float32](r, f, n+3, d+d%4, d, off)
				for li, idx := range gatherLists(r, n, n+3) {
					c := make([]float32, n)
					fillRand(r, c)
					g1 := make([]float32, d)
					fillRand(r, g1)
					g2 := append([]float32(nil), g1...)
					addRowsU8Rows(tunedLevel(isaBase), g1, &x, idx, 0, c)
					addRowsU8Rows(tunedLevel(isaWide), g2, &x, idx, 0, c)
					for l := range g1 {
						if math.Float32bits(g1[l]) != math.Float32bits(g2[l]) {
							t.Fatalf("%v d=%d n=%d list=%d: AddRowsC g[%d] zmm %v, ymm %v", f, d, n, li, l, g2[l], g1[l])
						}
					}
				}
			}
		}
	}
}
