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

func benchRows[T Float](b *testing.B, im *Impl, kernel string) {
	ops := OpsOf[T](im)
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
	}
}

func sizeOf[T Float]() uintptr {
	if isF32[T]() {
		return 4
	}
	return 8
}

func BenchmarkMargins(b *testing.B) {
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		benchRows[float32](b, im, "margins")
		benchRows[float64](b, im, "margins")
	})
}

func BenchmarkAddRows(b *testing.B) {
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		benchRows[float32](b, im, "addrows")
		benchRows[float64](b, im, "addrows")
	})
}

func BenchmarkFusedLinear(b *testing.B) {
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		benchRows[float32](b, im, "fused")
		benchRows[float64](b, im, "fused")
	})
}

func benchDot[T Float](b *testing.B, im *Impl) {
	ops := OpsOf[T](im)
	for _, n := range []int{100, 784, 4096} {
		x, y := benchData[T](n), benchData[T](n)
		b.Run(fmt.Sprintf("%s/n=%d", typeName[T](), n), func(b *testing.B) {
			b.SetBytes(int64(2 * n * int(sizeOf[T]())))
			var s T
			for b.Loop() {
				s += ops.Dot(x, y)
			}
			_ = s
		})
	}
}

func BenchmarkDot(b *testing.B) {
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		benchDot[float32](b, im)
		benchDot[float64](b, im)
	})
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

func elementwiseData[T Float]() (m, y, loss, dl []T) {
	const n = 4096
	m = benchData[T](n)
	for i := range m {
		m[i] *= 8
	}
	y = make([]T, n)
	for i := range y {
		y[i] = T(1 - 2*(i%2))
	}
	return m, y, make([]T, n), make([]T, n)
}

func benchElementwise[T Float](b *testing.B, im *Impl) {
	ops := OpsOf[T](im)
	m, y, loss, dl := elementwiseData[T]()
	n := len(m)
	pos := make([]T, n)
	for i, v := range m {
		pos[i] = max(v, -v)
	}
	for _, k := range []struct {
		name string
		f    func()
	}{
		{"logistic", func() { ops.LinearLoss(Logistic, loss, dl, m, y) }},
		{"softplus", func() { ops.Plus(PlusSoftplus, 0.5, loss, dl, m) }},
		{"exp", func() { ops.Exp(loss, m) }},
		{"log1p", func() { ops.Log1p(loss, pos) }},
	} {
		b.Run(fmt.Sprintf("%s/%s/n=%d", k.name, typeName[T](), n), func(b *testing.B) {
			for b.Loop() {
				k.f()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
	}
}

// benchMathLoop is the baseline: the textbook loops over math.Exp and
// math.Log1p.
func benchMathLoop[T Float](b *testing.B) {
	m, y, loss, dl := elementwiseData[T]()
	n := len(m)
	b.Run(fmt.Sprintf("logistic/%s/n=%d", typeName[T](), n), func(b *testing.B) {
		for b.Loop() {
			for i, mi := range m {
				z := float64(y[i] * mi)
				e := math.Exp(-math.Abs(z))
				loss[i] = T(math.Max(-z, 0) + math.Log1p(e))
				s := e / (1 + e)
				if z < 0 {
					s = 1 / (1 + e)
				}
				dl[i] = T(-float64(y[i]) * s)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
	b.Run(fmt.Sprintf("softplus/%s/n=%d", typeName[T](), n), func(b *testing.B) {
		const eps = 0.5
		for b.Loop() {
			for i, si := range m {
				s := float64(si)
				t := s / eps
				e := math.Exp(-math.Abs(t))
				loss[i] = T(math.Max(s, 0) + eps*math.Log1p(e))
				v := 1 / (1 + e)
				if t < 0 {
					v = e / (1 + e)
				}
				dl[i] = T(v)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
}

func BenchmarkElementwise(b *testing.B) {
	forBenchImpls(b, func(b *testing.B, im *Impl) {
		benchElementwise[float32](b, im)
		benchElementwise[float64](b, im)
	})
	b.Run("mathloop", func(b *testing.B) {
		benchMathLoop[float32](b)
		benchMathLoop[float64](b)
	})
}
