//go:build !gc || purego || !(amd64 || arm64)

package kernel

// archImpls has no assembly to offer: the generic reference runs alone.
func archImpls() []*impl { return nil }

// The driver (ops_driver.go and the *_driver.go files) is compiled everywhere; without assembly it never
// runs, and these declarations only let it compile.
const (
	archChunk        = 1 << 15
	archChunkFlops   = 1 << 16
	archGroup        = 1
	archClassKernels = false
	archColBlock     = 0
	archOuterRowsK   = 1
	archOuterStrip   = 1
	archFusedMax     = 1
)

// archDefault: without assembly the generic reference is the only choice.
func archDefault(impls []*impl) (*impl, string) { return impls[0], "no assembly in this build" }

const noAsm = "kernel: no assembly in this build"

func archMarginsKBlock[T Float](lvl level, d int) int { panic(noAsm) }
func archRowBlockFlops(lvl level) int                 { panic(noAsm) }
func archClassBlock(lvl level) int                    { panic(noAsm) }
func archRowsPerCall(lvl level, d int) int            { panic(noAsm) }
func archOuterRows[T Float](lvl level, d int) int     { panic(noAsm) }
func archFusedBlock[T Float](lvl level, d int) int    { panic(noAsm) }
