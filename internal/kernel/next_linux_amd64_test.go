//go:build gc && !purego

package kernel

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestAddOuterKNextListEnd puts the prefetch list of AddOuterKNext at the
// end of a readable page, so that a read of next past its length faults,
// and runs the NX kernels of every level (the threshold of the prefetching
// variants lowered to zero) with lists shorter than, as long as and longer
// than the rows of a call and of a block (archOuterRowsK), against
// AddOuterK's bits.
func TestAddOuterKNextListEnd(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 16))
	const k, d, rows = 10, 100, 200
	for _, im := range retunedImpls(func(l *level) { l.streamBytes = 0 }) {
		ops := im.F32()
		x := make([]float32, rows*d)
		fillRand(r, x)
		for _, n := range []int{1, 7, 64, 65, 130} {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = r.IntN(rows)
			}
			c := make([]float32, n*k)
			fillRand(r, c)
			for _, nn := range []int{1, n / 2, n, n + 1} {
				if nn == 0 {
					continue
				}
				next := pageEndRows(t, r, nn, rows)
				want := make([]float32, k*d)
				got := make([]float32, k*d)
				ops.AddOuterK(want, x, d, idx, c, k)
				ops.AddOuterKNext(got, x, d, idx, c, k, next)
				for i := range want {
					if !sameFloat(got[i], want[i]) {
						t.Fatalf("%s n=%d next=%d: g[%d] = %v, want %v", im.Name(), n, nn, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// pageEndRows returns a prefetch list of nn random rows below rows that
// ends where an unreadable page starts (pageEnd), so that a kernel reading
// past it faults.
func pageEndRows(t *testing.T, r *rand.Rand, nn, rows int) []int {
	t.Helper()
	mem := pageEnd(t, nn*int(unsafe.Sizeof(int(0))))
	next := unsafe.Slice((*int)(unsafe.Pointer(&mem[0])), nn)
	for i := range next {
		next[i] = r.IntN(rows)
	}
	return next
}
