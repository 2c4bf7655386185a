package peak

import "unsafe"

// Chains is the number of independent FMA chains of FMA32 and FMA64.
const Chains = 12

// Asm reports whether Sum32, FMA32 and FMA64 run the assembly loops.
func Asm() bool { return useAsm }

// Kind describes the loops in use, for reports.
func Kind() string { return kind }

// FMA32 runs iters iterations of Chains independent float32 vector FMAs.
// It returns the number of scalar multiply-adds done (2 flops each).
func FMA32(iters int) int64 {
	if iters <= 0 {
		return 0
	}
	return fma32(iters)
}

// HasWide reports whether FMA32Wide and FMA64Wide run wider vectors than
// FMA32 and FMA64. They do on amd64 with AVX-512 (zmm, 512-bit).
func HasWide() bool { return useWide }

// WidestKind names the widest FMA the loops use: "zmm (512-bit)",
// "ymm (256-bit)", "128-bit (NEON)" or "scalar (pure Go)".
func WidestKind() string { return wideKind }

// FMA32Wide is FMA32 on the widest vectors the CPU has (zmm with AVX-512).
// Without them it is FMA32.
func FMA32Wide(iters int) int64 {
	if iters <= 0 {
		return 0
	}
	return fma32Wide(iters)
}

// FMA64Wide is FMA32Wide for float64.
func FMA64Wide(iters int) int64 {
	if iters <= 0 {
		return 0
	}
	return fma64Wide(iters)
}

// FMA64 is FMA32 for float64.
func FMA64(iters int) int64 {
	if iters <= 0 {
		return 0
	}
	return fma64(iters)
}

// block bounds the elements one assembly call reads (4 MiB). So a call is
// short: assembly loops cannot be preempted.
const block = 1 << 20

// Sum32 returns Σ x[i], reading x once, front to back. The order of the sum
// is unspecified (eight or more partial sums). The value only keeps the
// reads from being optimised away.
func Sum32(x []float32) float32 {
	var acc [64]float32
	var s float32
	for len(x) >= 64 {
		n := min(len(x), block) &^ 63
		clear(acc[:])
		sum32(unsafe.Pointer(unsafe.SliceData(x)), n, &acc)
		for _, v := range acc {
			s += v
		}
		x = x[n:]
	}
	for _, v := range x {
		s += v
	}
	return s
}

// sum32Go is the portable Sum32 block: eight partial sums.
func sum32Go(p unsafe.Pointer, n int, acc *[64]float32) {
	x := unsafe.Slice((*float32)(p), n)
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	for i := 0; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		a0 += v[0]
		a1 += v[1]
		a2 += v[2]
		a3 += v[3]
		a4 += v[4]
		a5 += v[5]
		a6 += v[6]
		a7 += v[7]
	}
	acc[0], acc[1], acc[2], acc[3] = a0, a1, a2, a3
	acc[4], acc[5], acc[6], acc[7] = a4, a5, a6, a7
}

// sink keeps the Go FMA loops' results alive.
var sink float64

// fma32Go runs Chains scalar float32 multiply-add chains.
func fma32Go(iters int) int64 {
	var a [Chains]float32
	m, c := float32(0.999999), float32(1e-3)
	for range iters {
		a[0] = a[0]*m + c
		a[1] = a[1]*m + c
		a[2] = a[2]*m + c
		a[3] = a[3]*m + c
		a[4] = a[4]*m + c
		a[5] = a[5]*m + c
		a[6] = a[6]*m + c
		a[7] = a[7]*m + c
		a[8] = a[8]*m + c
		a[9] = a[9]*m + c
		a[10] = a[10]*m + c
		a[11] = a[11]*m + c
	}
	var s float32
	for _, v := range a {
		s += v
	}
	sink += float64(s)
	return int64(iters) * Chains
}

// fma64Go runs Chains scalar float64 multiply-add chains.
func fma64Go(iters int) int64 {
	var a [Chains]float64
	m, c := 0.999999, 1e-3
	for range iters {
		a[0] = a[0]*m + c
		a[1] = a[1]*m + c
		a[2] = a[2]*m + c
		a[3] = a[3]*m + c
		a[4] = a[4]*m + c
		a[5] = a[5]*m + c
		a[6] = a[6]*m + c
		a[7] = a[7]*m + c
		a[8] = a[8]*m + c
		a[9] = a[9]*m + c
		a[10] = a[10]*m + c
		a[11] = a[11]*m + c
	}
	var s float64
	for _, v := range a {
		s += v
	}
	sink += s
	return int64(iters) * Chains
}
