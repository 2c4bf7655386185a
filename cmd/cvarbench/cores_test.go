package main

import (
	"runtime"
	"testing"
)

// TestOSCores: the machine report's cores are the OS's count; CPUID's
// count is kept only where it does not exceed it (a virtual machine's
// CPUID may give its host's 254).
func TestOSCores(t *testing.T) {
	n := runtime.NumCPU()
	if got := osCores(n + 252); got != 0 {
		t.Errorf("osCores(%d) on %d CPUs: %d, want 0", n+252, n, got)
	}
	if got := osCores(n); got != n {
		t.Errorf("osCores(%d) on %d CPUs: %d", n, n, got)
	}
	if m := machineReport(); m.LogicalCores != n || m.PhysicalCores > n {
		t.Errorf("machine report: %d logical, %d physical cores; the OS reports %d", m.LogicalCores, m.PhysicalCores, n)
	}
}
