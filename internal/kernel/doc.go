// Package kernel holds the hot loops of cvar over flat slices: dot products,
// margins of gathered rows, transposed accumulations, per-sample losses with
// their derivatives, and the smoothed plus functions of the CVaR objective,
// in assembly for AVX-512, AVX2 and NEON and in pure Go.
//
// It knows nothing of models. Every kernel exists for float32 and float64 and
// is a method of an [Ops] value, the kernels of one implementation in one
// precision (ops.Dot(x, y)). An implementation ([Impl]) is a value holding
// both. [Default] is the best one this CPU supports, chosen from the CPU's
// features when it is first asked for; [For] returns its Ops of an element
// type, and [OpsOf] (or an Impl's F32 and F64 methods) that of any
// implementation. [Impls] lists every implementation this CPU can run, best
// first, with the pure-Go reference ([Generic]) last, [Lookup] finds one by
// name, and [Info] says which is the default and why. Impl and Ops are
// handles on tables built once: no value a caller holds can change what
// another computes. Package batch calls the kernels; its models take an
// implementation to compute with.
//
// # Implementations
//
// The implementations: "avx512" (amd64 with AVX-512 F and VL, and BMI2: the
// products and the elementwise math in 512-bit zmm registers), "avx2" (amd64
// with AVX2 and FMA3), "neon" (arm64) and "generic" (Go, on every
// architecture; alone with -tags purego or a compiler other than gc, which
// builds no assembly). "avx512" is the default only on cores
// whose 512-bit FMA runs at full width (AMD Zen 5, Intel Skylake-SP Gold 6xxx
// and Platinum, Ice Lake-SP, Sapphire, Emerald and Granite Rapids), from a
// table of processor models; on double-pumped cores (AMD Zen 4) and unknown
// ones "avx2" is, and "avx512" is still listed for tests and benchmarks. Two
// overrides: GODEBUG=cpu.avx512f=off (x/sys/cpu) removes "avx512",
// GODEBUG=cpu.avx2=off,cpu.fma=off every amd64 assembly path; the
// environment variable CVAR_KERNEL=avx512|avx2|neon|generic names the default
// (a name this CPU cannot run is ignored and reported by [Info], never a
// panic). It is read once, when the default is first asked for (by Default,
// For or Info), so a program may set it before then. Nothing switches the
// default: code that wants another implementation passes it explicitly
// (package batch's models take one). Kernels never allocate.
//
// The implementations compute the same functions but round differently
// (their sums run in different orders and widths), so their results agree
// to rounding, not bit for bit; each one gives the same bits for the same
// inputs on every call.
//
// # Conventions
//
// Conventions shared by all kernels:
//
//   - A matrix is row-major. x with row stride s holds row r in x[r*s : r*s+d].
//   - A gather list idx picks rows: the i-th row used is idx[i]. A nil idx
//     means the rows 0, 1, 2, … in order, so contiguous data needs no index
//     slice.
//   - A k-column weight matrix W (d features, k outputs) is stored class-major:
//     the weight vector of output j is W[j*d : (j+1)*d] (Wᵀ row-major).
//   - A sparse (CSR) matrix is three slices: row r holds vals[p] in column
//     cols[p] for indptr[r] ≤ p < indptr[r+1] (int64 offsets, uint32
//     columns); a column repeated within a row counts once per entry. The
//     Sparse* kernels of "avx512" are those of "avx2".
//   - A [Compact] matrix holds dense rows as bytes with a scale (x = scale·u),
//     as IEEE halves or as bfloat16s; the *C kernels (MarginsC, …) read it,
//     converting as they load.
//   - Kernels assume valid arguments (lengths and indices in range, labels in
//     [0, k)); callers in package batch check them once per data set, not per
//     call. Out-of-range input may panic, never silently corrupt memory.
package kernel
