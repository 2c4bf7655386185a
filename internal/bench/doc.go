// Package bench measures how fast cvar's kernels and training epochs run.
// It holds cvar's benchmark suite. It holds the measuring code that
// cmd/cvarbench shares with it.
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
// cases. Package kernel's own tests check results, not speed.
//
// Kernel benchmarks are named Benchmark<Kernel><F32|F64>/<impl>/<size>.
// A run has every implementation of package kernel that the CPU supports
// ("avx512", "avx2", "neon", …, "generic"). It has the baselines too. They
// are gonum (blas32/blas64 on the same operation) and mathloop (a plain
// math.Exp/math.Log1p loop). The third is stream, a read-only pass over
// the same bytes. The benchmarks set bytes, so MB/s is printed. They report
// GFLOP/s or Melem/s, and allocations (zero for every kernel). Epoch
// benchmarks are named BenchmarkEpoch<Model><Method><F32|F64>/<impl>/threads=<n>.
// They report samples/s.
//
// The cases themselves live in this package's non-test files: KernelSpecs,
// the epoch configurations and the cost model of the floor. So cvarbench
// measures exactly the same operations.
package bench
