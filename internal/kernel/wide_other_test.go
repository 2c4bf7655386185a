//go:build !amd64 || !gc || purego

package kernel

// expectWide reports whether avx512 is the default: never without the amd64
// assembly.
func expectWide() bool { return false }
