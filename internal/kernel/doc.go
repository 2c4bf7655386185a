// Package kernel holds the hot loops of cvar over flat slices. They are dot
// products, the margins and gradients of gathered rows, and per-sample
// losses with their derivatives. They include the smoothed plus functions of
// the CVaR objective. Each is written in assembly for AVX-512, AVX2 and
// NEON, and in pure Go.
//
// It knows nothing of models. Every kernel exists for float32 and float64
// and is a method of an [Ops] value: the kernels of one implementation in
// one precision. An implementation, an [Impl], holds both precisions.
// [Default], [Impls], [Generic] and [Lookup] return implementations; [For]
// and [OpsOf] return their Ops. Impl and Ops are handles on tables built
// once, so no value a caller holds can change what another computes.
// Kernels never allocate.
//
// The public package kernel names implementations for users. Package batch
// runs the kernels. docs/kernels.md maps each Ops method to its driver,
// primitive, stub and generator function. It also lists the steps of adding
// a kernel.
//
// The implementations round differently: their sums run in different
// orders and widths. They agree to rounding, not bit for bit. Each gives
// the same bits for the same inputs on every call.
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
