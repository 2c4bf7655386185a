//go:build gc && !purego

package kernel

import "testing"

// compactRowLevels lists the levels whose compact row kernels this CPU runs:
// NEON's one (archMarginsC and archAddRowsC ignore the level).
func compactRowLevels(t *testing.T) []level { return []level{tunedLevel(isaBase)} }
