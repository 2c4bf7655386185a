package main

import "fmt"

// The compact-feature loads: bytes (x = scale·u) or IEEE halves, widened to
// float32 a block of rows at a time. The row kernels of package kernel run
// their float32 kernels on them.

const compactDoc = `// Compact features: conversions, and row kernels that read compact rows.
// cvtU8F32 widens 16 bytes a step with UXTL/UXTL2, to halfwords, then to
// words. It converts with UCVTF, which is exact. It multiplies by the scale
// with FMUL. That is one rounding, the float32 product fl(scale·u), which
// the generic reference replays. The kernel cvtF16F32 widens IEEE halves
// with FCVTL/FCVTL2 (exact). The kernel cvtBF16F32 puts bfloat16s in the top
// halves of words, with ZIP1/ZIP2 against a zero register (exact). All take
// n a multiple of 8; the Go driver converts the last n mod 8. They touch
// nothing past the n elements.
` + rowKernelsDoc

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

	cvt16(a, f16Fmt)
	cvt16(a, bf16Fmt)

	rowKernels(a)
}

// cvt16 converts 16 elements of the 16-bit format f (halves or bfloat16s) a
// step, then 8. f's loads widen them.
func cvt16(a *asm, f rowFmt) {
	L := "c" + f.label
	a.w("// func cvt%sF32(dst, src unsafe.Pointer, n int)", f.name)
	a.w("TEXT ·cvt%sF32(SB), NOSPLIT, $0-24", f.name)
	a.w("\tMOVD dst+0(FP), R0\n\tMOVD src+8(FP), R1\n\tMOVD n+16(FP), R2")
	a.w("\tCMP $16, R2\n\tBLT %sone", L)
	a.w("%sloop:", L)
	f.load16(a, "R1", 0)
	a.w("\tVST1.P %s, 64(R0)", vregs(4, 7, "S4"))
	a.w("\tSUB $16, R2\n\tCMP $16, R2\n\tBGE %sloop", L)
	a.w("%sone:", L)
	a.w("\tCBZ R2, %sdone", L)
	f.load8(a, "R1", 0)
	a.w("\tVST1 %s, (R0)", vregs(4, 5, "S4"))
	a.w("%sdone:\n\tRET\n", L)
}

const rowKernelsDoc = `//
// marginsU8F32, addRowsU8F32, marginsF16F32, addRowsF16F32 and the BF16 pair
// read compact rows directly. They are the row kernels of the linear models
// on u8, f16 and bf16 data. Each load widens its elements exactly:
//
//   - bytes with UXTL/UXTL2, then UCVTF;
//   - halves with FCVTL/FCVTL2;
//   - bfloat16s with ZIP1/ZIP2 against zero.
//
// They meet the float32 weights or coefficients in FMLAs. Rows come through
// idx, or follow each other by stride elements. Margins take a row at a
// time, 16 columns a step in four accumulators, then 8. The count d is a
// multiple of 8: the Go driver takes the last d mod 8 columns and the scale
// of bytes. AddRows take four rows, then one, at a time. They load and store
// 16 columns of g once per four rows, which meet them in row order. That is
// one FMLA per row and lane: bit for bit the Go loop of fused multiply-adds.
`

// rowFmt is the element type of compact rows.
type rowFmt struct {
	name, label string
	size        int  // bytes per element
	bf16        bool // 16-bit elements are bfloat16s, not IEEE halves
}

var (
	f16Fmt  = rowFmt{name: "F16", label: "f16", size: 2}
	bf16Fmt = rowFmt{name: "BF16", label: "bf16", size: 2, bf16: true}
	rowFmts = []rowFmt{{name: "U8", label: "u8", size: 1}, f16Fmt, bf16Fmt}
)

// zipBF16 widens the 8 bfloat16s in V<h> to the float32s in V<d> and
// V<d+1>: ZIP1/ZIP2 with the zero in V<z> put each in the top half of a
// word.
func zipBF16(a *asm, h, z, d int) {
	a.w("\tVZIP1 V%d.H8, V%d.H8, V%d.H8\n\tVZIP2 V%d.H8, V%d.H8, V%d.H8", h, z, d, h, z, d+1)
}

// load16 loads 16 elements from (Rp), advancing Rp, as float32 into
// V<b+4>..V<b+7>, with V<b>..V<b+3> as scratch.
func (f rowFmt) load16(a *asm, rp string, b int) {
	if f.size == 1 {
		a.w("\tVLD1.P 16(%s), [V%d.B16]", rp, b)
		a.w("\tVUXTL V%d.B8, V%d.H8\n\tVUXTL2 V%d.B16, V%d.H8", b, b+1, b, b+2)
		a.w("\tVUXTL V%d.H4, V%d.S4\n\tVUXTL2 V%d.H8, V%d.S4", b+1, b+4, b+1, b+5)
		a.w("\tVUXTL V%d.H4, V%d.S4\n\tVUXTL2 V%d.H8, V%d.S4", b+2, b+6, b+2, b+7)
		for i := 4; i < 8; i++ {
			a.w("\tVUCVTF_S4(%d, %d)", b+i, b+i)
		}
		return
	}
	a.w("\tVLD1.P 32(%s), [V%d.H8, V%d.H8]", rp, b, b+1)
	if f.bf16 {
		a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", b+3, b+3, b+3)
		zipBF16(a, b, b+3, b+4)
		zipBF16(a, b+1, b+3, b+6)
		return
	}
	a.w("\tVFCVTL_H2S(%d, %d)\n\tVFCVTL2_H2S(%d, %d)", b, b+4, b, b+5)
	a.w("\tVFCVTL_H2S(%d, %d)\n\tVFCVTL2_H2S(%d, %d)", b+1, b+6, b+1, b+7)
}

// load8 loads 8 elements from (Rp) as float32 into V<b+4> and V<b+5>, not
// advancing Rp. V<b>, V<b+1> and V<b+3> are scratch. It reads only the 8
// elements.
func (f rowFmt) load8(a *asm, rp string, b int) {
	if f.size == 1 {
		a.w("\tFMOVD (%s), F%d", rp, b)
		a.w("\tVUXTL V%d.B8, V%d.H8", b, b+1)
		a.w("\tVUXTL V%d.H4, V%d.S4\n\tVUXTL2 V%d.H8, V%d.S4", b+1, b+4, b+1, b+5)
		a.w("\tVUCVTF_S4(%d, %d)\n\tVUCVTF_S4(%d, %d)", b+4, b+4, b+5, b+5)
		return
	}
	a.w("\tVLD1 (%s), [V%d.H8]", rp, b)
	if f.bf16 {
		a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", b+3, b+3, b+3)
		zipBF16(a, b, b+3, b+4)
		return
	}
	a.w("\tVFCVTL_H2S(%d, %d)\n\tVFCVTL2_H2S(%d, %d)", b, b+4, b, b+5)
}

// nextRow sets rd to the next row. With idx it is idx[0] (R4, advanced)
// times the stride in bytes (R3), from x (R2). Without idx it is R2, which
// then advances by the stride.
func nextRow(a *asm, rd, lab string) {
	a.w("\tCBZ R4, %sconsec", lab)
	a.w("\tMOVD.P 8(R4), %s", rd)
	a.w("\tMUL R3, %s, %s\n\tADD R2, %s, %s", rd, rd, rd, rd)
	a.w("\tB %sready", lab)
	a.w("%sconsec:", lab)
	a.w("\tMOVD R2, %s\n\tADD R3, R2, R2", rd)
	a.w("%sready:", lab)
}

// rowParams loads x (R2), the stride in bytes (R3) and idx (R4).
func rowParams(a *asm, f rowFmt) {
	a.w("\tMOVD x+16(FP), R2\n\tMOVD stride+24(FP), R3\n\tMOVD idx+32(FP), R4")
	if f.size == 2 {
		a.w("\tLSL $1, R3, R3")
	}
}

func rowKernels(a *asm) {
	for _, f := range rowFmts {
		marginsRows(a, f)
		addRowsRows(a, f)
	}
}

// marginsRows: m[i] = Σ_l raw(x_{r_i}, l)·w[l], d a multiple of 8.
func marginsRows(a *asm, f rowFmt) {
	L := "m" + f.label
	a.w("// func margins%sF32(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)", f.name)
	a.w("TEXT ·margins%sF32(SB), NOSPLIT, $0-56", f.name)
	a.w("\tMOVD m+0(FP), R0\n\tMOVD n+8(FP), R1")
	rowParams(a, f)
	a.w("\tMOVD w+40(FP), R5\n\tMOVD d+48(FP), R6")
	a.w("%srow:", L)
	a.w("\tCBZ R1, %sdone", L)
	nextRow(a, "R7", L)
	// Ask for the next row's first lines while this one computes. Gathered
	// rows defeat the hardware prefetcher at their start.
	a.w("\tCMP $2, R1\n\tBLT %snopf", L)
	a.w("\tCBZ R4, %spfconsec", L)
	a.w("\tMOVD (R4), R10\n\tMUL R3, R10, R10\n\tADD R2, R10, R10\n\tB %spf", L)
	a.w("%spfconsec:", L)
	a.w("\tMOVD R2, R10")
	a.w("%spf:", L)
	a.w("\tPRFM (R10), PLDL1KEEP\n\tPRFM 64(R10), PLDL1KEEP")
	a.w("%snopf:", L)
	a.w("\tMOVD R5, R8\n\tMOVD R6, R9")
	for i := 16; i < 20; i++ {
		a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	a.w("\tCMP $16, R9\n\tBLT %sone", L)
	a.w("%sloop:", L)
	f.load16(a, "R7", 0)
	a.w("\tVLD1.P 64(R8), %s", vregs(8, 11, "S4"))
	for i := 0; i < 4; i++ {
		a.w("\tVFMLA V%d.S4, V%d.S4, V%d.S4", 4+i, 8+i, 16+i)
	}
	a.w("\tSUB $16, R9\n\tCMP $16, R9\n\tBGE %sloop", L)
	a.w("%sone:", L)
	a.w("\tCBZ R9, %sred", L)
	f.load8(a, "R7", 0)
	a.w("\tVLD1 (R8), %s", vregs(8, 9, "S4"))
	a.w("\tVFMLA V4.S4, V8.S4, V16.S4\n\tVFMLA V5.S4, V9.S4, V17.S4")
	a.w("%sred:", L)
	a.w("\tVFADD_S4(17, 16, 16)\n\tVFADD_S4(19, 18, 18)\n\tVFADD_S4(18, 16, 16)")
	a.w("\tVFADDP_S4(16, 16, 16)\n\tFADDP_S(16, 16)")
	a.w("\tFMOVS.P F16, 4(R0)")
	a.w("\tSUB $1, R1\n\tB %srow", L)
	a.w("%sdone:\n\tRET\n", L)
}

// addRowsRows: g[l] = fma(c[i], raw(x_{r_i}, l), g[l]) in row order, d a
// multiple of 8. It takes four rows (R10–R13, coefficients V28–V31), then
// one.
func addRowsRows(a *asm, f rowFmt) {
	L := "a" + f.label
	a.w("// func addRows%sF32(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)", f.name)
	a.w("TEXT ·addRows%sF32(SB), NOSPLIT, $0-56", f.name)
	a.w("\tMOVD dst+0(FP), R0\n\tMOVD d+8(FP), R1")
	rowParams(a, f)
	a.w("\tMOVD c+40(FP), R5\n\tMOVD n+48(FP), R6")
	rows := []string{"R10", "R11", "R12", "R13"}
	a.w("%sblock:", L)
	a.w("\tCMP $4, R6\n\tBLT %srow", L)
	for i, rr := range rows {
		nextRow(a, rr, fmt.Sprintf("%sq%d", L, i))
		a.w("\tVLD1R.P 4(R5), [V%d.S4]", 28+i)
	}
	a.w("\tMOVD R0, R8\n\tMOVD R1, R9")
	a.w("\tCMP $16, R9\n\tBLT %sb8", L)
	a.w("%sb16:", L)
	a.w("\tVLD1 (R8), %s", vregs(16, 19, "S4"))
	for i, rr := range rows {
		b := 8 * (i % 2)
		f.load16(a, rr, b)
		for j := 0; j < 4; j++ {
			a.w("\tVFMLA V%d.S4, V%d.S4, V%d.S4", b+4+j, 28+i, 16+j)
		}
	}
	a.w("\tVST1.P %s, 64(R8)", vregs(16, 19, "S4"))
	a.w("\tSUB $16, R9\n\tCMP $16, R9\n\tBGE %sb16", L)
	a.w("%sb8:", L)
	a.w("\tCBZ R9, %sbnext", L)
	a.w("\tVLD1 (R8), %s", vregs(16, 17, "S4"))
	for i, rr := range rows {
		b := 8 * (i % 2)
		f.load8(a, rr, b)
		a.w("\tVFMLA V%d.S4, V%d.S4, V16.S4\n\tVFMLA V%d.S4, V%d.S4, V17.S4", b+4, 28+i, b+5, 28+i)
	}
	a.w("\tVST1 %s, (R8)", vregs(16, 17, "S4"))
	a.w("%sbnext:", L)
	a.w("\tSUB $4, R6\n\tB %sblock", L)

	a.w("%srow:", L)
	a.w("\tCBZ R6, %sdone", L)
	nextRow(a, "R10", L+"r")
	a.w("\tVLD1R.P 4(R5), [V28.S4]")
	a.w("\tMOVD R0, R8\n\tMOVD R1, R9")
	a.w("\tCMP $16, R9\n\tBLT %sr8", L)
	a.w("%sr16:", L)
	a.w("\tVLD1 (R8), %s", vregs(16, 19, "S4"))
	f.load16(a, "R10", 0)
	for j := 0; j < 4; j++ {
		a.w("\tVFMLA V%d.S4, V28.S4, V%d.S4", 4+j, 16+j)
	}
	a.w("\tVST1.P %s, 64(R8)", vregs(16, 19, "S4"))
	a.w("\tSUB $16, R9\n\tCMP $16, R9\n\tBGE %sr16", L)
	a.w("%sr8:", L)
	a.w("\tCBZ R9, %srnext", L)
	a.w("\tVLD1 (R8), %s", vregs(16, 17, "S4"))
	f.load8(a, "R10", 0)
	a.w("\tVFMLA V4.S4, V28.S4, V16.S4\n\tVFMLA V5.S4, V28.S4, V17.S4")
	a.w("\tVST1 %s, (R8)", vregs(16, 17, "S4"))
	a.w("%srnext:", L)
	a.w("\tSUB $1, R6\n\tB %srow", L)
	a.w("%sdone:\n\tRET\n", L)
}
