package kernel

// Micro-benchmarks named impl/size, with the generic Go path and a plain
// math.Exp/math.Log1p loop as baselines in the same run. Sizes: rows of
// d = 100 (L1), d = 784 (a minibatch of 64 rows in L2) and a 64 MiB matrix
// (out of cache, with "stream" = the read-only bandwidth of one pass over the
// same buffer). The project's benchmark suite lives in bench/.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func benchData[T Float](n int) []T {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	x := make([]T, n)
	for i := range x {
		x[i] = T(2*r.Float64() - 1)
	}
	return x
}

func forBenchImpls(b *testing.B, f func(b *testing.B, im *Impl)) {
	for _, im := range Impls() {
		b.Run(im.Name, func(b *testing.B) { f(b, im) })
	}
}

func benchRows[T Float](b *testing.B, kernel string) {
	for _, sz := range []struct{ n, d int }{{64, 100}, {64, 784}} {
		x := benchData[T](sz.n * sz.d)
		w := benchData[T](sz.d)
		for i := range w {
			w[i] /= 8
		}
		g := make([]T, sz.d)
		m := make([]T, sz.n)
		c := benchData[T](sz.n)
		idx := make([]int, sz.n)
		for i := range idx {
			idx[i] = (i * 37) % sz.n
		}
		y := make([]T, sz.n)
		for i := range y {
			y[i] = T(1 - 2*(i%2))
		}
		loss := make([]T, sz.n)
		p := LinearStep[T]{Loss: Logistic, Plus: PlusSoftplus, InvL: 0.5, Tau: 0.2, Eps: 0.1, Scale: 1.0 / 64}
		forBenchImpls(b, func(b *testing.B, im *Impl) {
			ops := OpsOf[T](im)
			b.Run(fmt.Sprintf("%s/n=%dx%d", typeName[T](), sz.n, sz.d), func(b *testing.B) {
				b.SetBytes(int64(sz.n * sz.d * int(sizeOf[T]())))
				b.ReportAllocs()
				for b.Loop() {
					switch kernel {
					case "margins":
						ops.Margins(m, x, sz.d, idx, w)
					case "addrows":
						ops.AddRows(g, x, sz.d, idx, c)
					case "fused":
						ops.FusedLinear(g, loss, x, sz.d, idx, y, w, &p)
					}
				}
				b.ReportMetric(float64(sz.n*sz.d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
			})
		})
	}
}

func sizeOf[T Float]() uintptr {
	if isF32[T]() {
		return 4
	}
	return 8
}

func BenchmarkMargins(b *testing.B) {
	benchRows[float32](b, "margins")
	benchRows[float64](b, "margins")
}

func BenchmarkAddRows(b *testing.B) {
	benchRows[float32](b, "addrows")
	benchRows[float64](b, "addrows")
}

func BenchmarkFusedLinear(b *testing.B) {
	benchRows[float32](b, "fused")
	benchRows[float64](b, "fused")
}

func benchDot[T Float](b *testing.B) {
	for _, n := range []int{100, 784, 4096} {
		x, y := benchData[T](n), benchData[T](n)
		forBenchImpls(b, func(b *testing.B, im *Impl) {
			ops := OpsOf[T](im)
			b.Run(fmt.Sprintf("%s/n=%d", typeName[T](), n), func(b *testing.B) {
				b.SetBytes(int64(2 * n * int(sizeOf[T]())))
				var s T
				for b.Loop() {
					s += ops.Dot(x, y)
				}
				_ = s
			})
		})
	}
}

func BenchmarkDot(b *testing.B) {
	benchDot[float32](b)
	benchDot[float64](b)
}

// BenchmarkMarginsOutOfCache runs float32 margins over a 64 MiB matrix and,
// as the limit, one read-only pass over the same buffer (Dot of the buffer
// with itself reads each byte once from memory).
func BenchmarkMarginsOutOfCache(b *testing.B) {
	const d = 1024
	const n = 64 << 20 / 4 / d
	x := benchData[float32](n * d)
	w := benchData[float32](d)
	m := make([]float32, n)
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		ops := OpsOf[float32](im)
		b.Run("margins/64MiB", func(b *testing.B) {
			b.SetBytes(int64(n * d * 4))
			for b.Loop() {
				ops.Margins(m, x, d, nil, w)
			}
		})
		b.Run("stream/64MiB", func(b *testing.B) {
			b.SetBytes(int64(n * d * 4))
			var s float32
			for b.Loop() {
				s += ops.Dot(x, x)
			}
			_ = s
		})
	})
}

func benchElementwise[T Float](b *testing.B) {
	const n = 4096
	m := benchData[T](n)
	for i := range m {
		m[i] *= 8
	}
	y := make([]T, n)
	for i := range y {
		y[i] = T(1 - 2*(i%2))
	}
	loss, dl := make([]T, n), make([]T, n)
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		ops := OpsOf[T](im)
		b.Run(fmt.Sprintf("logistic/%s/n=%d", typeName[T](), n), func(b *testing.B) {
			for b.Loop() {
				ops.LinearLoss(Logistic, loss, dl, m, y)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
		b.Run(fmt.Sprintf("softplus/%s/n=%d", typeName[T](), n), func(b *testing.B) {
			for b.Loop() {
				ops.Plus(PlusSoftplus, 0.5, loss, dl, m)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
		b.Run(fmt.Sprintf("exp/%s/n=%d", typeName[T](), n), func(b *testing.B) {
			for b.Loop() {
				ops.Exp(loss, m)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
	})
	// Baseline: the textbook loops over math.Exp and math.Log1p.
	b.Run(fmt.Sprintf("mathloop/logistic/%s/n=%d", typeName[T](), n), func(b *testing.B) {
		for b.Loop() {
			for i, mi := range m {
				z := float64(y[i] * mi)
				e := math.Exp(-math.Abs(z))
				loss[i] = T(math.Max(-z, 0) + math.Log1p(e))
				dl[i] = T(-float64(y[i]) / (1 + math.Exp(z)))
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
	b.Run(fmt.Sprintf("mathloop/softplus/%s/n=%d", typeName[T](), n), func(b *testing.B) {
		const eps = 0.5
		for b.Loop() {
			for i, si := range m {
				s := float64(si)
				loss[i] = T(math.Max(s, 0) + eps*math.Log1p(math.Exp(-math.Abs(s/eps))))
				dl[i] = T(1 / (1 + math.Exp(-s/eps)))
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
}

func BenchmarkElementwise(b *testing.B) {
	benchElementwise[float32](b)
	benchElementwise[float64](b)
}
