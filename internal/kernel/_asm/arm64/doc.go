// Command arm64 writes the NEON kernels of package kernel, kernel_arm64.s.
//
// It is run by go generate in the kernel directory (see gen.go there):
//
//	go -C _asm run ./arm64 -out ../kernel_arm64.s
//
// avo has no arm64 backend, so this is a small text emitter in the manner of
// zeebo/blake3's: Go functions that write one instruction per line, with
// loops and parameters doing what copy and paste would. Go's assembler lacks
// most floating-point vector instructions; the kernels use them through the
// WORD-encoding macros of neon_arm64.h, whose encodings
// neon_encoding_arm64_test.go checks.
//
// The kernels are written by family: linalg.go the vector and row
// products, math.go the elementwise math (exp, log1p, the linear losses and
// the smoothed plus functions), relu.go the hidden layer's ReLU, sparse.go
// the CSR kernels, and compact.go the row kernels on compact features;
// sections.go holds the descriptions at the top of kernel_arm64.s.
package main
