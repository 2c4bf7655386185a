//go:build !gc || purego || !(amd64 || arm64)

package peak

import "unsafe"

const (
	useAsm = false
	kind   = "pure Go scalar loops (no assembly for this build)"
)

func fma32(iters int) int64 { return fma32Go(iters) }
func fma64(iters int) int64 { return fma64Go(iters) }

func sum32(p unsafe.Pointer, n int, acc *[64]float32) { sum32Go(p, n, acc) }

// No wider FMA than the loops above here.
const (
	useWide  = false
	wideKind = "scalar (pure Go)"
)

func fma32Wide(iters int) int64 { return fma32(iters) }
func fma64Wide(iters int) int64 { return fma64(iters) }
