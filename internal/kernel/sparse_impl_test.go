package kernel

// Cross-implementation tests of the CSR kernels, as for the dense ones: every
// entry of Impls() in both precisions, row lengths 0..70 and a few long
// ones, columns 0 and d−1 and repeated columns in every row, the rows' entries
// at an offset into cols and vals (cut from NaN-filled buffers, with invalid
// column indices around them), w from a NaN-filled buffer (a NaN in a margin
// means a read outside a row or outside w), guard cells around m and g (a
// changed cell, a write outside). Margins are checked against the rounding
// bound of a dot product, (n+1)·u·Σ|v·w|; AddRows is bit-exact to the
// sequential loop, fused or unfused throughout. The assembly's calls are also
// cut small (a level's sparseBudget lowered), and the results must not depend on the
// cut.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sparseCase is a CSR matrix whose entries sit at an offset inside NaN-filled
// buffers, and weight vectors.
type sparseCase[T Float] struct {
	indptr []int64
	cols   []uint32
	vals   []T
	gv     guarded[T]
	n, d   int
}

// newSparseCase builds rows of the given lengths over d columns: each row of
// two entries or more holds column 0 and column d−1, about one entry in four
// repeats an earlier column of its row, and the rest are random. The entries
// start at entry off; the entries before and after are NaN with column index
// 0xffffffff.
func newSparseCase[T Float](r *rand.Rand, lens []int, d, off int) sparseCase[T] {
	nnz := 0
	for _, l := range lens {
		nnz += l
	}
	vals, gv := newGuarded[T](off+nnz+3, 0)
	cols := make([]uint32, off+nnz+3)
	for i := range cols {
		cols[i] = 0xffffffff
	}
	indptr := []int64{int64(off)}
	p := off
	for _, l := range lens {
		lo := p
		for e := 0; e < l; e++ {
			var c uint32
			switch {
			case e == 0:
				c = 0
			case e == l/2:
				c = uint32(d - 1)
			case e > 0 && r.IntN(4) == 0:
				c = cols[lo+r.IntN(e)]
			default:
				c = uint32(r.IntN(d))
			}
			cols[p] = c
			vals[p] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(5)-2))
			p++
		}
		// Shuffle the row so that columns 0 and d−1 and the repeats fall in
		// every lane.
		r.Shuffle(l, func(i, j int) {
			cols[lo+i], cols[lo+j] = cols[lo+j], cols[lo+i]
			vals[lo+i], vals[lo+j] = vals[lo+j], vals[lo+i]
		})
		indptr = append(indptr, int64(p))
	}
	return sparseCase[T]{indptr, cols, vals, gv, len(lens), d}
}

// rowOf returns row r's columns and values.
func (s *sparseCase[T]) rowOf(r int) ([]uint32, []T) {
	lo, hi := s.indptr[r], s.indptr[r+1]
	return s.cols[lo:hi], s.vals[lo:hi]
}

// sparseLens are the row lengths of the tests: 0..70, then long rows.
func sparseLens() []int {
	var l []int
	for n := 0; n <= 70; n++ {
		l = append(l, n)
	}
	return append(l, 127, 128, 129, 255, 1000)
}

func sparseIdxLists(r *rand.Rand, n int) [][]int {
	rev := make([]int, n)
	for i := range rev {
		rev[i] = n - 1 - i
	}
	rnd := make([]int, n+5)
	for i := range rnd {
		rnd[i] = r.IntN(n)
	}
	return [][]int{nil, rev, rnd}
}

func testSparseMarginsK[T Float](t *testing.T, ops Ops[T], k int) {
	r := rand.New(rand.NewPCG(uint64(k), 12))
	for _, d := range []int{1, 2, 7, 33, 1000} {
		for oi, off := range []int{0, 1, 3} {
			lens := sparseLens()
			r.Shuffle(len(lens), func(i, j int) { lens[i], lens[j] = lens[j], lens[i] })
			s := newSparseCase[T](r, lens, d, off)
			w, gw := newGuarded[T](k*d, oi)
			fillRand(r, w)
			for li, idx := range sparseIdxLists(r, s.n) {
				rows := s.n
				if idx != nil {
					rows = len(idx)
				}
				m, gm := newGuarded[T](rows*k, li)
				if k == 1 {
					ops.SparseMargins(m, s.indptr, s.cols, s.vals, idx, w)
				} else {
					ops.SparseMarginsK(m, s.indptr, s.cols, s.vals, idx, w, k)
				}
				gm.check(t, "SparseMargins m")
				for i := 0; i < rows; i++ {
					cs, vs := s.rowOf(row(idx, i))
					for j := 0; j < k; j++ {
						wv := make([]T, len(cs))
						for p, c := range cs {
							wv[p] = w[j*d+int(c)]
						}
						checkDot(t, fmt.Sprintf("SparseMargins k=%d d=%d off=%d list=%d row %d class %d", k, d, off, li, i, j), m[i*k+j], vs, wv)
					}
				}
			}
			gw.check(t, "SparseMargins w")
			s.gv.check(t, "SparseMargins vals")
		}
	}
}

func testSparseAddOuterK[T Float](t *testing.T, ops Ops[T], k int) {
	r := rand.New(rand.NewPCG(uint64(k), 13))
	for _, d := range []int{1, 2, 7, 33, 1000} {
		for oi, off := range []int{0, 1, 3} {
			lens := sparseLens()
			r.Shuffle(len(lens), func(i, j int) { lens[i], lens[j] = lens[j], lens[i] })
			s := newSparseCase[T](r, lens, d, off)
			for li, idx := range sparseIdxLists(r, s.n) {
				rows := s.n
				if idx != nil {
					rows = len(idx)
				}
				c, gc := newGuarded[T](rows*k, oi)
				fillRand(r, c)
				g, gg := newGuarded[T](k*d, li)
				fillRand(r, g)
				f := append([]T(nil), g...)
				u := append([]T(nil), g...)
				if k == 1 {
					ops.SparseAddRows(g, s.indptr, s.cols, s.vals, idx, c)
				} else {
					ops.SparseAddOuterK(g, s.indptr, s.cols, s.vals, idx, c, k)
				}
				for i := 0; i < rows; i++ {
					cs, vs := s.rowOf(row(idx, i))
					for j := 0; j < k; j++ {
						for p, col := range cs {
							l := j*d + int(col)
							f[l] = fmaT(c[i*k+j], vs[p], f[l])
							u[l] = mulAdd(c[i*k+j], vs[p], u[l])
						}
					}
				}
				for l := range g {
					if !sameFloat(g[l], f[l]) && !sameFloat(g[l], u[l]) {
						t.Fatalf("SparseAddRows k=%d d=%d off=%d list=%d: g[%d] = %v, want %v (fused) or %v", k, d, off, li, l, g[l], f[l], u[l])
					}
				}
				gg.check(t, "SparseAddRows g")
				gc.check(t, "SparseAddRows c")
			}
			s.gv.check(t, "SparseAddRows vals")
		}
	}
}

func TestSparseAgainstReference(t *testing.T) {
	t.Parallel()
	for _, k := range []int{1, 2, 3, 5} {
		forImpls(t, func(t *testing.T, im Impl) {
			testSparseMarginsK(t, im.F32(), k)
			testSparseAddOuterK(t, im.F32(), k)
		}, func(t *testing.T, im Impl) {
			testSparseMarginsK(t, im.F64(), k)
			testSparseAddOuterK(t, im.F64(), k)
		})
	}
}

// TestSparseSplit checks that the results do not depend on how the rows are
// cut into assembly calls: with the budget lowered (so calls stop every few
// rows, and rows longer than the budget take the generic loop), the whole
// minibatch gives the same bits as row by row. It also runs the kernels
// prefetching 0, 1 and 3 rows ahead.
func TestSparseSplit(t *testing.T) {
	t.Parallel()
	for bi, budget := range []int{defaultSparseBudget, 100, 33} {
		ims := retunedImpls(func(l *level) { l.sparseBudget, l.sparseAhead = budget, []int{0, 1, 3}[bi] })
		forEachImpl(t, append(ims, Generic()), func(t *testing.T, im Impl) {
			testSparseSplit(t, im.F32())
			testSparseMarginsK(t, im.F32(), 2)
			testSparseAddOuterK(t, im.F32(), 3)
		}, func(t *testing.T, im Impl) {
			testSparseSplit(t, im.F64())
			testSparseMarginsK(t, im.F64(), 1)
			testSparseAddOuterK(t, im.F64(), 1)
		})
	}
}

func testSparseSplit[T Float](t *testing.T, ops Ops[T]) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 3} {
		lens := sparseLens()
		s := newSparseCase[T](r, lens, 500, 2)
		w := make([]T, k*s.d)
		fillRand(r, w)
		idx := sparseIdxLists(r, s.n)[2]
		all := make([]T, len(idx)*k)
		ops.SparseMarginsK(all, s.indptr, s.cols, s.vals, idx, w, k)
		one := make([]T, k)
		for i := range idx {
			ops.SparseMarginsK(one, s.indptr, s.cols, s.vals, idx[i:i+1], w, k)
			for j := range one {
				if !sameFloat(one[j], all[i*k+j]) {
					t.Fatalf("k=%d row %d class %d: %v in the minibatch, %v alone", k, i, j, all[i*k+j], one[j])
				}
			}
		}
	}
}

// TestSparseBadInput checks that every implementation panics on a column
// index ≥ d, a row index out of range and inconsistent row offsets, as the
// generic loops do through Go's bounds checks.
func TestSparseBadInput(t *testing.T) {
	t.Parallel()
	for _, im := range Impls() {
		testSparseBad(t, im)
	}
}

func testSparseBad(t *testing.T, im Impl) {
	mustPanic := func(t *testing.T, what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		f()
	}
	{
		ops := im.F32()
		w := make([]float32, 8)
		m := make([]float32, 2)
		c := []float32{1, 1}
		good := []int64{0, 20, 40}
		cols := make([]uint32, 40)
		vals := make([]float32, 40)
		badCols := append([]uint32(nil), cols...)
		badCols[37] = 8
		for name, in := range map[string]struct {
			indptr []int64
			cols   []uint32
			idx    []int
		}{
			"column ≥ d":     {good, badCols, nil},
			"row ≥ nrows":    {good, cols, []int{0, 2}},
			"negative row":   {good, cols, []int{-1, 0}},
			"decreasing":     {[]int64{0, 30, 20}, cols, nil},
			"past the end":   {[]int64{0, 20, 41}, cols, nil},
			"too few rows":   {[]int64{0, 20}, cols, nil},
			"negative start": {[]int64{-1, 20, 40}, cols, nil},
		} {
			mustPanic(t, im.Name()+" SparseMargins "+name, func() { ops.SparseMargins(m, in.indptr, in.cols, vals, in.idx, w) })
			mustPanic(t, im.Name()+" SparseAddRows "+name, func() { ops.SparseAddRows(w, in.indptr, in.cols, vals, in.idx, c) })
			mm := make([]float32, 4)
			mustPanic(t, im.Name()+" SparseMarginsK "+name, func() { ops.SparseMarginsK(mm, in.indptr, in.cols, vals, in.idx, w, 2) })
			mustPanic(t, im.Name()+" SparseAddOuterK "+name, func() { ops.SparseAddOuterK(w, in.indptr, in.cols, vals, in.idx, mm, 2) })
		}
	}
}

// FuzzSparse runs the CSR kernels of every implementation on rows built from
// the input: its bytes give d, k, the row lengths and the column indices
// (repeats are common in small d); the values come from the same bytes as
// float64 bit patterns, finite and scaled. Margins must be within the dot
// product bound, the scatter-add bit-exact to the sequential loop.
func FuzzSparse(f *testing.F) {
	f.Add(uint8(7), uint8(1), []byte{3, 0, 6, 6, 40, 1, 2, 3, 4, 5}, floatsBytes(seedFloats...))
	f.Add(uint8(1), uint8(3), []byte{17, 0, 0, 0, 0}, floatsBytes(1, -1, 0.5, 1e300, -1e-300))
	f.Add(uint8(200), uint8(2), []byte{70, 199, 0, 199, 0, 33}, floatsBytes(2, 3, 4))
	f.Fuzz(func(t *testing.T, dd, kk uint8, shape, vb []byte) {
		d, k := int(dd)+1, int(kk)%4+1
		fuzzSparse[float32](t, d, k, shape, vb)
		fuzzSparse[float64](t, d, k, shape, vb)
	})
}

func fuzzSparse[T Float](t *testing.T, d, k int, shape, vb []byte) {
	vals0 := decode[T](vb, 1<<12, 1e3)
	if len(vals0) == 0 {
		vals0 = []T{1}
	}
	indptr := []int64{0}
	var cols []uint32
	var vals []T
	for ri := 0; ri < len(shape) && ri < 64; ri++ {
		l := int(shape[ri]) % 80
		for e := 0; e < l; e++ {
			c := 0
			if len(shape) > 0 {
				c = int(shape[(ri+e*7)%len(shape)]) * (e + 1)
			}
			cols = append(cols, uint32(c%d))
			vals = append(vals, vals0[(len(vals))%len(vals0)])
		}
		indptr = append(indptr, int64(len(cols)))
	}
	n := len(indptr) - 1
	if n == 0 {
		return
	}
	w := make([]T, k*d)
	c := make([]T, n*k)
	for i := range w {
		w[i] = vals0[(i*3+1)%len(vals0)]
	}
	for i := range c {
		c[i] = vals0[(i*5+2)%len(vals0)]
	}
	for _, im := range Impls() {
		ops := OpsOf[T](im)
		m := make([]T, n*k)
		ops.SparseMarginsK(m, indptr, cols, vals, nil, w, k)
		for i := 0; i < n; i++ {
			cs, vs := cols[indptr[i]:indptr[i+1]], vals[indptr[i]:indptr[i+1]]
			for j := 0; j < k; j++ {
				wv := make([]T, len(cs))
				for p, col := range cs {
					wv[p] = w[j*d+int(col)]
				}
				// Overflowing products make the bound meaningless.
				if _, abs := exactDot(vs, wv); abs < 1e30 {
					checkDot(t, im.Name()+" SparseMarginsK", m[i*k+j], vs, wv)
				}
			}
		}
		g := make([]T, k*d)
		fu, un := make([]T, k*d), make([]T, k*d)
		ops.SparseAddOuterK(g, indptr, cols, vals, nil, c, k)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				for p := indptr[i]; p < indptr[i+1]; p++ {
					l := j*d + int(cols[p])
					fu[l], un[l] = fmaT(c[i*k+j], vals[p], fu[l]), mulAdd(c[i*k+j], vals[p], un[l])
				}
			}
		}
		for l := range g {
			if !sameFloat(g[l], fu[l]) && !sameFloat(g[l], un[l]) {
				t.Fatalf("%s SparseAddOuterK: g[%d] = %v, want %v (fused) or %v", im.Name(), l, g[l], fu[l], un[l])
			}
		}
	}
}
