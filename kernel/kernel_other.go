//go:build purego || !(amd64 || arm64)

package kernel

// archImpls has no assembly to offer: the generic reference runs alone.
func archImpls() []*Impl { return nil }
