// Package kernel chooses and describes the implementations of cvar's
// kernels. The kernels are the hot loops over flat slices that package batch
// runs. They compute dot products, the margins and gradients of gathered
// rows, the losses, and the smoothed plus functions of the CVaR objective.
//
// An implementation is a value, an [Impl]. [Default] is the best one this
// CPU supports. [Impls] lists every one it can run, best first, with the
// pure-Go reference ([Generic]) last. [Lookup] finds one by name, and [Info]
// says which is the default and why. Package batch's models use the default
// unless given another (batch.Linear.WithKernel).
//
// # Implementations
//
//   - "avx512": amd64 with AVX-512 F and VL, and BMI2.
//   - "avx2": amd64 with AVX2 and FMA3.
//   - "neon": arm64.
//   - "generic": Go, on every architecture. It is the only one with
//     -tags purego or a compiler other than gc, which build no assembly.
//
// "avx512" is the default only where 512-bit FMA runs at full width. Those
// cores are AMD Zen 5 and Intel Skylake-SP Gold 6xxx and Platinum, Ice
// Lake-SP, and Sapphire, Emerald and Granite Rapids. A double-pumped core
// (AMD Zen 4) runs 512-bit code no faster. So there, and on unknown cores,
// "avx2" is the default; "avx512" is still listed.
//
// Two overrides, read once, when the default is first asked for:
//
//   - GODEBUG=cpu.avx512f=off removes "avx512"; GODEBUG=cpu.avx2=off,cpu.fma=off
//     removes every amd64 assembly path.
//   - CVAR_KERNEL=avx512|avx2|neon|generic names the default. A name this
//     CPU cannot run is ignored and reported by Info, never a panic.
//
// Nothing switches the default later: code that wants another
// implementation passes it explicitly.
//
// The implementations compute the same functions but round differently:
// their sums run in different orders and widths. Their results agree to
// rounding, not bit for bit. Each gives the same bits for the same inputs
// on every call.
package kernel
