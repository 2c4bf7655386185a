//go:build !purego

package kernel

import "testing"

// TestPrefetchingRowKernels runs the row-kernel tests again with the
// threshold of the prefetching variants (marginsPF, addRowsPF) lowered to
// zero, so they see every length, offset, gather list and block boundary too.
func TestPrefetchingRowKernels(t *testing.T) {
	saved := streamBytes
	streamBytes = 0
	defer func() { streamBytes = saved }()
	for _, im := range Impls() {
		if im.Name != "avx2" && im.Name != "avx512" {
			continue
		}
		t.Run("float32", func(t *testing.T) {
			testMargins(t, &im.F32)
			testAddRows(t, &im.F32)
			testAddOuterK(t, &im.F32)
			testMarginsK(t, &im.F32)
			testFusedLinear(t, &im.F32)
			testLongRows(t, &im.F32)
		})
		t.Run("float64", func(t *testing.T) {
			testMargins(t, &im.F64)
			testAddRows(t, &im.F64)
			testAddOuterK(t, &im.F64)
			testMarginsK(t, &im.F64)
			testFusedLinear(t, &im.F64)
			testLongRows(t, &im.F64)
		})
	}
}
