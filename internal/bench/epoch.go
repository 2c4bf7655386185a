package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/rng"
	pkernel "github.com/cvarlearn/cvar/kernel"
)

// MNIST's shape: 60000 training rows of 28×28 pixels, 10 classes.
const (
	MNISTRows    = 60000
	MNISTDim     = 784
	MNISTClasses = 10
)

// Models are the models of the epoch suite. "mlp-blas" is not among them
// but can be asked for by name. It is the MLP with its products through
// gonum's BLAS (batch.NewMLPBLAS).
func Models() []string { return []string{"logistic", "softmax", "mlp"} }

// Methods are the methods of the epoch suite.
func Methods() []cvar.Method { return []cvar.Method{cvar.Alg3, cvar.Vanilla, cvar.MinibatchCVaR} }

// Problem is one data set in one precision, held twice over the same rows.
// The softmax and the MLP see its 10 classes. Binary logistic regression
// sees class ≥ 5 against the rest.
type Problem[T kernel.Float] struct {
	Name  string
	N, D  int
	Ten   *batch.Data[T]
	Two   *batch.Data[T]
	Scale batch.Scale // measured once, handed to Train so it does not rescan

	compact map[string]compactPair[T] // the data in compact storages, made on first use
}

func newProblem[T kernel.Float](name string, x []T, labels []int32, n, d int) (*Problem[T], error) {
	ten, err := batch.NewData(x, n, d, nil, labels, MNISTClasses)
	if err != nil {
		return nil, err
	}
	bin := make([]int32, n)
	for i, c := range labels {
		if c >= 5 {
			bin[i] = 1
		}
	}
	two, err := batch.NewData(x, n, d, nil, bin, 2)
	if err != nil {
		return nil, err
	}
	return &Problem[T]{Name: name, N: n, D: d, Ten: ten, Two: two, Scale: ten.Scale()}, nil
}

// SyntheticMNIST returns n rows of d pixels in [0, 1] shaped like MNIST.
// Each class has a random prototype with about 80 % of its pixels off. A
// row is its class's prototype plus uniform noise on the lit pixels,
// clamped to [0, 1]. Labels cycle through the classes in random order.
func SyntheticMNIST[T kernel.Float](n, d int, seed uint64) (*Problem[T], error) {
	r := rng.New(seed, 0x3d15)
	proto := make([]float64, MNISTClasses*d)
	for i := range proto {
		if r.Float64() < 0.2 {
			proto[i] = 0.3 + 0.7*r.Float64()
		}
	}
	x := make([]T, n*d)
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		c := int32(r.IntN(MNISTClasses))
		labels[i] = c
		p := proto[int(c)*d : int(c+1)*d]
		row := x[i*d : (i+1)*d]
		for j, v := range p {
			if v == 0 {
				continue
			}
			row[j] = T(math.Min(math.Max(v+0.6*(r.Float64()-0.5), 0), 1))
		}
	}
	return newProblem(fmt.Sprintf("synthetic-mnist %d×%d", n, d), x, labels, n, d)
}

// LoadMNIST reads MNIST's training split from dir through package dataset.
// The IDX files may be gzipped. Pixels are scaled to [0, 1].
func LoadMNIST[T kernel.Float](dir string) (*Problem[T], error) {
	ds, err := dataset.LoadMNIST[T](dir, "train")
	if err != nil {
		return nil, err
	}
	if ds.K() != MNISTClasses {
		return nil, fmt.Errorf("bench: %s has %d classes, want %d", dir, ds.K(), MNISTClasses)
	}
	return newProblem(fmt.Sprintf("mnist %d×%d", ds.N, ds.D), ds.X, ds.Labels, ds.N, ds.D)
}

// NewModel returns the named model on d features. It computes with impl's
// kernels (the zero Impl: kernel.Default()).
func NewModel[T kernel.Float](name string, d int, impl kernel.Impl) (batch.Model[T], error) {
	name, _ = splitStorage(name) // "softmax:u8": the model of softmax
	if impl == (kernel.Impl{}) {
		impl = kernel.Default()
	}
	pub, err := pkernel.Lookup(impl.Name())
	if err != nil {
		return nil, err
	}
	switch name {
	case batch.KindLogistic, batch.KindSoftmax, batch.KindMLP:
		k, h := MNISTClasses, Hidden
		if name == batch.KindLogistic {
			k, h = 2, 0
		}
		m, err := batch.NewModel[T](name, d, k, h)
		if err != nil {
			return nil, err
		}
		return batch.ModelWithKernel(m, pub)
	case "mlp-blas":
		m, err := batch.NewMLPBLAS[T](d, Hidden, MNISTClasses)
		if err != nil {
			return nil, err
		}
		return m.WithKernel(pub), nil
	}
	return nil, fmt.Errorf("bench: unknown model %q (want logistic, softmax, mlp or mlp-blas)", name)
}

// EpochOptions is one training configuration of the epoch suite.
type EpochOptions struct {
	Model   string      // "logistic", "softmax" or "mlp"
	Method  cvar.Method // cvar.Alg3, cvar.Vanilla or cvar.MinibatchCVaR
	Impl    kernel.Impl // kernels the model computes with; zero: kernel.Default()
	Threads int         // engine workers; 0 is GOMAXPROCS
}

// Batch is the minibatch of the epoch suite (cvar's default). The step
// size, α and ε are fixed: η = 0.01 on the raw losses, α = 0.1, ε = 0.1.
// So no constant is estimated before training.
func (c EpochOptions) options(steps int, onEpoch func(cvar.EpochInfo) error, scale batch.Scale) cvar.Options {
	return cvar.Options{
		Method: c.Method, Alpha: 0.1, Eps: 0.1, LR: 0.01,
		Batch: Batch, Steps: steps, Threads: c.Threads, Seed: 1,
		Scale: scale, OnEpoch: onEpoch,
	}
}

// StepsPerEpoch is the number of minibatches of one epoch over n rows.
func StepsPerEpoch(n int) int { return (n + Batch - 1) / Batch }

// SamplesPerEpoch is the number of rows one epoch processes. Alg 3 draws
// StepsPerEpoch full batches with replacement. The baselines visit each
// row once.
func SamplesPerEpoch(m cvar.Method, n int) int64 {
	if m == cvar.Alg3 {
		return int64(StepsPerEpoch(n)) * Batch
	}
	return int64(n)
}

// Train runs cfg on p for steps minibatch steps with cvar.Train. The model
// computes with cfg.Impl's kernels.
// onEpoch, if not nil, is called at the end of every epoch.
func Train[T kernel.Float](p *Problem[T], cfg EpochOptions, steps int, onEpoch func(epoch int)) error {
	_, err := train(p, cfg, steps, onEpoch)
	return err
}

func train[T kernel.Float](p *Problem[T], cfg EpochOptions, steps int, onEpoch func(epoch int)) (*cvar.Result[T], error) {
	model, err := NewModel[T](cfg.Model, p.D, cfg.Impl)
	if err != nil {
		return nil, err
	}
	data := p.Ten
	name, storage := splitStorage(cfg.Model)
	if name == "logistic" {
		data = p.Two
	}
	if storage != "" {
		if data, err = p.compactData(storage, name == "logistic"); err != nil {
			return nil, err
		}
	}
	var hook func(cvar.EpochInfo) error
	if onEpoch != nil {
		hook = func(e cvar.EpochInfo) error { onEpoch(e.Epoch); return nil }
	}
	return cvar.Train(model, data, cfg.options(steps, hook, p.Scale))
}

// Timing is the wall-clock time of a measurement and the CPU time the
// process used meanwhile. The CPU time is 0 where the OS does not say.
type Timing struct {
	Wall, CPU time.Duration
}

func now() Timing {
	cpu, _ := ProcessCPU()
	return Timing{Wall: time.Duration(time.Now().UnixNano()), CPU: cpu}
}

func (t Timing) sub(u Timing) Timing { return Timing{Wall: t.Wall - u.Wall, CPU: t.CPU - u.CPU} }

// TimeEpochs trains warm+epochs epochs and returns the timing of each of
// the last epochs. The warm-up epochs include setting up the run; they are
// not timed.
func TimeEpochs[T kernel.Float](p *Problem[T], cfg EpochOptions, warm, epochs int) ([]Timing, error) {
	var out []Timing
	var last Timing
	err := Train(p, cfg, (warm+epochs)*StepsPerEpoch(p.N), func(e int) {
		t := now()
		if e > warm {
			out = append(out, t.sub(last))
		}
		last = t
	})
	return out, err
}

// TimeSteps estimates the timing of one epoch from a short run. It times
// Train over 1 step and over 1+steps steps, reps times each. The
// difference of their least wall times leaves out the setting up of the
// run. It scales that difference to StepsPerEpoch steps, and the CPU time
// of those same runs with it. An untimed Train of 1 step comes first. It
// builds what the configuration keeps between runs (compact features) and
// faults in the data's pages. Otherwise that work would land in the first
// timed run alone and could make the difference negative. The difference
// may still not be positive: the steps drowned in the set-up's noise. Then
// it tries again with twice the steps, twice, and then returns an error.
func TimeSteps[T kernel.Float](p *Problem[T], cfg EpochOptions, steps, reps int) (Timing, error) {
	if steps < 1 {
		return Timing{}, fmt.Errorf("bench: %d steps to time; want at least 1", steps)
	}
	if err := Train(p, cfg, 1, nil); err != nil {
		return Timing{}, err
	}
	var one, many Timing
	for range 3 {
		one, many = Timing{Wall: math.MaxInt64}, Timing{Wall: math.MaxInt64}
		for range max(reps, 1) {
			t0 := now()
			if err := Train(p, cfg, 1, nil); err != nil {
				return Timing{}, err
			}
			t1 := now()
			if err := Train(p, cfg, 1+steps, nil); err != nil {
				return Timing{}, err
			}
			t2 := now()
			if d := t1.sub(t0); d.Wall < one.Wall {
				one = d
			}
			if d := t2.sub(t1); d.Wall < many.Wall {
				many = d
			}
		}
		if d := many.sub(one); d.Wall > 0 {
			f := float64(StepsPerEpoch(p.N)) / float64(steps)
			return Timing{Wall: time.Duration(float64(d.Wall) * f), CPU: time.Duration(float64(max(d.CPU, 0)) * f)}, nil
		}
		steps *= 2
	}
	return Timing{}, fmt.Errorf("bench: %d steps of %s took no measurable time beyond the run's set-up (%v for 1 step, %v for %d): time more steps", steps/2, cfg.Model, one.Wall, many.Wall, 1+steps/2)
}

// Cost is the work of one sample in one training step, as the floor counts
// it.
type Cost struct {
	// Bytes is the sample's row, d·size. Every step reads its rows from
	// memory once. The fused linear step and the engine's chunks of 16–64
	// rows keep a row in cache between its forward and backward use.
	// Labels, indices and parameters are left out: under 1 % for these
	// models.
	Bytes float64
	// Flops counts a multiply-add as 2. Logistic regression takes 4d
	// (margin and gradient), the softmax 4dk. The MLP takes 4dh + 6hk:
	// forward d·h and h·k, backward h·k for ∂W2, h·k for ∂H and d·h for
	// ∂W1. Elementwise work (exp, log, ReLU) is not counted.
	Flops float64
}

// SampleCost returns the cost per sample of model on d features in
// elements of elemSize bytes. A model on compact features ("softmax:u8")
// counts their bytes instead.
func SampleCost(model string, d, elemSize int) Cost {
	model, storage := splitStorage(model)
	b := float64(d * storageBytes(storage, elemSize))
	fd, k, h := float64(d), float64(MNISTClasses), float64(Hidden)
	switch model {
	case "logistic":
		return Cost{Bytes: b, Flops: 4 * fd}
	case "softmax":
		return Cost{Bytes: b, Flops: 4 * fd * k}
	case "mlp", "mlp-blas":
		return Cost{Bytes: b, Flops: 4*fd*h + 6*h*k}
	}
	return Cost{}
}

// Floor is the least time samples can take at the given bandwidth
// (bytes/s) and FMA rate (flops/s). It is max(bytes/bandwidth, flops/peak).
func (c Cost) Floor(samples int64, bandwidth, flops float64) time.Duration {
	s := float64(samples)
	sec := math.Max(s*c.Bytes/bandwidth, s*c.Flops/flops)
	return time.Duration(sec * 1e9)
}

// EpochRow is one training configuration of an epoch benchmark. cvarbench
// reports it (its -json "epochs") and CompareTorch reads it.
type EpochRow struct {
	Model   string `json:"model"`
	Method  string `json:"method"`
	Prec    string `json:"prec"`
	Impl    string `json:"impl"`
	Threads int    `json:"threads"`
	Data    string `json:"data"`
	// Timed says how the epoch was timed: "best of N epochs" or "N steps,
	// scaled to an epoch".
	Timed         string  `json:"timed"`
	SecondsEpoch  float64 `json:"seconds_per_epoch"`
	SamplesPerSec float64 `json:"samples_per_s"`
	Samples       int64   `json:"samples_per_epoch"`
	Bytes         float64 `json:"bytes_per_epoch"`
	Flops         float64 `json:"flops_per_epoch"`
	FloorSeconds  float64 `json:"floor_seconds"`
	FloorBound    string  `json:"floor_bound"` // "memory" or "compute"
	RatioToFloor  float64 `json:"ratio_to_floor"`
	Speedup       float64 `json:"speedup_vs_generic,omitempty"`
	// SpeedupThreads is the 1-thread row's time over this one's, when
	// -threads has 1. Both rows have the same model, method, precision and
	// kernels.
	SpeedupThreads float64 `json:"speedup_vs_1_thread,omitempty"`
	// FloorBandwidth and FloorPeak are the limits the floor used. They are
	// measured on this many threads (bandwidth_by_threads), or on 1 or all.
	FloorBandwidth float64 `json:"floor_bandwidth_bytes_per_s,omitempty"`
	FloorPeak      float64 `json:"floor_peak_flops_per_s,omitempty"`
	// CPUSeconds is the CPU time the process used in the timed epoch.
	// CPUShare is that over seconds_per_epoch × threads (capped at the
	// CPUs). Well under 1 means the run did not get its cores: a busy
	// machine, or threads waiting on each other. 0 means unknown. The OS
	// may give no CPU time. A quick run's difference of two runs' CPU times
	// may not be positive.
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUShare   float64 `json:"cpu_share"`
}
