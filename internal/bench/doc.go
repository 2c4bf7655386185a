// Package bench measures how fast cvar's kernels and training epochs run:
// it holds cvar's benchmark suite and the measuring code that cmd/cvarbench
// shares with it.
//
// The measuring code comes in four parts:
//
//   - the machine's limits: [MeasureLimits] (read-only bandwidth with
//     [Bandwidth], FMA peaks with [PeakFlops], page latency) into [Limits];
//   - the kernel cases: [KernelSpecs] names them and [KernelSpec.Build]
//     makes a [KernelCase], one [Variant] per implementation of package
//     kernel plus the baselines;
//   - the epochs: a [Problem] ([SyntheticMNIST] or [LoadMNIST]) trained as
//     an [EpochOptions] says, by [Train], [TimeEpochs] and [TimeSteps], with
//     [SampleCost] the bytes and flops of a sample from which the floor of
//     an epoch follows;
//   - the reports: [ParseCvarbench] reads cvarbench's JSON back, [Targets]
//     judges the speed targets on it, and [ParseTorchRows],
//     [CompareTorch] and [WriteTorchTable] set cvar's epochs beside
//     PyTorch's.
//
// Run the suites with go test -bench (see README.md, "Performance"):
//
//	go test -bench 'F32|F64' -run '^$' ./internal/bench/   # kernels, by impl/size
//	go test -bench Stream -run '^$' ./internal/bench/      # read-only bandwidth
//	go test -bench Epoch -run '^$' ./internal/bench/       # training epochs
//
// Kernel timing lives here and in cmd/cvarbench, which measures the same
// cases; package kernel's own tests check results, not speed.
//
// Kernel benchmarks are named Benchmark<Kernel><F32|F64>/<impl>/<size>, with
// every implementation of package kernel that the CPU supports ("avx512",
// "avx2", "neon", …, "generic") and the baselines gonum (blas32/blas64 on
// the same operation), mathloop (a plain math.Exp/math.Log1p loop) and
// stream (a read-only pass over the same bytes) in the same run. They set
// bytes (so MB/s is printed), report GFLOP/s or Melem/s, and report
// allocations (zero for every kernel). Epoch benchmarks are named
// BenchmarkEpoch<Model><Method><F32|F64>/<impl>/threads=<n> and report
// samples/s.
//
// The cases themselves (KernelSpecs, the epoch configurations, the cost model
// of the floor) live in this package's non-test files, so that cvarbench
// measures exactly the same operations.
package bench
