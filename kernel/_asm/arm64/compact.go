package main

// The compact-feature loads (issue 11): bytes (x = scale·u) or IEEE halves
// widened to float32, a block of rows at a time, for the row kernels of
// package kernel to run their float32 kernels on.

const compactDoc = `// Compact features: cvtU8F32 widens 16 bytes a step with UXTL/UXTL2 (to
// halfwords, then to words), converts with UCVTF (exact) and multiplies by
// the scale with FMUL (one rounding, the float32 product fl(scale·u), which
// the generic reference replays); cvtF16F32 widens IEEE halves with
// FCVTL/FCVTL2 (exact). Both take n a multiple of 8 (the Go driver converts
// the last n mod 8) and touch nothing past the n elements.
`

func compactKernels(a *asm) {
	a.w("// func prefetchBytes(p unsafe.Pointer, n int)")
	a.w("TEXT ·prefetchBytes(SB), NOSPLIT, $0-16")
	a.w("\tMOVD p+0(FP), R0\n\tMOVD n+8(FP), R1\n\tADD R0, R1, R1")
	a.w("pfbloop:")
	a.w("\tCMP R1, R0\n\tBHS pfbdone")
	a.w("\tPRFM (R0), PLDL1KEEP")
	a.w("\tADD $64, R0\n\tB pfbloop")
	a.w("pfbdone:\n\tRET\n")

	a.w("// func cvtU8F32(dst, src unsafe.Pointer, n int, scale float32)")
	a.w("TEXT ·cvtU8F32(SB), NOSPLIT, $0-28")
	a.w("\tMOVD dst+0(FP), R0\n\tMOVD src+8(FP), R1\n\tMOVD n+16(FP), R2")
	a.w("\tMOVD $scale+24(FP), R3\n\tVLD1R (R3), [V28.S4]")
	a.w("\tCMP $16, R2\n\tBLT cu8one")
	a.w("cu8loop:")
	a.w("\tVLD1.P 16(R1), [V0.B16]")
	a.w("\tVUXTL V0.B8, V1.H8\n\tVUXTL2 V0.B16, V2.H8")
	a.w("\tVUXTL V1.H4, V4.S4\n\tVUXTL2 V1.H8, V5.S4\n\tVUXTL V2.H4, V6.S4\n\tVUXTL2 V2.H8, V7.S4")
	for i := 4; i < 8; i++ {
		a.w("\tVUCVTF_S4(%d, %d)", i, i)
	}
	for i := 4; i < 8; i++ {
		a.w("\tVFMUL_S4(28, %d, %d)", i, i)
	}
	a.w("\tVST1.P %s, 64(R0)", vregs(4, 7, "S4"))
	a.w("\tSUB $16, R2\n\tCMP $16, R2\n\tBGE cu8loop")
	a.w("cu8one:")
	a.w("\tCBZ R2, cu8done")
	a.w("\tFMOVD (R1), F0")
	a.w("\tVUXTL V0.B8, V1.H8")
	a.w("\tVUXTL V1.H4, V4.S4\n\tVUXTL2 V1.H8, V5.S4")
	a.w("\tVUCVTF_S4(4, 4)\n\tVUCVTF_S4(5, 5)")
	a.w("\tVFMUL_S4(28, 4, 4)\n\tVFMUL_S4(28, 5, 5)")
	a.w("\tVST1 %s, (R0)", vregs(4, 5, "S4"))
	a.w("cu8done:\n\tRET\n")

	a.w("// func cvtF16F32(dst, src unsafe.Pointer, n int)")
	a.w("TEXT ·cvtF16F32(SB), NOSPLIT, $0-24")
	a.w("\tMOVD dst+0(FP), R0\n\tMOVD src+8(FP), R1\n\tMOVD n+16(FP), R2")
	a.w("\tCMP $16, R2\n\tBLT cf16one")
	a.w("cf16loop:")
	a.w("\tVLD1.P 32(R1), %s", vregs(0, 1, "H8"))
	a.w("\tVFCVTL_H2S(0, 4)\n\tVFCVTL2_H2S(0, 5)\n\tVFCVTL_H2S(1, 6)\n\tVFCVTL2_H2S(1, 7)")
	a.w("\tVST1.P %s, 64(R0)", vregs(4, 7, "S4"))
	a.w("\tSUB $16, R2\n\tCMP $16, R2\n\tBGE cf16loop")
	a.w("cf16one:")
	a.w("\tCBZ R2, cf16done")
	a.w("\tVLD1 (R1), [V0.H8]")
	a.w("\tVFCVTL_H2S(0, 4)\n\tVFCVTL2_H2S(0, 5)")
	a.w("\tVST1 %s, (R0)", vregs(4, 5, "S4"))
	a.w("cf16done:\n\tRET\n")
}
