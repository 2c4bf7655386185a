//go:build gc && !purego

package kernel

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// avx512SparseImpl is the AVX2 implementation with its CSR entries pointed at
// the AVX-512 kernels: they are not part of an implementation yet, so they
// are tested here, directly, with the tests of every implementation.
func avx512SparseImpl(t *testing.T) Impl {
	// The kernels' scalar parts are VEX-encoded AVX and FMA3: the AVX2
	// implementation's features (off under GODEBUG=cpu.avx2=off too).
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512CD || !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("the AVX-512 CSR kernels need AVX-512F, AVX-512CD, AVX2 and FMA3, which this CPU lacks (or GODEBUG turned off)")
	}
	p := newImpl("avx512-sparse", isaBase)
	sparseOps(&p.f32, sparseAVX512)
	sparseOps(&p.f64, sparseAVX512)
	return Impl{p}
}

func TestSparseAVX512(t *testing.T) {
	im := avx512SparseImpl(t)
	saved, savedAhead := sparseBudget, sparseAhead
	defer func() { sparseBudget, sparseAhead = saved, savedAhead }()
	for bi, budget := range []int{saved, 100} {
		sparseBudget, sparseAhead = budget, []int{8, 1}[bi]
		for _, k := range []int{1, 2, 5} {
			t.Run("float32", func(t *testing.T) {
				testSparseMarginsK(t, im.F32(), k)
				testSparseAddOuterK(t, im.F32(), k)
				testSparseSplit(t, im.F32())
			})
			t.Run("float64", func(t *testing.T) {
				testSparseMarginsK(t, im.F64(), k)
				testSparseAddOuterK(t, im.F64(), k)
				testSparseSplit(t, im.F64())
			})
		}
	}
}

// TestSparseAVX512Bits checks that the AVX-512 scatter-add gives the AVX2
// kernel's bits (both are the fused sequential loop), with and without
// repeated columns within a step.
func TestSparseAVX512Bits(t *testing.T) {
	im := avx512SparseImpl(t)
	base, err := Lookup("avx2")
	if err != nil {
		t.Fatal(err)
	}
	testSparseSameAdd(t, base.F32(), im.F32())
	testSparseSameAdd(t, base.F64(), im.F64())
	testSparseBad(t, im)
}

func testSparseSameAdd[T Float](t *testing.T, a, b Ops[T]) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, d := range []int{3, 40, 5000, -5000} { // d = 3: a repeat in every step
		var s sparseCase[T]
		if d > 0 {
			s = newSparseCase[T](r, sparseLens(), d, 1)
		} else {
			// No repeats within a row: every full step is gather-FMA-scatter.
			d = -d
			s = sparseCase[T]{indptr: []int64{0}, n: 40, d: d}
			for i := 0; i < s.n; i++ {
				for _, c := range r.Perm(d)[:8*i] {
					s.cols = append(s.cols, uint32(c))
					s.vals = append(s.vals, T(2*r.Float64()-1))
				}
				s.indptr = append(s.indptr, int64(len(s.cols)))
			}
		}
		idx := sparseIdxLists(r, s.n)[2]
		c := make([]T, len(idx)*2)
		fillRand(r, c)
		ga, gb := make([]T, 2*d), make([]T, 2*d)
		fillRand(r, ga)
		copy(gb, ga)
		a.SparseAddOuterK(ga, s.indptr, s.cols, s.vals, idx, c, 2)
		b.SparseAddOuterK(gb, s.indptr, s.cols, s.vals, idx, c, 2)
		for l := range ga {
			if !sameFloat(ga[l], gb[l]) {
				t.Fatalf("d=%d: g[%d] = %v (AVX-512), %v (AVX2)", d, l, gb[l], ga[l])
			}
		}
	}
}
