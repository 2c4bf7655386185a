package bench

import (
	"math"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// TestKernelCases builds every in-cache case and runs each variant, checking
// the case's counts and that no kernel variant allocates (gonum's gemm does:
// it starts goroutines for large products).
func TestKernelCases(t *testing.T) {
	specs := KernelSpecs(SpecOptions{Dims: []int{64}, Precs: []string{"f32", "f64"}})
	if len(specs) == 0 {
		t.Fatal("no kernel cases")
	}
	for _, sp := range specs {
		c := sp.Build(kernel.Impls())
		if c.Bytes <= 0 || (c.Flops <= 0 && c.Elems <= 0) {
			t.Errorf("%s/%s/%s: bytes %d flops %d elems %d", c.Kernel, c.Prec, c.Size, c.Bytes, c.Flops, c.Elems)
		}
		names := map[string]bool{}
		for _, v := range c.Variants {
			names[v.Impl] = true
			v.Run() // warm up: first calls may grow internal buffers
			if a := testing.AllocsPerRun(3, v.Run); a != 0 && !v.Baseline {
				t.Errorf("%s/%s/%s/%s allocates %v times per call", c.Kernel, c.Prec, c.Size, v.Impl, a)
			}
		}
		if !names["generic"] {
			t.Errorf("%s/%s: no generic variant", c.Kernel, c.Prec)
		}
	}
}

func TestSampleCost(t *testing.T) {
	for _, m := range Models() {
		c := SampleCost(m, MNISTDim, 4)
		if c.Bytes != 4*MNISTDim || c.Flops <= 0 {
			t.Errorf("%s: cost %+v", m, c)
		}
	}
	// Softmax does k = 10 times the multiply-adds of binary logistic.
	if l, s := SampleCost("logistic", 784, 4), SampleCost("softmax", 784, 4); s.Flops != 10*l.Flops {
		t.Errorf("softmax flops %v, logistic %v", s.Flops, l.Flops)
	}
	if f := SampleCost("logistic", 100, 4).Floor(1000, 1e9, 1e18); f.Seconds() != 400e-6 {
		t.Errorf("memory floor %v, want 400µs", f)
	}
}

func TestSyntheticMNIST(t *testing.T) {
	p, err := SyntheticMNIST[float32](300, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Ten.K != 10 || p.Two.K != 2 || p.N != 300 || p.D != 20 {
		t.Fatalf("shape: %+v", p)
	}
	for _, v := range p.Ten.X {
		if v < 0 || v > 1 {
			t.Fatalf("pixel %v outside [0, 1]", v)
		}
	}
	for _, m := range Models() {
		cfg := EpochOptions{Model: m, Method: Methods()[0], Threads: 2}
		if err := Train(p, cfg, 2, nil); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestThreadsBitIdentical trains every model of the epoch suite with every
// method, in both precisions and on every kernel implementation, on 1, 2 and
// 3 threads, and requires bit-identical parameters: the engine's chunked
// sums must not depend on the thread count.
func TestThreadsBitIdentical(t *testing.T) {
	p32, err := SyntheticMNIST[float32](1100, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	p64, err := SyntheticMNIST[float64](1100, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range kernel.Impls() {
		for _, model := range Models() {
			for _, method := range Methods() {
				cfg := EpochOptions{Model: model, Method: method, Impl: im}
				checkThreads(t, p32, cfg)
				checkThreads(t, p64, cfg)
			}
		}
	}
}

func checkThreads[T kernel.Float](t *testing.T, p *Problem[T], cfg EpochOptions) {
	t.Helper()
	var ref []T
	for _, th := range []int{1, 2, 3} {
		cfg.Threads = th
		theta, err := trainTheta(p, cfg, StepsPerEpoch(p.N))
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = theta
			continue
		}
		for i := range ref {
			if math.Float64bits(float64(ref[i])) != math.Float64bits(float64(theta[i])) {
				t.Fatalf("%s %v %s, %d threads: θ[%d] = %v, 1 thread gave %v", cfg.Model, cfg.Method, cfg.Impl, th, i, theta[i], ref[i])
			}
		}
	}
}

func trainTheta[T kernel.Float](p *Problem[T], cfg EpochOptions, steps int) ([]T, error) {
	res, err := train(p, cfg, steps, nil)
	if err != nil {
		return nil, err
	}
	return res.Theta, nil
}
