// Linear-algebra kernels for arm64: dot products, axpy, lerp, the dot
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

// func dotF64(x, y *float64, n int) float64
TEXT ·dotF64(SB), NOSPLIT, $0-32
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	CMP $16, R2
	BLT dot1
dot8:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P 64(R1), [V8.D2, V9.D2, V10.D2, V11.D2]
	VLD1.P 64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1.P 64(R1), [V12.D2, V13.D2, V14.D2, V15.D2]
	VFMLA V0.D2, V8.D2, V16.D2
	VFMLA V1.D2, V9.D2, V17.D2
	VFMLA V2.D2, V10.D2, V18.D2
	VFMLA V3.D2, V11.D2, V19.D2
	VFMLA V4.D2, V12.D2, V20.D2
	VFMLA V5.D2, V13.D2, V21.D2
	VFMLA V6.D2, V14.D2, V22.D2
	VFMLA V7.D2, V15.D2, V23.D2
	SUB $16, R2
	CMP $16, R2
	BGE dot8
dot1:
	CMP $2, R2
	BLT dotred
dot1loop:
	VLD1.P 16(R0), [V0.D2]
	VLD1.P 16(R1), [V8.D2]
	VFMLA V0.D2, V8.D2, V16.D2
	SUB $2, R2
	CMP $2, R2
	BGE dot1loop
dotred:
	VFADD_D2(17, 16, 16)
	VFADD_D2(19, 18, 18)
	VFADD_D2(21, 20, 20)
	VFADD_D2(23, 22, 22)
	VFADD_D2(18, 16, 16)
	VFADD_D2(22, 20, 20)
	VFADD_D2(20, 16, 16)
	FADDP_D(16, 16)
	CBZ R2, dotdone
dotscalar:
	FMOVD.P 8(R0), F0
	FMOVD.P 8(R1), F1
	FMADDD F1, F16, F0, F16
	SUB $1, R2
	CBNZ R2, dotscalar
dotdone:
	FMOVD F16, ret+24(FP)
	RET

// func axpyF64(a float64, x, y *float64, n int)
TEXT ·axpyF64(SB), NOSPLIT, $0-32
	MOVD $a+0(FP), R3
	VLD1R (R3), [V28.D2]
	MOVD x+8(FP), R0
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	CMP $8, R2
	BLT axpy1
axpy4:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1 (R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA V0.D2, V28.D2, V4.D2
	VFMLA V1.D2, V28.D2, V5.D2
	VFMLA V2.D2, V28.D2, V6.D2
	VFMLA V3.D2, V28.D2, V7.D2
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	SUB $8, R2
	CMP $8, R2
	BGE axpy4
axpy1:
	CMP $2, R2
	BLT axpytail
axpy1loop:
	VLD1.P 16(R0), [V0.D2]
	VLD1 (R1), [V4.D2]
	VFMLA V0.D2, V28.D2, V4.D2
	VST1.P [V4.D2], 16(R1)
	SUB $2, R2
	CMP $2, R2
	BGE axpy1loop
axpytail:
	CBZ R2, axpydone
axpyscalar:
	FMOVD.P 8(R0), F0
	FMOVD (R1), F4
	FMADDD F28, F4, F0, F4
	FMOVD.P F4, 8(R1)
	SUB $1, R2
	CBNZ R2, axpyscalar
axpydone:
	RET

// func lerpF64(t float64, x, y *float64, n int)
TEXT ·lerpF64(SB), NOSPLIT, $0-32
	MOVD $t+0(FP), R3
	VLD1R (R3), [V28.D2]
	MOVD x+8(FP), R0
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	CMP $8, R2
	BLT lerp1
lerp4:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1 (R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFSUB_D2(4, 0, 0)
	VFMLA V0.D2, V28.D2, V4.D2
	VFSUB_D2(5, 1, 1)
	VFMLA V1.D2, V28.D2, V5.D2
	VFSUB_D2(6, 2, 2)
	VFMLA V2.D2, V28.D2, V6.D2
	VFSUB_D2(7, 3, 3)
	VFMLA V3.D2, V28.D2, V7.D2
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	SUB $8, R2
	CMP $8, R2
	BGE lerp4
lerp1:
	CMP $2, R2
	BLT lerptail
lerp1loop:
	VLD1.P 16(R0), [V0.D2]
	VLD1 (R1), [V4.D2]
	VFSUB_D2(4, 0, 0)
	VFMLA V0.D2, V28.D2, V4.D2
	VST1.P [V4.D2], 16(R1)
	SUB $2, R2
	CMP $2, R2
	BGE lerp1loop
lerptail:
	CBZ R2, lerpdone
lerpscalar:
	FMOVD.P 8(R0), F0
	FMOVD (R1), F4
	FSUBD F4, F0, F0
	FMADDD F28, F4, F0, F4
	FMOVD.P F4, 8(R1)
	SUB $1, R2
	CBNZ R2, lerpscalar
lerpdone:
	RET

// func dotRowsF64(out, a *float64, rows **float64, nrows, n int)
TEXT ·dotRowsF64(SB), NOSPLIT, $0-40
	MOVD out+0(FP), R7
	MOVD a+8(FP), R6
	MOVD rows+16(FP), R8
	MOVD nrows+24(FP), R11
	MOVD n+32(FP), R10
drgroup:
	CBZ R11, drdone
	LDP.P 16(R8), (R1, R2)
	LDP.P 16(R8), (R3, R4)
	CMP $8, R11
	BLT drnopf
	LDP (R8), (R12, R13)
	LDP 16(R8), (R14, R15)
	PRFM (R12), PLDL1KEEP
	PRFM 64(R12), PLDL1KEEP
	PRFM (R13), PLDL1KEEP
	PRFM 64(R13), PLDL1KEEP
	PRFM (R14), PLDL1KEEP
	PRFM 64(R14), PLDL1KEEP
	PRFM (R15), PLDL1KEEP
	PRFM 64(R15), PLDL1KEEP
drnopf:
	MOVD R6, R0
	MOVD R10, R5
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16
	CMP $8, R5
	BLT d4one
d4loop:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P 64(R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA V0.D2, V4.D2, V16.D2
	VFMLA V1.D2, V5.D2, V17.D2
	VFMLA V2.D2, V6.D2, V18.D2
	VFMLA V3.D2, V7.D2, V19.D2
	VLD1.P 64(R2), [V8.D2, V9.D2, V10.D2, V11.D2]
	VFMLA V0.D2, V8.D2, V20.D2
	VFMLA V1.D2, V9.D2, V21.D2
	VFMLA V2.D2, V10.D2, V22.D2
	VFMLA V3.D2, V11.D2, V23.D2
	VLD1.P 64(R3), [V12.D2, V13.D2, V14.D2, V15.D2]
	VFMLA V0.D2, V12.D2, V24.D2
	VFMLA V1.D2, V13.D2, V25.D2
	VFMLA V2.D2, V14.D2, V26.D2
	VFMLA V3.D2, V15.D2, V27.D2
	VLD1.P 64(R4), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA V0.D2, V4.D2, V28.D2
	VFMLA V1.D2, V5.D2, V29.D2
	VFMLA V2.D2, V6.D2, V30.D2
	VFMLA V3.D2, V7.D2, V31.D2
	SUB $8, R5
	CMP $8, R5
	BGE d4loop
d4one:
	CMP $2, R5
	BLT d4red
d4oneloop:
	VLD1.P 16(R0), [V0.D2]
	VLD1.P 16(R1), [V4.D2]
	VFMLA V0.D2, V4.D2, V16.D2
	VLD1.P 16(R2), [V5.D2]
	VFMLA V0.D2, V5.D2, V20.D2
	VLD1.P 16(R3), [V6.D2]
	VFMLA V0.D2, V6.D2, V24.D2
	VLD1.P 16(R4), [V7.D2]
	VFMLA V0.D2, V7.D2, V28.D2
	SUB $2, R5
	CMP $2, R5
	BGE d4oneloop
d4red:
	VFADD_D2(17, 16, 16)
	VFADD_D2(19, 18, 18)
	VFADD_D2(18, 16, 16)
	FADDP_D(16, 16)
	VFADD_D2(21, 20, 20)
	VFADD_D2(23, 22, 22)
	VFADD_D2(22, 20, 20)
	FADDP_D(20, 20)
	VFADD_D2(25, 24, 24)
	VFADD_D2(27, 26, 26)
	VFADD_D2(26, 24, 24)
	FADDP_D(24, 24)
	VFADD_D2(29, 28, 28)
	VFADD_D2(31, 30, 30)
	VFADD_D2(30, 28, 28)
	FADDP_D(28, 28)
	CBZ R5, d4store
d4scalar:
	FMOVD.P 8(R0), F0
	FMOVD.P 8(R1), F1
	FMADDD F0, F16, F1, F16
	FMOVD.P 8(R2), F2
	FMADDD F0, F20, F2, F20
	FMOVD.P 8(R3), F3
	FMADDD F0, F24, F3, F24
	FMOVD.P 8(R4), F4
	FMADDD F0, F28, F4, F28
	SUB $1, R5
	CBNZ R5, d4scalar
d4store:
	FMOVD.P F16, 8(R7)
	FMOVD.P F20, 8(R7)
	FMOVD.P F24, 8(R7)
	FMOVD.P F28, 8(R7)
	SUB $4, R11
	JMP drgroup
drdone:
	RET

// func axpyRowsF64(y *float64, n int, c *float64, rows **float64, nrows int)
TEXT ·axpyRowsF64(SB), NOSPLIT, $0-40
	MOVD y+0(FP), R9
	MOVD n+8(FP), R10
	MOVD c+16(FP), R2
	MOVD rows+24(FP), R8
	MOVD nrows+32(FP), R11
argroup:
	CBZ R11, ardone
	LDP.P 16(R8), (R3, R4)
	LDP.P 16(R8), (R5, R6)
	CMP $8, R11
	BLT arnopf
	LDP (R8), (R12, R13)
	LDP 16(R8), (R14, R15)
	PRFM (R12), PLDL1KEEP
	PRFM 64(R12), PLDL1KEEP
	PRFM (R13), PLDL1KEEP
	PRFM 64(R13), PLDL1KEEP
	PRFM (R14), PLDL1KEEP
	PRFM 64(R14), PLDL1KEEP
	PRFM (R15), PLDL1KEEP
	PRFM 64(R15), PLDL1KEEP
arnopf:
	MOVD R9, R0
	MOVD R10, R1
	VLD1R.P 8(R2), [V28.D2]
	VLD1R.P 8(R2), [V29.D2]
	VLD1R.P 8(R2), [V30.D2]
	VLD1R.P 8(R2), [V31.D2]
	CMP $8, R1
	BLT a4one
a4loop:
	VLD1 (R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P 64(R3), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA V4.D2, V28.D2, V0.D2
	VFMLA V5.D2, V28.D2, V1.D2
	VFMLA V6.D2, V28.D2, V2.D2
	VFMLA V7.D2, V28.D2, V3.D2
	VLD1.P 64(R4), [V8.D2, V9.D2, V10.D2, V11.D2]
	VFMLA V8.D2, V29.D2, V0.D2
	VFMLA V9.D2, V29.D2, V1.D2
	VFMLA V10.D2, V29.D2, V2.D2
	VFMLA V11.D2, V29.D2, V3.D2
	VLD1.P 64(R5), [V12.D2, V13.D2, V14.D2, V15.D2]
	VFMLA V12.D2, V30.D2, V0.D2
	VFMLA V13.D2, V30.D2, V1.D2
	VFMLA V14.D2, V30.D2, V2.D2
	VFMLA V15.D2, V30.D2, V3.D2
	VLD1.P 64(R6), [V16.D2, V17.D2, V18.D2, V19.D2]
	VFMLA V16.D2, V31.D2, V0.D2
	VFMLA V17.D2, V31.D2, V1.D2
	VFMLA V18.D2, V31.D2, V2.D2
	VFMLA V19.D2, V31.D2, V3.D2
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(R0)
	SUB $8, R1
	CMP $8, R1
	BGE a4loop
a4one:
	CMP $2, R1
	BLT a4tail
a4oneloop:
	VLD1 (R0), [V0.D2]
	VLD1.P 16(R3), [V4.D2]
	VFMLA V4.D2, V28.D2, V0.D2
	VLD1.P 16(R4), [V5.D2]
	VFMLA V5.D2, V29.D2, V0.D2
	VLD1.P 16(R5), [V6.D2]
	VFMLA V6.D2, V30.D2, V0.D2
	VLD1.P 16(R6), [V7.D2]
	VFMLA V7.D2, V31.D2, V0.D2
	VST1.P [V0.D2], 16(R0)
	SUB $2, R1
	CMP $2, R1
	BGE a4oneloop
a4tail:
	CBZ R1, a4next
a4scalar:
	FMOVD (R0), F0
	FMOVD.P 8(R3), F4
	FMADDD F28, F0, F4, F0
	FMOVD.P 8(R4), F5
	FMADDD F29, F0, F5, F0
	FMOVD.P 8(R5), F6
	FMADDD F30, F0, F6, F0
	FMOVD.P 8(R6), F7
	FMADDD F31, F0, F7, F0
	FMOVD.P F0, 8(R0)
	SUB $1, R1
	CBNZ R1, a4scalar
a4next:
	SUB $4, R11
	JMP argroup
ardone:
	RET

// func maxF64(x *float64, n int) float64
TEXT ·maxF64(SB), NOSPLIT, $0-24
	MOVD x+0(FP), R0
	MOVD n+8(FP), R1
	FMOVD (R0), F16
	VDUP V16.D[0], V16.D2
	VORR V16.B16, V16.B16, V17.B16
	VORR V16.B16, V16.B16, V18.B16
	VORR V16.B16, V16.B16, V19.B16
	CMP $8, R1
	BLT mxone
mxloop:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VFMAX_D2(0, 16, 16)
	VFMAX_D2(1, 17, 17)
	VFMAX_D2(2, 18, 18)
	VFMAX_D2(3, 19, 19)
	SUB $8, R1
	CMP $8, R1
	BGE mxloop
mxone:
	CMP $2, R1
	BLT mxred
mxoneloop:
	VLD1.P 16(R0), [V0.D2]
	VFMAX_D2(0, 16, 16)
	SUB $2, R1
	CMP $2, R1
	BGE mxoneloop
mxred:
	VFMAX_D2(17, 16, 16)
	VFMAX_D2(19, 18, 18)
	VFMAX_D2(18, 16, 16)
	FMAXP_D(16, 16)
	CBZ R1, mxdone
mxscalar:
	FMOVD.P 8(R0), F0
	FMAXD F0, F16, F16
	SUB $1, R1
	CBNZ R1, mxscalar
mxdone:
	FMOVD F16, ret+16(FP)
	RET

// func dotF32(x, y *float32, n int) float32
TEXT ·dotF32(SB), NOSPLIT, $0-28
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	CMP $32, R2
	BLT dot1
dot8:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V12.S4, V13.S4, V14.S4, V15.S4]
	VFMLA V0.S4, V8.S4, V16.S4
	VFMLA V1.S4, V9.S4, V17.S4
	VFMLA V2.S4, V10.S4, V18.S4
	VFMLA V3.S4, V11.S4, V19.S4
	VFMLA V4.S4, V12.S4, V20.S4
	VFMLA V5.S4, V13.S4, V21.S4
	VFMLA V6.S4, V14.S4, V22.S4
	VFMLA V7.S4, V15.S4, V23.S4
	SUB $32, R2
	CMP $32, R2
	BGE dot8
dot1:
	CMP $4, R2
	BLT dotred
dot1loop:
	VLD1.P 16(R0), [V0.S4]
	VLD1.P 16(R1), [V8.S4]
	VFMLA V0.S4, V8.S4, V16.S4
	SUB $4, R2
	CMP $4, R2
	BGE dot1loop
dotred:
	VFADD_S4(17, 16, 16)
	VFADD_S4(19, 18, 18)
	VFADD_S4(21, 20, 20)
	VFADD_S4(23, 22, 22)
	VFADD_S4(18, 16, 16)
	VFADD_S4(22, 20, 20)
	VFADD_S4(20, 16, 16)
	VFADDP_S4(16, 16, 16)
	FADDP_S(16, 16)
	CBZ R2, dotdone
dotscalar:
	FMOVS.P 4(R0), F0
	FMOVS.P 4(R1), F1
	FMADDS F1, F16, F0, F16
	SUB $1, R2
	CBNZ R2, dotscalar
dotdone:
	FMOVS F16, ret+24(FP)
	RET

// func axpyF32(a float32, x, y *float32, n int)
TEXT ·axpyF32(SB), NOSPLIT, $0-32
	MOVD $a+0(FP), R3
	VLD1R (R3), [V28.S4]
	MOVD x+8(FP), R0
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	CMP $16, R2
	BLT axpy1
axpy4:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1 (R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V0.S4, V28.S4, V4.S4
	VFMLA V1.S4, V28.S4, V5.S4
	VFMLA V2.S4, V28.S4, V6.S4
	VFMLA V3.S4, V28.S4, V7.S4
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R1)
	SUB $16, R2
	CMP $16, R2
	BGE axpy4
axpy1:
	CMP $4, R2
	BLT axpytail
axpy1loop:
	VLD1.P 16(R0), [V0.S4]
	VLD1 (R1), [V4.S4]
	VFMLA V0.S4, V28.S4, V4.S4
	VST1.P [V4.S4], 16(R1)
	SUB $4, R2
	CMP $4, R2
	BGE axpy1loop
axpytail:
	CBZ R2, axpydone
axpyscalar:
	FMOVS.P 4(R0), F0
	FMOVS (R1), F4
	FMADDS F28, F4, F0, F4
	FMOVS.P F4, 4(R1)
	SUB $1, R2
	CBNZ R2, axpyscalar
axpydone:
	RET

// func lerpF32(t float32, x, y *float32, n int)
TEXT ·lerpF32(SB), NOSPLIT, $0-32
	MOVD $t+0(FP), R3
	VLD1R (R3), [V28.S4]
	MOVD x+8(FP), R0
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	CMP $16, R2
	BLT lerp1
lerp4:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1 (R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFSUB_S4(4, 0, 0)
	VFMLA V0.S4, V28.S4, V4.S4
	VFSUB_S4(5, 1, 1)
	VFMLA V1.S4, V28.S4, V5.S4
	VFSUB_S4(6, 2, 2)
	VFMLA V2.S4, V28.S4, V6.S4
	VFSUB_S4(7, 3, 3)
	VFMLA V3.S4, V28.S4, V7.S4
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R1)
	SUB $16, R2
	CMP $16, R2
	BGE lerp4
lerp1:
	CMP $4, R2
	BLT lerptail
lerp1loop:
	VLD1.P 16(R0), [V0.S4]
	VLD1 (R1), [V4.S4]
	VFSUB_S4(4, 0, 0)
	VFMLA V0.S4, V28.S4, V4.S4
	VST1.P [V4.S4], 16(R1)
	SUB $4, R2
	CMP $4, R2
	BGE lerp1loop
lerptail:
	CBZ R2, lerpdone
lerpscalar:
	FMOVS.P 4(R0), F0
	FMOVS (R1), F4
	FSUBS F4, F0, F0
	FMADDS F28, F4, F0, F4
	FMOVS.P F4, 4(R1)
	SUB $1, R2
	CBNZ R2, lerpscalar
lerpdone:
	RET

// func dotRowsF32(out, a *float32, rows **float32, nrows, n int)
TEXT ·dotRowsF32(SB), NOSPLIT, $0-40
	MOVD out+0(FP), R7
	MOVD a+8(FP), R6
	MOVD rows+16(FP), R8
	MOVD nrows+24(FP), R11
	MOVD n+32(FP), R10
drgroup:
	CBZ R11, drdone
	LDP.P 16(R8), (R1, R2)
	LDP.P 16(R8), (R3, R4)
	CMP $8, R11
	BLT drnopf
	LDP (R8), (R12, R13)
	LDP 16(R8), (R14, R15)
	PRFM (R12), PLDL1KEEP
	PRFM 64(R12), PLDL1KEEP
	PRFM (R13), PLDL1KEEP
	PRFM 64(R13), PLDL1KEEP
	PRFM (R14), PLDL1KEEP
	PRFM 64(R14), PLDL1KEEP
	PRFM (R15), PLDL1KEEP
	PRFM 64(R15), PLDL1KEEP
drnopf:
	MOVD R6, R0
	MOVD R10, R5
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16
	CMP $16, R5
	BLT d4one
d4loop:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V0.S4, V4.S4, V16.S4
	VFMLA V1.S4, V5.S4, V17.S4
	VFMLA V2.S4, V6.S4, V18.S4
	VFMLA V3.S4, V7.S4, V19.S4
	VLD1.P 64(R2), [V8.S4, V9.S4, V10.S4, V11.S4]
	VFMLA V0.S4, V8.S4, V20.S4
	VFMLA V1.S4, V9.S4, V21.S4
	VFMLA V2.S4, V10.S4, V22.S4
	VFMLA V3.S4, V11.S4, V23.S4
	VLD1.P 64(R3), [V12.S4, V13.S4, V14.S4, V15.S4]
	VFMLA V0.S4, V12.S4, V24.S4
	VFMLA V1.S4, V13.S4, V25.S4
	VFMLA V2.S4, V14.S4, V26.S4
	VFMLA V3.S4, V15.S4, V27.S4
	VLD1.P 64(R4), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V0.S4, V4.S4, V28.S4
	VFMLA V1.S4, V5.S4, V29.S4
	VFMLA V2.S4, V6.S4, V30.S4
	VFMLA V3.S4, V7.S4, V31.S4
	SUB $16, R5
	CMP $16, R5
	BGE d4loop
d4one:
	CMP $4, R5
	BLT d4red
d4oneloop:
	VLD1.P 16(R0), [V0.S4]
	VLD1.P 16(R1), [V4.S4]
	VFMLA V0.S4, V4.S4, V16.S4
	VLD1.P 16(R2), [V5.S4]
	VFMLA V0.S4, V5.S4, V20.S4
	VLD1.P 16(R3), [V6.S4]
	VFMLA V0.S4, V6.S4, V24.S4
	VLD1.P 16(R4), [V7.S4]
	VFMLA V0.S4, V7.S4, V28.S4
	SUB $4, R5
	CMP $4, R5
	BGE d4oneloop
d4red:
	VFADD_S4(17, 16, 16)
	VFADD_S4(19, 18, 18)
	VFADD_S4(18, 16, 16)
	VFADDP_S4(16, 16, 16)
	FADDP_S(16, 16)
	VFADD_S4(21, 20, 20)
	VFADD_S4(23, 22, 22)
	VFADD_S4(22, 20, 20)
	VFADDP_S4(20, 20, 20)
	FADDP_S(20, 20)
	VFADD_S4(25, 24, 24)
	VFADD_S4(27, 26, 26)
	VFADD_S4(26, 24, 24)
	VFADDP_S4(24, 24, 24)
	FADDP_S(24, 24)
	VFADD_S4(29, 28, 28)
	VFADD_S4(31, 30, 30)
	VFADD_S4(30, 28, 28)
	VFADDP_S4(28, 28, 28)
	FADDP_S(28, 28)
	CBZ R5, d4store
d4scalar:
	FMOVS.P 4(R0), F0
	FMOVS.P 4(R1), F1
	FMADDS F0, F16, F1, F16
	FMOVS.P 4(R2), F2
	FMADDS F0, F20, F2, F20
	FMOVS.P 4(R3), F3
	FMADDS F0, F24, F3, F24
	FMOVS.P 4(R4), F4
	FMADDS F0, F28, F4, F28
	SUB $1, R5
	CBNZ R5, d4scalar
d4store:
	FMOVS.P F16, 4(R7)
	FMOVS.P F20, 4(R7)
	FMOVS.P F24, 4(R7)
	FMOVS.P F28, 4(R7)
	SUB $4, R11
	JMP drgroup
drdone:
	RET

// func axpyRowsF32(y *float32, n int, c *float32, rows **float32, nrows int)
TEXT ·axpyRowsF32(SB), NOSPLIT, $0-40
	MOVD y+0(FP), R9
	MOVD n+8(FP), R10
	MOVD c+16(FP), R2
	MOVD rows+24(FP), R8
	MOVD nrows+32(FP), R11
argroup:
	CBZ R11, ardone
	LDP.P 16(R8), (R3, R4)
	LDP.P 16(R8), (R5, R6)
	CMP $8, R11
	BLT arnopf
	LDP (R8), (R12, R13)
	LDP 16(R8), (R14, R15)
	PRFM (R12), PLDL1KEEP
	PRFM 64(R12), PLDL1KEEP
	PRFM (R13), PLDL1KEEP
	PRFM 64(R13), PLDL1KEEP
	PRFM (R14), PLDL1KEEP
	PRFM 64(R14), PLDL1KEEP
	PRFM (R15), PLDL1KEEP
	PRFM 64(R15), PLDL1KEEP
arnopf:
	MOVD R9, R0
	MOVD R10, R1
	VLD1R.P 4(R2), [V28.S4]
	VLD1R.P 4(R2), [V29.S4]
	VLD1R.P 4(R2), [V30.S4]
	VLD1R.P 4(R2), [V31.S4]
	CMP $16, R1
	BLT a4one
a4loop:
	VLD1 (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R3), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V4.S4, V28.S4, V0.S4
	VFMLA V5.S4, V28.S4, V1.S4
	VFMLA V6.S4, V28.S4, V2.S4
	VFMLA V7.S4, V28.S4, V3.S4
	VLD1.P 64(R4), [V8.S4, V9.S4, V10.S4, V11.S4]
	VFMLA V8.S4, V29.S4, V0.S4
	VFMLA V9.S4, V29.S4, V1.S4
	VFMLA V10.S4, V29.S4, V2.S4
	VFMLA V11.S4, V29.S4, V3.S4
	VLD1.P 64(R5), [V12.S4, V13.S4, V14.S4, V15.S4]
	VFMLA V12.S4, V30.S4, V0.S4
	VFMLA V13.S4, V30.S4, V1.S4
	VFMLA V14.S4, V30.S4, V2.S4
	VFMLA V15.S4, V30.S4, V3.S4
	VLD1.P 64(R6), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA V16.S4, V31.S4, V0.S4
	VFMLA V17.S4, V31.S4, V1.S4
	VFMLA V18.S4, V31.S4, V2.S4
	VFMLA V19.S4, V31.S4, V3.S4
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R1
	CMP $16, R1
	BGE a4loop
a4one:
	CMP $4, R1
	BLT a4tail
a4oneloop:
	VLD1 (R0), [V0.S4]
	VLD1.P 16(R3), [V4.S4]
	VFMLA V4.S4, V28.S4, V0.S4
	VLD1.P 16(R4), [V5.S4]
	VFMLA V5.S4, V29.S4, V0.S4
	VLD1.P 16(R5), [V6.S4]
	VFMLA V6.S4, V30.S4, V0.S4
	VLD1.P 16(R6), [V7.S4]
	VFMLA V7.S4, V31.S4, V0.S4
	VST1.P [V0.S4], 16(R0)
	SUB $4, R1
	CMP $4, R1
	BGE a4oneloop
a4tail:
	CBZ R1, a4next
a4scalar:
	FMOVS (R0), F0
	FMOVS.P 4(R3), F4
	FMADDS F28, F0, F4, F0
	FMOVS.P 4(R4), F5
	FMADDS F29, F0, F5, F0
	FMOVS.P 4(R5), F6
	FMADDS F30, F0, F6, F0
	FMOVS.P 4(R6), F7
	FMADDS F31, F0, F7, F0
	FMOVS.P F0, 4(R0)
	SUB $1, R1
	CBNZ R1, a4scalar
a4next:
	SUB $4, R11
	JMP argroup
ardone:
	RET

// func maxF32(x *float32, n int) float32
TEXT ·maxF32(SB), NOSPLIT, $0-20
	MOVD x+0(FP), R0
	MOVD n+8(FP), R1
	FMOVS (R0), F16
	VDUP V16.S[0], V16.S4
	VORR V16.B16, V16.B16, V17.B16
	VORR V16.B16, V16.B16, V18.B16
	VORR V16.B16, V16.B16, V19.B16
	CMP $16, R1
	BLT mxone
mxloop:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VFMAX_S4(0, 16, 16)
	VFMAX_S4(1, 17, 17)
	VFMAX_S4(2, 18, 18)
	VFMAX_S4(3, 19, 19)
	SUB $16, R1
	CMP $16, R1
	BGE mxloop
mxone:
	CMP $4, R1
	BLT mxred
mxoneloop:
	VLD1.P 16(R0), [V0.S4]
	VFMAX_S4(0, 16, 16)
	SUB $4, R1
	CMP $4, R1
	BGE mxoneloop
mxred:
	VFMAX_S4(17, 16, 16)
	VFMAX_S4(19, 18, 18)
	VFMAX_S4(18, 16, 16)
	VFMAXP_S4(16, 16, 16)
	FMAXP_S(16, 16)
	CBZ R1, mxdone
mxscalar:
	FMOVS.P 4(R0), F0
	FMAXS F0, F16, F16
	SUB $1, R1
	CBNZ R1, mxscalar
mxdone:
	FMOVS F16, ret+16(FP)
	RET
