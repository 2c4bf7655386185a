//go:build !purego

// Elementwise kernels: Exp, Log1p, LinearLoss (logistic, squared, absolute),
// Plus (none, hinge, softplus, quadratic) and SoftmaxCE rows, for float32 and
// float64.
//
// Requires: AVX2, FMA3.
//
// Precision: float64 kernels compute in float64, four lanes per 256-bit
// register. Exp, Log1p, the logistic loss and softplus in float32 compute in
// float32, eight lanes per register, with float32 twins of the float64
// algorithms (EXPPS, LOG1PPS below). The other float32 kernels (squared,
// absolute, none, hinge, quadratic, SoftmaxCE) widen four inputs with
// VCVTPS2PD, run the float64 code and round once with VCVTPD2PS, so squared,
// absolute, hinge, none and quadratic replay the generic reference's float64
// operations exactly (bit-identical results in both precisions).
//
// Tails: four elements per step (eight for native float32); the last elements
// are loaded and stored with VMASKMOVPD / VMASKMOVPS under a lane mask,
// so nothing past the slices is touched. SoftmaxCE walks each row the same
// way, with masked-off lanes forced to −Inf for the max and to 0 for the sum.
//
// exp (EXPPD): table-free. The input is clamped to [−746, 710] (NaN passes
// through the min/max unchanged); k = round(x/ln2) by adding the shifter
// 1.5·2^52 to x·log2(e) in one FMA; r = x − k·ln2 with ln2 in two parts
// (ln2hi has 21 trailing zero bits) and two FMAs, |r| ≤ 0.347; e^r = 1 + r +
// r²·P(r) with P of degree 9, a Chebyshev fit of (e^r − 1 − r)/r² on
// [−ln2/2, ln2/2] (our own, made with mpmath; truncation < 0.15 ulp), Horner
// with FMAs; then the result is scaled by 2^k as two multiplications by
// 2^⌊k/2⌋ and 2^(k−⌊k/2⌋), built in the exponent bits, so 2^1024 and the
// subnormal range need no special case: x ≥ 709.79 gives +Inf, x ≤ −745.14
// gives +0, and subnormal results are rounded once, by the last
// multiplication, from the ≤1-ulp value of e^r·2^⌊k/2⌋ (so they are within one
// unit of the subnormal grid, typically correctly rounded). exp(±0) = 1,
// exp(+Inf) = +Inf, exp(−Inf) = 0, exp(NaN) = NaN.
//
// log1p (LOG1PPD): inputs above 2^1000 are first scaled by 2^−100 (and 100
// added to e below), so that 2^−e stays a normal number; then with
// u = fl(1+x) and e such that u·2^−e ∈ [√2/2, √2) (from the exponent bits of
// u), f = x·2^−e + (2^−e − 1) in one FMA — exact
// for e = 0, one rounding otherwise — so the rounding of 1+x never enters;
// log1p(x) = e·ln2 + log1p(f), log1p(f) = f − hfsq + s·(hfsq + R(s²)),
// s = f/(2+f), hfsq = f²/2, R the degree-7 minimax polynomial in s² of
// fdlibm's log (coefficients Lg1..Lg7), ln2 in two parts. Special inputs are
// blended in: log1p(±0) = ±0, log1p(+Inf) = +Inf, log1p(NaN) = NaN,
// log1p(−1) = −Inf, log1p(x < −1) = NaN. Subnormal x gives x.
//
// float32 twins: EXPPS clamps to [−104, 89], reduces the same way with a
// float32 two-part ln2 and uses the Taylor polynomial of e^r to degree 7
// (truncation < 0.1 ulp), scaling by 2^k in two steps as above; LOG1PPS scales
// inputs above 2^100 by 2^−64 and uses fdlibm's float polynomial Lg1..Lg4.
// Float32 softplus recomputes, in float64, the rare lanes whose e = exp(−|t|)
// is below the normal float32 range, so a large ε never magnifies a
// subnormal rounding.
//
// Accuracy contract (tested against math/big in accuracy_test.go over the
// whole domain, including ±0, ±Inf, NaN, the overflow and underflow
// thresholds and subnormal results): exp and log1p within 2 ulp in float64
// and in float32 (measured: exp 1.0 / 0.97 ulp, log1p 1.15 / 1.34 ulp, float64
// / float32); sigmoid, softplus and the logistic loss and its derivative,
// built from e = exp(−|t|) with a sign select so exp never overflows, within
// 4 ulp in float64 and 2 ulp in float32 (measured ≤ 1.83 / 1.67 ulp), where
// their inputs are exact (ε = 1, y = ±1); otherwise the rounding of t = s/ε
// or z = y·m adds its condition number |t| (|z|) in ulps.

#include "textflag.h"

#define C4(name, v) DATA name<>+0(SB)/8, v; DATA name<>+8(SB)/8, v; DATA name<>+16(SB)/8, v; DATA name<>+24(SB)/8, v; GLOBL name<>(SB), RODATA|NOPTR, $32

C4(one, $0x3ff0000000000000)
C4(two, $0x4000000000000000)
C4(half, $0x3fe0000000000000)
C4(negOne, $0xbff0000000000000)
C4(posInf, $0x7ff0000000000000)
C4(negInf, $0xfff0000000000000)
C4(nan, $0x7ff8000000000000)
C4(absMask, $0x7fffffffffffffff)
C4(signMask, $0x8000000000000000)
C4(expHi, $0x4086300000000000)
C4(expLo, $0xc087500000000000)
C4(log2e, $0x3ff71547652b82fe)
C4(shifter, $0x4338000000000000)
C4(ln2hi, $0x3fe62e42fee00000)
C4(ln2lo, $0x3dea39ef35793c76)
C4(e11, $0x3e5af389f20208c6)
C4(e10, $0x3e928917ccaf39d3)
C4(e9, $0x3ec71de0db2d4e97)
C4(e8, $0x3efa019b91463588)
C4(e7, $0x3f2a01a01a7c2f89)
C4(e6, $0x3f56c16c17889fd3)
C4(e5, $0x3f811111111109b5)
C4(e4, $0x3fa5555555553d68)
C4(e3, $0x3fc5555555555556)
C4(e2, $0x3fe0000000000001)
C4(expKBias, $0x4337fffffffff800)
C4(qone, $0x0000000000000001)
C4(logOff, $0x00095f619980c433)
C4(q2046, $0x00000000000007fe)
C4(magic, $0x4330000000000000)
C4(magicBias, $0x43300000000003ff)
C4(lg1, $0x3fe5555555555593)
C4(lg2, $0x3fd999999997fa04)
C4(lg3, $0x3fd2492494229359)
C4(lg4, $0x3fcc71c51d8e78af)
C4(lg5, $0x3fc7466496cb03de)
C4(lg6, $0x3fc39a09d078c69f)
C4(lg7, $0x3fc2f112df3e5244)
C4(sqrt2, $0x3ff6a09e667f3bcd)
C4(log1pBig, $0x7e70000000000000)
C4(log1pScale, $0x39b0000000000000)
C4(hundred, $0x4059000000000000)

// EXPPD sets R = e^X for four float64 lanes; X is clobbered, T1..T3 are scratch.
#define EXPPD(X, R, T1, T2, T3) \
	VMOVUPD      expHi<>(SB), T1; \
	VMINPD       X, T1, X; \
	VMOVUPD      expLo<>(SB), T1; \
	VMAXPD       X, T1, X; \
	VMOVUPD      shifter<>(SB), T1; \
	VFMADD231PD  log2e<>(SB), X, T1; \
	VSUBPD       shifter<>(SB), T1, T2; \
	VMOVAPD      X, R; \
	VFNMADD231PD ln2hi<>(SB), T2, R; \
	VFNMADD231PD ln2lo<>(SB), T2, R; \
	VMOVUPD      e11<>(SB), T3; \
	VFMADD213PD  e10<>(SB), R, T3; \
	VFMADD213PD  e9<>(SB), R, T3; \
	VFMADD213PD  e8<>(SB), R, T3; \
	VFMADD213PD  e7<>(SB), R, T3; \
	VFMADD213PD  e6<>(SB), R, T3; \
	VFMADD213PD  e5<>(SB), R, T3; \
	VFMADD213PD  e4<>(SB), R, T3; \
	VFMADD213PD  e3<>(SB), R, T3; \
	VFMADD213PD  e2<>(SB), R, T3; \
	VMULPD       R, R, T2; \
	VFMADD213PD  R, T2, T3; \
	VADDPD       one<>(SB), T3, T3; \
	VPSUBQ       expKBias<>(SB), T1, T1; \
	VPSRLQ       $1, T1, T2; \
	VPSUBQ       T2, T1, T1; \
	VPSUBQ       qone<>(SB), T1, T1; \
	VPSUBQ       qone<>(SB), T2, T2; \
	VPSLLQ       $52, T1, T1; \
	VPSLLQ       $52, T2, T2; \
	VMULPD       T2, T3, T3; \
	VMULPD       T1, T3, R

// LOG1PPD sets R = log(1+X) for four float64 lanes; X is kept, T1..T4 are scratch.
#define LOG1PPD(X, R, T1, T2, T3, T4) \
	VCMPPD       $0x1e, log1pBig<>(SB), X, T4; \
	VMULPD       log1pScale<>(SB), X, T1; \
	VBLENDVPD    T4, T1, X, T4; \
	VADDPD       one<>(SB), T4, T1; \
	VPADDQ       logOff<>(SB), T1, T1; \
	VPSRLQ       $52, T1, T1; \
	VMOVDQU      q2046<>(SB), T2; \
	VPSUBQ       T1, T2, T2; \
	VPSLLQ       $52, T2, T2; \
	VSUBPD       one<>(SB), T2, T3; \
	VFMADD231PD  T4, T2, T3; \
	VPOR         magic<>(SB), T1, T1; \
	VSUBPD       magicBias<>(SB), T1, T1; \
	VCMPPD       $0x1e, log1pBig<>(SB), X, T4; \
	VANDPD       hundred<>(SB), T4, T4; \
	VADDPD       T4, T1, T1; \
	VADDPD       two<>(SB), T3, T2; \
	VDIVPD       T2, T3, T2; \
	VMULPD       T2, T2, T4; \
	VMOVUPD      lg7<>(SB), R; \
	VFMADD213PD  lg6<>(SB), T4, R; \
	VFMADD213PD  lg5<>(SB), T4, R; \
	VFMADD213PD  lg4<>(SB), T4, R; \
	VFMADD213PD  lg3<>(SB), T4, R; \
	VFMADD213PD  lg2<>(SB), T4, R; \
	VFMADD213PD  lg1<>(SB), T4, R; \
	VMULPD       T4, R, R; \
	VMULPD       T3, T3, T4; \
	VMULPD       half<>(SB), T4, T4; \
	VADDPD       T4, R, R; \
	VMULPD       T2, R, R; \
	VFMADD231PD  ln2lo<>(SB), T1, R; \
	VSUBPD       R, T4, R; \
	VSUBPD       T3, R, R; \
	VFMSUB231PD  ln2hi<>(SB), T1, R; \
	VCMPPD       $3, X, X, T1; \
	VCMPPD       $0, posInf<>(SB), X, T2; \
	VORPD        T2, T1, T1; \
	VXORPD       T2, T2, T2; \
	VCMPPD       $0, T2, X, T2; \
	VORPD        T2, T1, T1; \
	VBLENDVPD    T1, X, R, R; \
	VMOVUPD      negOne<>(SB), T3; \
	VCMPPD       $0, T3, X, T1; \
	VBLENDVPD    T1, negInf<>(SB), R, R; \
	VCMPPD       $1, T3, X, T1; \
	VBLENDVPD    T1, nan<>(SB), R, R

#define C8(name, v) DATA name<>+0(SB)/4, v; DATA name<>+4(SB)/4, v; DATA name<>+8(SB)/4, v; DATA name<>+12(SB)/4, v; DATA name<>+16(SB)/4, v; DATA name<>+20(SB)/4, v; DATA name<>+24(SB)/4, v; DATA name<>+28(SB)/4, v; GLOBL name<>(SB), RODATA|NOPTR, $32
C8(sone, $0x3f800000)
C8(stwo, $0x40000000)
C8(shalf, $0x3f000000)
C8(snegOne, $0xbf800000)
C8(sposInf, $0x7f800000)
C8(snegInf, $0xff800000)
C8(snan, $0x7fc00000)
C8(sabsMask, $0x7fffffff)
C8(ssignMask, $0x80000000)
C8(sexpHi, $0x42b20000)
C8(sexpLo, $0xc2d00000)
C8(slog2e, $0x3fb8aa3b)
C8(sshifter, $0x4b400000)
C8(sln2hi, $0x3f317200)
C8(sln2lo, $0x35bfbe8e)
C8(sp3, $0x3e2aaaab)
C8(sp4, $0x3d2aaaab)
C8(sp5, $0x3c088889)
C8(sp6, $0x3ab60b61)
C8(sp7, $0x39500d01)
C8(sexpKBias, $0x4b3fff00)
C8(sqone, $0x00000001)
C8(slogOff, $0x004afb0d)
C8(sq254, $0x000000fe)
C8(smagic, $0x4b000000)
C8(smagicBias, $0x4b00007f)
C8(slg1, $0x3f2aaaaa)
C8(slg2, $0x3eccce13)
C8(slg3, $0x3e91e9ee)
C8(slg4, $0x3e789e26)
C8(stinyArg, $0xc2ae0000)
C8(slog1pBig, $0x71800000)
C8(slog1pScale, $0x1f800000)
C8(ssixtyfour, $0x42800000)

// EXPPS sets R = e^X for eight float32 lanes, the float32 twin of EXPPD
// (clamp [−104, 89], Taylor polynomial to degree 7); X is clobbered.
#define EXPPS(X, R, T1, T2, T3) \
	VMOVUPS      sexpHi<>(SB), T1; \
	VMINPS       X, T1, X; \
	VMOVUPS      sexpLo<>(SB), T1; \
	VMAXPS       X, T1, X; \
	VMOVUPS      sshifter<>(SB), T1; \
	VFMADD231PS  slog2e<>(SB), X, T1; \
	VSUBPS       sshifter<>(SB), T1, T2; \
	VMOVAPS      X, R; \
	VFNMADD231PS sln2hi<>(SB), T2, R; \
	VFNMADD231PS sln2lo<>(SB), T2, R; \
	VMOVUPS      sp7<>(SB), T3; \
	VFMADD213PS  sp6<>(SB), R, T3; \
	VFMADD213PS  sp5<>(SB), R, T3; \
	VFMADD213PS  sp4<>(SB), R, T3; \
	VFMADD213PS  sp3<>(SB), R, T3; \
	VFMADD213PS  shalf<>(SB), R, T3; \
	VMULPS       R, R, T2; \
	VFMADD213PS  R, T2, T3; \
	VADDPS       sone<>(SB), T3, T3; \
	VPSUBD       sexpKBias<>(SB), T1, T1; \
	VPSRLD       $1, T1, T2; \
	VPSUBD       T2, T1, T1; \
	VPSUBD       sqone<>(SB), T1, T1; \
	VPSUBD       sqone<>(SB), T2, T2; \
	VPSLLD       $23, T1, T1; \
	VPSLLD       $23, T2, T2; \
	VMULPS       T2, T3, T3; \
	VMULPS       T1, T3, R

// LOG1PPS sets R = log(1+X) for eight float32 lanes, the float32 twin of
// LOG1PPD (inputs above 2^100 scaled by 2^−64; fdlibm's float polynomial
// Lg1..Lg4); X is kept.
#define LOG1PPS(X, R, T1, T2, T3, T4) \
	VCMPPS       $0x1e, slog1pBig<>(SB), X, T4; \
	VMULPS       slog1pScale<>(SB), X, T1; \
	VBLENDVPS    T4, T1, X, T4; \
	VADDPS       sone<>(SB), T4, T1; \
	VPADDD       slogOff<>(SB), T1, T1; \
	VPSRLD       $23, T1, T1; \
	VMOVDQU      sq254<>(SB), T2; \
	VPSUBD       T1, T2, T2; \
	VPSLLD       $23, T2, T2; \
	VSUBPS       sone<>(SB), T2, T3; \
	VFMADD231PS  T4, T2, T3; \
	VPOR         smagic<>(SB), T1, T1; \
	VSUBPS       smagicBias<>(SB), T1, T1; \
	VCMPPS       $0x1e, slog1pBig<>(SB), X, T4; \
	VANDPS       ssixtyfour<>(SB), T4, T4; \
	VADDPS       T4, T1, T1; \
	VADDPS       stwo<>(SB), T3, T2; \
	VDIVPS       T2, T3, T2; \
	VMULPS       T2, T2, T4; \
	VMOVUPS      slg4<>(SB), R; \
	VFMADD213PS  slg3<>(SB), T4, R; \
	VFMADD213PS  slg2<>(SB), T4, R; \
	VFMADD213PS  slg1<>(SB), T4, R; \
	VMULPS       T4, R, R; \
	VMULPS       T3, T3, T4; \
	VMULPS       shalf<>(SB), T4, T4; \
	VADDPS       T4, R, R; \
	VMULPS       T2, R, R; \
	VFMADD231PS  sln2lo<>(SB), T1, R; \
	VSUBPS       R, T4, R; \
	VSUBPS       T3, R, R; \
	VFMSUB231PS  sln2hi<>(SB), T1, R; \
	VCMPPS       $3, X, X, T1; \
	VCMPPS       $0, sposInf<>(SB), X, T2; \
	VORPS        T2, T1, T1; \
	VXORPS       T2, T2, T2; \
	VCMPPS       $0, T2, X, T2; \
	VORPS        T2, T1, T1; \
	VBLENDVPS    T1, X, R, R; \
	VMOVUPS      snegOne<>(SB), T3; \
	VCMPPS       $0, T3, X, T1; \
	VBLENDVPS    T1, snegInf<>(SB), R, R; \
	VCMPPS       $1, T3, X, T1; \
	VBLENDVPS    T1, snan<>(SB), R, R

// LOG1PUNITPS is LOG1PPS for X in [0, 1] or NaN only (the e = exp(−|t|) of
// the logistic loss and softplus): no scaling, no special values to blend.
#define LOG1PUNITPS(X, R, T1, T2, T3, T4) \
	VADDPS       sone<>(SB), X, T1; \
	VPADDD       slogOff<>(SB), T1, T1; \
	VPSRLD       $23, T1, T1; \
	VMOVDQU      sq254<>(SB), T2; \
	VPSUBD       T1, T2, T2; \
	VPSLLD       $23, T2, T2; \
	VSUBPS       sone<>(SB), T2, T3; \
	VFMADD231PS  X, T2, T3; \
	VPOR         smagic<>(SB), T1, T1; \
	VSUBPS       smagicBias<>(SB), T1, T1; \
	VADDPS       stwo<>(SB), T3, T2; \
	VDIVPS       T2, T3, T2; \
	VMULPS       T2, T2, T4; \
	VMOVUPS      slg4<>(SB), R; \
	VFMADD213PS  slg3<>(SB), T4, R; \
	VFMADD213PS  slg2<>(SB), T4, R; \
	VFMADD213PS  slg1<>(SB), T4, R; \
	VMULPS       T4, R, R; \
	VMULPS       T3, T3, T4; \
	VMULPS       shalf<>(SB), T4, T4; \
	VADDPS       T4, R, R; \
	VMULPS       T2, R, R; \
	VFMADD231PS  sln2lo<>(SB), T1, R; \
	VSUBPS       R, T4, R; \
	VSUBPS       T3, R, R; \
	VFMSUB231PS  sln2hi<>(SB), T1, R

// LOG1PUNITPD is LOG1PPD for X in [0, 1] or NaN only: no scaling, no special
// values to blend (NaN propagates through f).
#define LOG1PUNITPD(X, R, T1, T2, T3, T4) \
	VBLENDVPD    T4, T1, X, T4; \
	VADDPD       one<>(SB), X, T1; \
	VPADDQ       logOff<>(SB), T1, T1; \
	VPSRLQ       $52, T1, T1; \
	VMOVDQU      q2046<>(SB), T2; \
	VPSUBQ       T1, T2, T2; \
	VPSLLQ       $52, T2, T2; \
	VSUBPD       one<>(SB), T2, T3; \
	VFMADD231PD  X, T2, T3; \
	VPOR         magic<>(SB), T1, T1; \
	VSUBPD       magicBias<>(SB), T1, T1; \
	VADDPD       two<>(SB), T3, T2; \
	VDIVPD       T2, T3, T2; \
	VMULPD       T2, T2, T4; \
	VMOVUPD      lg7<>(SB), R; \
	VFMADD213PD  lg6<>(SB), T4, R; \
	VFMADD213PD  lg5<>(SB), T4, R; \
	VFMADD213PD  lg4<>(SB), T4, R; \
	VFMADD213PD  lg3<>(SB), T4, R; \
	VFMADD213PD  lg2<>(SB), T4, R; \
	VFMADD213PD  lg1<>(SB), T4, R; \
	VMULPD       T4, R, R; \
	VMULPD       T3, T3, T4; \
	VMULPD       half<>(SB), T4, T4; \
	VADDPD       T4, R, R; \
	VMULPD       T2, R, R; \
	VFMADD231PD  ln2lo<>(SB), T1, R; \
	VSUBPD       R, T4, R; \
	VSUBPD       T3, R, R; \
	VFMSUB231PD  ln2hi<>(SB), T1, R

// EXPNEGPD is EXPPD for X ≤ 0 or NaN (no upper clamp).
#define EXPNEGPD(X, R, T1, T2, T3) \
	VMOVUPD      expLo<>(SB), T1; \
	VMAXPD       X, T1, X; \
	VMOVUPD      shifter<>(SB), T1; \
	VFMADD231PD  log2e<>(SB), X, T1; \
	VSUBPD       shifter<>(SB), T1, T2; \
	VMOVAPD      X, R; \
	VFNMADD231PD ln2hi<>(SB), T2, R; \
	VFNMADD231PD ln2lo<>(SB), T2, R; \
	VMOVUPD      e11<>(SB), T3; \
	VFMADD213PD  e10<>(SB), R, T3; \
	VFMADD213PD  e9<>(SB), R, T3; \
	VFMADD213PD  e8<>(SB), R, T3; \
	VFMADD213PD  e7<>(SB), R, T3; \
	VFMADD213PD  e6<>(SB), R, T3; \
	VFMADD213PD  e5<>(SB), R, T3; \
	VFMADD213PD  e4<>(SB), R, T3; \
	VFMADD213PD  e3<>(SB), R, T3; \
	VFMADD213PD  e2<>(SB), R, T3; \
	VMULPD       R, R, T2; \
	VFMADD213PD  R, T2, T3; \
	VADDPD       one<>(SB), T3, T3; \
	VPSUBQ       expKBias<>(SB), T1, T1; \
	VPSRLQ       $1, T1, T2; \
	VPSUBQ       T2, T1, T1; \
	VPSUBQ       qone<>(SB), T1, T1; \
	VPSUBQ       qone<>(SB), T2, T2; \
	VPSLLQ       $52, T1, T1; \
	VPSLLQ       $52, T2, T2; \
	VMULPD       T2, T3, T3; \
	VMULPD       T1, T3, R

// LOG1PUNIT2PD is LOG1PUNITPD that also leaves U = 1 + X, and finds e ∈ {0, 1}
// by comparing U with √2 (X ∈ [0, 1] or NaN).
#define LOG1PUNIT2PD(X, R, U, T1, T2, T3, T4) \
	VADDPD       one<>(SB), X, U; \
	VCMPPD       $0x0d, sqrt2<>(SB), U, T1; \
	VMOVUPD      one<>(SB), T2; \
	VBLENDVPD    T1, half<>(SB), T2, T2; \
	VANDPD       one<>(SB), T1, T1; \
	VSUBPD       one<>(SB), T2, T3; \
	VFMADD231PD  X, T2, T3; \
	VADDPD       two<>(SB), T3, T2; \
	VDIVPD       T2, T3, T2; \
	VMULPD       T2, T2, T4; \
	VMOVUPD      lg7<>(SB), R; \
	VFMADD213PD  lg6<>(SB), T4, R; \
	VFMADD213PD  lg5<>(SB), T4, R; \
	VFMADD213PD  lg4<>(SB), T4, R; \
	VFMADD213PD  lg3<>(SB), T4, R; \
	VFMADD213PD  lg2<>(SB), T4, R; \
	VFMADD213PD  lg1<>(SB), T4, R; \
	VMULPD       T4, R, R; \
	VMULPD       T3, T3, T4; \
	VMULPD       half<>(SB), T4, T4; \
	VADDPD       T4, R, R; \
	VMULPD       T2, R, R; \
	VFMADD231PD  ln2lo<>(SB), T1, R; \
	VSUBPD       R, T4, R; \
	VSUBPD       T3, R, R; \
	VFMSUB231PD  ln2hi<>(SB), T1, R

// func expF32(dst, x unsafe.Pointer, n int)
TEXT ·expF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-8, R9
	JZ   expF32tail

expF32loop:
	VMOVUPS    (SI)(AX*4), Y0
	EXPPS(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS    Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, R9
	JB   expF32loop

expF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      expF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), Y15
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	EXPPS(Y0, Y1, Y2, Y3, Y4)
	VMASKMOVPS Y1, Y15, (DI)(AX*4)

expF32done:
	VZEROUPPER
	RET

// func expF64(dst, x unsafe.Pointer, n int)
TEXT ·expF64(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   expF64tail

expF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	EXPPD(Y0, Y1, Y2, Y3, Y4)
	VMOVUPD    Y1, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   expF64loop

expF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      expF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	EXPPD(Y0, Y1, Y2, Y3, Y4)
	VMASKMOVPD Y1, Y15, (DI)(AX*8)

expF64done:
	VZEROUPPER
	RET

// func log1pF32(dst, x unsafe.Pointer, n int)
TEXT ·log1pF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-8, R9
	JZ   log1pF32tail

log1pF32loop:
	VMOVUPS    (SI)(AX*4), Y0
	LOG1PPS(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS    Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, R9
	JB   log1pF32loop

log1pF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      log1pF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), Y15
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	LOG1PPS(Y0, Y1, Y2, Y3, Y4, Y5)
	VMASKMOVPS Y1, Y15, (DI)(AX*4)

log1pF32done:
	VZEROUPPER
	RET

// func log1pF64(dst, x unsafe.Pointer, n int)
TEXT ·log1pF64(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   log1pF64tail

log1pF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPD    Y1, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   log1pF64loop

log1pF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      log1pF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VMASKMOVPD Y1, Y15, (DI)(AX*8)

log1pF64done:
	VZEROUPPER
	RET

// func logisticF32(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·logisticF32(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-8, R9
	JZ   logisticF32tail

logisticF32loop:
	VMOVUPS    (SI)(AX*4), Y0
	VMOVUPS    (DX)(AX*4), Y1
	VMULPS    Y0, Y1, Y2
	VANDPS    sabsMask<>(SB), Y2, Y3
	VXORPS    ssignMask<>(SB), Y3, Y3
	EXPPS(Y3, Y4, Y5, Y6, Y7)
	LOG1PUNITPS(Y4, Y5, Y6, Y7, Y8, Y9)
	VXORPS    ssignMask<>(SB), Y2, Y6
	VXORPS    Y7, Y7, Y7
	VMAXPS    Y7, Y6, Y6
	VADDPS    Y5, Y6, Y6
	VADDPS    sone<>(SB), Y4, Y8
	VCMPPS    $0x0d, Y7, Y2, Y9
	VMOVUPS   sone<>(SB), Y10
	VBLENDVPS Y9, Y4, Y10, Y10
	VDIVPS    Y8, Y10, Y10
	VXORPS    ssignMask<>(SB), Y1, Y11
	VMULPS    Y10, Y11, Y11
	VMOVUPS    Y6, (DI)(AX*4)
	VMOVUPS    Y11, (R10)(AX*4)
	ADDQ $8, AX
	CMPQ AX, R9
	JB   logisticF32loop

logisticF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      logisticF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), Y15
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VMASKMOVPS (DX)(AX*4), Y15, Y1
	VMULPS    Y0, Y1, Y2
	VANDPS    sabsMask<>(SB), Y2, Y3
	VXORPS    ssignMask<>(SB), Y3, Y3
	EXPPS(Y3, Y4, Y5, Y6, Y7)
	LOG1PUNITPS(Y4, Y5, Y6, Y7, Y8, Y9)
	VXORPS    ssignMask<>(SB), Y2, Y6
	VXORPS    Y7, Y7, Y7
	VMAXPS    Y7, Y6, Y6
	VADDPS    Y5, Y6, Y6
	VADDPS    sone<>(SB), Y4, Y8
	VCMPPS    $0x0d, Y7, Y2, Y9
	VMOVUPS   sone<>(SB), Y10
	VBLENDVPS Y9, Y4, Y10, Y10
	VDIVPS    Y8, Y10, Y10
	VXORPS    ssignMask<>(SB), Y1, Y11
	VMULPS    Y10, Y11, Y11
	VMASKMOVPS Y6, Y15, (DI)(AX*4)
	VMASKMOVPS Y11, Y15, (R10)(AX*4)

logisticF32done:
	VZEROUPPER
	RET

// func logisticF64(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·logisticF64(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   logisticF64tail

logisticF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VMOVUPD    (DX)(AX*8), Y1
	VMULPD    Y0, Y1, Y2
	VORPD     signMask<>(SB), Y2, Y3
	EXPNEGPD(Y3, Y4, Y5, Y6, Y7)
	LOG1PUNIT2PD(Y4, Y5, Y8, Y6, Y7, Y9, Y10)
	VXORPD    signMask<>(SB), Y2, Y6
	VXORPD    Y7, Y7, Y7
	VMAXPD    Y7, Y6, Y6
	VADDPD    Y5, Y6, Y6
	VCMPPD    $0x11, Y7, Y2, Y9
	VBLENDVPD Y9, one<>(SB), Y4, Y10
	VDIVPD    Y8, Y10, Y10
	VXORPD    signMask<>(SB), Y1, Y11
	VMULPD    Y10, Y11, Y11
	VMOVUPD    Y6, (DI)(AX*8)
	VMOVUPD    Y11, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   logisticF64loop

logisticF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      logisticF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMASKMOVPD (DX)(AX*8), Y15, Y1
	VMULPD    Y0, Y1, Y2
	VORPD     signMask<>(SB), Y2, Y3
	EXPNEGPD(Y3, Y4, Y5, Y6, Y7)
	LOG1PUNIT2PD(Y4, Y5, Y8, Y6, Y7, Y9, Y10)
	VXORPD    signMask<>(SB), Y2, Y6
	VXORPD    Y7, Y7, Y7
	VMAXPD    Y7, Y6, Y6
	VADDPD    Y5, Y6, Y6
	VCMPPD    $0x11, Y7, Y2, Y9
	VBLENDVPD Y9, one<>(SB), Y4, Y10
	VDIVPD    Y8, Y10, Y10
	VXORPD    signMask<>(SB), Y1, Y11
	VMULPD    Y10, Y11, Y11
	VMASKMOVPD Y6, Y15, (DI)(AX*8)
	VMASKMOVPD Y11, Y15, (R10)(AX*8)

logisticF64done:
	VZEROUPPER
	RET

// func squaredF32(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·squaredF32(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   squaredF32tail

squaredF32loop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VCVTPS2PD  (DX)(AX*4), Y1
	VSUBPD Y1, Y0, Y2
	VMULPD half<>(SB), Y2, Y3
	VMULPD Y2, Y3, Y3
	VCVTPD2PSY Y3, X3
	VMOVUPS    X3, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMOVUPS    X2, (R10)(AX*4)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   squaredF32loop

squaredF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      squaredF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), X15
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMASKMOVPS (DX)(AX*4), X15, X1
	VCVTPS2PD  X1, Y1
	VSUBPD Y1, Y0, Y2
	VMULPD half<>(SB), Y2, Y3
	VMULPD Y2, Y3, Y3
	VCVTPD2PSY Y3, X3
	VMASKMOVPS X3, X15, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMASKMOVPS X2, X15, (R10)(AX*4)

squaredF32done:
	VZEROUPPER
	RET

// func squaredF64(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·squaredF64(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   squaredF64tail

squaredF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VMOVUPD    (DX)(AX*8), Y1
	VSUBPD Y1, Y0, Y2
	VMULPD half<>(SB), Y2, Y3
	VMULPD Y2, Y3, Y3
	VMOVUPD    Y3, (DI)(AX*8)
	VMOVUPD    Y2, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   squaredF64loop

squaredF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      squaredF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMASKMOVPD (DX)(AX*8), Y15, Y1
	VSUBPD Y1, Y0, Y2
	VMULPD half<>(SB), Y2, Y3
	VMULPD Y2, Y3, Y3
	VMASKMOVPD Y3, Y15, (DI)(AX*8)
	VMASKMOVPD Y2, Y15, (R10)(AX*8)

squaredF64done:
	VZEROUPPER
	RET

// func absoluteF32(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·absoluteF32(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   absoluteF32tail

absoluteF32loop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VCVTPS2PD  (DX)(AX*4), Y1
	VSUBPD Y1, Y0, Y2
	VANDPD absMask<>(SB), Y2, Y3
	VXORPD Y7, Y7, Y7
	VCMPPD $0x1e, Y7, Y2, Y4
	VCMPPD $0x11, Y7, Y2, Y5
	VANDPD one<>(SB), Y4, Y4
	VANDPD negOne<>(SB), Y5, Y5
	VORPD  Y5, Y4, Y2
	VCVTPD2PSY Y3, X3
	VMOVUPS    X3, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMOVUPS    X2, (R10)(AX*4)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   absoluteF32loop

absoluteF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      absoluteF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), X15
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMASKMOVPS (DX)(AX*4), X15, X1
	VCVTPS2PD  X1, Y1
	VSUBPD Y1, Y0, Y2
	VANDPD absMask<>(SB), Y2, Y3
	VXORPD Y7, Y7, Y7
	VCMPPD $0x1e, Y7, Y2, Y4
	VCMPPD $0x11, Y7, Y2, Y5
	VANDPD one<>(SB), Y4, Y4
	VANDPD negOne<>(SB), Y5, Y5
	VORPD  Y5, Y4, Y2
	VCVTPD2PSY Y3, X3
	VMASKMOVPS X3, X15, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMASKMOVPS X2, X15, (R10)(AX*4)

absoluteF32done:
	VZEROUPPER
	RET

// func absoluteF64(loss, dloss, m, y unsafe.Pointer, n int)
TEXT ·absoluteF64(SB), NOSPLIT, $0-40
	MOVQ loss+0(FP), DI
	MOVQ dloss+8(FP), R10
	MOVQ m+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   absoluteF64tail

absoluteF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VMOVUPD    (DX)(AX*8), Y1
	VSUBPD Y1, Y0, Y2
	VANDPD absMask<>(SB), Y2, Y3
	VXORPD Y7, Y7, Y7
	VCMPPD $0x1e, Y7, Y2, Y4
	VCMPPD $0x11, Y7, Y2, Y5
	VANDPD one<>(SB), Y4, Y4
	VANDPD negOne<>(SB), Y5, Y5
	VORPD  Y5, Y4, Y2
	VMOVUPD    Y3, (DI)(AX*8)
	VMOVUPD    Y2, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   absoluteF64loop

absoluteF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      absoluteF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMASKMOVPD (DX)(AX*8), Y15, Y1
	VSUBPD Y1, Y0, Y2
	VANDPD absMask<>(SB), Y2, Y3
	VXORPD Y7, Y7, Y7
	VCMPPD $0x1e, Y7, Y2, Y4
	VCMPPD $0x11, Y7, Y2, Y5
	VANDPD one<>(SB), Y4, Y4
	VANDPD negOne<>(SB), Y5, Y5
	VORPD  Y5, Y4, Y2
	VMASKMOVPD Y3, Y15, (DI)(AX*8)
	VMASKMOVPD Y2, Y15, (R10)(AX*8)

absoluteF64done:
	VZEROUPPER
	RET

// func plusF32(kind int, eps float64, rho, drho, s unsafe.Pointer, n int)
TEXT ·plusF32(SB), NOSPLIT, $0-48
	MOVQ kind+0(FP), BX
	CMPQ BX, $1
	JB   plusNoneF32
	JE   plusHingeF32
	CMPQ BX, $2
	JE   plusSoftplusF32
	JMP  plusQuadF32

plusNoneF32:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusNoneF32tail

plusNoneF32loop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VMOVUPD one<>(SB), Y1
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (R10)(AX*4)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusNoneF32loop

plusNoneF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusNoneF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), X15
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMOVUPD one<>(SB), Y1
	VCVTPD2PSY Y0, X0
	VMASKMOVPS X0, X15, (DI)(AX*4)
	VCVTPD2PSY Y1, X1
	VMASKMOVPS X1, X15, (R10)(AX*4)

plusNoneF32done:
	VZEROUPPER
	RET

plusHingeF32:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusHingeF32tail

plusHingeF32loop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VXORPD Y3, Y3, Y3
	VCMPPD $0x1e, Y3, Y0, Y2
	VANDPD Y2, Y0, Y0
	VANDPD one<>(SB), Y2, Y1
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (R10)(AX*4)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusHingeF32loop

plusHingeF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusHingeF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), X15
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VXORPD Y3, Y3, Y3
	VCMPPD $0x1e, Y3, Y0, Y2
	VANDPD Y2, Y0, Y0
	VANDPD one<>(SB), Y2, Y1
	VCVTPD2PSY Y0, X0
	VMASKMOVPS X0, X15, (DI)(AX*4)
	VCVTPD2PSY Y1, X1
	VMASKMOVPS X1, X15, (R10)(AX*4)

plusHingeF32done:
	VZEROUPPER
	RET

plusSoftplusF32:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	MOVSD eps+8(FP), X14
	VCVTSD2SS X14, X14, X14
	VBROADCASTSS X14, Y14
	VBROADCASTSD eps+8(FP), Y13
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-8, R9
	JZ   plusSoftplusF32tail

plusSoftplusF32loop:
	VMOVUPS    (SI)(AX*4), Y0
	VDIVPS    Y14, Y0, Y1
	VANDPS    sabsMask<>(SB), Y1, Y2
	VXORPS    ssignMask<>(SB), Y2, Y2
	EXPPS(Y2, Y3, Y4, Y5, Y6)
	VCMPPS    $1, stinyArg<>(SB), Y2, Y11
	LOG1PUNITPS(Y3, Y4, Y5, Y6, Y7, Y8)
	VXORPS    Y9, Y9, Y9
	VMAXPS    Y9, Y0, Y5
	VFMADD231PS Y4, Y14, Y5
	VADDPS    sone<>(SB), Y3, Y6
	VCMPPS    $0x0d, Y9, Y1, Y7
	VMOVUPS   sone<>(SB), Y8
	VBLENDVPS Y7, Y8, Y3, Y8
	VDIVPS    Y6, Y8, Y8
	VMOVMSKPS Y11, BX
	TESTL     BX, BX
	JZ        plusSoftplusF32skipl
	VCVTPS2PD X0, Y1
	VDIVPD    Y13, Y1, Y2
	VANDPD    absMask<>(SB), Y2, Y2
	VXORPD    signMask<>(SB), Y2, Y2
	EXPPD(Y2, Y3, Y4, Y6, Y7)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y1, Y1
	VFMADD231PD Y3, Y13, Y1
	VCVTPD2PSY Y1, X10
	VEXTRACTF128 $1, Y0, X1
	VCVTPS2PD X1, Y1
	VDIVPD    Y13, Y1, Y2
	VANDPD    absMask<>(SB), Y2, Y2
	VXORPD    signMask<>(SB), Y2, Y2
	EXPPD(Y2, Y3, Y4, Y6, Y7)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y1, Y1
	VFMADD231PD Y3, Y13, Y1
	VCVTPD2PSY Y1, X12
	VINSERTF128 $1, X12, Y10, Y10
	VBLENDVPS Y11, Y10, Y5, Y5
plusSoftplusF32skipl:
	VMOVUPS    Y5, (DI)(AX*4)
	VMOVUPS    Y8, (R10)(AX*4)
	ADDQ $8, AX
	CMPQ AX, R9
	JB   plusSoftplusF32loop

plusSoftplusF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusSoftplusF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), Y15
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VDIVPS    Y14, Y0, Y1
	VANDPS    sabsMask<>(SB), Y1, Y2
	VXORPS    ssignMask<>(SB), Y2, Y2
	EXPPS(Y2, Y3, Y4, Y5, Y6)
	VCMPPS    $1, stinyArg<>(SB), Y2, Y11
	LOG1PUNITPS(Y3, Y4, Y5, Y6, Y7, Y8)
	VXORPS    Y9, Y9, Y9
	VMAXPS    Y9, Y0, Y5
	VFMADD231PS Y4, Y14, Y5
	VADDPS    sone<>(SB), Y3, Y6
	VCMPPS    $0x0d, Y9, Y1, Y7
	VMOVUPS   sone<>(SB), Y8
	VBLENDVPS Y7, Y8, Y3, Y8
	VDIVPS    Y6, Y8, Y8
	VMOVMSKPS Y11, BX
	TESTL     BX, BX
	JZ        plusSoftplusF32skipt
	VCVTPS2PD X0, Y1
	VDIVPD    Y13, Y1, Y2
	VANDPD    absMask<>(SB), Y2, Y2
	VXORPD    signMask<>(SB), Y2, Y2
	EXPPD(Y2, Y3, Y4, Y6, Y7)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y1, Y1
	VFMADD231PD Y3, Y13, Y1
	VCVTPD2PSY Y1, X10
	VEXTRACTF128 $1, Y0, X1
	VCVTPS2PD X1, Y1
	VDIVPD    Y13, Y1, Y2
	VANDPD    absMask<>(SB), Y2, Y2
	VXORPD    signMask<>(SB), Y2, Y2
	EXPPD(Y2, Y3, Y4, Y6, Y7)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y1, Y1
	VFMADD231PD Y3, Y13, Y1
	VCVTPD2PSY Y1, X12
	VINSERTF128 $1, X12, Y10, Y10
	VBLENDVPS Y11, Y10, Y5, Y5
plusSoftplusF32skipt:
	VMASKMOVPS Y5, Y15, (DI)(AX*4)
	VMASKMOVPS Y8, Y15, (R10)(AX*4)

plusSoftplusF32done:
	VZEROUPPER
	RET

plusQuadF32:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusQuadF32tail

plusQuadF32loop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VMULPD    Y0, Y0, Y1
	VDIVPD    Y11, Y1, Y1
	VMULPD    half<>(SB), Y0, Y2
	VADDPD    Y2, Y1, Y1
	VADDPD    Y13, Y1, Y1
	VDIVPD    Y12, Y0, Y2
	VADDPD    half<>(SB), Y2, Y2
	VCMPPD    $0x02, Y10, Y0, Y3
	VXORPD    Y4, Y4, Y4
	VBLENDVPD Y3, Y4, Y1, Y1
	VBLENDVPD Y3, Y4, Y2, Y2
	VCMPPD    $0x0d, Y14, Y0, Y3
	VBLENDVPD Y3, Y0, Y1, Y1
	VBLENDVPD Y3, one<>(SB), Y2, Y2
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMOVUPS    X2, (R10)(AX*4)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusQuadF32loop

plusQuadF32tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusQuadF32done
	NEGQ    R9
	ADDQ    $8, R9
	LEAQ    ·maskTab32(SB), R8
	VMOVDQU (R8)(R9*4), X15
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMULPD    Y0, Y0, Y1
	VDIVPD    Y11, Y1, Y1
	VMULPD    half<>(SB), Y0, Y2
	VADDPD    Y2, Y1, Y1
	VADDPD    Y13, Y1, Y1
	VDIVPD    Y12, Y0, Y2
	VADDPD    half<>(SB), Y2, Y2
	VCMPPD    $0x02, Y10, Y0, Y3
	VXORPD    Y4, Y4, Y4
	VBLENDVPD Y3, Y4, Y1, Y1
	VBLENDVPD Y3, Y4, Y2, Y2
	VCMPPD    $0x0d, Y14, Y0, Y3
	VBLENDVPD Y3, Y0, Y1, Y1
	VBLENDVPD Y3, one<>(SB), Y2, Y2
	VCVTPD2PSY Y1, X1
	VMASKMOVPS X1, X15, (DI)(AX*4)
	VCVTPD2PSY Y2, X2
	VMASKMOVPS X2, X15, (R10)(AX*4)

plusQuadF32done:
	VZEROUPPER
	RET

// func plusF64(kind int, eps float64, rho, drho, s unsafe.Pointer, n int)
TEXT ·plusF64(SB), NOSPLIT, $0-48
	MOVQ kind+0(FP), BX
	CMPQ BX, $1
	JB   plusNoneF64
	JE   plusHingeF64
	CMPQ BX, $2
	JE   plusSoftplusF64
	JMP  plusQuadF64

plusNoneF64:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusNoneF64tail

plusNoneF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VMOVUPD one<>(SB), Y1
	VMOVUPD    Y0, (DI)(AX*8)
	VMOVUPD    Y1, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusNoneF64loop

plusNoneF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusNoneF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMOVUPD one<>(SB), Y1
	VMASKMOVPD Y0, Y15, (DI)(AX*8)
	VMASKMOVPD Y1, Y15, (R10)(AX*8)

plusNoneF64done:
	VZEROUPPER
	RET

plusHingeF64:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusHingeF64tail

plusHingeF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VXORPD Y3, Y3, Y3
	VCMPPD $0x1e, Y3, Y0, Y2
	VANDPD Y2, Y0, Y0
	VANDPD one<>(SB), Y2, Y1
	VMOVUPD    Y0, (DI)(AX*8)
	VMOVUPD    Y1, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusHingeF64loop

plusHingeF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusHingeF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VXORPD Y3, Y3, Y3
	VCMPPD $0x1e, Y3, Y0, Y2
	VANDPD Y2, Y0, Y0
	VANDPD one<>(SB), Y2, Y1
	VMASKMOVPD Y0, Y15, (DI)(AX*8)
	VMASKMOVPD Y1, Y15, (R10)(AX*8)

plusHingeF64done:
	VZEROUPPER
	RET

plusSoftplusF64:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusSoftplusF64tail

plusSoftplusF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VDIVPD    Y14, Y0, Y1
	VORPD     signMask<>(SB), Y1, Y2
	EXPNEGPD(Y2, Y3, Y4, Y5, Y6)
	LOG1PUNIT2PD(Y3, Y4, Y10, Y5, Y6, Y7, Y8)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y0, Y5
	VFMADD231PD Y4, Y14, Y5
	VCMPPD    $0x0d, Y9, Y1, Y7
	VBLENDVPD Y7, one<>(SB), Y3, Y8
	VDIVPD    Y10, Y8, Y8
	VMOVUPD    Y5, (DI)(AX*8)
	VMOVUPD    Y8, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusSoftplusF64loop

plusSoftplusF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusSoftplusF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VDIVPD    Y14, Y0, Y1
	VORPD     signMask<>(SB), Y1, Y2
	EXPNEGPD(Y2, Y3, Y4, Y5, Y6)
	LOG1PUNIT2PD(Y3, Y4, Y10, Y5, Y6, Y7, Y8)
	VXORPD    Y9, Y9, Y9
	VMAXPD    Y9, Y0, Y5
	VFMADD231PD Y4, Y14, Y5
	VCMPPD    $0x0d, Y9, Y1, Y7
	VBLENDVPD Y7, one<>(SB), Y3, Y8
	VDIVPD    Y10, Y8, Y8
	VMASKMOVPD Y5, Y15, (DI)(AX*8)
	VMASKMOVPD Y8, Y15, (R10)(AX*8)

plusSoftplusF64done:
	VZEROUPPER
	RET

plusQuadF64:
	MOVQ rho+16(FP), DI
	MOVQ drho+24(FP), R10
	MOVQ s+32(FP), SI
	MOVQ n+40(FP), CX
	VBROADCASTSD eps+8(FP), Y14
	VADDPD Y14, Y14, Y12
	VADDPD Y12, Y12, Y11
	VMULPD half<>(SB), Y14, Y13
	VMULPD half<>(SB), Y13, Y13
	VXORPD signMask<>(SB), Y14, Y10
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9
	JZ   plusQuadF64tail

plusQuadF64loop:
	VMOVUPD    (SI)(AX*8), Y0
	VMULPD    Y0, Y0, Y1
	VDIVPD    Y11, Y1, Y1
	VMULPD    half<>(SB), Y0, Y2
	VADDPD    Y2, Y1, Y1
	VADDPD    Y13, Y1, Y1
	VDIVPD    Y12, Y0, Y2
	VADDPD    half<>(SB), Y2, Y2
	VCMPPD    $0x02, Y10, Y0, Y3
	VXORPD    Y4, Y4, Y4
	VBLENDVPD Y3, Y4, Y1, Y1
	VBLENDVPD Y3, Y4, Y2, Y2
	VCMPPD    $0x0d, Y14, Y0, Y3
	VBLENDVPD Y3, Y0, Y1, Y1
	VBLENDVPD Y3, one<>(SB), Y2, Y2
	VMOVUPD    Y1, (DI)(AX*8)
	VMOVUPD    Y2, (R10)(AX*8)
	ADDQ $4, AX
	CMPQ AX, R9
	JB   plusQuadF64loop

plusQuadF64tail:
	MOVQ    CX, R9
	SUBQ    AX, R9
	JZ      plusQuadF64done
	NEGQ    R9
	ADDQ    $4, R9
	LEAQ    ·maskTab64(SB), R8
	VMOVDQU (R8)(R9*8), Y15
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMULPD    Y0, Y0, Y1
	VDIVPD    Y11, Y1, Y1
	VMULPD    half<>(SB), Y0, Y2
	VADDPD    Y2, Y1, Y1
	VADDPD    Y13, Y1, Y1
	VDIVPD    Y12, Y0, Y2
	VADDPD    half<>(SB), Y2, Y2
	VCMPPD    $0x02, Y10, Y0, Y3
	VXORPD    Y4, Y4, Y4
	VBLENDVPD Y3, Y4, Y1, Y1
	VBLENDVPD Y3, Y4, Y2, Y2
	VCMPPD    $0x0d, Y14, Y0, Y3
	VBLENDVPD Y3, Y0, Y1, Y1
	VBLENDVPD Y3, one<>(SB), Y2, Y2
	VMASKMOVPD Y1, Y15, (DI)(AX*8)
	VMASKMOVPD Y2, Y15, (R10)(AX*8)

plusQuadF64done:
	VZEROUPPER
	RET

// func softmaxF32(loss, z, label unsafe.Pointer, n, k int)
TEXT ·softmaxF32(SB), NOSPLIT, $64-40
	MOVQ    loss+0(FP), DI
	MOVQ    z+8(FP), SI
	MOVQ    label+16(FP), BX
	MOVQ    n+24(FP), CX
	MOVQ    k+32(FP), DX
	MOVQ    DX, R13
	SHLQ    $2, R13
	MOVQ    DX, R8
	ANDQ    $-4, R8
	MOVQ    DX, R10
	SUBQ    R8, R10
	NEGQ    R10
	ADDQ    $4, R10
	LEAQ    ·maskTab64(SB), R11
	VMOVDQU (R11)(R10*8), Y10
	LEAQ    ·maskTab32+16(SB), R11
	VMOVDQU (R11)(R10*4), X15
	VMOVUPD negInf<>(SB), Y14

smF32block:
	CMPQ    CX, $4
	JB      smF32row
	XORQ    R11, R11
	MOVQ    SI, R12
smF32blkrow:
	MOVLQSX (BX)(R11*4), R9
	VMOVAPD Y14, Y0
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32maxtailb
smF32maxloopb:
	VCVTPS2PD  (R12)(AX*4), Y1
	VMAXPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32maxloopb
smF32maxtailb:
	CMPQ    AX, DX
	JAE     smF32maxreduceb
	VMASKMOVPS (R12)(AX*4), X15, X1
	VCVTPS2PD  X1, Y1
	VBLENDVPD Y10, Y1, Y14, Y1
	VMAXPD  Y1, Y0, Y0
smF32maxreduceb:
	VEXTRACTF128 $1, Y0, X1
	VMAXPD  X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXPD  X1, X0, X0
	VBROADCASTSD X0, Y13
	VMOVSS     (R12)(R9*4), X12
	VCVTSS2SD  X12, X12, X12
	VSUBSD  X13, X12, X12
	VXORPD  Y11, Y11, Y11
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32exptailb
smF32exploopb:
	VCVTPS2PD  (R12)(AX*4), Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VADDPD  Y1, Y11, Y11
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (R12)(AX*4)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32exploopb
smF32exptailb:
	CMPQ    AX, DX
	JAE     smF32sumreduceb
	VMASKMOVPS (R12)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VANDPD  Y10, Y1, Y1
	VADDPD  Y1, Y11, Y11
	VCVTPD2PSY Y1, X1
	VMASKMOVPS X1, X15, (R12)(AX*4)
smF32sumreduceb:
	VEXTRACTF128 $1, Y11, X1
	VADDPD  X1, X11, X11
	VHADDPD X11, X11, X11
	VMOVSD  X11, 0(SP)(R11*8)
	VMOVSD  X12, 32(SP)(R11*8)
	ADDQ    R13, R12
	INCQ    R11
	CMPQ    R11, $4
	JB      smF32blkrow
	VMOVUPD 0(SP), Y0
	VSUBPD  one<>(SB), Y0, Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VSUBPD  32(SP), Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS X1, (DI)
	VMOVUPD one<>(SB), Y2
	VDIVPD  0(SP), Y2, Y2
	VMOVUPD Y2, 0(SP)
	XORQ    R11, R11
	MOVQ    SI, R12
smF32blkscale:
	MOVLQSX (BX)(R11*4), R9
	VBROADCASTSD 0(SP)(R11*8), Y2
	VMOVSS     (R12)(R9*4), X3
	VCVTSS2SD  X3, X3, X3
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32scaletailb
smF32scaleloopb:
	VCVTPS2PD  (R12)(AX*4), Y0
	VMULPD  Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (R12)(AX*4)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32scaleloopb
smF32scaletailb:
	CMPQ    AX, DX
	JAE     smF32fixb
	VMASKMOVPS (R12)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMULPD  Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMASKMOVPS X0, X15, (R12)(AX*4)
smF32fixb:
	VMULSD  X2, X3, X3
	VSUBSD  one<>(SB), X3, X3
	VCVTSD2SS  X3, X3, X3
	VMOVSS     X3, (R12)(R9*4)
	ADDQ    R13, R12
	INCQ    R11
	CMPQ    R11, $4
	JB      smF32blkscale
	MOVQ    R12, SI
	ADDQ    $16, DI
	ADDQ    $16, BX
	SUBQ    $4, CX
	JMP     smF32block

smF32row:
	TESTQ   CX, CX
	JZ      smF32done
	MOVLQSX (BX), R9
	VMOVAPD Y14, Y0
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32maxtailr
smF32maxloopr:
	VCVTPS2PD  (SI)(AX*4), Y1
	VMAXPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32maxloopr
smF32maxtailr:
	CMPQ    AX, DX
	JAE     smF32maxreducer
	VMASKMOVPS (SI)(AX*4), X15, X1
	VCVTPS2PD  X1, Y1
	VBLENDVPD Y10, Y1, Y14, Y1
	VMAXPD  Y1, Y0, Y0
smF32maxreducer:
	VEXTRACTF128 $1, Y0, X1
	VMAXPD  X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXPD  X1, X0, X0
	VBROADCASTSD X0, Y13
	VMOVSS     (SI)(R9*4), X12
	VCVTSS2SD  X12, X12, X12
	VSUBSD  X13, X12, X12
	VXORPD  Y11, Y11, Y11
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32exptailr
smF32exploopr:
	VCVTPS2PD  (SI)(AX*4), Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VADDPD  Y1, Y11, Y11
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (SI)(AX*4)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32exploopr
smF32exptailr:
	CMPQ    AX, DX
	JAE     smF32sumreducer
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VANDPD  Y10, Y1, Y1
	VADDPD  Y1, Y11, Y11
	VCVTPD2PSY Y1, X1
	VMASKMOVPS X1, X15, (SI)(AX*4)
smF32sumreducer:
	VEXTRACTF128 $1, Y11, X1
	VADDPD  X1, X11, X11
	VHADDPD X11, X11, X11
	VBROADCASTSD X11, Y0
	VSUBPD  one<>(SB), Y0, Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VSUBSD  X12, X1, X1
	VCVTSD2SS  X1, X1, X1
	VMOVSS     X1, (DI)
	VMOVSD  one<>(SB), X2
	VDIVSD  X11, X2, X2
	VBROADCASTSD X2, Y2
	VMOVSS     (SI)(R9*4), X3
	VCVTSS2SD  X3, X3, X3
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF32scaletailr
smF32scaleloopr:
	VCVTPS2PD  (SI)(AX*4), Y0
	VMULPD  Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (SI)(AX*4)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF32scaleloopr
smF32scaletailr:
	CMPQ    AX, DX
	JAE     smF32fixr
	VMASKMOVPS (SI)(AX*4), X15, X0
	VCVTPS2PD  X0, Y0
	VMULPD  Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMASKMOVPS X0, X15, (SI)(AX*4)
smF32fixr:
	VMULSD  X2, X3, X3
	VSUBSD  one<>(SB), X3, X3
	VCVTSD2SS  X3, X3, X3
	VMOVSS     X3, (SI)(R9*4)
	ADDQ    $4, DI
	ADDQ    $4, BX
	ADDQ    R13, SI
	DECQ    CX
	JMP     smF32row

smF32done:
	VZEROUPPER
	RET

// func softmaxF64(loss, z, label unsafe.Pointer, n, k int)
TEXT ·softmaxF64(SB), NOSPLIT, $64-40
	MOVQ    loss+0(FP), DI
	MOVQ    z+8(FP), SI
	MOVQ    label+16(FP), BX
	MOVQ    n+24(FP), CX
	MOVQ    k+32(FP), DX
	MOVQ    DX, R13
	SHLQ    $3, R13
	MOVQ    DX, R8
	ANDQ    $-4, R8
	MOVQ    DX, R10
	SUBQ    R8, R10
	NEGQ    R10
	ADDQ    $4, R10
	LEAQ    ·maskTab64(SB), R11
	VMOVDQU (R11)(R10*8), Y10
	VMOVDQA Y10, Y15
	VMOVUPD negInf<>(SB), Y14

smF64block:
	CMPQ    CX, $4
	JB      smF64row
	XORQ    R11, R11
	MOVQ    SI, R12
smF64blkrow:
	MOVLQSX (BX)(R11*4), R9
	VMOVAPD Y14, Y0
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64maxtailb
smF64maxloopb:
	VMOVUPD    (R12)(AX*8), Y1
	VMAXPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64maxloopb
smF64maxtailb:
	CMPQ    AX, DX
	JAE     smF64maxreduceb
	VMASKMOVPD (R12)(AX*8), Y15, Y1
	VBLENDVPD Y10, Y1, Y14, Y1
	VMAXPD  Y1, Y0, Y0
smF64maxreduceb:
	VEXTRACTF128 $1, Y0, X1
	VMAXPD  X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXPD  X1, X0, X0
	VBROADCASTSD X0, Y13
	VMOVSD     (R12)(R9*8), X12
	VSUBSD  X13, X12, X12
	VXORPD  Y11, Y11, Y11
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64exptailb
smF64exploopb:
	VMOVUPD    (R12)(AX*8), Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VADDPD  Y1, Y11, Y11
	VMOVUPD    Y1, (R12)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64exploopb
smF64exptailb:
	CMPQ    AX, DX
	JAE     smF64sumreduceb
	VMASKMOVPD (R12)(AX*8), Y15, Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VANDPD  Y10, Y1, Y1
	VADDPD  Y1, Y11, Y11
	VMASKMOVPD Y1, Y15, (R12)(AX*8)
smF64sumreduceb:
	VEXTRACTF128 $1, Y11, X1
	VADDPD  X1, X11, X11
	VHADDPD X11, X11, X11
	VMOVSD  X11, 0(SP)(R11*8)
	VMOVSD  X12, 32(SP)(R11*8)
	ADDQ    R13, R12
	INCQ    R11
	CMPQ    R11, $4
	JB      smF64blkrow
	VMOVUPD 0(SP), Y0
	VSUBPD  one<>(SB), Y0, Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VSUBPD  32(SP), Y1, Y1
	VMOVUPD Y1, (DI)
	VMOVUPD one<>(SB), Y2
	VDIVPD  0(SP), Y2, Y2
	VMOVUPD Y2, 0(SP)
	XORQ    R11, R11
	MOVQ    SI, R12
smF64blkscale:
	MOVLQSX (BX)(R11*4), R9
	VBROADCASTSD 0(SP)(R11*8), Y2
	VMOVSD     (R12)(R9*8), X3
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64scaletailb
smF64scaleloopb:
	VMOVUPD    (R12)(AX*8), Y0
	VMULPD  Y2, Y0, Y0
	VMOVUPD    Y0, (R12)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64scaleloopb
smF64scaletailb:
	CMPQ    AX, DX
	JAE     smF64fixb
	VMASKMOVPD (R12)(AX*8), Y15, Y0
	VMULPD  Y2, Y0, Y0
	VMASKMOVPD Y0, Y15, (R12)(AX*8)
smF64fixb:
	VMULSD  X2, X3, X3
	VSUBSD  one<>(SB), X3, X3
	VMOVSD     X3, (R12)(R9*8)
	ADDQ    R13, R12
	INCQ    R11
	CMPQ    R11, $4
	JB      smF64blkscale
	MOVQ    R12, SI
	ADDQ    $32, DI
	ADDQ    $16, BX
	SUBQ    $4, CX
	JMP     smF64block

smF64row:
	TESTQ   CX, CX
	JZ      smF64done
	MOVLQSX (BX), R9
	VMOVAPD Y14, Y0
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64maxtailr
smF64maxloopr:
	VMOVUPD    (SI)(AX*8), Y1
	VMAXPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64maxloopr
smF64maxtailr:
	CMPQ    AX, DX
	JAE     smF64maxreducer
	VMASKMOVPD (SI)(AX*8), Y15, Y1
	VBLENDVPD Y10, Y1, Y14, Y1
	VMAXPD  Y1, Y0, Y0
smF64maxreducer:
	VEXTRACTF128 $1, Y0, X1
	VMAXPD  X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXPD  X1, X0, X0
	VBROADCASTSD X0, Y13
	VMOVSD     (SI)(R9*8), X12
	VSUBSD  X13, X12, X12
	VXORPD  Y11, Y11, Y11
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64exptailr
smF64exploopr:
	VMOVUPD    (SI)(AX*8), Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VADDPD  Y1, Y11, Y11
	VMOVUPD    Y1, (SI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64exploopr
smF64exptailr:
	CMPQ    AX, DX
	JAE     smF64sumreducer
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VSUBPD  Y13, Y0, Y0
	EXPNEGPD(Y0, Y1, Y2, Y3, Y4)
	VANDPD  Y10, Y1, Y1
	VADDPD  Y1, Y11, Y11
	VMASKMOVPD Y1, Y15, (SI)(AX*8)
smF64sumreducer:
	VEXTRACTF128 $1, Y11, X1
	VADDPD  X1, X11, X11
	VHADDPD X11, X11, X11
	VBROADCASTSD X11, Y0
	VSUBPD  one<>(SB), Y0, Y0
	LOG1PPD(Y0, Y1, Y2, Y3, Y4, Y5)
	VSUBSD  X12, X1, X1
	VMOVSD     X1, (DI)
	VMOVSD  one<>(SB), X2
	VDIVSD  X11, X2, X2
	VBROADCASTSD X2, Y2
	VMOVSD     (SI)(R9*8), X3
	XORQ    AX, AX
	TESTQ   R8, R8
	JZ      smF64scaletailr
smF64scaleloopr:
	VMOVUPD    (SI)(AX*8), Y0
	VMULPD  Y2, Y0, Y0
	VMOVUPD    Y0, (SI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, R8
	JB      smF64scaleloopr
smF64scaletailr:
	CMPQ    AX, DX
	JAE     smF64fixr
	VMASKMOVPD (SI)(AX*8), Y15, Y0
	VMULPD  Y2, Y0, Y0
	VMASKMOVPD Y0, Y15, (SI)(AX*8)
smF64fixr:
	VMULSD  X2, X3, X3
	VSUBSD  one<>(SB), X3, X3
	VMOVSD     X3, (SI)(R9*8)
	ADDQ    $8, DI
	ADDQ    $4, BX
	ADDQ    R13, SI
	DECQ    CX
	JMP     smF64row

smF64done:
	VZEROUPPER
	RET

