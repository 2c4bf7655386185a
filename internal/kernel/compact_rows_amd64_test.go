//go:build gc && !purego

package kernel

import "testing"

// compactRowLevels lists the levels whose compact row kernels this CPU runs:
// the ymm kernels, and their zmm twins with AVX-512.
func compactRowLevels(t *testing.T) []level {
	lvls := []level{tunedLevel(isaBase)}
	if hasAVX512() {
		lvls = append(lvls, tunedLevel(isaWide))
	} else {
		t.Log("no AVX-512: the zmm kernels are not run")
	}
	return lvls
}
