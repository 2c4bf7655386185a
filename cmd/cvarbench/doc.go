// Command cvarbench measures how fast cvar runs on this machine.
//
// It runs five sections (-sections picks some):
//
//   - machine: the CPU, the features that matter, caches, Go, and the kernel
//     path selected and why;
//   - limits: read-only memory bandwidth out of cache on one and on all
//     threads, the latency of a load from a random page, and the peak FMA
//     rate in float32 and float64, on ymm and, with AVX-512, on zmm;
//   - kernels: every kernel on every available implementation, beside
//     gonum's BLAS and plain math loops;
//   - epochs: whole training epochs of binary logistic regression, softmax
//     (k = 10) and the MLP (h = 100) on MNIST-shaped data with Alg 3 and the
//     two baselines, each compared with the floor max(bytes read /
//     bandwidth, FLOPs / peak), the peak of the widest FMA the CPU has (the
//     report says which);
//   - sparse: Alg 3 epochs of binary logistic regression on text-like sparse
//     data (dataset.SyntheticText).
//
// Usage:
//
//	cvarbench              # everything
//	cvarbench -quick       # the same, smaller: epochs timed over a few steps
//	cvarbench -json        # for machines
//	cvarbench -mnist DIR   # epochs on MNIST's IDX files instead of synthetic data
//
// Run cvarbench -h for the flags that pick kernels, sizes, precisions,
// thread counts, models and methods. Package bench holds the measuring code
// and the same cases as go test benchmarks.
package main
