//go:build !purego

// Level-1 kernels: Dot, Axpy, Lerp for float32 and float64.
//
// Requires: AVX2, FMA3 (VFMADD231PS/PD, VMASKMOVPS/PD on 256-bit registers).
//
// Tails: Dot's main loop takes 64 float32 / 32 float64 elements (eight
// registers, eight accumulators) per iteration, then two registers and one
// (Axpy's and Lerp's main loops take four registers, then one at a time);
// the last 0..7 float32 / 0..3 float64 elements are read and written with
// VMASKMOVPS/PD under a lane mask from the tables below, so no kernel touches
// memory past the end of its slices (masked-off lanes are neither loaded nor
// stored).
// Dot's main loop prefetches 1 KiB ahead on both inputs (PREFETCHT0 never
// faults, so prefetching past the end is harmless).
//
// Accuracy: Axpy and Lerp are elementwise, y[i] = fma(a, x[i], y[i]) and
// y[i] = fma(t, x[i]-y[i], y[i]), each rounded once. Dot sums in eight
// vector accumulators, so its rounding differs from a sequential sum, within
// |got − exact| ≤ (n+1)·u·Σ|x_i·y_i|.

#include "textflag.h"

// Lane masks, shared by all the .s files: maskTab32+4*(8-r) (and
// maskTab64+8*(4-r)) starts with r lanes of ones followed by zeros.
DATA ·maskTab32+0(SB)/4, $0xffffffff
DATA ·maskTab32+4(SB)/4, $0xffffffff
DATA ·maskTab32+8(SB)/4, $0xffffffff
DATA ·maskTab32+12(SB)/4, $0xffffffff
DATA ·maskTab32+16(SB)/4, $0xffffffff
DATA ·maskTab32+20(SB)/4, $0xffffffff
DATA ·maskTab32+24(SB)/4, $0xffffffff
DATA ·maskTab32+28(SB)/4, $0xffffffff
DATA ·maskTab32+32(SB)/4, $0x00000000
DATA ·maskTab32+36(SB)/4, $0x00000000
DATA ·maskTab32+40(SB)/4, $0x00000000
DATA ·maskTab32+44(SB)/4, $0x00000000
DATA ·maskTab32+48(SB)/4, $0x00000000
DATA ·maskTab32+52(SB)/4, $0x00000000
DATA ·maskTab32+56(SB)/4, $0x00000000
DATA ·maskTab32+60(SB)/4, $0x00000000
GLOBL ·maskTab32(SB), RODATA|NOPTR, $64
DATA ·maskTab64+0(SB)/8, $0xffffffffffffffff
DATA ·maskTab64+8(SB)/8, $0xffffffffffffffff
DATA ·maskTab64+16(SB)/8, $0xffffffffffffffff
DATA ·maskTab64+24(SB)/8, $0xffffffffffffffff
DATA ·maskTab64+32(SB)/8, $0x0000000000000000
DATA ·maskTab64+40(SB)/8, $0x0000000000000000
DATA ·maskTab64+48(SB)/8, $0x0000000000000000
DATA ·maskTab64+56(SB)/8, $0x0000000000000000
GLOBL ·maskTab64(SB), RODATA|NOPTR, $64

// func dotF32(x, y unsafe.Pointer, n int) float32
TEXT ·dotF32(SB), NOSPLIT, $0-28
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   AX, AX
	MOVQ   CX, DX
	ANDQ   $-64, DX
	JZ     dot32one

dot32loop4:
	PREFETCHT0  1024(SI)(AX*4)
	PREFETCHT0  1024(DI)(AX*4)
	VMOVUPS     (SI)(AX*4), Y8
	VMOVUPS     32(SI)(AX*4), Y9
	VMOVUPS     64(SI)(AX*4), Y10
	VMOVUPS     96(SI)(AX*4), Y11
	VMOVUPS     128(SI)(AX*4), Y12
	VMOVUPS     160(SI)(AX*4), Y13
	VMOVUPS     192(SI)(AX*4), Y14
	VMOVUPS     224(SI)(AX*4), Y15
	VFMADD231PS (DI)(AX*4), Y8, Y0
	VFMADD231PS 32(DI)(AX*4), Y9, Y1
	VFMADD231PS 64(DI)(AX*4), Y10, Y2
	VFMADD231PS 96(DI)(AX*4), Y11, Y3
	VFMADD231PS 128(DI)(AX*4), Y12, Y4
	VFMADD231PS 160(DI)(AX*4), Y13, Y5
	VFMADD231PS 192(DI)(AX*4), Y14, Y6
	VFMADD231PS 224(DI)(AX*4), Y15, Y7
	ADDQ        $64, AX
	CMPQ        AX, DX
	JB          dot32loop4

dot32one:
	MOVQ CX, DX
	ANDQ $-16, DX
	CMPQ AX, DX
	JAE  dot32single

dot32loop2:
	VMOVUPS     (SI)(AX*4), Y8
	VMOVUPS     32(SI)(AX*4), Y9
	VFMADD231PS (DI)(AX*4), Y8, Y0
	VFMADD231PS 32(DI)(AX*4), Y9, Y1
	ADDQ        $16, AX
	CMPQ        AX, DX
	JB          dot32loop2

dot32single:
	MOVQ        CX, DX
	SUBQ        AX, DX
	CMPQ        DX, $8
	JB          dot32tail
	VMOVUPS     (SI)(AX*4), Y8
	VFMADD231PS (DI)(AX*4), Y8, Y2
	ADDQ        $8, AX

dot32tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         dot32reduce
	LEAQ       ·maskTab32(SB), R8
	MOVQ       $8, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*4), Y10
	VMASKMOVPS (SI)(AX*4), Y10, Y8
	VMASKMOVPS (DI)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y3

dot32reduce:
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func dotF64(x, y unsafe.Pointer, n int) float64
TEXT ·dotF64(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   AX, AX
	MOVQ   CX, DX
	ANDQ   $-32, DX
	JZ     dot64one

dot64loop4:
	PREFETCHT0  1024(SI)(AX*8)
	PREFETCHT0  1024(DI)(AX*8)
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VMOVUPD     64(SI)(AX*8), Y10
	VMOVUPD     96(SI)(AX*8), Y11
	VMOVUPD     128(SI)(AX*8), Y12
	VMOVUPD     160(SI)(AX*8), Y13
	VMOVUPD     192(SI)(AX*8), Y14
	VMOVUPD     224(SI)(AX*8), Y15
	VFMADD231PD (DI)(AX*8), Y8, Y0
	VFMADD231PD 32(DI)(AX*8), Y9, Y1
	VFMADD231PD 64(DI)(AX*8), Y10, Y2
	VFMADD231PD 96(DI)(AX*8), Y11, Y3
	VFMADD231PD 128(DI)(AX*8), Y12, Y4
	VFMADD231PD 160(DI)(AX*8), Y13, Y5
	VFMADD231PD 192(DI)(AX*8), Y14, Y6
	VFMADD231PD 224(DI)(AX*8), Y15, Y7
	ADDQ        $32, AX
	CMPQ        AX, DX
	JB          dot64loop4

dot64one:
	MOVQ CX, DX
	ANDQ $-8, DX
	CMPQ AX, DX
	JAE  dot64single

dot64loop2:
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VFMADD231PD (DI)(AX*8), Y8, Y0
	VFMADD231PD 32(DI)(AX*8), Y9, Y1
	ADDQ        $8, AX
	CMPQ        AX, DX
	JB          dot64loop2

dot64single:
	MOVQ        CX, DX
	SUBQ        AX, DX
	CMPQ        DX, $4
	JB          dot64tail
	VMOVUPD     (SI)(AX*8), Y8
	VFMADD231PD (DI)(AX*8), Y8, Y2
	ADDQ        $4, AX

dot64tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         dot64reduce
	LEAQ       ·maskTab64(SB), R8
	MOVQ       $4, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*8), Y10
	VMASKMOVPD (SI)(AX*8), Y10, Y8
	VMASKMOVPD (DI)(AX*8), Y10, Y9
	VFMADD231PD Y9, Y8, Y3

dot64reduce:
	VADDPD       Y4, Y0, Y0
	VADDPD       Y5, Y1, Y1
	VADDPD       Y6, Y2, Y2
	VADDPD       Y7, Y3, Y3
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VHADDPD      X0, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+24(FP)
	RET

// func axpyF32(a float32, x, y unsafe.Pointer, n int)
TEXT ·axpyF32(SB), NOSPLIT, $0-32
	VBROADCASTSS a+0(FP), Y15
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-32, DX
	JZ           axpyf32one

axpyf32loop4:
	VMOVUPS      (DI)(AX*4), Y0
	VMOVUPS      32(DI)(AX*4), Y1
	VMOVUPS      64(DI)(AX*4), Y2
	VMOVUPS      96(DI)(AX*4), Y3
	VFMADD231PS (SI)(AX*4), Y15, Y0
	VFMADD231PS 32(SI)(AX*4), Y15, Y1
	VFMADD231PS 64(SI)(AX*4), Y15, Y2
	VFMADD231PS 96(SI)(AX*4), Y15, Y3
	VMOVUPS      Y0, (DI)(AX*4)
	VMOVUPS      Y1, 32(DI)(AX*4)
	VMOVUPS      Y2, 64(DI)(AX*4)
	VMOVUPS      Y3, 96(DI)(AX*4)
	ADDQ         $32, AX
	CMPQ         AX, DX
	JB           axpyf32loop4

axpyf32one:
	MOVQ CX, DX
	ANDQ $-8, DX
	CMPQ AX, DX
	JAE  axpyf32tail

axpyf32loop1:
	VMOVUPS      (DI)(AX*4), Y0
	VFMADD231PS (SI)(AX*4), Y15, Y0
	VMOVUPS      Y0, (DI)(AX*4)
	ADDQ         $8, AX
	CMPQ         AX, DX
	JB           axpyf32loop1

axpyf32tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         axpyf32done
	LEAQ       ·maskTab32(SB), R8
	MOVQ       $8, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*4), Y8
	VMASKMOVPS (DI)(AX*4), Y8, Y0
	VMASKMOVPS (SI)(AX*4), Y8, Y4
	VFMADD231PS Y4, Y15, Y0
	VMASKMOVPS Y0, Y8, (DI)(AX*4)

axpyf32done:
	VZEROUPPER
	RET

// func lerpF32(t float32, x, y unsafe.Pointer, n int)
TEXT ·lerpF32(SB), NOSPLIT, $0-32
	VBROADCASTSS t+0(FP), Y15
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-32, DX
	JZ           lerpf32one

lerpf32loop4:
	VMOVUPS      (DI)(AX*4), Y0
	VMOVUPS      32(DI)(AX*4), Y1
	VMOVUPS      64(DI)(AX*4), Y2
	VMOVUPS      96(DI)(AX*4), Y3
	VMOVUPS      (SI)(AX*4), Y4
	VMOVUPS      32(SI)(AX*4), Y5
	VMOVUPS      64(SI)(AX*4), Y6
	VMOVUPS      96(SI)(AX*4), Y7
	VSUBPS      Y0, Y4, Y4
	VSUBPS      Y1, Y5, Y5
	VSUBPS      Y2, Y6, Y6
	VSUBPS      Y3, Y7, Y7
	VFMADD231PS Y4, Y15, Y0
	VFMADD231PS Y5, Y15, Y1
	VFMADD231PS Y6, Y15, Y2
	VFMADD231PS Y7, Y15, Y3
	VMOVUPS      Y0, (DI)(AX*4)
	VMOVUPS      Y1, 32(DI)(AX*4)
	VMOVUPS      Y2, 64(DI)(AX*4)
	VMOVUPS      Y3, 96(DI)(AX*4)
	ADDQ         $32, AX
	CMPQ         AX, DX
	JB           lerpf32loop4

lerpf32one:
	MOVQ CX, DX
	ANDQ $-8, DX
	CMPQ AX, DX
	JAE  lerpf32tail

lerpf32loop1:
	VMOVUPS      (DI)(AX*4), Y0
	VMOVUPS      (SI)(AX*4), Y4
	VSUBPS      Y0, Y4, Y4
	VFMADD231PS Y4, Y15, Y0
	VMOVUPS      Y0, (DI)(AX*4)
	ADDQ         $8, AX
	CMPQ         AX, DX
	JB           lerpf32loop1

lerpf32tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         lerpf32done
	LEAQ       ·maskTab32(SB), R8
	MOVQ       $8, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*4), Y8
	VMASKMOVPS (DI)(AX*4), Y8, Y0
	VMASKMOVPS (SI)(AX*4), Y8, Y4
	VSUBPS      Y0, Y4, Y4
	VFMADD231PS Y4, Y15, Y0
	VMASKMOVPS Y0, Y8, (DI)(AX*4)

lerpf32done:
	VZEROUPPER
	RET

// func axpyF64(a float64, x, y unsafe.Pointer, n int)
TEXT ·axpyF64(SB), NOSPLIT, $0-32
	VBROADCASTSD a+0(FP), Y15
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-16, DX
	JZ           axpyf64one

axpyf64loop4:
	VMOVUPS      (DI)(AX*8), Y0
	VMOVUPS      32(DI)(AX*8), Y1
	VMOVUPS      64(DI)(AX*8), Y2
	VMOVUPS      96(DI)(AX*8), Y3
	VFMADD231PD (SI)(AX*8), Y15, Y0
	VFMADD231PD 32(SI)(AX*8), Y15, Y1
	VFMADD231PD 64(SI)(AX*8), Y15, Y2
	VFMADD231PD 96(SI)(AX*8), Y15, Y3
	VMOVUPS      Y0, (DI)(AX*8)
	VMOVUPS      Y1, 32(DI)(AX*8)
	VMOVUPS      Y2, 64(DI)(AX*8)
	VMOVUPS      Y3, 96(DI)(AX*8)
	ADDQ         $16, AX
	CMPQ         AX, DX
	JB           axpyf64loop4

axpyf64one:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  axpyf64tail

axpyf64loop1:
	VMOVUPS      (DI)(AX*8), Y0
	VFMADD231PD (SI)(AX*8), Y15, Y0
	VMOVUPS      Y0, (DI)(AX*8)
	ADDQ         $4, AX
	CMPQ         AX, DX
	JB           axpyf64loop1

axpyf64tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         axpyf64done
	LEAQ       ·maskTab64(SB), R8
	MOVQ       $4, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*8), Y8
	VMASKMOVPD (DI)(AX*8), Y8, Y0
	VMASKMOVPD (SI)(AX*8), Y8, Y4
	VFMADD231PD Y4, Y15, Y0
	VMASKMOVPD Y0, Y8, (DI)(AX*8)

axpyf64done:
	VZEROUPPER
	RET

// func lerpF64(t float64, x, y unsafe.Pointer, n int)
TEXT ·lerpF64(SB), NOSPLIT, $0-32
	VBROADCASTSD t+0(FP), Y15
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-16, DX
	JZ           lerpf64one

lerpf64loop4:
	VMOVUPS      (DI)(AX*8), Y0
	VMOVUPS      32(DI)(AX*8), Y1
	VMOVUPS      64(DI)(AX*8), Y2
	VMOVUPS      96(DI)(AX*8), Y3
	VMOVUPS      (SI)(AX*8), Y4
	VMOVUPS      32(SI)(AX*8), Y5
	VMOVUPS      64(SI)(AX*8), Y6
	VMOVUPS      96(SI)(AX*8), Y7
	VSUBPD      Y0, Y4, Y4
	VSUBPD      Y1, Y5, Y5
	VSUBPD      Y2, Y6, Y6
	VSUBPD      Y3, Y7, Y7
	VFMADD231PD Y4, Y15, Y0
	VFMADD231PD Y5, Y15, Y1
	VFMADD231PD Y6, Y15, Y2
	VFMADD231PD Y7, Y15, Y3
	VMOVUPS      Y0, (DI)(AX*8)
	VMOVUPS      Y1, 32(DI)(AX*8)
	VMOVUPS      Y2, 64(DI)(AX*8)
	VMOVUPS      Y3, 96(DI)(AX*8)
	ADDQ         $16, AX
	CMPQ         AX, DX
	JB           lerpf64loop4

lerpf64one:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  lerpf64tail

lerpf64loop1:
	VMOVUPS      (DI)(AX*8), Y0
	VMOVUPS      (SI)(AX*8), Y4
	VSUBPD      Y0, Y4, Y4
	VFMADD231PD Y4, Y15, Y0
	VMOVUPS      Y0, (DI)(AX*8)
	ADDQ         $4, AX
	CMPQ         AX, DX
	JB           lerpf64loop1

lerpf64tail:
	MOVQ       CX, DX
	SUBQ       AX, DX
	JZ         lerpf64done
	LEAQ       ·maskTab64(SB), R8
	MOVQ       $4, R9
	SUBQ       DX, R9
	VMOVDQU    (R8)(R9*8), Y8
	VMASKMOVPD (DI)(AX*8), Y8, Y0
	VMASKMOVPD (SI)(AX*8), Y8, Y4
	VSUBPD      Y0, Y4, Y4
	VFMADD231PD Y4, Y15, Y0
	VMASKMOVPD Y0, Y8, (DI)(AX*8)

lerpf64done:
	VZEROUPPER
	RET

