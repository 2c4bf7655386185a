// Command arm64 writes the NEON kernels of package internal/kernel into
// kernel_arm64.s.
//
// go generate runs it in internal/kernel (see gen.go there):
//
//	go -C _asm run ./arm64 -out ../kernel_arm64.s
//
// avo has no arm64 backend, so this is a small text emitter, as zeebo/blake3
// keeps one. Its Go functions write one instruction a line; loops and
// parameters replace copy and paste. Go's assembler lacks most vector
// floating-point instructions. The kernels use them through the macros of
// neon_arm64.h, whose encodings neon_encoding_arm64_test.go checks.
//
// Each file writes one family: linalg.go the vector and row products,
// math.go the elementwise math (exp, log1p, the linear losses, the smoothed
// plus functions), relu.go the ReLU, sparse.go the CSR kernels, compact.go
// the row kernels on compact features. sections.go holds the descriptions
// at the top of kernel_arm64.s.
package main
