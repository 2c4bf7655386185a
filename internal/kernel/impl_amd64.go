//go:build gc && !purego

package kernel

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// archImpls lists the amd64 implementations this CPU supports, best for this
// CPU first (see archDefault). "avx512" needs AVX-512 F and VL and BMI2. It
// runs the products, the elementwise math and the compact row kernels in
// zmm, and the 256-bit kernels elsewhere. "avx2" needs AVX2 and FMA3.
// x/sys/cpu honours GODEBUG. So cpu.avx512f=off (or cpu.avx512vl=off,
// cpu.bmi2=off) drops "avx512". And cpu.avx2=off or cpu.fma=off forces the
// generic path.
func archImpls() []*impl {
	if !(cpu.X86.HasAVX2 && cpu.X86.HasFMA) {
		return nil
	}
	avx2 := newImpl("avx2", tunedLevel(isaBase))
	if !hasAVX512() {
		return []*impl{avx2}
	}
	avx512 := newImpl("avx512", tunedLevel(isaWide))
	if full, _ := fullWidthFMA512(); full {
		return []*impl{avx512, avx2}
	}
	return []*impl{avx2, avx512}
}

// hasAVX512 reports whether the CPU (and GODEBUG) allow the zmm kernels.
func hasAVX512() bool {
	return cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2
}

// archDefault chooses the default among impls and says why. impls are this
// CPU's, as archImpls lists them, generic last. AVX-512 is the default only
// where the core executes 512-bit FMAs at full width, two per cycle. Then
// zmm doubles ymm's peak. Double-pumped cores bring no more FMAs per cycle
// in zmm, so AVX2 stays. Such cores are AMD Zen 4, Intel client and
// single-FMA-unit parts.
func archDefault(impls []*impl) (*impl, string) {
	if len(impls) < 2 {
		return impls[0], "no SIMD kernels for this CPU (or GODEBUG turned AVX2/FMA off)"
	}
	if !hasAVX512() {
		return impls[0], "no AVX-512 F/VL/BMI2 (or GODEBUG turned it off)"
	}
	full, why := fullWidthFMA512()
	for _, im := range impls {
		if full && im.name == "avx512" || !full && im.name == "avx2" {
			return im, why
		}
	}
	return impls[0], why
}

// fullWidthFMA512 reports whether this CPU's 512-bit FMAs run at full width
// (two zmm FMAs per cycle), and why. It reads a table of processor models.
// Unknown models count as not full width. AVX2 is never the slower choice,
// and CVAR_KERNEL=avx512 selects the zmm kernels by hand.
func fullWidthFMA512() (bool, string) {
	c := cpuid.CPU
	return fullWidthTable(c.VendorID, c.Family, c.Model, c.BrandName)
}

// fullWidthTable is fullWidthFMA512's table, by vendor, family, model and
// brand string.
func fullWidthTable(vendor cpuid.Vendor, family, model int, brand string) (bool, string) {
	switch vendor {
	case cpuid.AMD:
		switch {
		case family >= 0x1a:
			return true, fmt.Sprintf("AMD family %#x (Zen 5 or later): 512-bit FMA at full width", family)
		case family == 0x19:
			return false, "AMD family 0x19 (Zen 4): 512-bit FMA double-pumped, AVX2 as fast"
		}
	case cpuid.Intel:
		if family == 6 {
			switch model {
			case 0x55: // Skylake-SP, Cascade Lake, Cooper Lake
				// Two 512-bit FMA units on Platinum and Gold 6xxx parts;
				// one on Silver, Bronze and most Gold 5xxx.
				b := brand
				if strings.Contains(b, "Platinum") || strings.Contains(b, "Gold 6") || strings.Contains(b, "W-") {
					return true, "Intel Skylake/Cascade Lake-SP with two 512-bit FMA units"
				}
				return false, "Intel Skylake/Cascade Lake-SP with one 512-bit FMA unit"
			case 0x6a, 0x6c: // Ice Lake-SP, -D
				return true, "Intel Ice Lake-SP: two 512-bit FMA units"
			case 0x8f, 0xcf, 0xad, 0xae: // Sapphire, Emerald, Granite Rapids
				return true, "Intel Sapphire/Emerald/Granite Rapids: two 512-bit FMA units"
			}
		}
	}
	return false, fmt.Sprintf("%s family %#x model %#x not in the table of full-width 512-bit FMA cores: AVX2 by default", vendor, family, model)
}

// _asm/amd64 generates the assembly (kernel_amd64.s) and its declarations
// (stubs_amd64.go); see gen.go. The shared driver (ops_driver.go) checks
// bounds and cuts the work into bounded calls. This file holds what is
// particular to amd64: the implementations, the default and the sizes of the
// calls. The files elementwise_amd64.go and rows_amd64.go hold the
// primitives.

// Work bounds for one assembly call. Assembly loops cannot be preempted. So
// long inputs are split into calls of about this many multiply-adds, a few
// microseconds each.
const (
	archChunk      = 1 << 15 // elements per call of a vector kernel
	archChunkFlops = 1 << 16 // multiply-adds per call of a row kernel
	archGroup      = 1       // the elementwise kernels take any length
)

// The register-blocked multi-class kernels (marginsK, addOuterK).
const (
	archClassKernels = true
	// archColBlock is the most columns one row-kernel call handles. Longer
	// rows are split so that a call stays short; it takes at most 4 rows
	// when rows are this long. MarginsK takes them through the margins
	// kernel.
	archColBlock = 1 << 14
	// archOuterRowsK and archOuterStrip bound one addOuterK call. A call
	// takes at most 64 rows × one 512-byte column strip × 5 classes (zmm:
	// 10). That is at most 82k multiply-adds. The block's rows' strip (32
	// KiB) stays in L1 while the class blocks take their turns.
	archOuterRowsK = 64
	archOuterStrip = 512
)

// archClassBlock is the most classes one marginsK or addOuterK call
// handles: 5 with 16 ymm registers, 10 with 32 zmm registers (so MNIST's ten
// classes go in one block).
func archClassBlock(lvl level) int {
	if lvl.isa == isaWide {
		return 10
	}
	return 5
}

// archRowBlockFlops bounds the multiply-adds of one marginsK call. The zmm
// kernel takes four times as many: about 32 rows of 784 × 10 classes, a few
// microseconds. Its prefetching variant fetches the rows three pairs ahead
// within a call. So few pairs of a call start cold.
func archRowBlockFlops(lvl level) int {
	if lvl.isa == isaWide {
		return 4 * archChunkFlops
	}
	return archChunkFlops
}

// archMarginsKBlock is the most classes one marginsK call takes for rows of
// d elements of T. It is archClassBlock, except in the zmm kernel. That
// kernel re-reads the block's weights for every pair of rows. So it keeps
// them within 32 KiB (in L1), down to 5 classes. For example, float64 with
// d = 784 runs MNIST's ten classes as 5 + 5. Float32 runs one block of 10.
func archMarginsKBlock[T Float](lvl level, d int) int {
	if lvl.isa != isaWide {
		return archClassBlock(lvl)
	}
	return min(10, max(5, (32<<10)/(d*int(unsafe.Sizeof(T(0))))))
}

// archFusedMax is the most rows FusedLinear handles per block. The block
// shrinks, to 8 rows at least, so that its rows stay in L2. There are 128
// KiB of them, read a second time for the accumulation into g. Blocks that
// fit L1 leave the memory idle while each block's weights and accumulation
// run. So the block is sized for L2.
const archFusedMax = 64

func archFusedBlock[T Float](lvl level, d int) int {
	return min(archFusedMax, max(8, (128<<10)/max(1, d*int(unsafe.Sizeof(T(0))))&^3))
}

// archRowsPerCall bounds the rows of one row-kernel call to about
// archChunkFlops multiply-adds, in multiples of 4.
func archRowsPerCall(lvl level, d int) int { return max(4, archChunkFlops/max(d, 1)) &^ 3 }

// archOuterRows is the block of rows AddOuterK takes per class with one or
// two classes: 16 KiB of rows.
func archOuterRows[T Float](lvl level, d int) int {
	return max(4, (16<<10)/(d*int(unsafe.Sizeof(T(0))))) &^ 3
}
