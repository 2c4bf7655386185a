package main

// The descriptions of the kernel families at the top of kernel_amd64.s.

const mathDoc = `// Elementwise kernels: Exp, Log1p, LinearLoss (logistic, squared, absolute),
// Plus (none, hinge, softplus, quadratic) and SoftmaxCE rows, for float32 and
// float64.
//
// Requires: AVX2, FMA3.
//
// Precision: float64 kernels compute in float64, four lanes per 256-bit
// register. In float32, Exp, Log1p, the logistic loss and softplus compute
// in float32, eight lanes per register. They use float32 twins of the
// float64 algorithms (expPS, log1pPS in _asm/amd64/math.go). The other
// float32 kernels widen four inputs with VCVTPS2PD, run the float64 code and
// round once with VCVTPD2PS. These are squared, absolute, none, hinge,
// quadratic and SoftmaxCE. So squared, absolute, hinge, none and quadratic
// replay the generic reference's float64 operations exactly. Their results
// are bit-identical in both precisions.
//
// Tails: four elements per step, eight for native float32. The last elements
// are loaded and stored with VMASKMOVPD / VMASKMOVPS under a lane mask. So
// nothing past the slices is touched. SoftmaxCE walks each row the same way.
// Its masked-off lanes are forced to −Inf for the max and to 0 for the sum.
// It takes rows in blocks of four, whose four sums share one log1p and one
// division. The last n mod 4 rows go one at a time.
//
// The kernel softmaxLanes (k ≤ 16) takes four rows a step as the lanes
// instead. Class j of the four rows is loaded element by element into one
// float64 register (VMOVSS/VINSERTPS, VMOVSD/VMOVHPD). It is kept in a stack
// frame slot a class. It is stored back by VMOVSS/VEXTRACTPS
// (VMOVSD/VMOVHPD). The max, exp, sum (in class order), log1p and division
// are lane for lane. Its caller passes it whole blocks of four rows, and the
// rest to softmax.
//
// Exp (expPD): table-free.
//
//   - The input is clamped to [−746, 710]. NaN passes through the min/max
//     unchanged.
//   - k = round(x/ln2), by adding the shifter 1.5·2^52 to x·log2(e) in one
//     FMA.
//   - r = x − k·ln2 with ln2 in two parts and two FMAs, |r| ≤ 0.347. ln2hi
//     has 21 trailing zero bits.
//   - e^r = 1 + r + r²·P(r), Horner with FMAs. P has degree 9: a Chebyshev
//     fit of (e^r − 1 − r)/r² on [−ln2/2, ln2/2], truncation < 0.15 ulp.
//   - The result is scaled by 2^k as two multiplications, by 2^⌊k/2⌋ and
//     2^(k−⌊k/2⌋), built in the exponent bits.
//
// So 2^1024 and the subnormal range need no special case. x ≥ 709.79 gives
// +Inf, and x ≤ −745.14 gives +0. Subnormal results are rounded once, by the
// last multiplication. They come from the ≤1-ulp value of e^r·2^⌊k/2⌋. So
// they are within one unit of the subnormal grid, and typically correctly
// rounded. Special values: exp(±0) = 1, exp(+Inf) = +Inf, exp(−Inf) = 0,
// exp(NaN) = NaN.
//
// Log1p (log1pPD): inputs above 2^1000 are first scaled by 2^−100, and 100
// is added to e below. So 2^−e stays a normal number. Let u = fl(1+x), and e
// such that u·2^−e ∈ [√2/2, √2). e comes from the exponent bits of u. Then
// f = x·2^−e + (2^−e − 1) in one FMA. That is exact for e = 0, and one
// rounding otherwise. So the rounding of 1+x never enters. Then:
//
//	log1p(x) = e·ln2 + log1p(f)
//	log1p(f) = f − hfsq + s·(hfsq + R(s²)), s = f/(2+f), hfsq = f²/2
//
// R is the degree-7 minimax polynomial in s² of fdlibm's log (coefficients
// Lg1..Lg7). ln2 is in two parts. Special inputs are blended in:
// log1p(±0) = ±0, log1p(+Inf) = +Inf, log1p(NaN) = NaN. Also
// log1p(−1) = −Inf and log1p(x < −1) = NaN. Subnormal x gives x.
//
// Float32 twins: expPS clamps to [−104, 89]. It reduces the same way, with a
// float32 two-part ln2. It uses the Taylor polynomial of e^r to degree 7
// (truncation < 0.1 ulp). It scales by 2^k in two steps, as above. The twin
// log1pPS scales inputs above 2^100 by 2^−64. It uses fdlibm's float
// polynomial Lg1..Lg4. Float32 softplus and logistic loss recompute some
// rare lanes in float64. Those are the lanes whose e = exp(−|t|) is below
// the normal float32 range. So a large ε or label never magnifies a
// subnormal rounding.
//
// Accuracy contract, tested against math/big in accuracy_test.go. The tests
// cover the whole domain: ±0, ±Inf, NaN, the overflow and underflow
// thresholds and subnormal results.
//
//   - exp and log1p: within 2 ulp, in float64 and in float32.
//   - sigmoid, softplus, and the logistic loss and its derivative: within
//     4 ulp in float64 and 2 ulp in float32, where their inputs are exact
//     (ε = 1, y = ±1).
//
// These are built from e = exp(−|t|) with a sign select, so exp never
// overflows. Where the inputs are not exact, the rounding of t = s/ε or
// z = y·m adds its condition number |t| (|z|) in ulps.
`

const rowsDoc = `// Row kernels: Margins (m_i = x_{r_i}·w) and AddRows (g += Σ c_i x_{r_i}) for
// float32 and float64, over gathered rows (idx) or consecutive rows (idx nil).
// MarginsK, AddOuterK and FusedLinear are built on them in impl_amd64.go.
//
// Requires: AVX2, FMA3.
//
// Blocking: four rows at a time. Margins keeps 8 accumulators (4 rows × 2
// registers), so every load of w feeds four FMAs. AddRows loads and stores
// each 2-register chunk of g once per four rows. It applies the rows' FMAs
// in row order. So each g[l] sees exactly the sequential fused
// multiply-adds. The last 1..3 rows run through a one-row loop.
//
// Tails: columns go 16 float32 / 8 float64 at a time (two registers). Then
// one plain register step runs if 8 (4) columns remain. One masked step
// takes the last d mod 8 (4) columns with VMASKMOVPS/PD. It neither loads
// nor stores past the end of a row or g.
//
// Accuracy: AddRows is the sequential loop with each multiply-add fused.
// Margins sums each row in two vector accumulators plus a final horizontal
// sum: |m_i − exact| ≤ (d+1)·u·Σ_l |x_l w_l|.
`

const rowsKDoc = `// Register-blocked kernels for MarginsK (m_ij = x_{r_i}·w_j) and AddOuterK
// (g_j += Σ_i c_ij x_{r_i}) over a block of c ≤ 5 classes, for float32 and
// float64. They run over gathered rows (idx) or consecutive rows (idx nil).
// The class count selects one of five specialised bodies at entry. The Go
// side (impl_amd64.go) walks the class blocks, row blocks and column strips.
//
// Requires: AVX2, FMA3.
//
// Kernel marginsK: two rows × c classes at a time, one vector accumulator
// per (row, class) pair. So each load of a row serves c classes. Each load
// of a class's weights serves two rows: 2c FMAs per 2+c loads. An odd last
// row runs through a one-row loop with two accumulators per class.
//
// Kernel addOuterK: for each chunk of 16 float32 / 8 float64 columns, the c
// classes' chunks of g stay in 2c registers. Every row of the block adds its
// c broadcast coefficients times the row's chunk. So each g element sees the
// rows' fused multiply-adds one at a time, in increasing row order. That is
// exactly the sequential loop with each multiply-add fused.
//
// Tails: columns go 16 float32 / 8 float64 at a time (two registers). Then
// one plain register step runs if 8 (4) columns remain. One masked step
// takes the last d mod 8 (4) columns with VMASKMOVPS/PD. It neither loads
// nor stores past the end of a row, w or g.
//
// Accuracy: marginsK sums each (row, class) in one vector accumulator, two
// for the one-row loop. Then it adds a horizontal sum:
//
//	|m_ij − exact| ≤ (d+1)·u·Σ_l |x_l w_jl|
//
// The kernel addOuterK is bit-exact to the fused sequential loop.
`
