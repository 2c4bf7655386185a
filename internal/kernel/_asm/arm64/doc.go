// Command arm64 writes the NEON kernels of package internal/kernel into
// kernel_arm64.s.
//
// The go generate line in internal/kernel runs it (see gen.go there):
//
//	go -C _asm run ./arm64 -out ../kernel_arm64.s
//
// The avo package has no arm64 backend. So this is a small text emitter, as
// zeebo/blake3 keeps one. Its Go functions write one instruction a line;
// loops and parameters replace copy and paste. Go's assembler lacks most
// vector floating-point instructions. The kernels use them through the
// macros of neon_arm64.h, whose encodings neon_encoding_arm64_test.go
// checks.
//
// Each file writes one family:
//
//   - linalg.go: the vector and row products;
//   - math.go: the elementwise math (exp, log1p, the linear losses, the
//     smoothed plus functions);
//   - relu.go: the ReLU;
//   - sparse.go: the CSR kernels;
//   - compact.go: the row kernels on compact features.
//
// The file sections.go holds the descriptions at the top of kernel_arm64.s.
package main
