package bench

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// The MNIST-shaped data of the epoch benchmarks, made once per precision.
var (
	once32, once64 sync.Once
	prob32         *Problem[float32]
	prob64         *Problem[float64]
	probErr        error
)

func problem[T kernel.Float](b *testing.B) *Problem[T] {
	var p any
	if is32[T]() {
		once32.Do(func() { prob32, probErr = SyntheticMNIST[float32](MNISTRows, MNISTDim, 1) })
		p = prob32
	} else {
		once64.Do(func() { prob64, probErr = SyntheticMNIST[float64](MNISTRows, MNISTDim, 1) })
		p = prob64
	}
	if probErr != nil {
		b.Fatal(probErr)
	}
	return p.(*Problem[T])
}

func threadCounts() []int {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return []int{1, p}
	}
	return []int{1}
}

// benchEpoch runs training epochs of model with method, on every kernel
// implementation (the generic path beside the fast one) and on one and all
// threads, as sub-benchmarks impl/threads=n. One op is one epoch; the first
// epoch of each run, which sets the run up, is not timed.
func benchEpoch[T kernel.Float](b *testing.B, model string, method cvar.Method) {
	for _, im := range kernel.Impls() {
		for _, th := range threadCounts() {
			b.Run(fmt.Sprintf("%s/threads=%d", im.Name(), th), func(b *testing.B) {
				p := problem[T](b)
				cfg := EpochOptions{Model: model, Method: method, Impl: im, Threads: th}
				samples := SamplesPerEpoch(method, p.N)
				b.ReportAllocs()
				b.SetBytes(samples * int64(p.D) * elemSize[T]())
				var cpu0 time.Duration
				err := Train(p, cfg, (b.N+1)*StepsPerEpoch(p.N), func(e int) {
					if e == 1 {
						b.ResetTimer()
						cpu0, _ = ProcessCPU()
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
				// CPU time per epoch: on a busy machine, cpu-ms/op well under
				// threads × ms/op means the run did not get its cores.
				if cpu1, ok := ProcessCPU(); ok {
					b.ReportMetric(float64(cpu1-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				}
			})
		}
	}
}

func BenchmarkEpochLogisticAlg3F32(b *testing.B)    { benchEpoch[float32](b, "logistic", cvar.Alg3) }
func BenchmarkEpochLogisticAlg3F64(b *testing.B)    { benchEpoch[float64](b, "logistic", cvar.Alg3) }
func BenchmarkEpochLogisticVanillaF32(b *testing.B) { benchEpoch[float32](b, "logistic", cvar.Vanilla) }
func BenchmarkEpochLogisticVanillaF64(b *testing.B) { benchEpoch[float64](b, "logistic", cvar.Vanilla) }
func BenchmarkEpochLogisticMinibatchF32(b *testing.B) {
	benchEpoch[float32](b, "logistic", cvar.MinibatchCVaR)
}
func BenchmarkEpochLogisticMinibatchF64(b *testing.B) {
	benchEpoch[float64](b, "logistic", cvar.MinibatchCVaR)
}
func BenchmarkEpochSoftmaxAlg3F32(b *testing.B)    { benchEpoch[float32](b, "softmax", cvar.Alg3) }
func BenchmarkEpochSoftmaxAlg3F64(b *testing.B)    { benchEpoch[float64](b, "softmax", cvar.Alg3) }
func BenchmarkEpochSoftmaxVanillaF32(b *testing.B) { benchEpoch[float32](b, "softmax", cvar.Vanilla) }
func BenchmarkEpochSoftmaxVanillaF64(b *testing.B) { benchEpoch[float64](b, "softmax", cvar.Vanilla) }
func BenchmarkEpochSoftmaxMinibatchF32(b *testing.B) {
	benchEpoch[float32](b, "softmax", cvar.MinibatchCVaR)
}
func BenchmarkEpochSoftmaxMinibatchF64(b *testing.B) {
	benchEpoch[float64](b, "softmax", cvar.MinibatchCVaR)
}
func BenchmarkEpochMLPAlg3F32(b *testing.B)      { benchEpoch[float32](b, "mlp", cvar.Alg3) }
func BenchmarkEpochMLPAlg3F64(b *testing.B)      { benchEpoch[float64](b, "mlp", cvar.Alg3) }
func BenchmarkEpochMLPVanillaF32(b *testing.B)   { benchEpoch[float32](b, "mlp", cvar.Vanilla) }
func BenchmarkEpochMLPVanillaF64(b *testing.B)   { benchEpoch[float64](b, "mlp", cvar.Vanilla) }
func BenchmarkEpochMLPMinibatchF32(b *testing.B) { benchEpoch[float32](b, "mlp", cvar.MinibatchCVaR) }
func BenchmarkEpochMLPMinibatchF64(b *testing.B) { benchEpoch[float64](b, "mlp", cvar.MinibatchCVaR) }

// The MLP with its products through gonum's BLAS (batch.NewMLPBLAS), for
// comparison with the kernels' path above.
func BenchmarkEpochMLPBLASAlg3F32(b *testing.B) { benchEpoch[float32](b, "mlp-blas", cvar.Alg3) }
func BenchmarkEpochMLPBLASAlg3F64(b *testing.B) { benchEpoch[float64](b, "mlp-blas", cvar.Alg3) }

// TestLimitsForMeasured checks that the floor of a run on a thread count
// with a measured bandwidth uses it, and scales the all-thread figures
// otherwise.
func TestLimitsForMeasured(t *testing.T) {
	l := Limits{Threads: 16, Bandwidth1: 20, BandwidthAll: 160, PeakF32_1: 100, PeakF32All: 1600, BandwidthAt: map[int]float64{4: 70}}
	if bw, pk := l.For(true, 4); bw != 70 || pk != 400 {
		t.Errorf("4 threads: %v, %v; want the measured 70 and 400", bw, pk)
	}
	if bw, _ := l.For(true, 8); bw != 80 {
		t.Errorf("8 threads: bandwidth %v, want 160·8/16 = 80", bw)
	}
	if bw, pk := l.For(true, 1); bw != 20 || pk != 100 {
		t.Errorf("1 thread: %v, %v", bw, pk)
	}
}

// TestTimeSteps checks the quick estimate of an epoch on compact features,
// whose first run builds and caches the byte features: that run is not
// timed, so the estimate is the steps' time, not that minus the set-up's
// (which can come out near zero); and no steps is an error.
func TestTimeSteps(t *testing.T) {
	p, err := SyntheticMNIST[float32](20000, 784, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := EpochOptions{Model: "logistic:u8", Method: cvar.Alg3, Threads: 1}
	tm, err := TimeSteps(p, cfg, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A step reads Batch rows of 784 bytes: no machine does that in
	// under 100 ns.
	if least := time.Duration(StepsPerEpoch(p.N)) * 100 * time.Nanosecond; tm.Wall < least {
		t.Errorf("epoch estimated at %v, under %v", tm.Wall, least)
	}
	if _, err := TimeSteps(p, cfg, 0, 1); err == nil {
		t.Error("0 steps timed without an error")
	}
}
