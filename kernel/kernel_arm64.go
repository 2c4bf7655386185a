//go:build !purego

package kernel

// archImpls lists the arm64 assembly implementations this CPU supports, best
// first. The SIMD kernels are added by the kernels issue.
func archImpls() []*Impl { return nil }
