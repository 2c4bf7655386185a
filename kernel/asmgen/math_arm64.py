#!/usr/bin/env python3
"""Generates ../math_arm64.s (NEON). Run from the kernel directory: python3 asmgen/math_arm64.py"""
import struct, math
from fractions import Fraction

def bits(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
def fbits(b): return struct.unpack('<d', struct.pack('<Q', b))[0]

consts = []   # (name, 64-bit value)
off = {}
def C(name, val):
    if name in off: return off[name]
    v = val if isinstance(val, int) else bits(val)
    off[name] = 16 * len(consts)
    consts.append((name, v))
    return off[name]

# exp
C('one', 1.0)
C('exp_hi', 710.0)
C('exp_lo', -746.0)
C('invln2', 1.4426950408889634)
C('shifter', 0x4338000000000000)
C('ln2hi', 0x3fe62e42fee00000)
C('ln2lo', 0x3dea39ef35793c76)
C('exp_ca', 0x4338000000000000 - 2048)
C('int1', 1)
EXPDEG = 13
for k in range(EXPDEG, 1, -1):
    f = Fraction(1, math.factorial(k))
    C('c%d' % k, float(f))
# log1p
C('lg_off', 0x3ff0000000000000 - 0x3fe6a09e667f3bcd)
C('two52i', 0x4330000000000000)
C('two52k', float(2**52 + 1023))
C('mant', 0x000fffffffffffff)
C('sqrthalf', 0x3fe6a09e667f3bcd)
C('two', 2.0)
for i, v in enumerate([0x3FE5555555555593, 0x3FD999999997FA04, 0x3FD2492494229359, 0x3FCC71C51D8E78AF,
                       0x3FC7466496CB03DE, 0x3FC39A09D078C69F, 0x3FC2F112DF3E5244]):
    C('lg%d' % (i + 1), v)
C('half', 0.5)
C('tiny', 2.0**-60)
C('maxf', 0x7fefffffffffffff)
C('inf', 0x7ff0000000000000)
C('minusone', -1.0)
C('neginf', 0xfff0000000000000)
C('nan', 0x7ff8000000000001)

out = []
def w(s=''): out.append(s)

def R(x, lane):
    if isinstance(x, tuple): return x[1]
    return x + lane
def S(k): return ('s', k)
LANES = (0, 1)
def w3(mac, m, n, d):
    for l in LANES: w('\t%s(%d, %d, %d)' % (mac, R(m, l), R(n, l), R(d, l)))
def w2(mac, n, d):
    for l in LANES: w('\t%s(%d, %d)' % (mac, R(n, l), R(d, l)))
def nat(op, m, n, d, arr='D2'):
    for l in LANES: w('\t%s V%d.%s, V%d.%s, V%d.%s' % (op, R(m, l), arr, R(n, l), arr, R(d, l), arr))
def bit(op, m, n, d): nat(op, m, n, d, 'B16')
def sh(op, imm, n, d):
    for l in LANES: w('\t%s $%d, V%d.D2, V%d.D2' % (op, imm, R(n, l), R(d, l)))
def ldc(name, k):       # shared constant into V<k>
    w('\tFMOVQ %d(R9), F%d' % (off[name], k))
def ldp(name, k):       # constant into every register of pair k (all lanes)
    for l in LANES:
        w('\tFMOVQ %d(R9), F%d' % (off[name], k + l))
def mov(src, dst): bit('VORR', src, src, dst)

FADD, FSUB, FMUL, FDIV = 'VFADD_D2', 'VFSUB_D2', 'VFMUL_D2', 'VFDIV_D2'
FMAX, FMIN, FCMGT, FCMGE = 'VFMAX_D2', 'VFMIN_D2', 'VFCMGT_D2', 'VFCMGE_D2'
FABS, FNEG = 'VFABS_D2', 'VFNEG_D2'
ONE, ZERO, K0, K1 = S(31), S(30), S(28), S(29)

def exp_core():
    # P0 = exp(P0); clobbers P2..P10, V28, V29.
    w('\t// exp: clamp, k = round(x/ln2) by the shifter, r = x - k*ln2 (two parts),')
    w('\t// p = Taylor polynomial of degree %d, result p * 2^(k>>1) * 2^(k-(k>>1)).' % EXPDEG)
    ldc('exp_hi', 28); w3(FMIN, K0, 0, 0)
    ldc('exp_lo', 28); w3(FMAX, K0, 0, 0)
    ldc('invln2', 28); ldp('shifter', 2)
    nat('VFMLA', 0, K0, 2)                  # t = shifter + x*invln2
    ldc('shifter', 29); w3(FSUB, K1, 2, 4)  # kf = t - shifter
    ldc('ln2hi', 28); nat('VFMLS', 4, K0, 0)
    ldc('ln2lo', 28); nat('VFMLS', 4, K0, 0)  # r
    ldc('exp_ca', 28); ldc('int1', 29)
    nat('VSUB', K0, 2, 2)                    # A = k + 2048
    sh('VUSHR', 1, 2, 4)                     # H = e1 + 1024
    nat('VSUB', 4, 2, 2)                     # A - H = e2 + 1024
    nat('VSUB', K1, 2, 2); sh('VSHL', 52, 2, 2)   # bits of 2^e2
    nat('VSUB', K1, 4, 4); sh('VSHL', 52, 4, 4)   # bits of 2^e1
    q, t = 6, 8
    ldp('c%d' % EXPDEG, q)
    for k in range(EXPDEG - 1, 1, -1):
        ldp('c%d' % k, t)
        nat('VFMLA', q, 0, t)                # t = c_k + q*r
        q, t = t, q
    mov(ONE, t); nat('VFMLA', q, 0, t)       # 1 + q*r
    mov(ONE, 10); nat('VFMLA', t, 0, 10)     # p = 1 + r*(...)
    w3(FMUL, 4, 10, 0)
    w3(FMUL, 2, 0, 0)

def log1p_core():
    # P6 = log1p(P0) for P0 > -1 (finite or NaN); P0 kept. Clobbers P2..P20, V28, V29.
    w('\t// log1p: u = 1+x, c = (x-(u-1))/u, u = 2^k*f with f in [sqrt(1/2), sqrt(2)),')
    w('\t// g = f-1, s = g/(2+g), fdlibm polynomial R(s^2); result')
    w('\t// k*ln2hi - ((g*g/2 - (s*(g*g/2+R) + (k*ln2lo + c))) - g).')
    w3(FADD, ONE, 0, 2)                      # u
    w3(FSUB, ONE, 2, 4); w3(FSUB, 4, 0, 4); w3(FDIV, 2, 4, 4)   # c
    ldc('lg_off', 28); nat('VADD', K0, 2, 6)  # hu
    sh('VUSHR', 52, 6, 8)
    ldc('two52i', 28); bit('VORR', K0, 8, 8)
    ldc('two52k', 29); w3(FSUB, K1, 8, 8)    # kf
    ldc('mant', 28); bit('VAND', K0, 6, 6)
    ldc('sqrthalf', 29); nat('VADD', K1, 6, 6)   # f
    w3(FSUB, ONE, 6, 6)                      # g
    ldc('two', 28); w3(FADD, K0, 6, 10); w3(FDIV, 10, 6, 10)   # s
    log1p_tail()

def log1p_tail():
    # From P4 = c/u, P6 = g, P8 = kf, P10 = s: P6 = log1p.
    w3(FMUL, 10, 10, 12)                     # z
    w3(FMUL, 12, 12, 14)                     # w
    ldp('lg4', 16); ldc('lg6', 28); nat('VFMLA', 14, K0, 16)
    ldp('lg2', 18); nat('VFMLA', 14, 16, 18)
    w3(FMUL, 18, 14, 16)                     # t1
    ldp('lg5', 18); ldc('lg7', 28); nat('VFMLA', 14, K0, 18)
    ldp('lg3', 20); nat('VFMLA', 14, 18, 20)
    ldp('lg1', 18); nat('VFMLA', 14, 20, 18)
    w3(FMUL, 18, 12, 18)                     # t2
    w3(FADD, 16, 18, 12)                     # R = t2 + t1
    ldc('half', 28); w3(FMUL, K0, 6, 14); w3(FMUL, 6, 14, 14)   # hfsq
    w3(FADD, 14, 12, 12)                     # hfsq + R
    ldc('ln2lo', 28); nat('VFMLA', 8, K0, 4)  # c + k*ln2lo
    nat('VFMLA', 10, 12, 4)                  # + s*(hfsq+R)
    w3(FSUB, 4, 14, 14)                      # hfsq - (...)
    w3(FSUB, 14, 6, 6)                       # g - (hfsq - (...))
    ldc('ln2hi', 28); nat('VFMLA', 8, K0, 6)  # + k*ln2hi

def log1p_core_unit():
    # As log1p_core, for P0 in [0, 1] or NaN only (the e = exp(-|z|) of the
    # logistic loss and softplus): u = 1+x <= 2, so one division serves both
    # s = g/(2+g) and c/u: q = 1/((2+g)*u), s = g*(u*q), c/u = c*((2+g)*q).
    w('\t// log1p of e in [0, 1]: as below, with one division for s and c/u.')
    w3(FADD, ONE, 0, 2)                      # u
    w3(FSUB, ONE, 2, 4); w3(FSUB, 4, 0, 4)   # c (undivided)
    ldc('lg_off', 28); nat('VADD', K0, 2, 6)  # hu
    sh('VUSHR', 52, 6, 8)
    ldc('two52i', 28); bit('VORR', K0, 8, 8)
    ldc('two52k', 29); w3(FSUB, K1, 8, 8)    # kf
    ldc('mant', 28); bit('VAND', K0, 6, 6)
    ldc('sqrthalf', 29); nat('VADD', K1, 6, 6)   # f
    w3(FSUB, ONE, 6, 6)                      # g
    ldc('two', 28); w3(FADD, K0, 6, 12)      # A = 2+g
    w3(FMUL, 2, 12, 10)                      # A*u
    w3(FDIV, 10, ONE, 10)                    # q = 1/(A*u)
    w3(FMUL, 10, 12, 12)                     # A*q = 1/u
    w3(FMUL, 12, 4, 4)                       # c/u
    w3(FMUL, 10, 2, 10)                      # u*q = 1/A
    w3(FMUL, 10, 6, 10)                      # s = g/A
    log1p_tail()

def log1p_special():
    # P6 = log1p result, P0 = x: fix the special cases, result to P0.
    w('\t// special cases: |x| < 2^-60 -> x (keeps -0), +Inf -> +Inf, -1 -> -Inf, x < -1 -> NaN')
    ldc('tiny', 28); w2(FABS, 0, 2); w3(FCMGT, 2, K0, 2); bit('VBIT', 2, 0, 6)
    ldc('maxf', 28); ldc('inf', 29); w3(FCMGT, K0, 0, 2); bit('VBIT', 2, K1, 6)
    ldc('minusone', 28); ldc('neginf', 29); w3(FCMGE, 0, K0, 2); bit('VBIT', 2, K1, 6)
    ldc('nan', 29); w3(FCMGT, 0, K0, 2); bit('VBIT', 2, K1, 6)
    mov(6, 0)

def load(prec, ptr, k):
    if prec == 'F64':
        w('\tVLD1.P 32(%s), [V%d.D2, V%d.D2]' % (ptr, k, k + 1))
    else:
        w('\tVLD1.P 16(%s), [V%d.S4]' % (ptr, k))
        w('\tVFCVTL2_S2D(%d, %d)\n\tVFCVTL_S2D(%d, %d)' % (k, k + 1, k, k))
def store(prec, ptr, k):
    if prec == 'F64':
        w('\tVST1.P [V%d.D2, V%d.D2], 32(%s)' % (k, k + 1, ptr))
    else:
        w('\tVFCVTN_D2S(%d, %d)\n\tVFCVTN2_D2S(%d, %d)' % (k, k, k + 1, k))
        w('\tVST1.P [V%d.S4], 16(%s)' % (k, ptr))

def prologue():
    w('\tMOVD $neonmath<>(SB), R9')
    ldc('one', 31)
    w('\tVEOR V30.B16, V30.B16, V30.B16')

def loop(label, nreg, body):
    w('%s:' % label)
    w('\tCBZ %s, %sdone' % (nreg, label))
    body()
    w('\tSUB $4, %s' % nreg)
    w('\tJMP %s' % label)
    w('%sdone:' % label)

w('''// Elementwise math kernels for arm64: exp (with a shift and a running sum, for
// softmax), log1p, a scale, the per-sample losses of a linear model and the
// smoothed plus functions of the CVaR objective.
//
// Requires: ASIMD (Advanced SIMD, mandatory in ARMv8-A). FADD, FSUB, FMUL,
// FDIV, FMAX, FMIN, FCMGT, FCMGE, FABS, FNEG, FCVTL(2), FCVTN(2) on vectors
// come from neon_arm64.h as WORD encodings.
//
// Tails: every routine takes n a multiple of 4 and handles 4 elements per
// iteration (two float64x2 registers; float32 is widened with FCVTL/FCVTL2 and
// narrowed with FCVTN/FCVTN2); expsum takes 8 per iteration (four registers)
// while it can. The log1p-based routines keep about 11 values live per
// register of input, so two registers in flight is what 32 vector registers
// allow; out-of-order cores overlap consecutive iterations. The Go wrappers in kernel_arm64.go pass the
// last 1..3 elements through a 4-element stack buffer.
//
// Precision: all arithmetic is in float64, for float32 data too, as the
// generic code does; float32 results are rounded once, at the store.
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

//
// The float32 and float64 variants below are parallel, instruction for
// instruction (float32 differs only in its loads and stores); keep them in
// step when editing.

//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
''')

for prec, T in (('F64', 'float64'), ('F32', 'float32')):
    # expsum
    w('// func expsum%s(dst, x *%s, n int, shift float64) float64' % (prec, T))
    w('TEXT ·expsum%s(SB), NOSPLIT, $0-40' % prec)
    prologue()
    w('\tMOVD dst+0(FP), R0\n\tMOVD x+8(FP), R1\n\tMOVD n+16(FP), R2')
    w('\tMOVD $shift+24(FP), R3\n\tVLD1R (R3), [V30.D2]')
    for i in range(24, 28):
        w('\tVEOR V%d.B16, V%d.B16, V%d.B16' % (i, i, i))
    def body8():
        # Eight elements: the exp core on V0,V1 and V12,V13 together
        # (4 registers of float64 in flight; each constant load serves 4).
        global LANES
        load(prec, 'R1', 0)
        load(prec, 'R1', 12)
        LANES = (0, 1, 12, 13)
        w3(FSUB, S(30), 0, 0)
        exp_core()
        LANES = (0, 1)
        w('\tVFADD_D2(0, 24, 24)\n\tVFADD_D2(1, 25, 25)\n\tVFADD_D2(12, 26, 26)\n\tVFADD_D2(13, 27, 27)')
        store(prec, 'R0', 0)
        store(prec, 'R0', 12)
    w('exps8:')
    w('\tCMP $8, R2\n\tBLT exps4')
    body8()
    w('\tSUB $8, R2\n\tJMP exps8')
    def body4():
        load(prec, 'R1', 0)
        w3(FSUB, S(30), 0, 0)
        exp_core()
        w('\tVFADD_D2(0, 24, 24)\n\tVFADD_D2(1, 25, 25)')
        store(prec, 'R0', 0)
    loop('exps4', 'R2', body4)
    w('\tVFADD_D2(25, 24, 24)\n\tVFADD_D2(27, 26, 26)\n\tVFADD_D2(26, 24, 24)')
    w('\tFADDP_D(24, 24)\n\tFMOVD F24, ret+32(FP)\n\tRET\n')

    # log1p
    w('// func log1p%s(dst, x *%s, n int)' % (prec, T))
    w('TEXT ·log1p%s(SB), NOSPLIT, $0-24' % prec)
    prologue()
    w('\tMOVD dst+0(FP), R0\n\tMOVD x+8(FP), R1\n\tMOVD n+16(FP), R2')
    def body():
        load(prec, 'R1', 0)
        log1p_core()
        log1p_special()
        store(prec, 'R0', 0)
    loop('lg', 'R2', body)
    w('\tRET\n')

    # scale
    w('// func scale%s(x *%s, n int, a float64)' % (prec, T))
    w('TEXT ·scale%s(SB), NOSPLIT, $0-24' % prec)
    w('\tMOVD x+0(FP), R0\n\tMOVD R0, R1\n\tMOVD n+8(FP), R2')
    w('\tMOVD $a+16(FP), R3\n\tVLD1R (R3), [V26.D2]')
    def body():
        load(prec, 'R1', 0)
        w3(FMUL, S(26), 0, 0)
        store(prec, 'R0', 0)
    loop('sc', 'R2', body)
    w('\tRET\n')

    # losses
    for kind in ('logistic', 'squared', 'absolute'):
        w('// func %s%s(loss, dloss, m, y *%s, n int)' % (kind, prec, T))
        w('TEXT ·%s%s(SB), NOSPLIT, $0-40' % (kind, prec))
        prologue()
        w('\tMOVD loss+0(FP), R0\n\tMOVD dloss+8(FP), R1\n\tMOVD m+16(FP), R2\n\tMOVD y+24(FP), R3\n\tMOVD n+32(FP), R4')
        def body(kind=kind):
            load(prec, 'R2', 22)   # m
            load(prec, 'R3', 24)   # y
            if kind == 'logistic':
                w3(FMUL, 24, 22, 26)               # z = y*m
                w2(FABS, 26, 0); w2(FNEG, 0, 0)    # -|z|
                exp_core()
                mov(0, 22)                         # e
                log1p_core_unit()                  # P6 = log1p(e)
                w2(FNEG, 26, 2); w3(FMAX, ZERO, 2, 2)
                w3(FADD, 6, 2, 2)                  # loss
                w3(FADD, ONE, 22, 4)               # 1+e
                w3(FCMGT, 26, ZERO, 8)             # 0 > z
                mov(22, 10); bit('VBIT', 8, ONE, 10)
                w3(FDIV, 4, 10, 10)                # σ(-z)
                w2(FNEG, 24, 24); w3(FMUL, 10, 24, 12)   # -y*σ
                store(prec, 'R0', 2); store(prec, 'R1', 12)
            elif kind == 'squared':
                w3(FSUB, 24, 22, 2)                # r = m - y
                ldc('half', 28); w3(FMUL, K0, 2, 4); w3(FMUL, 2, 4, 4)   # (0.5*r)*r
                store(prec, 'R0', 4); store(prec, 'R1', 2)
            else:
                w3(FSUB, 24, 22, 2)                # r
                w2(FABS, 2, 4)
                w3(FCMGT, ZERO, 2, 6)              # r > 0
                w3(FCMGT, 2, ZERO, 8)              # 0 > r
                ldc('minusone', 28)
                bit('VAND', ONE, 6, 6); bit('VAND', K0, 8, 8); bit('VORR', 6, 8, 6)
                store(prec, 'R0', 4); store(prec, 'R1', 6)
        loop(kind[:3], 'R4', body)
        w('\tRET\n')

    # plus
    w('// func plus%s(kind int, c *[16]float64, rho, drho, s *%s, n int)' % (prec, T))
    w('TEXT ·plus%s(SB), NOSPLIT, $0-48' % prec)
    prologue()
    w('\tMOVD kind+0(FP), R5\n\tMOVD c+8(FP), R8\n\tMOVD rho+16(FP), R0\n\tMOVD drho+24(FP), R1')
    w('\tMOVD s+32(FP), R2\n\tMOVD n+40(FP), R4')
    w('\tCMP $1, R5\n\tBEQ hinge\n\tCMP $2, R5\n\tBEQ soft\n\tJMP quad')
    def stores(rr, dr, lab):
        w('\tCBZ R0, %sr' % lab); store(prec, 'R0', rr); w('%sr:' % lab)
        w('\tCBZ R1, %sd' % lab); store(prec, 'R1', dr); w('%sd:' % lab)
    def hinge():
        load(prec, 'R2', 22)
        w3(FCMGT, ZERO, 22, 2)                     # s > 0
        bit('VAND', 2, 22, 4); bit('VAND', 2, ONE, 6)
        stores(4, 6, 'hs')
    w('hinge:'); loop('hl', 'R4', hinge); w('\tRET')
    def soft():
        load(prec, 'R2', 22)
        w('\tFMOVQ 0(R8), F28')
        w3(FDIV, K0, 22, 24)                       # t = s/eps
        w2(FABS, 24, 0); w2(FNEG, 0, 0)
        exp_core()
        mov(0, 26)                                 # e
        log1p_core_unit()                          # P6
        w3(FMAX, ZERO, 22, 2)
        w('\tFMOVQ 0(R8), F28')
        nat('VFMLA', 6, K0, 2)                     # max(s,0) + eps*log1p(e)
        w3(FADD, ONE, 26, 4)
        w3(FCMGE, ZERO, 24, 8)                     # t >= 0
        mov(26, 10); bit('VBIT', 8, ONE, 10)
        w3(FDIV, 4, 10, 10)
        stores(2, 10, 'ss')
    def softd():
        # rho not wanted (FusedLinear): the derivative needs no log1p.
        load(prec, 'R2', 22)
        w('\tFMOVQ 0(R8), F28')
        w3(FDIV, K0, 22, 24)                       # t = s/eps
        w2(FABS, 24, 0); w2(FNEG, 0, 0)
        exp_core()
        w3(FADD, ONE, 0, 4)
        w3(FCMGE, ZERO, 24, 8)                     # t >= 0
        mov(0, 10); bit('VBIT', 8, ONE, 10)
        w3(FDIV, 4, 10, 10)
        store(prec, 'R1', 10)
    w('soft:\n\tCBZ R0, softd'); loop('sl', 'R4', soft); w('\tRET')
    w('softd:\n\tCBZ R1, sdret'); loop('sd', 'R4', softd); w('sdret:\n\tRET')
    def quad():
        load(prec, 'R2', 22)
        w('\tFMOVQ 0(R8), F28\n\tFMOVQ 64(R8), F29')
        w3(FCMGE, K0, 22, 24)                      # s >= eps
        w3(FCMGE, 22, K1, 26)                      # -eps >= s
        w3(FMUL, 22, 22, 2)
        w('\tFMOVQ 16(R8), F28'); w3(FDIV, K0, 2, 2)      # s*s/(4eps)
        w('\tFMOVQ 80(R8), F29'); w3(FMUL, K1, 22, 4)     # s*0.5
        w3(FADD, 4, 2, 2)
        w('\tFMOVQ 48(R8), F28'); w3(FADD, K0, 2, 2)      # + eps/4
        w('\tFMOVQ 32(R8), F28'); w3(FDIV, K0, 22, 6)     # s/(2eps)
        w3(FADD, K1, 6, 6)                                # + 0.5
        bit('VBIT', 26, ZERO, 2); bit('VBIT', 24, 22, 2)
        bit('VBIT', 26, ZERO, 6); bit('VBIT', 24, ONE, 6)
        stores(2, 6, 'qs')
    w('quad:'); loop('ql', 'R4', quad); w('\tRET\n')

w('// Constants, each stored twice so that FMOVQ loads a full register.')
for name, v in consts:
    o = off[name]
    w('DATA neonmath<>+%d(SB)/8, $0x%016x // %s' % (o, v, name))
    w('DATA neonmath<>+%d(SB)/8, $0x%016x' % (o + 8, v))
w('GLOBL neonmath<>(SB), RODATA|NOPTR, $%d' % (16 * len(consts)))
open('math_arm64.s', 'w').write(('\n'.join(out) + '\n').replace('\n\n//\n// The float32', '\n//\n// The float32', 1))
