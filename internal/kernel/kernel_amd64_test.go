//go:build gc && !purego

package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// TestPrefetchingRowKernels runs the row-kernel tests again with the
// threshold of the prefetching variants (marginsPF, addRowsPF, addOuterKNX) lowered to
// zero, so they see every length, offset, gather list and block boundary too.
func TestPrefetchingRowKernels(t *testing.T) {
	t.Parallel()
	for _, im := range retunedImpls(func(l *level) { l.streamBytes = 0 }) {
		t.Run("float32", func(t *testing.T) {
			testMargins(t, im.F32())
			testAddRows(t, im.F32())
			testAddOuterK(t, im.F32())
			testAddOuterKNext(t, im.F32())
			testMarginsK(t, im.F32())
			testMarginsKBlocks(t, im.F32())
			testFusedLinear(t, im.F32())
			testLongRows(t, im.F32())
		})
		t.Run("float64", func(t *testing.T) {
			testMargins(t, im.F64())
			testAddRows(t, im.F64())
			testAddOuterK(t, im.F64())
			testAddOuterKNext(t, im.F64())
			testMarginsK(t, im.F64())
			testMarginsKBlocks(t, im.F64())
			testFusedLinear(t, im.F64())
			testLongRows(t, im.F64())
		})
	}
}

// expectWide reports whether this CPU is in the table of full-width 512-bit
// FMA cores (with AVX-512 available): where avx512 is the default.
func expectWide() bool {
	c := cpuid.CPU
	full, _ := fullWidthTable(c.VendorID, c.Family, c.Model, c.BrandName)
	return full && cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2
}

// TestFullWidthTable checks the table that makes avx512 the default: full
// width on Zen 5 and Intel's two-FMA-unit server cores, not on Zen 4, single
// unit Skylake-SP parts, client cores or unknown models.
func TestFullWidthTable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		vendor        cpuid.Vendor
		family, model int
		brand         string
		want          bool
	}{
		{cpuid.AMD, 0x1a, 0x02, "AMD EPYC 9755", true},
		{cpuid.AMD, 0x1a, 0x44, "AMD Ryzen 9 9950X", true},
		{cpuid.AMD, 0x19, 0x11, "AMD EPYC 9654", false},
		{cpuid.AMD, 0x17, 0x31, "AMD EPYC 7742", false},
		{cpuid.Intel, 6, 0x55, "Intel(R) Xeon(R) Platinum 8280", true},
		{cpuid.Intel, 6, 0x55, "Intel(R) Xeon(R) Gold 6148", true},
		{cpuid.Intel, 6, 0x55, "Intel(R) Xeon(R) Silver 4114", false},
		{cpuid.Intel, 6, 0x6a, "Intel(R) Xeon(R) Platinum 8380", true},
		{cpuid.Intel, 6, 0x8f, "Intel(R) Xeon(R) Platinum 8480+", true},
		{cpuid.Intel, 6, 0xcf, "Intel(R) Xeon(R) Processor", true},
		{cpuid.Intel, 6, 0xad, "Intel(R) Xeon(R) 6980P", true},
		{cpuid.Intel, 6, 0x7e, "Intel(R) Core(TM) i7-1065G7", false},
		{cpuid.VendorUnknown, 0, 0, "", false},
	} {
		got, why := fullWidthTable(c.vendor, c.family, c.model, c.brand)
		if got != c.want || why == "" {
			t.Errorf("%v family %#x model %#x %q: full width %v (%s), want %v", c.vendor, c.family, c.model, c.brand, got, why, c.want)
		}
	}
	if im, why := archDefault(impls); why == "" || im == nil {
		t.Errorf("archDefault: %v, %q", im, why)
	}
}

// TestSoftmaxZmmUndispatched runs the zmm row kernels of SoftmaxCE at class
// counts where archSoftmax takes the rows-as-lanes ones instead (k ≤
// maxLaneClasses), so that they stay correct should the dispatch change.
func TestSoftmaxZmmUndispatched(t *testing.T) {
	t.Parallel()
	if !hasAVX512() {
		t.Skip("no AVX-512")
	}
	ks, ns := []int{2, 4, 10, maxLaneClasses}, steps(9, 1)
	t.Run("float32", func(t *testing.T) { testSoftmaxKernel[float32](t, zSoftmaxF32, ks, ns) })
	t.Run("float64", func(t *testing.T) { testSoftmaxKernel[float64](t, zSoftmaxF64, ks, ns) })
}

// steps is step, 2·step, …, up to max.
func steps(max, step int) []int {
	var ns []int
	for n := step; n <= max; n += step {
		ns = append(ns, n)
	}
	return ns
}

// TestSoftmaxLanesYmm runs softmaxLanes, four rows a step as the lanes of
// ymm registers, at every class count it takes on multiples of four rows.
func TestSoftmaxLanesYmm(t *testing.T) {
	t.Parallel()
	ks, ns := steps(maxLaneClassesYmm, 1), steps(24, 4)
	t.Run("float32", func(t *testing.T) { testSoftmaxKernel[float32](t, softmaxLanesF32, ks, ns) })
	t.Run("float64", func(t *testing.T) { testSoftmaxKernel[float64](t, softmaxLanesF64, ks, ns) })
}

// TestSoftmaxLanesZmm runs zSoftmaxLanes, eight rows a step as the lanes
// of zmm registers, at every class count it takes, on whole blocks of rows
// and every tail.
func TestSoftmaxLanesZmm(t *testing.T) {
	t.Parallel()
	if !hasAVX512() {
		t.Skip("no AVX-512")
	}
	ks, ns := steps(maxLaneClasses, 1), steps(25, 1)
	t.Run("float32", func(t *testing.T) { testSoftmaxKernel[float32](t, zSoftmaxLanesF32, ks, ns) })
	t.Run("float64", func(t *testing.T) { testSoftmaxKernel[float64](t, zSoftmaxLanesF64, ks, ns) })
}

// testSoftmaxKernel checks kern against the generic SoftmaxCE for each k in
// ks and n in ns rows, in guarded buffers.
func testSoftmaxKernel[T Float](t *testing.T, kern func(loss, z, label unsafe.Pointer, n, k int), ks, ns []int) {
	gen := OpsOf[T](Generic())
	r := rand.New(rand.NewPCG(21, 22))
	for _, k := range ks {
		for _, n := range ns {
			z, gz := newGuarded[T](n*k, n%4)
			for i := range z {
				z[i] = T((2*r.Float64() - 1) * 20)
			}
			label := make([]int32, n)
			for i := range label {
				label[i] = int32(r.IntN(k))
			}
			label[n-1] = int32(k - 1)
			z0 := append([]T(nil), z...)
			wz := append([]T(nil), z...)
			loss, gl := newGuarded[T](n, (n+1)%4)
			wl := make([]T, n)
			kern(ptr(loss), ptr(z), unsafe.Pointer(&label[0]), n, k)
			gen.SoftmaxCE(wl, wz, label, k)
			checkSoftmax(t, fmt.Sprintf("zSoftmax k=%d n=%d", k, n), z0, z, wz, loss, wl, label, k)
			gz.check(t, "z")
			gl.check(t, "loss")
		}
	}
}
