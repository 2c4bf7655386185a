package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The compact-feature loads (issue 11): rows of uint8 (x = scale·u) or IEEE
// half-precision features widened to float32. The row kernels of package
// kernel convert a block of rows into an L1-sized float32 buffer with these
// and run the float32 row kernels on it, so a row costs its compact bytes
// from memory.

func init() {
	sectionDocs = append(sectionDocs, compactDoc)
	for name, st := range compactStubs {
		stubDocs[name] = st
	}
}

const compactDoc = `// Compact features: cvtU8F32 widens bytes with VPMOVZXBD, converts them
// with VCVTDQ2PS (exact: every byte is a float32) and multiplies by the
// scale with VMULPS (one rounding, the float32 product fl(scale·u), which
// the generic reference replays); cvtF16F32 widens IEEE half floats with
// VCVTPH2PS (F16C; exact). Both take n a multiple of 8 (the Go driver
// converts the last n mod 8 elements) and touch nothing past the n elements.
//
// Requires: AVX2 (cvtU8F32), F16C (cvtF16F32).
`

var compactStubs = map[string]stub{
	"cvtU8F32": {
		sig: "func(dst, src unsafe.Pointer, n int, scale float32)",
		doc: []string{
			"cvtU8F32 computes, for n a multiple of 8,",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tdst[i] = scale * float32(src[i]) // src is []uint8",
			"\t}",
		},
	},
	"cvtF16F32": {
		sig: "func(dst, src unsafe.Pointer, n int)",
		doc: []string{
			"cvtF16F32 computes, for n a multiple of 8,",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tdst[i] = float32 value of the IEEE half src[i] // src is []uint16",
			"\t}",
		},
	},
}

func compactKernels(g *gen) {
	cvtU8(g)
	cvtF16(g)
}

// cvtU8 converts 32 bytes a step, then 8.
func cvtU8(g *gen) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef("cu8" + s) }
	g.text("cvtU8F32")
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("src"), RSI)
	g.MOVQ(g.param("n"), RCX)
	g.VBROADCASTSS(g.param("scale"), Y15)

	g.Label("cu8loop4")
	g.CMPQ(RCX, u8(32))
	g.JB(lbl("one"))
	for i := 0; i < 4; i++ {
		g.VPMOVZXBD(mem(RSI, 8*i), y(i))
	}
	for i := 0; i < 4; i++ {
		g.VCVTDQ2PS(y(i), y(i))
		g.VMULPS(Y15, y(i), y(i))
		g.VMOVUPS(y(i), mem(RDI, 32*i))
	}
	g.ADDQ(u8(32), RSI)
	g.ADDQ(u32(128), RDI)
	g.SUBQ(u8(32), RCX)
	g.JMP(lbl("loop4"))

	g.Label("cu8one")
	g.CMPQ(RCX, u8(8))
	g.JB(lbl("done"))
	g.VPMOVZXBD(mem(RSI, 0), Y0)
	g.VCVTDQ2PS(Y0, Y0)
	g.VMULPS(Y15, Y0, Y0)
	g.VMOVUPS(Y0, mem(RDI, 0))
	g.ADDQ(u8(8), RSI)
	g.ADDQ(u8(32), RDI)
	g.SUBQ(u8(8), RCX)
	g.JMP(lbl("one"))

	g.Label("cu8done")
	g.VZEROUPPER()
	g.RET()
}

// cvtF16 converts 32 halves a step, then 8.
func cvtF16(g *gen) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef("cf16" + s) }
	g.text("cvtF16F32")
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("src"), RSI)
	g.MOVQ(g.param("n"), RCX)

	g.Label("cf16loop4")
	g.CMPQ(RCX, u8(32))
	g.JB(lbl("one"))
	for i := 0; i < 4; i++ {
		g.VCVTPH2PS(mem(RSI, 16*i), y(i))
	}
	for i := 0; i < 4; i++ {
		g.VMOVUPS(y(i), mem(RDI, 32*i))
	}
	g.ADDQ(u8(64), RSI)
	g.ADDQ(u32(128), RDI)
	g.SUBQ(u8(32), RCX)
	g.JMP(lbl("loop4"))

	g.Label("cf16one")
	g.CMPQ(RCX, u8(8))
	g.JB(lbl("done"))
	g.VCVTPH2PS(mem(RSI, 0), Y0)
	g.VMOVUPS(Y0, mem(RDI, 0))
	g.ADDQ(u8(16), RSI)
	g.ADDQ(u8(32), RDI)
	g.SUBQ(u8(8), RCX)
	g.JMP(lbl("one"))

	g.Label("cf16done")
	g.VZEROUPPER()
	g.RET()
}
