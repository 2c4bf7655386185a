//go:build gc && !purego

package peak

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useWide: the zmm loops run where the CPU (and GODEBUG) allow AVX512F.
var useWide = useAsm && cpu.X86.HasAVX512F

// wideKind names the widest FMA the loops use.
var wideKind = func() string {
	switch {
	case useWide:
		return "zmm (512-bit)"
	case useAsm:
		return "ymm (256-bit)"
	}
	return "scalar (pure Go)"
}()

var kind = func() string {
	if useAsm {
		return "amd64 assembly: VFMADD231PS/PD on ymm (256-bit), 12 chains; VADDPS ymm stream"
	}
	return "pure Go scalar loops (this CPU lacks AVX2+FMA)"
}()

// fma32Asm runs iters iterations of 12 independent VFMADD231PS ymm chains.
//
//go:noescape
func fma32Asm(iters int)

// fma64Asm runs iters iterations of 12 independent VFMADD231PD ymm chains.
//
//go:noescape
func fma64Asm(iters int)

// fma32WideAsm runs iters iterations of 12 independent VFMADD231PS zmm chains.
//
//go:noescape
func fma32WideAsm(iters int)

// fma64WideAsm runs iters iterations of 12 independent VFMADD231PD zmm chains.
//
//go:noescape
func fma64WideAsm(iters int)

// sum32Asm computes, for i < n (n a multiple of 64):
//
//	acc[i%64] += x[i]
//
// in eight ymm accumulators, reading x once.
//
//go:noescape
func sum32Asm(x unsafe.Pointer, n int, acc *[64]float32)

func fma32(iters int) int64 {
	if !useAsm {
		return fma32Go(iters)
	}
	fma32Asm(iters)
	return int64(iters) * Chains * 8
}

func fma64(iters int) int64 {
	if !useAsm {
		return fma64Go(iters)
	}
	fma64Asm(iters)
	return int64(iters) * Chains * 4
}

func sum32(p unsafe.Pointer, n int, acc *[64]float32) {
	if !useAsm {
		sum32Go(p, n, acc)
		return
	}
	sum32Asm(p, n, acc)
}

func fma32Wide(iters int) int64 {
	if !useWide {
		return fma32(iters)
	}
	fma32WideAsm(iters)
	return int64(iters) * Chains * 16
}

func fma64Wide(iters int) int64 {
	if !useWide {
		return fma64(iters)
	}
	fma64WideAsm(iters)
	return int64(iters) * Chains * 8
}
