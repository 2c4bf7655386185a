#!/usr/bin/env python3
"""Generates ../linalg_arm64.s (NEON). Run from the kernel directory: python3 asmgen/linalg_arm64.py"""
P = {
  'F64': dict(T='float64', arr='D2', es=8, vl=2, mov='FMOVD', fma='FMADDD', add='VFADD_D2', sub='VFSUB_D2',
              faddp=None, red='FADDP_D', ld1r='D2', max='VFMAX_D2', maxs='FMAXD', maxp='FMAXP_D'),
  'F32': dict(T='float32', arr='S4', es=4, vl=4, mov='FMOVS', fma='FMADDS', add='VFADD_S4', sub='VFSUB_S4',
              faddp='VFADDP_S4', red='FADDP_S', ld1r='S4', max='VFMAX_S4', maxs='FMAXS', maxp='FMAXP_S'),
}
out = []
def w(s=''): out.append(s)

w('''// Linear-algebra kernels for arm64: dot products, axpy, lerp, the dot
// products of one vector with a list of rows taken four at a time (dotRows:
// margins of rows, or the classes of one row; each load of the shared vector
// serves four rows), the sum of a list of scaled rows into one vector taken
// four rows at a time (axpyRows: y is loaded and stored once per four rows),
// and the maximum of a vector. Row lists are arrays of pointers, so gathered
// rows cost nothing extra, and one call handles many rows; the first cache
// lines of the next four rows are prefetched (PRFM) while four are computed.
//
// Requires: ASIMD (Advanced SIMD, mandatory in ARMv8-A). Instructions that Go's
// assembler lacks (FADD, FSUB, FMAX, FADDP, FMAXP on vectors) come from
// neon_arm64.h as WORD encodings.
//
// Loops: the main loop handles 4 (dot: 8) 128-bit registers of each operand
// per iteration with independent accumulators; a one-register loop takes the
// rest that fills whole registers, and a scalar loop the last 0..1 (float64)
// or 0..3 (float32) elements. Nothing is read or written outside [0, n).
//
// Rounding: axpy, axpyRows and lerp use one fused multiply-add per element and
// row, in row order, exactly as the Go reference compiles on arm64 (FMADD):
// they are bit-exact. dot, dotRows and max reduce in a different order than the
// sequential Go loop; dot and dotRows are within (n+1)·u·Σ|x_i·y_i| of it.
// These routines are exact-arithmetic kernels: there is no accuracy contract
// beyond the rounding of each FMA.

//
// The float32 and float64 variants below are parallel, instruction for
// instruction; keep them in step when editing.

//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"
''')

def vregs(a, b, arr):
    return '[' + ', '.join('V%d.%s' % (i, arr) for i in range(a, b + 1)) + ']'

def prefetch_next(lab):
    # Gathered rows defeat the hardware prefetcher at their start: while this
    # group of four rows is computed, ask for the first two cache lines of each
    # row of the next group (R8 points at its pointers; R11 counts the rows
    # left, this group included).
    w('\tCMP $8, R11\n\tBLT %snopf' % lab)
    w('\tLDP (R8), (R12, R13)\n\tLDP 16(R8), (R14, R15)')
    for r in (12, 13, 14, 15):
        w('\tPRFM (R%d), PLDL1KEEP\n\tPRFM 64(R%d), PLDL1KEEP' % (r, r))
    w('%snopf:' % lab)

def reduce_to_scalar(p, acc):
    # acc: register number holding the vector sum; leaves scalar in F<acc>
    if p['faddp']:
        w('\t%s(%d, %d, %d)' % (p['faddp'], acc, acc, acc))
    w('\t%s(%d, %d)' % (p['red'], acc, acc))

for name, p in P.items():
    T, arr, es, vl = p['T'], p['arr'], p['es'], p['vl']
    # ---------------- dot
    w('// func dot%s(x, y *%s, n int) %s' % (name, T, T))
    w('TEXT ·dot%s(SB), NOSPLIT, $0-%d' % (name, 24 + es))
    w('\tMOVD x+0(FP), R0\n\tMOVD y+8(FP), R1\n\tMOVD n+16(FP), R2')
    for i in range(16, 24):
        w('\tVEOR V%d.B16, V%d.B16, V%d.B16' % (i, i, i))
    blk = 8 * vl
    w('\tCMP $%d, R2\n\tBLT dot1' % blk)
    w('dot8:')
    w('\tVLD1.P 64(R0), %s' % vregs(0, 3, arr))
    w('\tVLD1.P 64(R1), %s' % vregs(8, 11, arr))
    w('\tVLD1.P 64(R0), %s' % vregs(4, 7, arr))
    w('\tVLD1.P 64(R1), %s' % vregs(12, 15, arr))
    for i in range(8):
        w('\tVFMLA V%d.%s, V%d.%s, V%d.%s' % (i, arr, i + 8, arr, 16 + i, arr))
    w('\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE dot8' % (blk, blk))
    w('dot1:')
    w('\tCMP $%d, R2\n\tBLT dotred' % vl)
    w('dot1loop:')
    w('\tVLD1.P 16(R0), [V0.%s]\n\tVLD1.P 16(R1), [V8.%s]' % (arr, arr))
    w('\tVFMLA V0.%s, V8.%s, V16.%s' % (arr, arr, arr))
    w('\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE dot1loop' % (vl, vl))
    w('dotred:')
    for a, b in ((17, 16), (19, 18), (21, 20), (23, 22), (18, 16), (22, 20), (20, 16)):
        w('\t%s(%d, %d, %d)' % (p['add'], a, b, b))
    reduce_to_scalar(p, 16)
    w('\tCBZ R2, dotdone')
    w('dotscalar:')
    w('\t%s.P %d(R0), F0\n\t%s.P %d(R1), F1' % (p['mov'], es, p['mov'], es))
    w('\t%s F1, F16, F0, F16' % p['fma'])
    w('\tSUB $1, R2\n\tCBNZ R2, dotscalar')
    w('dotdone:')
    w('\t%s F16, ret+24(FP)\n\tRET\n' % p['mov'])

    # ---------------- axpy and lerp
    for kern in ('axpy', 'lerp'):
        a = 'a' if kern == 'axpy' else 't'
        w('// func %s%s(%s %s, x, y *%s, n int)' % (kern, name, a, T, T))
        w('TEXT ·%s%s(SB), NOSPLIT, $0-32' % (kern, name))
        w('\tMOVD $%s+0(FP), R3\n\tVLD1R (R3), [V28.%s]' % (a, arr))
        w('\tMOVD x+8(FP), R0\n\tMOVD y+16(FP), R1\n\tMOVD n+24(FP), R2')
        blk = 4 * vl
        w('\tCMP $%d, R2\n\tBLT %s1' % (blk, kern))
        w('%s4:' % kern)
        w('\tVLD1.P 64(R0), %s' % vregs(0, 3, arr))
        w('\tVLD1 (R1), %s' % vregs(4, 7, arr))
        for i in range(4):
            if kern == 'lerp':
                w('\t%s(%d, %d, %d)' % (p['sub'], 4 + i, i, i))
            w('\tVFMLA V%d.%s, V28.%s, V%d.%s' % (i, arr, arr, 4 + i, arr))
        w('\tVST1.P %s, 64(R1)' % vregs(4, 7, arr))
        w('\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE %s4' % (blk, blk, kern))
        w('%s1:' % kern)
        w('\tCMP $%d, R2\n\tBLT %stail' % (vl, kern))
        w('%s1loop:' % kern)
        w('\tVLD1.P 16(R0), [V0.%s]\n\tVLD1 (R1), [V4.%s]' % (arr, arr))
        if kern == 'lerp':
            w('\t%s(4, 0, 0)' % p['sub'])
        w('\tVFMLA V0.%s, V28.%s, V4.%s\n\tVST1.P [V4.%s], 16(R1)' % (arr, arr, arr, arr))
        w('\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE %s1loop' % (vl, vl, kern))
        w('%stail:' % kern)
        w('\tCBZ R2, %sdone' % kern)
        w('%sscalar:' % kern)
        w('\t%s.P %d(R0), F0\n\t%s (R1), F4' % (p['mov'], es, p['mov']))
        if kern == 'lerp':
            w('\t%s F4, F0, F0' % ('FSUBD' if name == 'F64' else 'FSUBS'))
        w('\t%s F28, F4, F0, F4' % p['fma'])
        w('\t%s.P F4, %d(R1)' % (p['mov'], es))
        w('\tSUB $1, R2\n\tCBNZ R2, %sscalar' % kern)
        w('%sdone:\n\tRET\n' % kern)

    # ---------------- dotRows: groups of four rows, each against a
    w('// func dotRows%s(out, a *%s, rows **%s, nrows, n int)' % (name, T, T))
    w('TEXT ·dotRows%s(SB), NOSPLIT, $0-40' % name)
    w('\tMOVD out+0(FP), R7\n\tMOVD a+8(FP), R6\n\tMOVD rows+16(FP), R8\n\tMOVD nrows+24(FP), R11\n\tMOVD n+32(FP), R10')
    w('drgroup:')
    w('\tCBZ R11, drdone')
    w('\tLDP.P 16(R8), (R1, R2)\n\tLDP.P 16(R8), (R3, R4)')
    prefetch_next('dr')
    w('\tMOVD R6, R0\n\tMOVD R10, R5')
    for i in range(16, 32):
        w('\tVEOR V%d.B16, V%d.B16, V%d.B16' % (i, i, i))
    blk = 4 * vl
    w('\tCMP $%d, R5\n\tBLT d4one' % blk)
    w('d4loop:')
    w('\tVLD1.P 64(R0), %s' % vregs(0, 3, arr))
    for r, (ptr, base) in enumerate((('R1', 4), ('R2', 8), ('R3', 12), ('R4', 4))):
        w('\tVLD1.P 64(%s), %s' % (ptr, vregs(base, base + 3, arr)))
        for i in range(4):
            w('\tVFMLA V%d.%s, V%d.%s, V%d.%s' % (i, arr, base + i, arr, 16 + 4 * r + i, arr))
    w('\tSUB $%d, R5\n\tCMP $%d, R5\n\tBGE d4loop' % (blk, blk))
    w('d4one:')
    w('\tCMP $%d, R5\n\tBLT d4red' % vl)
    w('d4oneloop:')
    w('\tVLD1.P 16(R0), [V0.%s]' % arr)
    for r, (ptr, reg) in enumerate((('R1', 4), ('R2', 5), ('R3', 6), ('R4', 7))):
        w('\tVLD1.P 16(%s), [V%d.%s]' % (ptr, reg, arr))
        w('\tVFMLA V0.%s, V%d.%s, V%d.%s' % (arr, reg, arr, 16 + 4 * r, arr))
    w('\tSUB $%d, R5\n\tCMP $%d, R5\n\tBGE d4oneloop' % (vl, vl))
    w('d4red:')
    for r in range(4):
        b = 16 + 4 * r
        w('\t%s(%d, %d, %d)' % (p['add'], b + 1, b, b))
        w('\t%s(%d, %d, %d)' % (p['add'], b + 3, b + 2, b + 2))
        w('\t%s(%d, %d, %d)' % (p['add'], b + 2, b, b))
        reduce_to_scalar(p, b)
    w('\tCBZ R5, d4store')
    w('d4scalar:')
    w('\t%s.P %d(R0), F0' % (p['mov'], es))
    for r, (ptr, reg) in enumerate((('R1', 1), ('R2', 2), ('R3', 3), ('R4', 4))):
        w('\t%s.P %d(%s), F%d' % (p['mov'], es, ptr, reg))
        w('\t%s F0, F%d, F%d, F%d' % (p['fma'], 16 + 4 * r, reg, 16 + 4 * r))
    w('\tSUB $1, R5\n\tCBNZ R5, d4scalar')
    w('d4store:')
    for r in range(4):
        w('\t%s.P F%d, %d(R7)' % (p['mov'], 16 + 4 * r, es))
    w('\tSUB $4, R11\n\tJMP drgroup')
    w('drdone:\n\tRET\n')

    # ---------------- axpyRows: groups of four rows, y loaded and stored once per group
    w('// func axpyRows%s(y *%s, n int, c *%s, rows **%s, nrows int)' % (name, T, T, T))
    w('TEXT ·axpyRows%s(SB), NOSPLIT, $0-40' % name)
    w('\tMOVD y+0(FP), R9\n\tMOVD n+8(FP), R10\n\tMOVD c+16(FP), R2\n\tMOVD rows+24(FP), R8\n\tMOVD nrows+32(FP), R11')
    w('argroup:')
    w('\tCBZ R11, ardone')
    w('\tLDP.P 16(R8), (R3, R4)\n\tLDP.P 16(R8), (R5, R6)')
    prefetch_next('ar')
    w('\tMOVD R9, R0\n\tMOVD R10, R1')
    for i in range(4):
        w('\tVLD1R.P %d(R2), [V%d.%s]' % (es, 28 + i, arr))
    blk = 4 * vl
    w('\tCMP $%d, R1\n\tBLT a4one' % blk)
    w('a4loop:')
    w('\tVLD1 (R0), %s' % vregs(0, 3, arr))
    for r, (ptr, base) in enumerate((('R3', 4), ('R4', 8), ('R5', 12), ('R6', 16))):
        w('\tVLD1.P 64(%s), %s' % (ptr, vregs(base, base + 3, arr)))
        for i in range(4):
            w('\tVFMLA V%d.%s, V%d.%s, V%d.%s' % (base + i, arr, 28 + r, arr, i, arr))
    w('\tVST1.P %s, 64(R0)' % vregs(0, 3, arr))
    w('\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE a4loop' % (blk, blk))
    w('a4one:')
    w('\tCMP $%d, R1\n\tBLT a4tail' % vl)
    w('a4oneloop:')
    w('\tVLD1 (R0), [V0.%s]' % arr)
    for r, (ptr, reg) in enumerate((('R3', 4), ('R4', 5), ('R5', 6), ('R6', 7))):
        w('\tVLD1.P 16(%s), [V%d.%s]' % (ptr, reg, arr))
        w('\tVFMLA V%d.%s, V%d.%s, V0.%s' % (reg, arr, 28 + r, arr, arr))
    w('\tVST1.P [V0.%s], 16(R0)' % arr)
    w('\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE a4oneloop' % (vl, vl))
    w('a4tail:')
    w('\tCBZ R1, a4next')
    w('a4scalar:')
    w('\t%s (R0), F0' % p['mov'])
    for r, (ptr, reg) in enumerate((('R3', 4), ('R4', 5), ('R5', 6), ('R6', 7))):
        w('\t%s.P %d(%s), F%d' % (p['mov'], es, ptr, reg))
        w('\t%s F%d, F0, F%d, F0' % (p['fma'], 28 + r, reg))
    w('\t%s.P F0, %d(R0)' % (p['mov'], es))
    w('\tSUB $1, R1\n\tCBNZ R1, a4scalar')
    w('a4next:')
    w('\tSUB $4, R11\n\tJMP argroup')
    w('ardone:\n\tRET\n')

    # ---------------- max (n >= 1)
    w('// func max%s(x *%s, n int) %s' % (name, T, T))
    w('TEXT ·max%s(SB), NOSPLIT, $0-%d' % (name, 16 + es))
    w('\tMOVD x+0(FP), R0\n\tMOVD n+8(FP), R1')
    w('\t%s (R0), F16' % p['mov'])
    w('\tVDUP V16.%s[0], V16.%s' % (arr[0], arr))
    for i in range(17, 20):
        w('\tVORR V16.B16, V16.B16, V%d.B16' % i)
    blk = 4 * vl
    w('\tCMP $%d, R1\n\tBLT mxone' % blk)
    w('mxloop:')
    w('\tVLD1.P 64(R0), %s' % vregs(0, 3, arr))
    for i in range(4):
        w('\t%s(%d, %d, %d)' % (p['max'], i, 16 + i, 16 + i))
    w('\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE mxloop' % (blk, blk))
    w('mxone:')
    w('\tCMP $%d, R1\n\tBLT mxred' % vl)
    w('mxoneloop:')
    w('\tVLD1.P 16(R0), [V0.%s]' % arr)
    w('\t%s(0, 16, 16)' % p['max'])
    w('\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE mxoneloop' % (vl, vl))
    w('mxred:')
    w('\t%s(17, 16, 16)\n\t%s(19, 18, 18)\n\t%s(18, 16, 16)' % (p['max'], p['max'], p['max']))
    if name == 'F32':
        w('\tVFMAXP_S4(16, 16, 16)')
    w('\t%s(16, 16)' % p['maxp'])
    w('\tCBZ R1, mxdone')
    w('mxscalar:')
    w('\t%s.P %d(R0), F0' % (p['mov'], es))
    w('\t%s F0, F16, F16' % p['maxs'])
    w('\tSUB $1, R1\n\tCBNZ R1, mxscalar')
    w('mxdone:')
    w('\t%s F16, ret+16(FP)\n\tRET\n' % p['mov'])

open('linalg_arm64.s', 'w').write('\n'.join(out).replace('\n\n//\n// The float32', '\n//\n// The float32', 1))
