//go:build gc && !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// archImpls lists the arm64 assembly implementations this CPU supports, best
// first: the NEON (ASIMD) kernels of kernel_arm64.s.
func archImpls() []*impl {
	if !cpu.ARM64.HasASIMD {
		return nil
	}
	return []*impl{neon}
}

// archDefault chooses the first of impls: NEON where the CPU has ASIMD.
func archDefault(impls []*impl) (*impl, string) {
	if len(impls) > 1 {
		return impls[0], "ASIMD"
	}
	return impls[0], "no ASIMD (or GODEBUG turned it off)"
}

// neon is the ASIMD implementation: the shared driver (ops_driver.go) over
// the primitives of elementwise_arm64.go and rows_arm64.go. What is
// particular to arm64:
//
//   - the math kernels of kernel_arm64.s take whole groups of four elements
//     (the driver pads the last 1..3);
//   - the row kernels take lists of row pointers, four rows at a time, which
//     the row primitives gather;
//   - there are no register-blocked multi-class kernels (MarginsK lets the
//     classes play the rows instead).
var neon = newImpl("neon", tunedLevel(isaBase))

// archChunk bounds the elements one streaming assembly call handles, so a
// goroutine is never stuck in assembly for long (tens of microseconds).
const (
	archChunk = 1 << 14
	archGroup = 4 // the math kernels take multiples of four elements
)

// No register-blocked multi-class kernels on arm64: the driver never calls
// archMarginsK or archAddOuterK, and the sizes below are unused.
const (
	archClassKernels = false
	archColBlock     = 0
	archChunkFlops   = 0
	archOuterRowsK   = 1
	archOuterStrip   = 1
)

func archMarginsK[T Float](lvl level, first bool, m unsafe.Pointer, k, n int, x []T, stride int, idx []int, i0 int, w unsafe.Pointer, d, c int) {
	panic("kernel: no multi-class margins kernel on arm64")
}

func archAddOuterK[T Float](lvl level, first bool, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int) {
	panic("kernel: no multi-class accumulation kernel on arm64")
}

func archAddOuterKNext[T Float](lvl level, g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, l int, c unsafe.Pointer, k, n, cols, nc int, next unsafe.Pointer, nnext int) {
	panic("kernel: no multi-class accumulation kernel on arm64")
}

// neonMaxRows is the most rows one call of dotRows or axpyRows takes.
const neonMaxRows = 64

// archRowsPerCall is the number of rows of d elements that one assembly call
// takes. It is a multiple of 4 in 4..neonMaxRows, for about 4·archChunk
// multiply-adds. arm64 has no register-blocked kernels, so archClassBlock is
// unused.
func archMarginsKBlock[T Float](lvl level, d int) int { return 4 }
func archRowBlockFlops(lvl level) int                 { return archChunkFlops }
func archClassBlock(lvl level) int                    { return 4 }

func archRowsPerCall(lvl level, d int) int {
	return min(max((4*archChunk/(d+1))&^3, 4), neonMaxRows)
}

// archOuterRows is the block of rows AddOuterK takes per class.
func archOuterRows[T Float](lvl level, d int) int { return archRowsPerCall(lvl, d) }

// archFusedMax is the most rows FusedLinear takes through margins, loss,
// plus weight and gradient in one pass. A block holds about 32 KiB of rows.
// So they are still in L1 when the gradient pass reads them again.
const archFusedMax = 32

func archFusedBlock[T Float](lvl level, d int) int {
	return min(max((32<<10)/(max(d, 1)*int(unsafe.Sizeof(T(0))))&^3, 4), archFusedMax)
}
