package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randCSR returns n random CSR rows of d columns: some rows empty, some with
// repeated columns, values in [−1, 1).
func randCSR(rng *rand.Rand, n, d int) (indptr []int64, cols []uint32, vals []float64) {
	indptr = []int64{0}
	for r := 0; r < n; r++ {
		nnz := 0
		if r%5 != 3 { // every fifth row empty
			nnz = rng.IntN(2*d + 1)
		}
		for range nnz {
			c := uint32(rng.IntN(d))
			if len(cols) > int(indptr[r]) && rng.IntN(4) == 0 {
				c = cols[len(cols)-1] // a repeated column
			}
			cols = append(cols, c)
			vals = append(vals, 2*rng.Float64()-1)
		}
		indptr = append(indptr, int64(len(cols)))
	}
	return indptr, cols, vals
}

// denseOf sums the CSR entries into an n×d matrix.
func denseOf(indptr []int64, cols []uint32, vals []float64, n, d int) []float64 {
	x := make([]float64, n*d)
	for r := 0; r < n; r++ {
		for p := indptr[r]; p < indptr[r+1]; p++ {
			x[r*d+int(cols[p])] += vals[p]
		}
	}
	return x
}

func toT[T Float](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

const sparseGuard = 3

func guardedOut[T Float](n int) ([]T, []T) {
	buf := make([]T, n+2*sparseGuard)
	for i := range buf {
		buf[i] = 12345
	}
	return buf, buf[sparseGuard : sparseGuard+n : sparseGuard+n]
}

func checkGuards[T Float](t *testing.T, what string, buf []T, n int) {
	t.Helper()
	for i := 0; i < sparseGuard; i++ {
		if buf[i] != 12345 || buf[sparseGuard+n+i] != 12345 {
			t.Fatalf("%s: a sparseGuard cell around the output changed", what)
		}
	}
}

func testSparse[T Float](t *testing.T, ops Ops[T], tol float64) {
	rng := rand.New(rand.NewPCG(7, uint64(tol*1e20)))
	for _, n := range []int{1, 2, 5, 17, 64} {
		for _, d := range []int{1, 3, 8, 33} {
			indptr, cols, v64 := randCSR(rng, n, d)
			vals := toT[T](v64)
			x := denseOf(indptr, cols, widen(vals), n, d)
			w64 := make([]float64, d)
			for j := range w64 {
				w64[j] = T2(T(2*rng.Float64() - 1))
			}
			w := toT[T](w64)
			for _, useIdx := range []bool{false, true} {
				var idx []int
				rows := n
				if useIdx {
					rows = n + 3
					idx = make([]int, rows)
					for i := range idx {
						idx[i] = rng.IntN(n)
					}
				}
				// Margins against the dense rows.
				buf, m := guardedOut[T](rows)
				ops.SparseMargins(m, indptr, cols, vals, idx, w)
				checkGuards(t, "SparseMargins", buf, rows)
				for i := 0; i < rows; i++ {
					r := row(idx, i)
					var want, abs float64
					for j := 0; j < d; j++ {
						want += x[r*d+j] * w64[j]
					}
					for p := indptr[r]; p < indptr[r+1]; p++ {
						abs += math.Abs(float64(vals[p]) * w64[cols[p]])
					}
					if math.Abs(float64(m[i])-want) > tol*(abs+1e-300)*float64(2*d+2) {
						t.Fatalf("n=%d d=%d idx=%v: m[%d] = %v, want %v", n, d, useIdx, i, m[i], want)
					}
				}
				// AddRows against the dense rows, g starting non-zero.
				c64 := make([]float64, rows)
				for i := range c64 {
					c64[i] = T2(T(2*rng.Float64() - 1))
				}
				c := toT[T](c64)
				gbuf, g := guardedOut[T](d)
				for j := range g {
					g[j] = T(j) / 8
				}
				ops.SparseAddRows(g, indptr, cols, vals, idx, c)
				checkGuards(t, "SparseAddRows", gbuf, d)
				for j := 0; j < d; j++ {
					want, abs := float64(j)/8, float64(j)/8
					for i := 0; i < rows; i++ {
						r := row(idx, i)
						want += c64[i] * x[r*d+j]
						for p := indptr[r]; p < indptr[r+1]; p++ {
							if int(cols[p]) == j {
								abs += math.Abs(c64[i] * float64(vals[p]))
							}
						}
					}
					if math.Abs(float64(g[j])-want) > tol*(abs+1e-300)*float64(2*d*rows+2) {
						t.Fatalf("n=%d d=%d idx=%v: g[%d] = %v, want %v", n, d, useIdx, j, g[j], want)
					}
				}
			}
		}
	}
}

func widen[T Float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// T2 widens a value to float64 (the test's reference precision).
func T2[T Float](v T) float64 { return float64(v) }

func TestSparseKernels(t *testing.T) {
	t.Parallel()
	for _, im := range Impls() {
		t.Run(im.Name(), func(t *testing.T) {
			t.Run("f32", func(t *testing.T) { testSparse(t, im.F32(), 6e-8) })
			t.Run("f64", func(t *testing.T) { testSparse(t, im.F64(), 1.2e-16) })
		})
	}
}

// TestSparseDuplicates checks by hand that repeated columns add up.
func TestSparseDuplicates(t *testing.T) {
	t.Parallel()
	indptr := []int64{0, 3, 3, 4}
	cols := []uint32{1, 1, 0, 1}
	vals := []float64{2, 3, 4, 5}
	w := []float64{10, 100}
	for _, im := range Impls() {
		m := make([]float64, 3)
		im.F64().SparseMargins(m, indptr, cols, vals, nil, w)
		if m[0] != 540 || m[1] != 0 || m[2] != 500 {
			t.Errorf("%s: margins %v, want [540 0 500]", im.Name(), m)
		}
		g := make([]float64, 2)
		im.F64().SparseAddRows(g, indptr, cols, vals, []int{0, 2}, []float64{1, 2})
		if g[0] != 4 || g[1] != 15 {
			t.Errorf("%s: gradient %v, want [4 15]", im.Name(), g)
		}
	}
}

func testSparseK[T Float](t *testing.T, ops Ops[T], tol float64) {
	rng := rand.New(rand.NewPCG(8, uint64(tol*1e20)))
	for _, k := range []int{1, 2, 5} {
		for _, n := range []int{1, 6, 33} {
			for _, d := range []int{1, 4, 19} {
				indptr, cols, v64 := randCSR(rng, n, d)
				vals := toT[T](v64)
				x := denseOf(indptr, cols, widen(vals), n, d)
				w := make([]T, k*d)
				for j := range w {
					w[j] = T(2*rng.Float64() - 1)
				}
				idx := make([]int, n+2)
				for i := range idx {
					idx[i] = rng.IntN(n)
				}
				rows := len(idx)
				buf, m := guardedOut[T](rows * k)
				ops.SparseMarginsK(m, indptr, cols, vals, idx, w, k)
				checkGuards(t, "SparseMarginsK", buf, rows*k)
				c := make([]T, rows*k)
				for i := range c {
					c[i] = T(2*rng.Float64() - 1)
				}
				gbuf, g := guardedOut[T](k * d)
				clear(g)
				ops.SparseAddOuterK(g, indptr, cols, vals, idx, c, k)
				checkGuards(t, "SparseAddOuterK", gbuf, k*d)
				for i := 0; i < rows; i++ {
					r := idx[i]
					for j := 0; j < k; j++ {
						var want, abs float64
						for l := 0; l < d; l++ {
							want += x[r*d+l] * float64(w[j*d+l])
						}
						for p := indptr[r]; p < indptr[r+1]; p++ {
							abs += math.Abs(float64(vals[p]) * float64(w[j*d+int(cols[p])]))
						}
						if got := float64(m[i*k+j]); math.Abs(got-want) > tol*abs*float64(2*d+2) {
							t.Fatalf("k=%d n=%d d=%d: m[%d,%d] = %v, want %v", k, n, d, i, j, got, want)
						}
					}
				}
				for j := 0; j < k; j++ {
					for l := 0; l < d; l++ {
						var want, abs float64
						for i := 0; i < rows; i++ {
							r := idx[i]
							want += float64(c[i*k+j]) * x[r*d+l]
							for p := indptr[r]; p < indptr[r+1]; p++ {
								if int(cols[p]) == l {
									abs += math.Abs(float64(c[i*k+j]) * float64(vals[p]))
								}
							}
						}
						if got := float64(g[j*d+l]); math.Abs(got-want) > tol*abs*float64(2*d*rows+2) {
							t.Fatalf("k=%d n=%d d=%d: g[%d,%d] = %v, want %v", k, n, d, j, l, got, want)
						}
					}
				}
				// k = 1 is SparseMargins and SparseAddRows, bit for bit.
				if k == 1 {
					m1 := make([]T, rows)
					ops.SparseMargins(m1, indptr, cols, vals, idx, w)
					g1 := make([]T, d)
					ops.SparseAddRows(g1, indptr, cols, vals, idx, c)
					for i := range m1 {
						if m1[i] != m[i] {
							t.Fatalf("k=1: SparseMarginsK %v, SparseMargins %v", m[i], m1[i])
						}
					}
					for l := range g1 {
						if g1[l] != g[l] {
							t.Fatalf("k=1: SparseAddOuterK %v, SparseAddRows %v", g[l], g1[l])
						}
					}
				}
			}
		}
	}
}

func TestSparseKernelsK(t *testing.T) {
	t.Parallel()
	for _, im := range Impls() {
		t.Run(im.Name(), func(t *testing.T) {
			t.Run("f32", func(t *testing.T) { testSparseK(t, im.F32(), 6e-8) })
			t.Run("f64", func(t *testing.T) { testSparseK(t, im.F64(), 1.2e-16) })
		})
	}
}
