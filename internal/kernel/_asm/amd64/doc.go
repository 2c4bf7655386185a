// Command amd64 writes the amd64 kernels of package internal/kernel with
// avo. It writes the AVX2 kernels and their AVX-512 twins into
// kernel_amd64.s. It writes their Go declarations into stubs_amd64.go.
//
// go generate runs it in internal/kernel (see gen.go there):
//
//	go -C _asm run ./amd64 -out ../kernel_amd64.s -stubs ../stubs_amd64.go
//
// Each file writes one family:
//
//   - level1.go: Dot, Axpy, Lerp.
//   - rows.go, rowsk.go, rowsmat.go: Margins, AddRows and their k-class forms.
//   - mathkernels.go: Exp, Log1p, the linear losses, Plus.
//   - softmax.go, softmaxlanes.go: SoftmaxCE.
//   - relu.go: the hidden layer's ReLU.
//   - sparse.go: the CSR kernels (AVX2 only).
//   - compact.go: the kernels on compact rows.
//
// The file vec.go describes a register width, so that one body serves ymm
// and zmm. The file zmm.go writes the zmm twins of the products. The file
// docs.go holds the Go declarations' doc comments. The file sections.go
// holds the descriptions at the top of kernel_amd64.s.
//
// The kernels use physical registers, named as in the declarations'
// comments. The avo package checks each instruction form. It writes the
// declarations with their //go:noescape pragmas, and lists the ISA each
// function requires.
package main
