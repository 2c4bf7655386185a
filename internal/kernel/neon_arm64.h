// Copyright the cvar authors. SPDX-License-Identifier: see LICENSE.

// Advanced SIMD (ASIMD, "NEON") instructions that Go's arm64 assembler does
// not know, emitted as WORD $encoding. One macro per instruction form; every
// macro is checked by TestNEONMacroEncodings (neon_encoding_arm64_test.go), which
// assembles each with distinct registers, disassembles the object with
// `go tool objdump` and compares both the decoded text and the 32-bit word with
// an encoder written from the ARM ARM bit layout.
//
// Arguments are register numbers 0..31 and follow the operand order of Go's
// own vector instructions: sources first, destination last. For a two-source
// form OP(m, n, d) computes Vd = Vn OP Vm (so VFSUB_D2(m, n, d) is
// Vd = Vn − Vm and VFCMGT_D2(m, n, d) is Vd = Vn > Vm ? all-ones : 0);
// a one-source form OP(n, d) computes Vd = OP(Vn).
//
// Encodings (ARM ARM C7.2, "Advanced SIMD three same" / "two-register misc";
// Q = 1 selects 128 bits, sz = 1 selects double precision):
//
//	FADD   0 Q 0 01110 0 sz 1 Rm 110101 Rn Rd
//	FSUB   0 Q 0 01110 1 sz 1 Rm 110101 Rn Rd
//	FMUL   0 Q 1 01110 0 sz 1 Rm 110111 Rn Rd
//	FDIV   0 Q 1 01110 0 sz 1 Rm 111111 Rn Rd
//	FMAX   0 Q 0 01110 0 sz 1 Rm 111101 Rn Rd
//	FMIN   0 Q 0 01110 1 sz 1 Rm 111101 Rn Rd
//	FADDP  0 Q 1 01110 0 sz 1 Rm 110101 Rn Rd   (vector, pairwise)
//	FCMGT  0 Q 1 01110 1 sz 1 Rm 111001 Rn Rd   (register)
//	FCMGE  0 Q 1 01110 0 sz 1 Rm 111001 Rn Rd   (register)
//	BIC    0 Q 0 01110 01 1 Rm 000111 Rn Rd     (vector, register; integer
//	                                             "three same", size = 01)
//	FABS   0 Q 0 01110 1 sz 10000 011111 0 Rn Rd
//	FNEG   0 Q 1 01110 1 sz 10000 011111 0 Rn Rd
//	FCVTL  0 Q 0 01110 0 sz 10000 101111 0 Rn Rd (Q=0: FCVTL, Q=1: FCVTL2)
//	FCVTN  0 Q 0 01110 0 sz 10000 101101 0 Rn Rd (Q=0: FCVTN, Q=1: FCVTN2)
//	FMAXP  0 Q 1 01110 0 sz 1 Rm 111101 Rn Rd   (vector, pairwise)
//	FADDP  01 1 11110 0 sz 11000 011011 0 Rn Rd  (scalar: Fd = Vn[0] + Vn[1])
//	FMAXP  01 1 11110 0 sz 11000 011111 0 Rn Rd  (scalar: Fd = max(Vn[0], Vn[1]))

#define NEON3(base, m, n, d) WORD $((base) | ((m)<<16) | ((n)<<5) | (d))
#define NEON2(base, n, d) WORD $((base) | ((n)<<5) | (d))

// Double precision, two lanes (.D2).
#define VFADD_D2(m, n, d) NEON3(0x4E60D400, m, n, d)
#define VFSUB_D2(m, n, d) NEON3(0x4EE0D400, m, n, d)
#define VFMUL_D2(m, n, d) NEON3(0x6E60DC00, m, n, d)
#define VFDIV_D2(m, n, d) NEON3(0x6E60FC00, m, n, d)
#define VFMAX_D2(m, n, d) NEON3(0x4E60F400, m, n, d)
#define VFMIN_D2(m, n, d) NEON3(0x4EE0F400, m, n, d)
#define VFCMGT_D2(m, n, d) NEON3(0x6EE0E400, m, n, d)
#define VFCMGE_D2(m, n, d) NEON3(0x6E60E400, m, n, d)
#define VFABS_D2(n, d) NEON2(0x4EE0F800, n, d)
#define VFNEG_D2(n, d) NEON2(0x6EE0F800, n, d)

// Single precision, four lanes (.S4).
#define VFADD_S4(m, n, d) NEON3(0x4E20D400, m, n, d)
#define VFSUB_S4(m, n, d) NEON3(0x4EA0D400, m, n, d)
#define VFMAX_S4(m, n, d) NEON3(0x4E20F400, m, n, d)
#define VFADDP_S4(m, n, d) NEON3(0x6E20D400, m, n, d)
#define VFMAXP_S4(m, n, d) NEON3(0x6E20F400, m, n, d)
#define VFMUL_S4(m, n, d) NEON3(0x6E20DC00, m, n, d)
#define VFCMGE_S4(m, n, d) NEON3(0x6E20E400, m, n, d)

// Bitwise clear, all 128 bits: Vd = Vn AND NOT Vm (Go's assembler has VAND,
// VORR, VEOR but no VBIC). VFCMGE_*(v, zero, mask) then VBIC_B16(mask, v, v)
// sets the lanes with v <= 0 (not NaN) to +0.
#define VBIC_B16(m, n, d) NEON3(0x4E601C00, m, n, d)

// Compact features: UCVTF converts four unsigned words to singles (exact
// below 2^24); FCVTL widens the low four halves of Vn to Vd.S4, FCVTL2 the
// high four.
//
//	UCVTF  0 Q 1 01110 0 sz 10000 111011 0 Rn Rd (vector, integer)
#define VUCVTF_S4(n, d) NEON2(0x6E21D800, n, d)
#define VFCVTL_H2S(n, d) NEON2(0x0E217800, n, d)
#define VFCVTL2_H2S(n, d) NEON2(0x4E217800, n, d)

// Conversions between the two: FCVTL widens the low two singles of Vn to
// Vd.D2, FCVTL2 the high two; FCVTN narrows Vn.D2 into the low half of Vd
// (zeroing the high half), FCVTN2 into the high half (keeping the low half).
// Both narrowings round to nearest even (FPCR.RMode as Go leaves it).
#define VFCVTL_S2D(n, d) NEON2(0x0E617800, n, d)
#define VFCVTL2_S2D(n, d) NEON2(0x4E617800, n, d)
#define VFCVTN_D2S(n, d) NEON2(0x0E616800, n, d)
#define VFCVTN2_D2S(n, d) NEON2(0x4E616800, n, d)

// Scalar pairwise reductions: Fd = Vn[0] op Vn[1].
#define FADDP_D(n, d) NEON2(0x7E70D800, n, d)
#define FADDP_S(n, d) NEON2(0x7E30D800, n, d)
#define FMAXP_D(n, d) NEON2(0x7E70F800, n, d)
#define FMAXP_S(n, d) NEON2(0x7E30F800, n, d)
