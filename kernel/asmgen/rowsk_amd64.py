#!/usr/bin/env python3
"""Generates ../rowsk_amd64.s: register-blocked MarginsK and AddOuterK
micro-kernels for AVX2+FMA.

Run from the kernel directory (go generate does):

    python3 asmgen/rowsk_amd64.py > rowsk_amd64.s

Each TEXT handles a block of c ≤ 5 classes (a run-time argument that selects
one of five specialised bodies); kernel_amd64.go walks the class blocks, row
blocks and column strips so that one call does bounded work.
"""

CMAX = 5


def gen_margins(P, pf):
    f32 = P == "F32"
    E = 4 if f32 else 8
    S = "PS" if f32 else "PD"
    V = S[1]
    U = 16 if f32 else 8  # columns per loop iteration (two registers)
    MT = "maskTab32" if f32 else "maskTab64"
    SH = 2 if f32 else 3
    name = ("marginsKPF" if pf else "marginsK") + P
    L0 = ("mkp" if pf else "mk") + P.lower()
    o = []
    a = o.append
    a(f"// func {name}(m unsafe.Pointer, k, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d, c int)")
    a(f"TEXT ·{name}(SB), NOSPLIT, $0-72")
    a(f"\tMOVQ m+0(FP), DI")
    a(f"\tMOVQ n+16(FP), CX")
    a(f"\tMOVQ x+24(FP), SI")
    a(f"\tMOVQ stride+32(FP), R9")
    a(f"\tSHLQ ${SH}, R9")
    a(f"\tMOVQ idx+40(FP), BX")
    a(f"\tMOVQ w+48(FP), DX")
    a(f"\tMOVQ d+56(FP), R8")
    a(f"\tMOVQ R8, R12")
    a(f"\tSHLQ ${SH}, R12")                 # R12 = d bytes: class stride of w
    a(f"\tLEAQ (R12)(R12*2), R13")          # R13 = 3 class strides
    a(f"\tMOVQ R8, AX")
    a(f"\tANDQ ${U//2-1}, AX")
    a(f"\tNEGQ AX")
    a(f"\tADDQ ${U//2}, AX")
    a(f"\tLEAQ ·{MT}(SB), R10")
    a(f"\tVMOVDQU (R10)(AX*{E}), Y15")
    a(f"\tSHRQ ${4 if f32 else 3}, R8")       # R8 = full iterations
    a(f"\tMOVQ c+64(FP), AX")
    for C in range(CMAX, 1, -1):
        a(f"\tCMPQ AX, ${C}")
        a(f"\tJEQ  {L0}c{C}pair")
    a(f"\tJMP  {L0}c1pair")
    a("")

    def waddr(j, off):
        # address of class j's weights at byte offset off from DX
        o_ = f"{off}" if off else ""
        return [f"{o_}(DX)", f"{o_}(DX)(R12*1)", f"{o_}(DX)(R12*2)", f"{o_}(DX)(R13*1)", f"{o_}(DX)(R12*4)"][j]

    def reduce_store(accs, dst_reg, tmp):
        # accs: registers holding class sums j = 0..C-1; store their horizontal
        # sums to dst_reg + j*E. tmp: three free registers.
        t0, t1, t2 = tmp
        j = 0
        while len(accs) - j >= 4:
            A = accs[j:j+4]
            if f32:
                a(f"\tVHADDPS      Y{A[1]}, Y{A[0]}, Y{t0}")
                a(f"\tVHADDPS      Y{A[3]}, Y{A[2]}, Y{t1}")
                a(f"\tVHADDPS      Y{t1}, Y{t0}, Y{t0}")
                a(f"\tVEXTRACTF128 $1, Y{t0}, X{t1}")
                a(f"\tVADDPS       X{t1}, X{t0}, X{t0}")
                a(f"\tVMOVUPS      X{t0}, {j*E}({dst_reg})")
            else:
                a(f"\tVHADDPD      Y{A[1]}, Y{A[0]}, Y{t0}")
                a(f"\tVHADDPD      Y{A[3]}, Y{A[2]}, Y{t1}")
                a(f"\tVPERM2F128   $0x20, Y{t1}, Y{t0}, Y{t2}")
                a(f"\tVPERM2F128   $0x31, Y{t1}, Y{t0}, Y{t0}")
                a(f"\tVADDPD       Y{t2}, Y{t0}, Y{t0}")
                a(f"\tVMOVUPD      Y{t0}, {j*E}({dst_reg})")
            j += 4
        while j < len(accs):
            A = accs[j]
            a(f"\tVEXTRACTF128 $1, Y{A}, X{t0}")
            a(f"\tVADD{S}       X{t0}, X{A}, X{t0}")
            a(f"\tVHADD{S}      X{t0}, X{t0}, X{t0}")
            if f32:
                a(f"\tVHADDPS      X{t0}, X{t0}, X{t0}")
                a(f"\tVMOVSS       X{t0}, {j*E}({dst_reg})")
            else:
                a(f"\tVMOVSD       X{t0}, {j*E}({dst_reg})")
            j += 1

    for C in range(CMAX, 0, -1):
        L = f"{L0}c{C}"
        acc = [[r * C + j for j in range(C)] for r in range(2)]
        # ---- two rows at a time
        a(f"{L}pair:")
        a(f"\tCMPQ CX, $2")
        a(f"\tJB   {L}single")
        a(f"\tTESTQ BX, BX")
        a(f"\tJZ    {L}consec2")
        a(f"\tMOVQ  (BX), R10")
        a(f"\tIMULQ R9, R10")
        a(f"\tADDQ  SI, R10")
        a(f"\tMOVQ  8(BX), R11")
        a(f"\tIMULQ R9, R11")
        a(f"\tADDQ  SI, R11")
        a(f"\tADDQ  $16, BX")
        a(f"\tJMP   {L}ready2")
        a(f"{L}consec2:")
        a(f"\tMOVQ SI, R10")
        a(f"\tLEAQ (SI)(R9*1), R11")
        a(f"\tLEAQ (R11)(R9*1), SI")
        a(f"{L}ready2:")
        for r in range(2):
            for j in range(C):
                a(f"\tVXORP{V} Y{acc[r][j]}, Y{acc[r][j]}, Y{acc[r][j]}")
        a(f"\tMOVQ  R8, AX")
        a(f"\tTESTQ AX, AX")
        a(f"\tJZ    {L}tail2")
        a(f"{L}loop2:")
        if pf:
            a(f"\tPREFETCHT0  PFDIST(R10)")
            a(f"\tPREFETCHT0  PFDIST(R11)")
        for h in range(2):
            a(f"\tVMOVUP{V} {32*h}(R10), Y10")
            a(f"\tVMOVUP{V} {32*h}(R11), Y11")
            for j in range(C):
                a(f"\tVMOVUP{V} {waddr(j, 32*h)}, Y12")
                a(f"\tVFMADD231{S} Y10, Y12, Y{acc[0][j]}")
                a(f"\tVFMADD231{S} Y11, Y12, Y{acc[1][j]}")
        a(f"\tADDQ $64, R10")
        a(f"\tADDQ $64, R11")
        a(f"\tADDQ $64, DX")
        a(f"\tDECQ AX")
        a(f"\tJNZ  {L}loop2")
        a(f"{L}tail2:")
        a(f"\tTESTQ ${U//2}, d+56(FP)")
        a(f"\tJZ    {L}mask2")
        a(f"\tVMOVUP{V} (R10), Y10")
        a(f"\tVMOVUP{V} (R11), Y11")
        for j in range(C):
            a(f"\tVMOVUP{V} {waddr(j, 0)}, Y12")
            a(f"\tVFMADD231{S} Y10, Y12, Y{acc[0][j]}")
            a(f"\tVFMADD231{S} Y11, Y12, Y{acc[1][j]}")
        a(f"\tADDQ $32, R10")
        a(f"\tADDQ $32, R11")
        a(f"\tADDQ $32, DX")
        a(f"{L}mask2:")
        a(f"\tTESTQ ${U//2-1}, d+56(FP)")
        a(f"\tJZ    {L}reduce2")
        a(f"\tVMASKMOV{S} (R10), Y15, Y10")
        a(f"\tVMASKMOV{S} (R11), Y15, Y11")
        for j in range(C):
            a(f"\tVMASKMOV{S} {waddr(j, 0)}, Y15, Y12")
            a(f"\tVFMADD231{S} Y10, Y12, Y{acc[0][j]}")
            a(f"\tVFMADD231{S} Y11, Y12, Y{acc[1][j]}")
        a(f"{L}reduce2:")
        a(f"\tMOVQ w+48(FP), DX")
        a(f"\tMOVQ k+8(FP), AX")
        a(f"\tSHLQ ${SH}, AX")
        reduce_store(acc[0], "DI", (10, 11, 12))
        a(f"\tADDQ AX, DI")
        reduce_store(acc[1], "DI", (10, 11, 12))
        a(f"\tADDQ AX, DI")
        a(f"\tSUBQ $2, CX")
        a(f"\tJMP  {L}pair")
        a("")
        # ---- the last row
        a(f"{L}single:")
        a(f"\tTESTQ CX, CX")
        a(f"\tJZ    {L0}done")
        a(f"\tTESTQ BX, BX")
        a(f"\tJZ    {L}consec1")
        a(f"\tMOVQ  (BX), R10")
        a(f"\tIMULQ R9, R10")
        a(f"\tADDQ  SI, R10")
        a(f"\tJMP   {L}ready1")
        a(f"{L}consec1:")
        a(f"\tMOVQ SI, R10")
        a(f"{L}ready1:")
        a1 = list(range(C))
        b1 = [5 + j for j in range(C)]
        for r in a1 + b1:
            a(f"\tVXORP{V} Y{r}, Y{r}, Y{r}")
        a(f"\tMOVQ  R8, AX")
        a(f"\tTESTQ AX, AX")
        a(f"\tJZ    {L}tail1")
        a(f"{L}loop1:")
        a(f"\tVMOVUP{V} (R10), Y10")
        a(f"\tVMOVUP{V} 32(R10), Y11")
        for j in range(C):
            a(f"\tVFMADD231{S} {waddr(j, 0)}, Y10, Y{a1[j]}")
            a(f"\tVFMADD231{S} {waddr(j, 32)}, Y11, Y{b1[j]}")
        a(f"\tADDQ $64, R10")
        a(f"\tADDQ $64, DX")
        a(f"\tDECQ AX")
        a(f"\tJNZ  {L}loop1")
        a(f"{L}tail1:")
        a(f"\tTESTQ ${U//2}, d+56(FP)")
        a(f"\tJZ    {L}mask1")
        a(f"\tVMOVUP{V} (R10), Y10")
        for j in range(C):
            a(f"\tVFMADD231{S} {waddr(j, 0)}, Y10, Y{a1[j]}")
        a(f"\tADDQ $32, R10")
        a(f"\tADDQ $32, DX")
        a(f"{L}mask1:")
        a(f"\tTESTQ ${U//2-1}, d+56(FP)")
        a(f"\tJZ    {L}reduce1")
        a(f"\tVMASKMOV{S} (R10), Y15, Y10")
        for j in range(C):
            a(f"\tVMASKMOV{S} {waddr(j, 0)}, Y15, Y12")
            a(f"\tVFMADD231{S} Y10, Y12, Y{b1[j]}")
        a(f"{L}reduce1:")
        for j in range(C):
            a(f"\tVADD{S} Y{b1[j]}, Y{a1[j]}, Y{a1[j]}")
        reduce_store(a1, "DI", (10, 11, 12))
        a(f"\tJMP  {L0}done")
        a("")
    a(f"{L0}done:")
    a(f"\tVZEROUPPER")
    a(f"\tRET")
    a("")
    return "\n".join(o)


def gen_outer(P, pf):
    f32 = P == "F32"
    E = 4 if f32 else 8
    S = "PS" if f32 else "PD"
    V = S[1]
    U = 16 if f32 else 8
    MT = "maskTab32" if f32 else "maskTab64"
    SH = 2 if f32 else 3
    BR = "VBROADCASTSS" if f32 else "VBROADCASTSD"
    name = ("addOuterKPF" if pf else "addOuterK") + P
    L0 = ("okp" if pf else "ok") + P.lower()
    o = []
    a = o.append
    a(f"// func {name}(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, k, n, cols, nc int)")
    a(f"TEXT ·{name}(SB), NOSPLIT, $0-80")
    a(f"\tMOVQ dst+0(FP), DI")
    a(f"\tMOVQ d+8(FP), R12")
    a(f"\tSHLQ ${SH}, R12")                 # class stride of g, bytes
    a(f"\tLEAQ (R12)(R12*2), R13")
    a(f"\tMOVQ x+16(FP), SI")
    a(f"\tMOVQ stride+24(FP), R9")
    a(f"\tSHLQ ${SH}, R9")
    a(f"\tMOVQ idx+32(FP), BX")
    a(f"\tMOVQ c+40(FP), DX")
    a(f"\tMOVQ k+48(FP), CX")
    a(f"\tSHLQ ${SH}, CX")                  # row stride of c, bytes
    a(f"\tMOVQ cols+64(FP), R8")
    a(f"\tMOVQ R8, AX")
    a(f"\tANDQ ${U//2-1}, AX")
    a(f"\tNEGQ AX")
    a(f"\tADDQ ${U//2}, AX")
    a(f"\tLEAQ ·{MT}(SB), R10")
    a(f"\tVMOVDQU (R10)(AX*{E}), Y15")
    a(f"\tSHRQ ${4 if f32 else 3}, R8")
    a(f"\tMOVQ nc+72(FP), AX")
    for C in range(CMAX, 1, -1):
        a(f"\tCMPQ AX, ${C}")
        a(f"\tJEQ  {L0}c{C}")
    a(f"\tJMP  {L0}c1")
    a("")

    def gaddr(j, off):
        o_ = f"{off}" if off else ""
        return [f"{o_}(DI)", f"{o_}(DI)(R12*1)", f"{o_}(DI)(R12*2)", f"{o_}(DI)(R13*1)", f"{o_}(DI)(R12*4)"][j]

    def rows(L, body):
        # runs body over the n rows, R10 = row address (at the current
        # column), R11 = &c[i*k] of the block; rows in increasing order.
        a(f"\tMOVQ  DX, R11")
        a(f"\tTESTQ BX, BX")
        a(f"\tJZ    {L}consec")
        a(f"\tXORQ  AX, AX")
        a(f"{L}gather:")
        a(f"\tMOVQ  (BX)(AX*8), R10")
        a(f"\tIMULQ R9, R10")
        a(f"\tADDQ  SI, R10")
        body()
        a(f"\tADDQ  CX, R11")
        a(f"\tINCQ  AX")
        a(f"\tCMPQ  AX, n+56(FP)")
        a(f"\tJB    {L}gather")
        a(f"\tJMP   {L}store")
        a(f"{L}consec:")
        a(f"\tMOVQ  n+56(FP), AX")
        a(f"\tMOVQ  SI, R10")
        a(f"{L}next:")
        body()
        a(f"\tADDQ  CX, R11")
        a(f"\tADDQ  R9, R10")
        a(f"\tDECQ  AX")
        a(f"\tJNZ   {L}next")
        a(f"{L}store:")

    for C in range(CMAX, 0, -1):
        L = f"{L0}c{C}"
        a(f"{L}:")
        a(f"\tTESTQ R8, R8")
        a(f"\tJZ    {L}half")
        # ---- 2-register column chunks
        a(f"{L}loop:")
        acc = [[2 * j, 2 * j + 1] for j in range(C)]
        for j in range(C):
            for h in range(2):
                a(f"\tVMOVUP{V} {gaddr(j, 32*h)}, Y{acc[j][h]}")

        def body2():
            if pf:
                a(f"\tPREFETCHT0  PFDIST(R10)")
            a(f"\tVMOVUP{V} (R10), Y10")
            a(f"\tVMOVUP{V} 32(R10), Y11")
            for j in range(C):
                a(f"\t{BR} {j*E}(R11), Y12")
                a(f"\tVFMADD231{S} Y10, Y12, Y{acc[j][0]}")
                a(f"\tVFMADD231{S} Y11, Y12, Y{acc[j][1]}")
        rows(f"{L}r2", body2)
        for j in range(C):
            for h in range(2):
                a(f"\tVMOVUP{V} Y{acc[j][h]}, {gaddr(j, 32*h)}")
        a(f"\tADDQ $64, DI")
        a(f"\tADDQ $64, SI")
        a(f"\tDECQ R8")
        a(f"\tJNZ  {L}loop")
        # ---- one register
        a(f"{L}half:")
        a(f"\tTESTQ ${U//2}, cols+64(FP)")
        a(f"\tJZ    {L}mask")
        for j in range(C):
            a(f"\tVMOVUP{V} {gaddr(j, 0)}, Y{j}")

        def body1():
            a(f"\tVMOVUP{V} (R10), Y10")
            for j in range(C):
                a(f"\t{BR} {j*E}(R11), Y12")
                a(f"\tVFMADD231{S} Y10, Y12, Y{j}")
        rows(f"{L}r1", body1)
        for j in range(C):
            a(f"\tVMOVUP{V} Y{j}, {gaddr(j, 0)}")
        a(f"\tADDQ $32, DI")
        a(f"\tADDQ $32, SI")
        # ---- masked last columns
        a(f"{L}mask:")
        a(f"\tTESTQ ${U//2-1}, cols+64(FP)")
        a(f"\tJZ    {L0}done")
        for j in range(C):
            a(f"\tVMASKMOV{S} {gaddr(j, 0)}, Y15, Y{j}")

        def bodym():
            a(f"\tVMASKMOV{S} (R10), Y15, Y10")
            for j in range(C):
                a(f"\t{BR} {j*E}(R11), Y12")
                a(f"\tVFMADD231{S} Y10, Y12, Y{j}")
        rows(f"{L}rm", bodym)
        for j in range(C):
            a(f"\tVMASKMOV{S} Y{j}, Y15, {gaddr(j, 0)}")
        a(f"\tJMP  {L0}done")
        a("")
    a(f"{L0}done:")
    a(f"\tVZEROUPPER")
    a(f"\tRET")
    a("")
    return "\n".join(o)


hdr = """//go:build !purego

// Code generated by asmgen/rowsk_amd64.py; DO NOT EDIT.

// Register-blocked kernels for MarginsK (m_ij = x_{r_i}·w_j) and AddOuterK
// (g_j += Σ_i c_ij x_{r_i}) over a block of c ≤ 5 classes, for float32 and
// float64, over gathered rows (idx) or consecutive rows (idx nil). The class
// count selects one of five specialised bodies at entry; kernel_amd64.go
// walks the class blocks, row blocks and column strips.
//
// Requires: AVX2, FMA3.
//
// marginsK: two rows × c classes at a time, one vector accumulator per
// (row, class) pair, so each load of a row serves c classes and each load of
// a class's weights serves two rows (2c FMAs per 2+c loads). An odd last row
// runs through a one-row loop with two accumulators per class.
//
// addOuterK: for each chunk of 16 float32 / 8 float64 columns, the c classes'
// chunks of g stay in 2c registers while every row of the block adds its
// c broadcast coefficients times the row's chunk: each g element sees the
// rows' fused multiply-adds one at a time in increasing row order, exactly
// the sequential loop with each multiply-add fused.
//
// Tails: columns go 16 float32 / 8 float64 at a time (two registers); then one
// plain register step if 8 (4) columns remain, and one masked step for the
// last d mod 8 (4) columns with VMASKMOVPS/PD, which neither loads nor stores
// past the end of a row, w or g.
//
// Accuracy: marginsK sums each (row, class) in one vector accumulator (two
// for the one-row loop) plus a horizontal sum: |m_ij − exact| ≤
// (d+1)·u·Σ_l |x_l w_jl|. addOuterK is bit-exact to the fused sequential loop.

#include "textflag.h"

// PFDIST is how far ahead (bytes) the PF variants prefetch each row they
// read: marginsKPF two rows in its column loop, addOuterKPF the next column
// strip (512 bytes, the strip the wrapper hands it) of each row. The wrappers
// use them for the first class block of matrices that are out of cache.
#define PFDIST 512

"""
print(hdr + "\n".join(gen_margins(P, pf) + "\n" + gen_outer(P, pf)
                      for pf in (False, True) for P in ("F32", "F64")))
