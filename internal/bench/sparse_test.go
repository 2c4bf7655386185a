package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// The CSR kernels on minibatches of 128 random rows of 40 non-zeros (8 bytes
// a non-zero in float32: a value and a uint32 column index), for every
// implementation: "hot", 512 rows over 2^12 columns (rows and weights in
// L2), and "cold", 100 000 rows (32 MiB of non-zeros in float32) over 2^20
// columns (4 MiB of weights in float32, 8 in float64), the shape of hashed
// text features. ns/nnz is the time per non-zero and per weight vector,
// cpu-ns/nnz the same in the process's CPU time.

const (
	sparseNNZ   = 40
	sparseBatch = 128
)

type sparseBench[T kernel.Float] struct {
	indptr []int64
	cols   []uint32
	vals   []T
	idx    [][]int // minibatches, used in turn
}

func newSparseBench[T kernel.Float](sparseRows, d int) *sparseBench[T] {
	r := rand.New(rand.NewPCG(3, uint64(d)))
	s := &sparseBench[T]{indptr: make([]int64, sparseRows+1)}
	for i := 0; i < sparseRows; i++ {
		for j := 0; j < sparseNNZ; j++ {
			s.cols = append(s.cols, uint32(r.IntN(d)))
			s.vals = append(s.vals, T(r.Float64()))
		}
		s.indptr[i+1] = int64(len(s.cols))
	}
	for b := 0; b < 64; b++ {
		idx := make([]int, sparseBatch)
		for i := range idx {
			idx[i] = r.IntN(sparseRows)
		}
		s.idx = append(s.idx, idx)
	}
	return s
}

func benchSparse[T kernel.Float](b *testing.B, op string, k int) {
	for _, sz := range []struct {
		name    string
		rows, d int
	}{{"hot", 512, 1 << 12}, {"cold", 100000, 1 << 20}} {
		d := sz.d
		s := newSparseBench[T](sz.rows, d)
		w := randSlice[T](k*d, 5, -1, 1)
		c := randSlice[T](k*sparseBatch, 6, -1e-3, 1e-3)
		m := make([]T, k*sparseBatch)
		for _, im := range kernel.Impls() {
			ops := kernel.OpsOf[T](im)
			b.Run(im.Name()+"/"+sz.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(sparseBatch*sparseNNZ) * (4 + elemSize[T]()))
				t := 0
				cpu0, _ := ProcessCPU()
				for b.Loop() {
					idx := s.idx[t%len(s.idx)]
					t++
					switch op {
					case "margins":
						if k == 1 {
							ops.SparseMargins(m, s.indptr, s.cols, s.vals, idx, w)
						} else {
							ops.SparseMarginsK(m, s.indptr, s.cols, s.vals, idx, w, k)
						}
					case "addrows":
						if k == 1 {
							ops.SparseAddRows(w, s.indptr, s.cols, s.vals, idx, c)
						} else {
							ops.SparseAddOuterK(w, s.indptr, s.cols, s.vals, idx, c, k)
						}
					}
				}
				per := float64(b.N * sparseBatch * sparseNNZ * k)
				b.ReportMetric(b.Elapsed().Seconds()*1e9/per, "ns/nnz")
				// The process's CPU time: on a busy machine, closer to what
				// the kernel costs than the wall time.
				if cpu1, ok := ProcessCPU(); ok {
					b.ReportMetric(float64(cpu1-cpu0)/per, "cpu-ns/nnz")
				}
			})
		}
	}
}

func BenchmarkSparseMarginsF32(b *testing.B)   { benchSparse[float32](b, "margins", 1) }
func BenchmarkSparseMarginsF64(b *testing.B)   { benchSparse[float64](b, "margins", 1) }
func BenchmarkSparseAddRowsF32(b *testing.B)   { benchSparse[float32](b, "addrows", 1) }
func BenchmarkSparseAddRowsF64(b *testing.B)   { benchSparse[float64](b, "addrows", 1) }
func BenchmarkSparseMarginsKF32(b *testing.B)  { benchSparse[float32](b, "margins", 5) }
func BenchmarkSparseAddOuterKF32(b *testing.B) { benchSparse[float32](b, "addrows", 5) }
