package main

// The descriptions of the kernel families at the top of kernel_arm64.s.

const mathDoc = `// Elementwise math kernels for arm64: exp (with a shift and a running sum, for
// softmax), log1p, a scale, the per-sample losses of a linear model and the
// smoothed plus functions of the CVaR objective.
//
// Requires: ASIMD (Advanced SIMD, mandatory in ARMv8-A). FADD, FSUB, FMUL,
// FDIV, FMAX, FMIN, FCMGT, FCMGE, FABS, FNEG, FCVTL(2), FCVTN(2) on vectors
// come from neon_arm64.h as WORD encodings.
//
// Tails: every routine takes n a multiple of 4, and handles 4 elements per
// iteration in two float64x2 registers. Float32 is widened with FCVTL/FCVTL2
// and narrowed with FCVTN/FCVTN2. The kernel expsum takes 8 per iteration
// (four registers) while it can. The log1p-based routines keep about 11
// values live per register of input. So two registers in flight is what 32
// vector registers allow. Out-of-order cores overlap consecutive iterations.
// The Go wrappers in impl_arm64.go pass the last 1..3 elements through a
// 4-element stack buffer.
//
// Precision: all arithmetic is in float64, for float32 data too, as the
// generic code does. Float32 results are rounded once, at the store.
//
// Accuracy contract (checked against math/big by neon_accuracy_arm64_test.go):
//   - exp: table-free. x is clamped to [-746, 710] (NaN propagates through
//     FMIN/FMAX), k = round(x/ln2) by adding 1.5*2^52, r = x - k*ln2 with a
//     two-part ln2 and FMAs (|r| <= ln2/2), exp(r) by its Taylor polynomial of
//     degree 13 (truncation < 2^-57) in Horner form with FMAs, and the result
//     scaled by 2^k as two exact multiplications by 2^(k>>1) and 2^(k-(k>>1))
//     built in the exponent bits. Error <= 1 ulp in float64 for normal results
//     (0.82 ulp the largest seen);
//     results that overflow are +Inf (x > 709.78); subnormal results
//     (x < -708.4) are rounded once, at the last multiplication, so they are
//     within 1 ulp of the subnormal spacing (gradual underflow, never flushed),
//     and x < -745.13 gives +0. exp(±0) = 1, exp(+Inf) = +Inf, exp(-Inf) = +0,
//     exp(NaN) = NaN. float32: <= 1 ulp (one extra rounding of a float64 result
//     that is within 1 float64 ulp).
//   - log1p: u = 1+x, the rounding error of u kept as c = (x-(u-1))/u,
//     u = 2^k*f with f in [sqrt(1/2), sqrt(2)) from the exponent bits, and
//     fdlibm's polynomial in s = (f-1)/(f+1) (error < 2^-58.45), combined as
//     k*ln2hi - ((h - (s*(h+R) + (k*ln2lo + c))) - g), h = g*g/2, g = f-1.
//     Error <= 1 ulp in float64 (0.73 ulp the largest seen). log1p(±0) = ±0, log1p(-1) = -Inf,
//     log1p(x < -1) = NaN, log1p(+Inf) = +Inf, log1p(NaN) = NaN;
//     |x| < 2^-60 returns x.
//   - logistic loss max(-z,0) + log1p(e), derivative -y*σ(-z) with
//     e = exp(-|z|), z = y*m, σ(-z) = (z < 0 ? 1 : e)/(1+e): exp only sees
//     arguments <= 0, nothing overflows. log1p(e), e in [0, 1], shares one
//     division between s and c/u (q = 1/((2+g)*u)). Within 2 ulp of the exact
//     value in float64 (1.27 ulp loss, 1.51 ulp derivative the largest seen).
//   - softplus ρ = max(s,0) + ε*log1p(e), ρ' = (t >= 0 ? 1 : e)/(1+e),
//     e = exp(-|t|), t = s/ε: as the logistic loss (1.27 ulp, 1.62 ulp the
//     largest seen). Without rho (the fused step) the log1p is skipped.
//   - squared, absolute, hinge, quadratic: the same float64 operations as the
//     generic code, bit-exact.
`

const linalgDoc = `// Linear-algebra kernels for arm64: dot products, axpy, lerp, dotRows,
// axpyRows and the maximum of a vector.
//
//   - dotRows: the dot products of one vector with a list of rows, taken four
//     at a time. They are margins of rows, or the classes of one row. Each
//     load of the shared vector serves four rows.
//   - axpyRows: the sum of a list of scaled rows into one vector, taken four
//     rows at a time. y is loaded and stored once per four rows.
//
// Row lists are arrays of pointers, so gathered rows cost nothing extra. One
// call handles many rows. The first cache lines of the next four rows are
// prefetched (PRFM) while four are computed.
//
// Requires: ASIMD (Advanced SIMD, mandatory in ARMv8-A). Instructions that
// Go's assembler lacks come from neon_arm64.h as WORD encodings. These are
// FADD, FSUB, FMAX, FADDP and FMAXP on vectors.
//
// Loops: the main loop handles 4 (dot: 8) 128-bit registers of each operand
// per iteration, with independent accumulators. A one-register loop takes
// the rest that fills whole registers. A scalar loop takes the last 0..1
// (float64) or 0..3 (float32) elements. Nothing is read or written outside
// [0, n).
//
// Rounding: axpy, axpyRows and lerp use one fused multiply-add per element
// and row, in row order. That is exactly what the Go reference compiles to
// on arm64 (FMADD), so they are bit-exact. The kernels dot, dotRows and max
// reduce in a different order than the sequential Go loop. Dot and dotRows
// are within (n+1)·u·Σ|x_i·y_i| of it. These routines are exact-arithmetic
// kernels. There is no accuracy contract beyond the rounding of each FMA.
`
