//go:build !purego

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

// PFDIST is how far ahead (bytes) the margins loop prefetches each of its
// four rows: for rows out of cache, four interleaved streams otherwise fall
// short of one stream's bandwidth.
#define PFDIST 512

// func marginsF32(m unsafe.Pointer, mstride, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)
TEXT ·marginsF32(SB), NOSPLIT, $0-64
	MOVQ m+0(FP), DI
	MOVQ n+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ idx+40(FP), BX
	MOVQ w+48(FP), DX
	MOVQ d+56(FP), R8
	MOVQ    R8, AX
	ANDQ    $7, AX
	NEGQ    AX
	ADDQ    $8, AX
	LEAQ    ·maskTab32(SB), R10
	VMOVDQU (R10)(AX*4), Y15
	ANDQ    $-16, R8

mf32block:
	CMPQ CX, $4
	JB   mf32single
	TESTQ BX, BX
	JZ    mf32consec
	MOVQ  0(BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	MOVQ  8(BX), R11
	IMULQ R9, R11
	ADDQ  SI, R11
	MOVQ  16(BX), R12
	IMULQ R9, R12
	ADDQ  SI, R12
	MOVQ  24(BX), R13
	IMULQ R9, R13
	ADDQ  SI, R13
	ADDQ  $32, BX
	JMP   mf32ready

mf32consec:
	MOVQ SI, R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), SI

mf32ready:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    mf32tail4

mf32loop4:
	VMOVUPS     (DX)(AX*4), Y8
	VMOVUPS     32(DX)(AX*4), Y9
	PREFETCHT0  PFDIST(R10)(AX*4)
	PREFETCHT0  PFDIST(R11)(AX*4)
	PREFETCHT0  PFDIST(R12)(AX*4)
	PREFETCHT0  PFDIST(R13)(AX*4)
	VFMADD231PS (R10)(AX*4), Y8, Y0
	VFMADD231PS 32(R10)(AX*4), Y9, Y4
	VFMADD231PS (R11)(AX*4), Y8, Y1
	VFMADD231PS 32(R11)(AX*4), Y9, Y5
	VFMADD231PS (R12)(AX*4), Y8, Y2
	VFMADD231PS 32(R12)(AX*4), Y9, Y6
	VFMADD231PS (R13)(AX*4), Y8, Y3
	VFMADD231PS 32(R13)(AX*4), Y9, Y7
	ADDQ        $16, AX
	CMPQ        AX, R8
	JB          mf32loop4

mf32tail4:
	TESTQ       $8, d+56(FP)
	JZ          mf32mask4
	VMOVUPS     (DX)(AX*4), Y8
	VFMADD231PS (R10)(AX*4), Y8, Y0
	VFMADD231PS (R11)(AX*4), Y8, Y1
	VFMADD231PS (R12)(AX*4), Y8, Y2
	VFMADD231PS (R13)(AX*4), Y8, Y3
	ADDQ        $8, AX

mf32mask4:
	TESTQ       $7, d+56(FP)
	JZ          mf32reduce4
	VMASKMOVPS  (DX)(AX*4), Y15, Y8
	VMASKMOVPS  (R10)(AX*4), Y15, Y10
	VFMADD231PS Y10, Y8, Y4
	VMASKMOVPS  (R11)(AX*4), Y15, Y10
	VFMADD231PS Y10, Y8, Y5
	VMASKMOVPS  (R12)(AX*4), Y15, Y10
	VFMADD231PS Y10, Y8, Y6
	VMASKMOVPS  (R13)(AX*4), Y15, Y10
	VFMADD231PS Y10, Y8, Y7

mf32reduce4:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	MOVQ         mstride+8(FP), AX
	SHLQ         $2, AX
	VMOVSS       X0, (DI)
	ADDQ         AX, DI
	VEXTRACTPS   $1, X0, (DI)
	ADDQ         AX, DI
	VEXTRACTPS   $2, X0, (DI)
	ADDQ         AX, DI
	VEXTRACTPS   $3, X0, (DI)
	ADDQ         AX, DI
	SUBQ         $4, CX
	JMP          mf32block

mf32single:
	TESTQ CX, CX
	JZ    mf32done
	TESTQ BX, BX
	JZ    mf32consec1
	MOVQ  (BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	ADDQ  $8, BX
	JMP   mf32ready1

mf32consec1:
	MOVQ SI, R10
	ADDQ R9, SI

mf32ready1:
	VXORPS Y0, Y0, Y0
	VXORPS Y4, Y4, Y4
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    mf32tail1

mf32loop1:
	VMOVUPS     (DX)(AX*4), Y8
	VMOVUPS     32(DX)(AX*4), Y9
	VFMADD231PS (R10)(AX*4), Y8, Y0
	VFMADD231PS 32(R10)(AX*4), Y9, Y4
	ADDQ        $16, AX
	CMPQ        AX, R8
	JB          mf32loop1

mf32tail1:
	TESTQ       $8, d+56(FP)
	JZ          mf32mask1
	VMOVUPS     (DX)(AX*4), Y8
	VFMADD231PS (R10)(AX*4), Y8, Y0
	ADDQ        $8, AX

mf32mask1:
	TESTQ       $7, d+56(FP)
	JZ          mf32reduce1
	VMASKMOVPS  (DX)(AX*4), Y15, Y8
	VMASKMOVPS  (R10)(AX*4), Y15, Y10
	VFMADD231PS Y10, Y8, Y4

mf32reduce1:
	VADDPS       Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (DI)
	MOVQ         mstride+8(FP), AX
	LEAQ         (DI)(AX*4), DI
	DECQ         CX
	JMP          mf32single

mf32done:
	VZEROUPPER
	RET

// func addRowsF32(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, cstride, n int)
TEXT ·addRowsF32(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ d+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ stride+24(FP), R9
	SHLQ $2, R9
	MOVQ idx+32(FP), BX
	MOVQ c+40(FP), DX
	MOVQ n+56(FP), CX
	MOVQ    R8, AX
	ANDQ    $7, AX
	NEGQ    AX
	ADDQ    $8, AX
	LEAQ    ·maskTab32(SB), R10
	VMOVDQU (R10)(AX*4), Y15
	ANDQ    $-16, R8

af32block:
	CMPQ CX, $4
	JB   af32single
	TESTQ BX, BX
	JZ    af32consec
	MOVQ  0(BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	MOVQ  8(BX), R11
	IMULQ R9, R11
	ADDQ  SI, R11
	MOVQ  16(BX), R12
	IMULQ R9, R12
	ADDQ  SI, R12
	MOVQ  24(BX), R13
	IMULQ R9, R13
	ADDQ  SI, R13
	ADDQ  $32, BX
	JMP   af32ready

af32consec:
	MOVQ SI, R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), SI

af32ready:
	MOVQ cstride+48(FP), AX
	SHLQ $2, AX
	VBROADCASTSS (DX), Y4
	ADDQ AX, DX
	VBROADCASTSS (DX), Y5
	ADDQ AX, DX
	VBROADCASTSS (DX), Y6
	ADDQ AX, DX
	VBROADCASTSS (DX), Y7
	ADDQ AX, DX
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    af32tail4

af32loop4:
	VMOVUPS     (DI)(AX*4), Y0
	VMOVUPS     32(DI)(AX*4), Y1
	VFMADD231PS (R10)(AX*4), Y4, Y0
	VFMADD231PS 32(R10)(AX*4), Y4, Y1
	VFMADD231PS (R11)(AX*4), Y5, Y0
	VFMADD231PS 32(R11)(AX*4), Y5, Y1
	VFMADD231PS (R12)(AX*4), Y6, Y0
	VFMADD231PS 32(R12)(AX*4), Y6, Y1
	VFMADD231PS (R13)(AX*4), Y7, Y0
	VFMADD231PS 32(R13)(AX*4), Y7, Y1
	VMOVUPS     Y0, (DI)(AX*4)
	VMOVUPS     Y1, 32(DI)(AX*4)
	ADDQ        $16, AX
	CMPQ        AX, R8
	JB          af32loop4

af32tail4:
	TESTQ       $8, d+8(FP)
	JZ          af32mask4
	VMOVUPS     (DI)(AX*4), Y0
	VFMADD231PS (R10)(AX*4), Y4, Y0
	VFMADD231PS (R11)(AX*4), Y5, Y0
	VFMADD231PS (R12)(AX*4), Y6, Y0
	VFMADD231PS (R13)(AX*4), Y7, Y0
	VMOVUPS     Y0, (DI)(AX*4)
	ADDQ        $8, AX

af32mask4:
	TESTQ       $7, d+8(FP)
	JZ          af32next4
	VMASKMOVPS  (DI)(AX*4), Y15, Y0
	VMASKMOVPS  (R10)(AX*4), Y15, Y8
	VFMADD231PS Y8, Y4, Y0
	VMASKMOVPS  (R11)(AX*4), Y15, Y8
	VFMADD231PS Y8, Y5, Y0
	VMASKMOVPS  (R12)(AX*4), Y15, Y8
	VFMADD231PS Y8, Y6, Y0
	VMASKMOVPS  (R13)(AX*4), Y15, Y8
	VFMADD231PS Y8, Y7, Y0
	VMASKMOVPS  Y0, Y15, (DI)(AX*4)

af32next4:
	SUBQ $4, CX
	JMP  af32block

af32single:
	TESTQ CX, CX
	JZ    af32done
	TESTQ BX, BX
	JZ    af32consec1
	MOVQ  (BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	ADDQ  $8, BX
	JMP   af32ready1

af32consec1:
	MOVQ SI, R10
	ADDQ R9, SI

af32ready1:
	VBROADCASTSS (DX), Y4
	MOVQ  cstride+48(FP), AX
	LEAQ  (DX)(AX*4), DX
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    af32tail1

af32loop1:
	VMOVUPS     (DI)(AX*4), Y0
	VMOVUPS     32(DI)(AX*4), Y1
	VFMADD231PS (R10)(AX*4), Y4, Y0
	VFMADD231PS 32(R10)(AX*4), Y4, Y1
	VMOVUPS     Y0, (DI)(AX*4)
	VMOVUPS     Y1, 32(DI)(AX*4)
	ADDQ        $16, AX
	CMPQ        AX, R8
	JB          af32loop1

af32tail1:
	TESTQ       $8, d+8(FP)
	JZ          af32mask1
	VMOVUPS     (DI)(AX*4), Y0
	VFMADD231PS (R10)(AX*4), Y4, Y0
	VMOVUPS     Y0, (DI)(AX*4)
	ADDQ        $8, AX

af32mask1:
	TESTQ       $7, d+8(FP)
	JZ          af32next1
	VMASKMOVPS  (DI)(AX*4), Y15, Y0
	VMASKMOVPS  (R10)(AX*4), Y15, Y8
	VFMADD231PS Y8, Y4, Y0
	VMASKMOVPS  Y0, Y15, (DI)(AX*4)

af32next1:
	DECQ CX
	JMP  af32single

af32done:
	VZEROUPPER
	RET

// func marginsF64(m unsafe.Pointer, mstride, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)
TEXT ·marginsF64(SB), NOSPLIT, $0-64
	MOVQ m+0(FP), DI
	MOVQ n+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ stride+32(FP), R9
	SHLQ $3, R9
	MOVQ idx+40(FP), BX
	MOVQ w+48(FP), DX
	MOVQ d+56(FP), R8
	MOVQ    R8, AX
	ANDQ    $3, AX
	NEGQ    AX
	ADDQ    $4, AX
	LEAQ    ·maskTab64(SB), R10
	VMOVDQU (R10)(AX*8), Y15
	ANDQ    $-8, R8

mf64block:
	CMPQ CX, $4
	JB   mf64single
	TESTQ BX, BX
	JZ    mf64consec
	MOVQ  0(BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	MOVQ  8(BX), R11
	IMULQ R9, R11
	ADDQ  SI, R11
	MOVQ  16(BX), R12
	IMULQ R9, R12
	ADDQ  SI, R12
	MOVQ  24(BX), R13
	IMULQ R9, R13
	ADDQ  SI, R13
	ADDQ  $32, BX
	JMP   mf64ready

mf64consec:
	MOVQ SI, R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), SI

mf64ready:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    mf64tail4

mf64loop4:
	VMOVUPD     (DX)(AX*8), Y8
	VMOVUPD     32(DX)(AX*8), Y9
	PREFETCHT0  PFDIST(R10)(AX*8)
	PREFETCHT0  PFDIST(R11)(AX*8)
	PREFETCHT0  PFDIST(R12)(AX*8)
	PREFETCHT0  PFDIST(R13)(AX*8)
	VFMADD231PD (R10)(AX*8), Y8, Y0
	VFMADD231PD 32(R10)(AX*8), Y9, Y4
	VFMADD231PD (R11)(AX*8), Y8, Y1
	VFMADD231PD 32(R11)(AX*8), Y9, Y5
	VFMADD231PD (R12)(AX*8), Y8, Y2
	VFMADD231PD 32(R12)(AX*8), Y9, Y6
	VFMADD231PD (R13)(AX*8), Y8, Y3
	VFMADD231PD 32(R13)(AX*8), Y9, Y7
	ADDQ        $8, AX
	CMPQ        AX, R8
	JB          mf64loop4

mf64tail4:
	TESTQ       $4, d+56(FP)
	JZ          mf64mask4
	VMOVUPD     (DX)(AX*8), Y8
	VFMADD231PD (R10)(AX*8), Y8, Y0
	VFMADD231PD (R11)(AX*8), Y8, Y1
	VFMADD231PD (R12)(AX*8), Y8, Y2
	VFMADD231PD (R13)(AX*8), Y8, Y3
	ADDQ        $4, AX

mf64mask4:
	TESTQ       $3, d+56(FP)
	JZ          mf64reduce4
	VMASKMOVPD  (DX)(AX*8), Y15, Y8
	VMASKMOVPD  (R10)(AX*8), Y15, Y10
	VFMADD231PD Y10, Y8, Y4
	VMASKMOVPD  (R11)(AX*8), Y15, Y10
	VFMADD231PD Y10, Y8, Y5
	VMASKMOVPD  (R12)(AX*8), Y15, Y10
	VFMADD231PD Y10, Y8, Y6
	VMASKMOVPD  (R13)(AX*8), Y15, Y10
	VFMADD231PD Y10, Y8, Y7

mf64reduce4:
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	VHADDPD      Y1, Y0, Y0
	VHADDPD      Y3, Y2, Y2
	VPERM2F128   $0x20, Y2, Y0, Y1
	VPERM2F128   $0x31, Y2, Y0, Y0
	VADDPD       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	MOVQ         mstride+8(FP), AX
	SHLQ         $3, AX
	VMOVSD       X0, (DI)
	ADDQ         AX, DI
	VMOVHPD      X0, (DI)
	ADDQ         AX, DI
	VMOVSD       X1, (DI)
	ADDQ         AX, DI
	VMOVHPD      X1, (DI)
	ADDQ         AX, DI
	SUBQ         $4, CX
	JMP          mf64block

mf64single:
	TESTQ CX, CX
	JZ    mf64done
	TESTQ BX, BX
	JZ    mf64consec1
	MOVQ  (BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	ADDQ  $8, BX
	JMP   mf64ready1

mf64consec1:
	MOVQ SI, R10
	ADDQ R9, SI

mf64ready1:
	VXORPD Y0, Y0, Y0
	VXORPD Y4, Y4, Y4
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    mf64tail1

mf64loop1:
	VMOVUPD     (DX)(AX*8), Y8
	VMOVUPD     32(DX)(AX*8), Y9
	VFMADD231PD (R10)(AX*8), Y8, Y0
	VFMADD231PD 32(R10)(AX*8), Y9, Y4
	ADDQ        $8, AX
	CMPQ        AX, R8
	JB          mf64loop1

mf64tail1:
	TESTQ       $4, d+56(FP)
	JZ          mf64mask1
	VMOVUPD     (DX)(AX*8), Y8
	VFMADD231PD (R10)(AX*8), Y8, Y0
	ADDQ        $4, AX

mf64mask1:
	TESTQ       $3, d+56(FP)
	JZ          mf64reduce1
	VMASKMOVPD  (DX)(AX*8), Y15, Y8
	VMASKMOVPD  (R10)(AX*8), Y15, Y10
	VFMADD231PD Y10, Y8, Y4

mf64reduce1:
	VADDPD       Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VHADDPD      X0, X0, X0
	VMOVSD       X0, (DI)
	MOVQ         mstride+8(FP), AX
	LEAQ         (DI)(AX*8), DI
	DECQ         CX
	JMP          mf64single

mf64done:
	VZEROUPPER
	RET

// func addRowsF64(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, cstride, n int)
TEXT ·addRowsF64(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ d+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ stride+24(FP), R9
	SHLQ $3, R9
	MOVQ idx+32(FP), BX
	MOVQ c+40(FP), DX
	MOVQ n+56(FP), CX
	MOVQ    R8, AX
	ANDQ    $3, AX
	NEGQ    AX
	ADDQ    $4, AX
	LEAQ    ·maskTab64(SB), R10
	VMOVDQU (R10)(AX*8), Y15
	ANDQ    $-8, R8

af64block:
	CMPQ CX, $4
	JB   af64single
	TESTQ BX, BX
	JZ    af64consec
	MOVQ  0(BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	MOVQ  8(BX), R11
	IMULQ R9, R11
	ADDQ  SI, R11
	MOVQ  16(BX), R12
	IMULQ R9, R12
	ADDQ  SI, R12
	MOVQ  24(BX), R13
	IMULQ R9, R13
	ADDQ  SI, R13
	ADDQ  $32, BX
	JMP   af64ready

af64consec:
	MOVQ SI, R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), SI

af64ready:
	MOVQ cstride+48(FP), AX
	SHLQ $3, AX
	VBROADCASTSD (DX), Y4
	ADDQ AX, DX
	VBROADCASTSD (DX), Y5
	ADDQ AX, DX
	VBROADCASTSD (DX), Y6
	ADDQ AX, DX
	VBROADCASTSD (DX), Y7
	ADDQ AX, DX
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    af64tail4

af64loop4:
	VMOVUPD     (DI)(AX*8), Y0
	VMOVUPD     32(DI)(AX*8), Y1
	VFMADD231PD (R10)(AX*8), Y4, Y0
	VFMADD231PD 32(R10)(AX*8), Y4, Y1
	VFMADD231PD (R11)(AX*8), Y5, Y0
	VFMADD231PD 32(R11)(AX*8), Y5, Y1
	VFMADD231PD (R12)(AX*8), Y6, Y0
	VFMADD231PD 32(R12)(AX*8), Y6, Y1
	VFMADD231PD (R13)(AX*8), Y7, Y0
	VFMADD231PD 32(R13)(AX*8), Y7, Y1
	VMOVUPD     Y0, (DI)(AX*8)
	VMOVUPD     Y1, 32(DI)(AX*8)
	ADDQ        $8, AX
	CMPQ        AX, R8
	JB          af64loop4

af64tail4:
	TESTQ       $4, d+8(FP)
	JZ          af64mask4
	VMOVUPD     (DI)(AX*8), Y0
	VFMADD231PD (R10)(AX*8), Y4, Y0
	VFMADD231PD (R11)(AX*8), Y5, Y0
	VFMADD231PD (R12)(AX*8), Y6, Y0
	VFMADD231PD (R13)(AX*8), Y7, Y0
	VMOVUPD     Y0, (DI)(AX*8)
	ADDQ        $4, AX

af64mask4:
	TESTQ       $3, d+8(FP)
	JZ          af64next4
	VMASKMOVPD  (DI)(AX*8), Y15, Y0
	VMASKMOVPD  (R10)(AX*8), Y15, Y8
	VFMADD231PD Y8, Y4, Y0
	VMASKMOVPD  (R11)(AX*8), Y15, Y8
	VFMADD231PD Y8, Y5, Y0
	VMASKMOVPD  (R12)(AX*8), Y15, Y8
	VFMADD231PD Y8, Y6, Y0
	VMASKMOVPD  (R13)(AX*8), Y15, Y8
	VFMADD231PD Y8, Y7, Y0
	VMASKMOVPD  Y0, Y15, (DI)(AX*8)

af64next4:
	SUBQ $4, CX
	JMP  af64block

af64single:
	TESTQ CX, CX
	JZ    af64done
	TESTQ BX, BX
	JZ    af64consec1
	MOVQ  (BX), R10
	IMULQ R9, R10
	ADDQ  SI, R10
	ADDQ  $8, BX
	JMP   af64ready1

af64consec1:
	MOVQ SI, R10
	ADDQ R9, SI

af64ready1:
	VBROADCASTSD (DX), Y4
	MOVQ  cstride+48(FP), AX
	LEAQ  (DX)(AX*8), DX
	XORQ  AX, AX
	TESTQ R8, R8
	JZ    af64tail1

af64loop1:
	VMOVUPD     (DI)(AX*8), Y0
	VMOVUPD     32(DI)(AX*8), Y1
	VFMADD231PD (R10)(AX*8), Y4, Y0
	VFMADD231PD 32(R10)(AX*8), Y4, Y1
	VMOVUPD     Y0, (DI)(AX*8)
	VMOVUPD     Y1, 32(DI)(AX*8)
	ADDQ        $8, AX
	CMPQ        AX, R8
	JB          af64loop1

af64tail1:
	TESTQ       $4, d+8(FP)
	JZ          af64mask1
	VMOVUPD     (DI)(AX*8), Y0
	VFMADD231PD (R10)(AX*8), Y4, Y0
	VMOVUPD     Y0, (DI)(AX*8)
	ADDQ        $4, AX

af64mask1:
	TESTQ       $3, d+8(FP)
	JZ          af64next1
	VMASKMOVPD  (DI)(AX*8), Y15, Y0
	VMASKMOVPD  (R10)(AX*8), Y15, Y8
	VFMADD231PD Y8, Y4, Y0
	VMASKMOVPD  Y0, Y15, (DI)(AX*8)

af64next1:
	DECQ CX
	JMP  af64single

af64done:
	VZEROUPPER
	RET

