package bench_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/bench"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// KernelSpecs names the cases of the kernel suite; Build makes one's data
// with a variant per implementation, then the baselines. Each Run is one call.
func ExampleKernelSpecs() {
	specs := bench.KernelSpecs(bench.SpecOptions{Dims: []int{64, 784}, Precs: []string{"f32"}, Kernels: []string{"margins"}})
	for _, sp := range specs {
		fmt.Println(sp.Kernel, sp.Prec, sp.Size)
	}
	c := specs[0].Build([]kernel.Impl{kernel.Generic()})
	for _, v := range c.Variants {
		v.Run()
		fmt.Println(v.Impl, v.Baseline)
	}
	fmt.Println(c.Bytes, c.Flops)
	// Output:
	// margins f32 d=64
	// margins f32 d=784
	// generic false
	// gonum true
	// 131072 65536
}

// Train runs a configuration of the epoch suite; EpochOptions.Impl chooses
// the kernels the model computes with (the zero Impl: kernel.Default()).
func ExampleTrain() {
	p, err := bench.SyntheticMNIST[float32](2*bench.Batch, 20, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := bench.EpochOptions{Model: "softmax", Method: cvar.Alg3, Impl: kernel.Generic(), Threads: 1}
	epochs := 0
	err = bench.Train(p, cfg, 2*bench.StepsPerEpoch(p.N), func(int) { epochs++ })
	fmt.Println(epochs, err)
	// Output: 2 <nil>
}

// SampleCost is the cost model of the floors cvarbench reports: the bytes
// read and the flops done per sample.
func ExampleSampleCost() {
	c := bench.SampleCost("logistic", 784, 4)
	fmt.Println(c.Bytes, c.Flops)
	// Output: 3136 3136
}
