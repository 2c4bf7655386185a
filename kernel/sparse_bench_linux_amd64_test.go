//go:build gc && !purego

package kernel

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"golang.org/x/sys/cpu"
)

// processCPU returns the process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSparseAVX512 compares the AVX2 and AVX-512 CSR kernels (float32,
// minibatches of 128 random rows of 40 non-zeros) with rows and weights in
// cache ("hot": 512 rows, 2^12 columns) and out of it ("cold": 100 000 rows,
// 2^20 columns); ns/nnz is per non-zero, cpu-ns/nnz the same in the
// process's CPU time (closer to the kernel's cost on a busy machine).
func BenchmarkSparseAVX512(b *testing.B) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512CD || !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		b.Skip("no AVX-512F, AVX-512CD, AVX2 and FMA3")
	}
	p := newImpl("avx512-sparse", isaBase)
	sparseOps(&p.f32, sparseAVX512)
	wide := Impl{p}
	base, _ := Lookup("avx2")
	for _, sz := range []struct {
		name    string
		rows, d int
	}{{"hot", 512, 1 << 12}, {"cold", 100000, 1 << 20}} {
		r := rand.New(rand.NewPCG(1, 1))
		indptr := make([]int64, sz.rows+1)
		cols := make([]uint32, 0, sz.rows*40)
		vals := make([]float32, 0, sz.rows*40)
		for i := 0; i < sz.rows; i++ {
			for j := 0; j < 40; j++ {
				cols = append(cols, uint32(r.IntN(sz.d)))
				vals = append(vals, r.Float32())
			}
			indptr[i+1] = int64(len(cols))
		}
		var batches [][]int
		for range 64 {
			idx := make([]int, 128)
			for i := range idx {
				idx[i] = r.IntN(sz.rows)
			}
			batches = append(batches, idx)
		}
		w := make([]float32, sz.d)
		m := make([]float32, 128)
		c := make([]float32, 128)
		for i := range c {
			c[i] = 1e-3 * r.Float32()
		}
		for _, im := range []Impl{base, wide} {
			for _, op := range []string{"margins", "addrows"} {
				b.Run(im.Name()+"/"+op+"/"+sz.name, func(b *testing.B) {
					t := 0
					cpu0 := processCPU()
					for b.Loop() {
						idx := batches[t%len(batches)]
						t++
						if op == "margins" {
							im.F32().SparseMargins(m, indptr, cols, vals, idx, w)
						} else {
							im.F32().SparseAddRows(w, indptr, cols, vals, idx, c)
						}
					}
					per := float64(b.N * 128 * 40)
					b.ReportMetric(b.Elapsed().Seconds()*1e9/per, "ns/nnz")
					b.ReportMetric(float64(processCPU()-cpu0)/per, "cpu-ns/nnz")
				})
			}
		}
	}
}
