//go:build !purego

package kernel

import "testing"

// TestPrefetchingMargins runs the row-kernel tests again with the threshold
// of the prefetching margins variant lowered to zero, so that variant sees
// every length, offset, gather list and block boundary too.
func TestPrefetchingMargins(t *testing.T) {
	saved := avx2StreamBytes
	avx2StreamBytes = 0
	defer func() { avx2StreamBytes = saved }()
	for _, im := range Impls() {
		if im.Name != "avx2" {
			continue
		}
		t.Run("float32", func(t *testing.T) {
			testMargins(t, &im.F32)
			testMarginsK(t, &im.F32)
			testFusedLinear(t, &im.F32)
			testLongRows(t, &im.F32)
		})
		t.Run("float64", func(t *testing.T) {
			testMargins(t, &im.F64)
			testMarginsK(t, &im.F64)
			testFusedLinear(t, &im.F64)
			testLongRows(t, &im.F64)
		})
	}
}
