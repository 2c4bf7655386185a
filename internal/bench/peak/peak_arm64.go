//go:build gc && !purego

package peak

import "unsafe"

// ASIMD (NEON) is part of every arm64 CPU Go supports.
const (
	useAsm = true
	kind   = "arm64 assembly: FMLA on 128-bit vectors, 12 chains; FMLA-by-one stream"
)

// fma32Asm runs iters iterations of 12 independent FMLA .4S chains.
//
//go:noescape
func fma32Asm(iters int)

// fma64Asm runs iters iterations of 12 independent FMLA .2D chains.
//
//go:noescape
func fma64Asm(iters int)

// sum32Asm reads x once and computes, for i < n (n a multiple of 64):
//
//	acc[i%32] += x[i]
//
// It keeps eight 128-bit accumulators, adding x[i]·1 + acc with FMLA.
//
//go:noescape
func sum32Asm(x unsafe.Pointer, n int, acc *[64]float32)

func fma32(iters int) int64 {
	fma32Asm(iters)
	return int64(iters) * Chains * 4
}

func fma64(iters int) int64 {
	fma64Asm(iters)
	return int64(iters) * Chains * 2
}

func sum32(p unsafe.Pointer, n int, acc *[64]float32) { sum32Asm(p, n, acc) }

// No wider FMA than the loops above here.
const (
	useWide  = false
	wideKind = "128-bit (NEON)"
)

func fma32Wide(iters int) int64 { return fma32(iters) }
func fma64Wide(iters int) int64 { return fma64(iters) }
