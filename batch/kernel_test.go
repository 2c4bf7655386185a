package batch

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	ikernel "github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/kernel"
)

// TestWithKernel checks that a model's kernels are its own: WithKernel
// returns a copy on the given implementation, the original keeps the
// default, and an Engine runs its model's kernels.
func TestWithKernel(t *testing.T) {
	t.Parallel()
	for _, im := range kernel.Impls() {
		models := []Model[float32]{
			must(NewLogistic[float32](5)).WithKernel(im),
			must(NewSoftmax[float32](5, 3)).WithKernel(im),
			must(NewMLP[float32](5, 4, 3)).WithKernel(im),
		}
		for _, m := range models {
			if got := kernelsOf(m); got != ikernel.Named[float32](im.Name()) || KernelOf(m) != im {
				t.Errorf("%s.WithKernel(%s): the model computes with %s", m.Name(), im, KernelOf(m))
			}
			e := must(NewEngine(m, 1))
			if e.ops != ikernel.Named[float32](im.Name()) {
				t.Errorf("%s.WithKernel(%s): the engine runs other kernels", m.Name(), im)
			}
			e.Close()
		}
	}
	l := must(NewLogistic[float64](5))
	_ = l.WithKernel(kernel.Generic())
	if kernelsOf[float64](l) != ikernel.For[float64]() || KernelOf[float64](l) != kernel.Default() {
		t.Error("WithKernel changed the model it was called on")
	}
}

// TestTwoKernelsInOneProcess runs two engines on two implementations at the
// same time: each must give, bit for bit, what its implementation gives alone.
func TestTwoKernelsInOneProcess(t *testing.T) {
	t.Parallel()
	const n, d, k = 300, 17, 4
	data := testData[float64](t, n, d, k, 5)
	base := must(NewSoftmax[float64](d, k))
	theta := make([]float64, base.NumParams())
	base.InitParams(theta, 1)
	idx := make([]int, 128)
	for i := range idx {
		idx[i] = (i * 7) % n
	}
	wt := Weighting{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.3}
	grad := func(im kernel.Impl) []float64 {
		e := must(NewEngine[float64](base.WithKernel(im), 2))
		defer e.Close()
		g := make([]float64, len(theta))
		w := wt
		if _, _, err := e.Gradient(g, theta, data, idx, 0, &w); err != nil {
			t.Error(err)
		}
		return g
	}
	impls := []kernel.Impl{kernel.Default(), kernel.Generic()}
	alone := [][]float64{grad(impls[0]), grad(impls[1])}
	together := make([][]float64, 2)
	var wg sync.WaitGroup
	for i, im := range impls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			together[i] = grad(im)
		}()
	}
	wg.Wait()
	for i, im := range impls {
		for j := range alone[i] {
			if math.Float64bits(together[i][j]) != math.Float64bits(alone[i][j]) {
				t.Fatalf("%s beside another engine: g[%d] = %v, alone %v", im, j, together[i][j], alone[i][j])
			}
		}
	}
}

// TestModelWithKernel puts any of this package's models on another
// implementation through the Model interface, and refuses what it cannot.
func TestModelWithKernel(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds() {
		k, h := 3, 4
		switch kind {
		case KindLogistic:
			k, h = 2, 0
		case KindLinear, KindLAD:
			k, h = 0, 0
		}
		m := must(NewModel[float64](kind, 5, k, h))
		g, err := ModelWithKernel(m, kernel.Generic())
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if kernelsOf(g) != ikernel.Generic().F64() || g.Name() != m.Name() {
			t.Errorf("%s: the copy computes with other kernels", kind)
		}
	}
	m := must(NewLogistic[float64](5))
	if _, err := ModelWithKernel[float64](m, kernel.Impl{}); err == nil {
		t.Error("the zero implementation accepted")
	}
	if _, err := ModelWithKernel[float64](struct{ Model[float64] }{m}, kernel.Generic()); err == nil {
		t.Error("a foreign Model accepted")
	}
}

// TestAddBias checks the tiled Axpy of addBias against the bias added
// element by element, bit for bit, on every implementation, for row counts
// that do and do not fill the tile by doubling, and that a shorter second
// call reuses the tile.
func TestAddBias(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, im := range ikernel.Impls() {
		var tile []float32
		for _, k := range []int{1, 2, 3, 10, 17} {
			for _, n := range []int{0, 1, 2, 5, 8, 64, 33, 3} {
				b := make([]float32, k)
				for j := range b {
					b[j] = float32(r.NormFloat64())
				}
				z := make([]float32, n*k)
				for i := range z {
					z[i] = float32(r.NormFloat64() * 100)
				}
				want := append([]float32(nil), z...)
				for i := range want {
					want[i] += b[i%k]
				}
				addBias(im.F32(), &tile, z, b)
				for i := range z {
					if math.Float32bits(z[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s k=%d n=%d: z[%d] = %v, want %v", im, k, n, i, z[i], want[i])
					}
				}
			}
		}
	}
}
