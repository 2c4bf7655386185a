package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// AVX-512 twins of the CSR kernels (sparse.go): 16 float32 / 8 float64
// entries per gather, masked tails with k-masks, and a gather-FMA-scatter
// for the scatter-add whenever VPCONFLICTD finds the step's column indices
// distinct (and all below d); otherwise the step's entries go one at a time.
// Not wired into an implementation yet (see sparse_avx512_amd64_test.go).

func init() {
	sectionDocs = append(sectionDocs, sparse512Doc)
	for _, p := range []string{"F32", "F64"} {
		stubDocs["sparseMarginsAVX512"+p] = stub{
			sig: stubDocs["sparseMargins"+p].sig,
			doc: []string{
				"sparseMarginsAVX512" + p + " is sparseMargins" + p + " with AVX-512F gathers of 16 float32",
				"(8 float64) entries, the tail under a k-mask, and its own order of",
				"summation (two 512-bit accumulators, then a horizontal sum).",
			},
		}
		stubDocs["sparseAddRowsAVX512"+p] = stub{
			sig: stubDocs["sparseAddRows"+p].sig,
			doc: []string{
				"sparseAddRowsAVX512" + p + " is sparseAddRows" + p + ", bit for bit: a step of 16 float32",
				"(8 float64) entries whose column indices VPCONFLICTD finds distinct",
				"and all below d is a gather of g, one FMA and a scatter; any other",
				"step runs one entry at a time (repeated columns, and the stop at a",
				"column ≥ d).",
			},
		}
	}
}

const sparse512Doc = `// AVX-512 CSR kernels (sparseMarginsAVX512F32/F64, sparseAddRowsAVX512F32/F64):
// the same contracts as the AVX2 ones, for an implementation that has
// AVX-512F and AVX-512CD.
//
// Requires: AVX-512F, AVX-512CD (VPCONFLICTD).
//
// sparseMarginsAVX512: 32 float32 (two VGATHERDPS zmm) or 16 float64 (two
// VGATHERDPD zmm with 8 dword indices each) entries per step into two
// accumulators, one more gather if a register's worth is left, and the
// remaining entries under a k-mask (masked loads suppress faults past the
// row). Indices clamped to d−1 with VPMINUD, the largest returned.
//
// sparseAddRowsAVX512: per step of 16 (8) entries, VPCONFLICTD marks the
// lanes whose column repeats an earlier lane's and VPCMPUD the columns ≥ d;
// if there are none, g is gathered, one VFMADD231 adds c·v to each lane
// (the fused multiply-add of the sequential loop) and the lanes are
// scattered back; otherwise the step's entries are taken one at a time, as
// in the AVX2 kernel. Each g element thus sees the same fused multiply-adds
// in the same order as in the sequential loop: bit-exact.
`

func sparse512Kernels(g *gen) {
	ones := uint64(0)
	var masks []uint64
	for t := 0; t < 16; t++ {
		masks = append(masks, ones)
		ones = ones<<1 | 1
	}
	tab := g.data("kmaskTab", 4, masks...)
	for _, p := range []prec{f32, f64} {
		sparseMargins512(g, p, tab)
		sparseAddRows512(g, p)
	}
}

func sparseMargins512(g *gen, p prec, tab operand.Mem) {
	single := p.size == 4
	E := uint8(p.size)
	lanes := 2 * p.lanes // per 512-bit register
	L := "sz" + lower(p.name)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("sparseMarginsAVX512" + p.name)
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("budget"), R8)
	g.MOVQ(g.param("d"), RAX)
	g.DECQ(RAX)
	g.VPBROADCASTD(EAX, Z15) // d−1 in every dword
	g.VPXORD(Z14, Z14, Z14)  // the largest column index seen
	g.XORQ(RCX, RCX)

	sparseRowStart(g, p, L, "w")

	g.Label(L + "class")
	g.VPXORD(Z0, Z0, Z0)
	g.VPXORD(Z1, Z1, Z1)
	g.XORQ(R9, R9)
	g.MOVQ(R13, R12)
	step := 2 * lanes
	g.ANDQ(i32(-step), R12)
	g.JZ(lbl("half"))
	g.Label(L + "loop")
	g.VMOVDQU32(memi(R10, 0, R9, 4), Z2)
	if single {
		g.VMOVDQU32(memi(R10, 64, R9, 4), Z3)
		for _, ix := range []VecPhysical{Z2, Z3} {
			g.VPMAXUD(ix, Z14, Z14)
			g.VPMINUD(ix, Z15, ix)
		}
		g.KXNORW(K1, K1, K1)
		g.KXNORW(K2, K2, K2)
		g.VGATHERDPS(memi(RDX, 0, Z2, 4), K1, Z6)
		g.VGATHERDPS(memi(RDX, 0, Z3, 4), K2, Z7)
	} else {
		g.VPMAXUD(Z2, Z14, Z14)
		g.VPMINUD(Z2, Z15, Z2)
		g.VEXTRACTI64X4(u8(1), Z2, Y3)
		g.KXNORW(K1, K1, K1)
		g.KXNORW(K2, K2, K2)
		g.VGATHERDPD(memi(RDX, 0, Y2, 8), K1, Z6)
		g.VGATHERDPD(memi(RDX, 0, Y3, 8), K2, Z7)
	}
	g.vfmadd231(p, memi(R11, 0, R9, E), Z6, Z0)
	g.vfmadd231(p, memi(R11, 64, R9, E), Z7, Z1)
	g.ADDQ(u8(step), R9)
	g.CMPQ(R9, R12)
	g.JB(lbl("loop"))

	g.Label(L + "half")
	g.TESTQ(u32(lanes), R13)
	g.JZ(lbl("tail"))
	if single {
		g.VMOVDQU32(memi(R10, 0, R9, 4), Z2)
	} else {
		g.VMOVDQU(memi(R10, 0, R9, 4), Y2) // the upper half of Z2 cleared
	}
	g.VPMAXUD(Z2, Z14, Z14)
	g.VPMINUD(Z2, Z15, Z2)
	g.KXNORW(K1, K1, K1)
	if single {
		g.VGATHERDPS(memi(RDX, 0, Z2, 4), K1, Z6)
	} else {
		g.VGATHERDPD(memi(RDX, 0, Y2, 8), K1, Z6)
	}
	g.vfmadd231(p, memi(R11, 0, R9, E), Z6, Z0)
	g.ADDQ(u8(lanes), R9)

	g.Label(L + "tail")
	g.MOVQ(R13, R12)
	g.ANDQ(u8(lanes-1), R12)
	g.JZ(lbl("reduce"))
	g.LEAQ(tab, RSI)
	g.KMOVW(memi(RSI, 0, R12, 4), K1)
	g.KMOVW(K1, K2)
	g.VMOVDQU32_Z(memi(R10, 0, R9, 4), K1, Z2)
	g.VPMAXUD(Z2, Z14, Z14)
	g.VPMINUD(Z2, Z15, Z2)
	g.VPXORD(Z6, Z6, Z6)
	if single {
		g.VGATHERDPS(memi(RDX, 0, Z2, 4), K2, Z6)
		g.VMOVUPS_Z(memi(R11, 0, R9, 4), K1, Z7)
		g.VFMADD231PS(Z7, Z6, Z1)
	} else {
		g.VGATHERDPD(memi(RDX, 0, Y2, 8), K2, Z6)
		g.VMOVUPD_Z(memi(R11, 0, R9, 8), K1, Z7)
		g.VFMADD231PD(Z7, Z6, Z1)
	}

	g.Label(L + "reduce")
	sparseStoreMargin(g, zmm, p)
	sparseNextClass(g, p, L)

	g.Label(L + "stop")
	sparseReturnMaxCol(g, zmm)
}

func sparseAddRows512(g *gen, p prec) {
	single := p.size == 4
	lanes := 2 * p.lanes
	L := "sy" + lower(p.name)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("sparseAddRowsAVX512" + p.name)
	g.MOVQ(g.param("c"), RDI)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("budget"), R8)
	g.MOVQ(g.param("d"), RAX)
	g.VPBROADCASTD(EAX, Z15) // d in every dword (d < 2^31)
	g.MOVL(u32(1<<lanes-1), EAX)
	g.KMOVW(EAX, K4) // the lanes of a step
	g.XORQ(RCX, RCX)

	sparseRowStart(g, p, L, "dst")

	g.Label(L + "class")
	g.vbroadcast(p, mem(RDI, 0), Z1) // its low lane is the scalar c too
	g.ADDQ(u8(p.size), RDI)
	g.XORQ(R9, R9)

	one := func() {
		sparseAddOne(g, p, L, 0)
		g.INCQ(R9)
	}

	g.Label(L + "loop")
	g.LEAQ(mem(R9, lanes), RSI) // the end of the step
	g.CMPQ(RSI, R13)
	g.JA(lbl("tail"))
	if single {
		g.VMOVDQU32(memi(R10, 0, R9, 4), Z2)
	} else {
		g.VMOVDQU(memi(R10, 0, R9, 4), Y2) // the upper half of Z2 cleared
	}
	g.VPCMPUD(u8(5), Z15, Z2, K4, K1) // columns ≥ d
	g.VPCONFLICTD(Z2, Z3)
	g.VPTESTMD(Z3, Z3, K4, K2) // columns repeated within the step
	g.KORW(K1, K2, K2)
	g.KORTESTW(K2, K2)
	g.JNZ(lbl("one"))
	g.KMOVW(K4, K3)
	if single {
		g.VGATHERDPS(memi(RDX, 0, Z2, 4), K3, Z4)
		g.VFMADD231PS(memi(R11, 0, R9, 4), Z1, Z4)
		g.KMOVW(K4, K3)
		g.VSCATTERDPS(Z4, K3, memi(RDX, 0, Z2, 4))
	} else {
		g.VGATHERDPD(memi(RDX, 0, Y2, 8), K3, Z4)
		g.VFMADD231PD(memi(R11, 0, R9, 8), Z1, Z4)
		g.KMOVW(K4, K3)
		g.VSCATTERDPD(Z4, K3, memi(RDX, 0, Y2, 8))
	}
	g.MOVQ(RSI, R9)
	g.JMP(lbl("loop"))

	// A step with repeated columns (or a column ≥ d): one entry at a time.
	g.Label(L + "one")
	one()
	g.CMPQ(R9, RSI)
	g.JB(lbl("one"))
	g.JMP(lbl("loop"))

	g.Label(L + "tail")
	g.CMPQ(R9, R13)
	g.JAE(lbl("next"))
	one()
	g.JMP(lbl("tail"))

	g.Label(L + "next")
	sparseNextClass(g, p, L)
	sparseAddRowsExits(g, L, true)
}
