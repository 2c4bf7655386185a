// Command amd64 writes the amd64 assembly kernels of package kernel, both
// the AVX2+FMA ones and their AVX-512 twins, into kernel_amd64.s, and their
// Go declarations into stubs_amd64.go, with avo.
//
// It is run by go generate in the kernel directory (see gen.go there):
//
//	go -C _asm run ./amd64 -out ../kernel_amd64.s -stubs ../stubs_amd64.go
//
// The kernels are written by family: level1.go the vector kernels (Dot,
// Axpy, Lerp), rows.go, rowsk.go and rowsmat.go the row kernels (Margins,
// AddRows and their k-class forms), mathkernels.go the elementwise math
// (Exp, Log1p, the linear losses, Plus, SoftmaxCE), softmax.go and
// softmaxlanes.go the softmax cross-entropy, relu.go the hidden layer's
// ReLU, sparse.go the CSR kernels (AVX2 only), and compact.go the loads
// of compact features. vec.go describes a register width, so that one body
// is written for ymm and for zmm, and zmm.go writes the zmm twins of the
// products. docs.go holds the Go declarations with their doc comments, and
// sections.go the descriptions at the top of kernel_amd64.s.
//
// Every kernel uses physical registers only, named as in the comments of the
// Go declarations: avo checks each instruction form, writes the declarations
// with their //go:noescape pragmas, and lists the ISA each function requires.
package main
