#!/usr/bin/env python3
"""Generates ../rows_amd64.s: (Margins, AddRows) for AVX2+FMA.

Run from the kernel directory (go generate does):

    python3 asmgen/rows_amd64.py > rows_amd64.s

The assembly is written out in full, one TEXT per kernel and precision; this
script only saves typing the float32/float64 and loop/tail variants by hand.
"""
def gen(P, pf=False, only_margins=False):
    f32 = P == "F32"
    E = 4 if f32 else 8
    S = "PS" if f32 else "PD"
    U = 16 if f32 else 8
    MT = "maskTab32" if f32 else "maskTab64"
    BR = "VBROADCASTSS" if f32 else "VBROADCASTSD"
    o = []
    a = o.append
    L = ("mp" if pf else "m") + P.lower()
    MN = "marginsPF" if pf else "margins"
    def maskset(dreg):
        W = U // 2
        a(f"\tMOVQ    {dreg}, AX")
        a(f"\tANDQ    ${W-1}, AX")
        a(f"\tNEGQ    AX")
        a(f"\tADDQ    ${W}, AX")
        a(f"\tLEAQ    ·{MT}(SB), R10")
        a(f"\tVMOVDQU (R10)(AX*{E}), Y15")
        a(f"\tANDQ    $-{U}, {dreg}")
    def rows4(L):
        a(f"\tTESTQ BX, BX")
        a(f"\tJZ    {L}consec")
        for i, r in enumerate(["R10", "R11", "R12", "R13"]):
            a(f"\tMOVQ  {8*i}(BX), {r}")
            a(f"\tIMULQ R9, {r}")
            a(f"\tADDQ  SI, {r}")
        a(f"\tADDQ  $32, BX")
        a(f"\tJMP   {L}ready")
        a(f"")
        a(f"{L}consec:")
        a(f"\tMOVQ SI, R10")
        a(f"\tLEAQ (R10)(R9*1), R11")
        a(f"\tLEAQ (R11)(R9*1), R12")
        a(f"\tLEAQ (R12)(R9*1), R13")
        a(f"\tLEAQ (R13)(R9*1), SI")
        a(f"")
        a(f"{L}ready:")
    def rows1(L):
        a(f"\tTESTQ BX, BX")
        a(f"\tJZ    {L}consec1")
        a(f"\tMOVQ  (BX), R10")
        a(f"\tIMULQ R9, R10")
        a(f"\tADDQ  SI, R10")
        a(f"\tADDQ  $8, BX")
        a(f"\tJMP   {L}ready1")
        a(f"")
        a(f"{L}consec1:")
        a(f"\tMOVQ SI, R10")
        a(f"\tADDQ R9, SI")
        a(f"")
        a(f"{L}ready1:")
    R = ["R10", "R11", "R12", "R13"]
    # ---------------- margins
    a(f"// func {MN}{P}(m unsafe.Pointer, mstride, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)")
    a(f"TEXT ·{MN}{P}(SB), NOSPLIT, $0-64")
    a(f"\tMOVQ m+0(FP), DI")
    a(f"\tMOVQ n+16(FP), CX")
    a(f"\tMOVQ x+24(FP), SI")
    a(f"\tMOVQ stride+32(FP), R9")
    a(f"\tSHLQ ${2 if f32 else 3}, R9")
    a(f"\tMOVQ idx+40(FP), BX")
    a(f"\tMOVQ w+48(FP), DX")
    a(f"\tMOVQ d+56(FP), R8")
    maskset("R8")
    a("")
    a(f"{L}block:")
    a(f"\tCMPQ CX, $4")
    a(f"\tJB   {L}single")
    rows4(L)
    for i in range(8):
        a(f"\tVXORP{S[1]} Y{i}, Y{i}, Y{i}")
    a(f"\tXORQ  AX, AX")
    a(f"\tTESTQ R8, R8")
    a(f"\tJZ    {L}tail4")
    a("")
    a(f"{L}loop4:")
    a(f"\tVMOVUP{S[1]}     (DX)(AX*{E}), Y8")
    a(f"\tVMOVUP{S[1]}     32(DX)(AX*{E}), Y9")
    if pf:
        for r in R:
            a(f"\tPREFETCHT0  PFDIST({r})(AX*{E})")
    for i, r in enumerate(R):
        a(f"\tVFMADD231{S} ({r})(AX*{E}), Y8, Y{i}")
        a(f"\tVFMADD231{S} 32({r})(AX*{E}), Y9, Y{i+4}")
    a(f"\tADDQ        ${U}, AX")
    a(f"\tCMPQ        AX, R8")
    a(f"\tJB          {L}loop4")
    a("")
    a(f"{L}tail4:")
    a(f"\tTESTQ       ${U//2}, d+56(FP)")
    a(f"\tJZ          {L}mask4")
    a(f"\tVMOVUP{S[1]}     (DX)(AX*{E}), Y8")
    for i, r in enumerate(R):
        a(f"\tVFMADD231{S} ({r})(AX*{E}), Y8, Y{i}")
    a(f"\tADDQ        ${U//2}, AX")
    a("")
    a(f"{L}mask4:")
    a(f"\tTESTQ       ${U//2-1}, d+56(FP)")
    a(f"\tJZ          {L}reduce4")
    a(f"\tVMASKMOV{S}  (DX)(AX*{E}), Y15, Y8")
    for i, r in enumerate(R):
        a(f"\tVMASKMOV{S}  ({r})(AX*{E}), Y15, Y10")
        a(f"\tVFMADD231{S} Y10, Y8, Y{i+4}")
    a("")
    a(f"{L}reduce4:")
    for i in range(4):
        a(f"\tVADD{S} Y{i+4}, Y{i}, Y{i}")
    if f32:
        a(f"\tVHADDPS      Y1, Y0, Y0")
        a(f"\tVHADDPS      Y3, Y2, Y2")
        a(f"\tVHADDPS      Y2, Y0, Y0")
        a(f"\tVEXTRACTF128 $1, Y0, X1")
        a(f"\tVADDPS       X1, X0, X0")
        a(f"\tMOVQ         mstride+8(FP), AX")
        a(f"\tSHLQ         $2, AX")
        a(f"\tVMOVSS       X0, (DI)")
        for j in (1, 2, 3):
            a(f"\tADDQ         AX, DI")
            a(f"\tVEXTRACTPS   ${j}, X0, (DI)")
        a(f"\tADDQ         AX, DI")
    else:
        a(f"\tVHADDPD      Y1, Y0, Y0")
        a(f"\tVHADDPD      Y3, Y2, Y2")
        a(f"\tVPERM2F128   $0x20, Y2, Y0, Y1")
        a(f"\tVPERM2F128   $0x31, Y2, Y0, Y0")
        a(f"\tVADDPD       Y1, Y0, Y0")
        a(f"\tVEXTRACTF128 $1, Y0, X1")
        a(f"\tMOVQ         mstride+8(FP), AX")
        a(f"\tSHLQ         $3, AX")
        a(f"\tVMOVSD       X0, (DI)")
        a(f"\tADDQ         AX, DI")
        a(f"\tVMOVHPD      X0, (DI)")
        a(f"\tADDQ         AX, DI")
        a(f"\tVMOVSD       X1, (DI)")
        a(f"\tADDQ         AX, DI")
        a(f"\tVMOVHPD      X1, (DI)")
        a(f"\tADDQ         AX, DI")
    a(f"\tSUBQ         $4, CX")
    a(f"\tJMP          {L}block")
    a("")
    a(f"{L}single:")
    a(f"\tTESTQ CX, CX")
    a(f"\tJZ    {L}done")
    rows1(L)
    a(f"\tVXORP{S[1]} Y0, Y0, Y0")
    a(f"\tVXORP{S[1]} Y4, Y4, Y4")
    a(f"\tXORQ  AX, AX")
    a(f"\tTESTQ R8, R8")
    a(f"\tJZ    {L}tail1")
    a("")
    a(f"{L}loop1:")
    a(f"\tVMOVUP{S[1]}     (DX)(AX*{E}), Y8")
    a(f"\tVMOVUP{S[1]}     32(DX)(AX*{E}), Y9")
    a(f"\tVFMADD231{S} (R10)(AX*{E}), Y8, Y0")
    a(f"\tVFMADD231{S} 32(R10)(AX*{E}), Y9, Y4")
    a(f"\tADDQ        ${U}, AX")
    a(f"\tCMPQ        AX, R8")
    a(f"\tJB          {L}loop1")
    a("")
    a(f"{L}tail1:")
    a(f"\tTESTQ       ${U//2}, d+56(FP)")
    a(f"\tJZ          {L}mask1")
    a(f"\tVMOVUP{S[1]}     (DX)(AX*{E}), Y8")
    a(f"\tVFMADD231{S} (R10)(AX*{E}), Y8, Y0")
    a(f"\tADDQ        ${U//2}, AX")
    a("")
    a(f"{L}mask1:")
    a(f"\tTESTQ       ${U//2-1}, d+56(FP)")
    a(f"\tJZ          {L}reduce1")
    a(f"\tVMASKMOV{S}  (DX)(AX*{E}), Y15, Y8")
    a(f"\tVMASKMOV{S}  (R10)(AX*{E}), Y15, Y10")
    a(f"\tVFMADD231{S} Y10, Y8, Y4")
    a("")
    a(f"{L}reduce1:")
    a(f"\tVADD{S}       Y4, Y0, Y0")
    a(f"\tVEXTRACTF128 $1, Y0, X1")
    a(f"\tVADD{S}       X1, X0, X0")
    a(f"\tVHADD{S}      X0, X0, X0")
    if f32:
        a(f"\tVHADDPS      X0, X0, X0")
        a(f"\tVMOVSS       X0, (DI)")
    else:
        a(f"\tVMOVSD       X0, (DI)")
    a(f"\tMOVQ         mstride+8(FP), AX")
    a(f"\tLEAQ         (DI)(AX*{E}), DI")
    a(f"\tDECQ         CX")
    a(f"\tJMP          {L}single")
    a("")
    a(f"{L}done:")
    a(f"\tVZEROUPPER")
    a(f"\tRET")
    a("")
    # ---------------- addRows
    L = ("ap" if pf else "a") + P.lower()
    AN = "addRowsPF" if pf else "addRows"
    a(f"// func {AN}{P}(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, cstride, n int)")
    a(f"TEXT ·{AN}{P}(SB), NOSPLIT, $0-64")
    a(f"\tMOVQ dst+0(FP), DI")
    a(f"\tMOVQ d+8(FP), R8")
    a(f"\tMOVQ x+16(FP), SI")
    a(f"\tMOVQ stride+24(FP), R9")
    a(f"\tSHLQ ${2 if f32 else 3}, R9")
    a(f"\tMOVQ idx+32(FP), BX")
    a(f"\tMOVQ c+40(FP), DX")
    a(f"\tMOVQ n+56(FP), CX")
    maskset("R8")
    a("")
    a(f"{L}block:")
    a(f"\tCMPQ CX, $4")
    a(f"\tJB   {L}single")
    rows4(L)
    a(f"\tMOVQ cstride+48(FP), AX")
    a(f"\tSHLQ ${2 if f32 else 3}, AX")
    for i in range(4):
        a(f"\t{BR} (DX), Y{4+i}")
        a(f"\tADDQ AX, DX")
    a(f"\tXORQ  AX, AX")
    a(f"\tTESTQ R8, R8")
    a(f"\tJZ    {L}tail4")
    a("")
    a(f"{L}loop4:")
    if pf:
        for r in R:
            a(f"\tPREFETCHT0  PFDIST({r})(AX*{E})")
    a(f"\tVMOVUP{S[1]}     (DI)(AX*{E}), Y0")
    a(f"\tVMOVUP{S[1]}     32(DI)(AX*{E}), Y1")
    for i, r in enumerate(R):
        a(f"\tVFMADD231{S} ({r})(AX*{E}), Y{4+i}, Y0")
        a(f"\tVFMADD231{S} 32({r})(AX*{E}), Y{4+i}, Y1")
    a(f"\tVMOVUP{S[1]}     Y0, (DI)(AX*{E})")
    a(f"\tVMOVUP{S[1]}     Y1, 32(DI)(AX*{E})")
    a(f"\tADDQ        ${U}, AX")
    a(f"\tCMPQ        AX, R8")
    a(f"\tJB          {L}loop4")
    a("")
    a(f"{L}tail4:")
    a(f"\tTESTQ       ${U//2}, d+8(FP)")
    a(f"\tJZ          {L}mask4")
    a(f"\tVMOVUP{S[1]}     (DI)(AX*{E}), Y0")
    for i, r in enumerate(R):
        a(f"\tVFMADD231{S} ({r})(AX*{E}), Y{4+i}, Y0")
    a(f"\tVMOVUP{S[1]}     Y0, (DI)(AX*{E})")
    a(f"\tADDQ        ${U//2}, AX")
    a("")
    a(f"{L}mask4:")
    a(f"\tTESTQ       ${U//2-1}, d+8(FP)")
    a(f"\tJZ          {L}next4")
    a(f"\tVMASKMOV{S}  (DI)(AX*{E}), Y15, Y0")
    for i, r in enumerate(R):
        a(f"\tVMASKMOV{S}  ({r})(AX*{E}), Y15, Y8")
        a(f"\tVFMADD231{S} Y8, Y{4+i}, Y0")
    a(f"\tVMASKMOV{S}  Y0, Y15, (DI)(AX*{E})")
    a("")
    a(f"{L}next4:")
    a(f"\tSUBQ $4, CX")
    a(f"\tJMP  {L}block")
    a("")
    a(f"{L}single:")
    a(f"\tTESTQ CX, CX")
    a(f"\tJZ    {L}done")
    rows1(L)
    a(f"\t{BR} (DX), Y4")
    a(f"\tMOVQ  cstride+48(FP), AX")
    a(f"\tLEAQ  (DX)(AX*{E}), DX")
    a(f"\tXORQ  AX, AX")
    a(f"\tTESTQ R8, R8")
    a(f"\tJZ    {L}tail1")
    a("")
    a(f"{L}loop1:")
    a(f"\tVMOVUP{S[1]}     (DI)(AX*{E}), Y0")
    a(f"\tVMOVUP{S[1]}     32(DI)(AX*{E}), Y1")
    a(f"\tVFMADD231{S} (R10)(AX*{E}), Y4, Y0")
    a(f"\tVFMADD231{S} 32(R10)(AX*{E}), Y4, Y1")
    a(f"\tVMOVUP{S[1]}     Y0, (DI)(AX*{E})")
    a(f"\tVMOVUP{S[1]}     Y1, 32(DI)(AX*{E})")
    a(f"\tADDQ        ${U}, AX")
    a(f"\tCMPQ        AX, R8")
    a(f"\tJB          {L}loop1")
    a("")
    a(f"{L}tail1:")
    a(f"\tTESTQ       ${U//2}, d+8(FP)")
    a(f"\tJZ          {L}mask1")
    a(f"\tVMOVUP{S[1]}     (DI)(AX*{E}), Y0")
    a(f"\tVFMADD231{S} (R10)(AX*{E}), Y4, Y0")
    a(f"\tVMOVUP{S[1]}     Y0, (DI)(AX*{E})")
    a(f"\tADDQ        ${U//2}, AX")
    a("")
    a(f"{L}mask1:")
    a(f"\tTESTQ       ${U//2-1}, d+8(FP)")
    a(f"\tJZ          {L}next1")
    a(f"\tVMASKMOV{S}  (DI)(AX*{E}), Y15, Y0")
    a(f"\tVMASKMOV{S}  (R10)(AX*{E}), Y15, Y8")
    a(f"\tVFMADD231{S} Y8, Y4, Y0")
    a(f"\tVMASKMOV{S}  Y0, Y15, (DI)(AX*{E})")
    a("")
    a(f"{L}next1:")
    a(f"\tDECQ CX")
    a(f"\tJMP  {L}single")
    a("")
    a(f"{L}done:")
    a(f"\tVZEROUPPER")
    a(f"\tRET")
    a("")
    return "\n".join(o)

hdr = """//go:build !purego

// Code generated by asmgen/rows_amd64.py; DO NOT EDIT.

// Row kernels: Margins (m_i = x_{r_i}·w) and AddRows (g += Σ c_i x_{r_i}) for
// float32 and float64, over gathered rows (idx) or consecutive rows (idx nil).
// MarginsK, AddOuterK and FusedLinear are built on them in kernel_amd64.go.
//
// Requires: AVX2, FMA3.
//
// Blocking: four rows at a time. Margins keeps 8 accumulators (4 rows × 2
// registers) so every load of w feeds four FMAs; AddRows loads and stores
// each 2-register chunk of g once per four rows, applying the rows' FMAs in
// row order (so each g[l] sees exactly the sequential fused multiply-adds).
// The last 1..3 rows run through a one-row loop.
//
// Tails: columns go 16 float32 / 8 float64 at a time (two registers); then one
// plain register step if 8 (4) columns remain, and one masked step for the
// last d mod 8 (4) columns with VMASKMOVPS/PD, which neither loads nor stores
// past the end of a row or g.
//
// Accuracy: AddRows is the sequential loop with each multiply-add fused.
// Margins sums each row in two vector accumulators plus a final horizontal
// sum: |m_i − exact| ≤ (d+1)·u·Σ_l |x_l w_l|.

#include "textflag.h"

// PFDIST is how far ahead (bytes) marginsPF and addRowsPF prefetch each of
// their four rows: for rows out of cache, four interleaved streams otherwise
// fall short of one stream's bandwidth. (For rows in cache the prefetches
// only cost load slots, so the wrappers call the plain kernels there.)
#define PFDIST 512

"""
print(hdr + gen("F32") + "\n" + gen("F64") + "\n" + gen("F32", pf=True) + "\n" + gen("F64", pf=True))
