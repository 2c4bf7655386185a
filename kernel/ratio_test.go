package kernel

// TestSpeedRatios prints the speed-up of every implementation over the
// generic Go path (and of the elementwise kernels over a math.Exp/math.Log1p
// loop) with the candidates timed in interleaved short trials and the best
// trial of each kept, so that a busy machine disturbs each side alike. It is
// a report, not a check, and runs only with CVAR_RATIOS=1:
//
//	CVAR_RATIOS=1 go test -run SpeedRatios -v ./kernel/

import (
	"math"
	"os"
	"testing"
	"time"
)

// bestOf times each function in turn, trials times, reps calls per trial,
// and returns the best time per call of each.
func bestOf(fns []func(), trials, reps int) []float64 {
	best := make([]float64, len(fns))
	for i := range best {
		best[i] = math.Inf(1)
	}
	for t := 0; t < trials; t++ {
		for i, f := range fns {
			start := time.Now()
			for r := 0; r < reps; r++ {
				f()
			}
			best[i] = min(best[i], float64(time.Since(start).Nanoseconds())/float64(reps))
		}
	}
	return best
}

func ratioRows[T Float](t *testing.T, n, d int) {
	x := benchData[T](n * d)
	w := benchData[T](d)
	for i := range w {
		w[i] /= 8
	}
	g := make([]T, d)
	m := make([]T, n)
	c := benchData[T](n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = (i * 37) % n
	}
	y := make([]T, n)
	for i := range y {
		y[i] = T(1 - 2*(i%2))
	}
	loss := make([]T, n)
	p := LinearStep[T]{Loss: Logistic, Plus: PlusSoftplus, InvL: 0.5, Tau: 0.2, Eps: 0.1, Scale: 1 / T(n)}
	gen := OpsOf[T](Generic())
	for _, im := range Impls() {
		if im == Generic() {
			continue
		}
		ops := OpsOf[T](im)
		for _, k := range []struct {
			name     string
			fast, gn func()
		}{
			{"margins", func() { ops.Margins(m, x, d, idx, w) }, func() { gen.Margins(m, x, d, idx, w) }},
			{"addrows", func() { ops.AddRows(g, x, d, idx, c) }, func() { gen.AddRows(g, x, d, idx, c) }},
			{"fused", func() { ops.FusedLinear(g, loss, x, d, idx, y, w, &p) }, func() { gen.FusedLinear(g, loss, x, d, idx, y, w, &p) }},
		} {
			b := bestOf([]func(){k.fast, k.gn}, 40, max(1, 200000/(n*d)))
			t.Logf("%-8s %-8s %-7s %4dx%-4d %s %9.0f ns  generic %9.0f ns  ratio %5.1fx",
				k.name, im.Name, typeName[T](), n, d, "", b[0], b[1], b[1]/b[0])
		}
	}
}

func ratioElementwise[T Float](t *testing.T) {
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
	mathLogistic := func() {
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
	mathSoftplus := func() {
		const eps = 0.5
		for i, si := range m {
			s := float64(si)
			tt := s / eps
			e := math.Exp(-math.Abs(tt))
			loss[i] = T(math.Max(s, 0) + eps*math.Log1p(e))
			v := 1 / (1 + e)
			if tt < 0 {
				v = e / (1 + e)
			}
			dl[i] = T(v)
		}
	}
	gen := OpsOf[T](Generic())
	for _, im := range Impls() {
		if im == Generic() {
			continue
		}
		ops := OpsOf[T](im)
		b := bestOf([]func(){
			func() { ops.LinearLoss(Logistic, loss, dl, m, y) },
			func() { gen.LinearLoss(Logistic, loss, dl, m, y) },
			mathLogistic,
			func() { ops.Plus(PlusSoftplus, 0.5, loss, dl, m) },
			func() { gen.Plus(PlusSoftplus, 0.5, loss, dl, m) },
			mathSoftplus,
		}, 40, 20)
		t.Logf("logistic %-8s %-7s n=%d %8.0f ns  generic %8.0f ns (%4.1fx)  math loop %8.0f ns (%4.1fx)",
			im.Name, typeName[T](), n, b[0], b[1], b[1]/b[0], b[2], b[2]/b[0])
		t.Logf("softplus %-8s %-7s n=%d %8.0f ns  generic %8.0f ns (%4.1fx)  math loop %8.0f ns (%4.1fx)",
			im.Name, typeName[T](), n, b[3], b[4], b[4]/b[3], b[5], b[5]/b[3])
	}
}

func ratioOutOfCache(t *testing.T) {
	const d = 1024
	const n = 64 << 20 / 4 / d
	x := benchData[float32](n * d)
	w := benchData[float32](d)
	m := make([]float32, n)
	var sink float32
	for _, im := range Impls() {
		ops := OpsOf[float32](im)
		b := bestOf([]func(){
			func() { ops.Margins(m, x, d, nil, w) },
			func() { sink += ops.Dot(x, x) },
		}, 15, 1)
		bytes := float64(n * d * 4)
		t.Logf("out of cache %-8s float32 64 MiB: margins %6.2f GB/s, read-only stream (Dot(x,x)) %6.2f GB/s: %3.0f%%",
			im.Name, bytes/b[0], bytes/b[1], 100*b[1]/b[0])
	}
	_ = sink
}

func TestSpeedRatios(t *testing.T) {
	if os.Getenv("CVAR_RATIOS") == "" {
		t.Skip("set CVAR_RATIOS=1 to measure")
	}
	for _, sz := range []struct{ n, d int }{{64, 100}, {64, 784}} {
		ratioRows[float32](t, sz.n, sz.d)
		ratioRows[float64](t, sz.n, sz.d)
	}
	ratioElementwise[float32](t)
	ratioElementwise[float64](t)
	ratioOutOfCache(t)
}
