package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// maxLaneClasses is the most classes softmaxLanes takes: the class vectors
// of a block of rows stay in Z0..Z11.
const maxLaneClasses = 12

func init() {
	rounded := map[string][]string{
		"F32": {"with exp and log as expPD and log1pPD, in float64; e and the results", "are rounded to float32 where the generic rounds them."},
		"F64": {"with exp and log as expPD and log1pPD."},
	}
	for P := range rounded {
		stubDocs["zSoftmaxLanes"+P] = stub{
			sig: "func(loss, z, label unsafe.Pointer, n, k int)",
			doc: append([]string{
				fmt.Sprintf("zSoftmaxLanes%s is zSoftmax%s for 1 ≤ k ≤ %d with the rows as the lanes:", P, P, maxLaneClasses),
				"eight rows at a time, class j of the eight gathered into one float64",
				"register (VGATHERDP*) and scattered back (VSCATTERDP*), the last",
				"n mod 8 rows under K1. Each row's max, exp and sum are those of",
				"softmaxCEGeneric in its order (the sum adds classes 0, 1, …, k−1),",
			}, rounded[P]...),
		}
	}
}

// softmaxLanes writes zSoftmaxLanesF32 / F64: SoftmaxCE for few classes
// with the rows as the lanes. The row kernel (softmax) spends most of a
// short row in horizontal max and sum reductions and per-row loop control;
// here eight rows share every instruction and nothing is reduced across
// lanes.
//
// Registers: Z0..Z(k−1) the classes of eight rows (float64), Z12 max then
// scratch, Z13 the sums then their inverses, Z14 z_y − max, Y15 the labels,
// Y16 the rows' offsets (lane·k, in elements), Y17 offsets of the labels'
// classes, Y18 the class j being fixed; Z17..Z22 the scratch of two exps
// (expScratch) and of log1p; exp's constants in Z23..Z31 (the rest from
// memory). K1: the block's rows; K2 a copy for each gather and scatter.
func softmaxLanes(g *gen, p prec) {
	f32 := p.size == 4
	E := p.size
	L := "zsml" + p.name
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("zSoftmaxLanes" + p.name)

	g.MOVQ(g.param("loss"), RDI)
	g.MOVQ(g.param("z"), RSI)
	g.MOVQ(g.param("label"), RBX)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("k"), RDX)
	// R13: bytes of eight rows.
	g.MOVQ(RDX, R13)
	g.SHLQ(u8(shift(p)+3), R13)
	// Y16 = lane·k.
	g.VPBROADCASTD(EDX, Y16)
	g.VPMULLD(laneIota(g), Y16, Y16)
	busy := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, t := range expScratch {
		busy = append(busy, int(t[0].PhysicalIndex()), int(t[1].PhysicalIndex()), int(t[2].PhysicalIndex()))
	}
	g.pinConstants(func() { g.expPD(zmm, Z0, Z0, Z19, Z20, Z21, true) }, busy...)
	defer unpin()

	vsib := func(index VecPhysical, j int) operand.Mem {
		return operand.Mem{Base: RSI, Disp: j * E, Index: index, Scale: uint8(E)}
	}
	// gather sets Z(dst) to class j (at offsets index) of the block's rows,
	// as float64.
	gather := func(index VecPhysical, j, dst int) {
		g.KMOVW(K1, K2) // a gather clears its mask
		if f32 {
			g.VGATHERDPS(vsib(index, j), K2, yy(dst))
			g.VCVTPS2PD(yy(dst), z(dst))
		} else {
			g.VGATHERDPD(vsib(index, j), K2, z(dst))
		}
	}

	g.MOVL(operand.U32(0xff), EAX)
	g.KMOVW(EAX, K1)
	g.TESTQ(RCX, RCX)
	g.JLE(lbl("done"))
	g.Label(L + "block")
	g.CMPQ(RCX, u8(8))
	g.JAE(lbl("full"))
	g.lowLanesK1(ECX, EAX)
	g.Label(L + "full")
	g.VMOVDQU32_Z(mem(RBX, 0), K1, Y15)

	// The classes, their max, and z_y − max (z_y gathered on its own).
	for c := 0; c < maxLaneClasses; c++ {
		if c > 0 {
			g.CMPQ(RDX, u8(c))
			g.JE(lbl(fmt.Sprintf("max%d", c)))
		}
		gather(Y16, c, c)
	}
	for c := maxLaneClasses; c > 0; c-- {
		g.Label(L + fmt.Sprintf("max%d", c))
		if c == 1 {
			g.VMOVAPD(Z0, Z12)
		} else {
			// Classes 0..c−1, in order: max(max(z0, z1), z2) …
			g.VMAXPD(Z1, Z0, Z12)
			for j := 2; j < c; j++ {
				g.VMAXPD(z(j), Z12, Z12)
			}
		}
		g.JMP(lbl("maxed"))
	}
	g.Label(L + "maxed")
	g.VPADDD(Y15, Y16, Y17)
	gather(Y17, 0, 14)
	g.VSUBPD(Z12, Z14, Z14)

	// e_j = exp(z_j − max), expGroup classes at a time, summed in class
	// order; float32 e is rounded as the generic stores it.
	g.VPXORD(Z13, Z13, Z13)
	exps := func(j0, n int) {
		var regs []expRegs
		for j := j0; j < j0+n; j++ {
			g.VSUBPD(Z12, z(j), z(j))
			t := expScratch[j-j0]
			regs = append(regs, expRegs{z(j), z(j), t[0], t[1], t[2]})
		}
		g.expPDs(zmm, true, regs...)
		for j := j0; j < j0+n; j++ {
			g.VADDPD(z(j), Z13, Z13)
			if f32 {
				g.VCVTPD2PS(z(j), yy(j))
				g.VCVTPS2PD(yy(j), z(j))
			}
		}
	}
	for j0 := 0; j0 < maxLaneClasses; j0 += expGroup {
		full := fmt.Sprintf("%sexp%d", L, j0)
		g.CMPQ(RDX, u8(j0+expGroup))
		g.JAE(operand.LabelRef(full))
		for n := 1; n < expGroup; n++ { // k = j0+n: the last, partial group
			g.CMPQ(RDX, u8(j0+n))
			g.JNE(operand.LabelRef(fmt.Sprintf("%s_%d", full, n)))
			exps(j0, n)
			g.JMP(lbl("summed"))
			g.Label(fmt.Sprintf("%s_%d", full, n))
		}
		g.JMP(lbl("summed")) // k = j0
		g.Label(full)
		exps(j0, expGroup)
	}
	g.Label(L + "summed")

	// loss = log1p(sum − 1) − (z_y − max), for the block's rows.
	g.VSUBPD(zmm.k("one"), Z13, Z12)
	g.log1pPD(zmm, Z12, Z17, Z18, Z19, Z20, Z21)
	g.VSUBPD(Z14, Z17, Z17)
	if f32 {
		g.VCVTPD2PS(Z17, Y17)
		g.VMOVUPS(Y17, K1, mem(RDI, 0))
	} else {
		g.VMOVUPD(Z17, K1, mem(RDI, 0))
	}
	g.VMOVUPD(zmm.k("one"), Z12)
	g.VDIVPD(Z13, Z12, Z13)

	// z_j = e_j / sum, less one in the rows labelled j.
	for j := 0; j < maxLaneClasses; j++ {
		if j > 0 {
			g.CMPQ(RDX, u8(j))
			g.JE(lbl("stored"))
		}
		g.MOVL(operand.U32(uint64(j)), EAX)
		g.VPBROADCASTD(EAX, Y18)
		g.VPCMPEQD(Y18, Y15, K3)
		g.VMULPD(Z13, z(j), z(j))
		g.VSUBPD(zmm.k("one"), z(j), K3, z(j))
		g.KMOVW(K1, K2)
		if f32 {
			g.VCVTPD2PS(z(j), yy(j))
			g.VSCATTERDPS(yy(j), K2, vsib(Y16, j))
		} else {
			g.VSCATTERDPD(z(j), K2, vsib(Y16, j))
		}
	}
	g.Label(L + "stored")

	g.ADDQ(R13, RSI)
	g.ADDQ(u8(8*E), RDI)
	g.ADDQ(u8(32), RBX)
	g.SUBQ(u8(8), RCX)
	g.JG(lbl("block"))
	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// expGroup classes go through expPDs together; expScratch are their
// scratch registers.
const expGroup = 2

var expScratch = [expGroup][3]VecPhysical{{Z17, Z18, Z19}, {Z20, Z21, Z22}}

// laneIota is the eight int32 lanes 0, 1, …, 7.
func laneIota(g *gen) operand.Mem {
	if laneIotaMem == nil {
		m := g.data("laneIota", 4, 0, 1, 2, 3, 4, 5, 6, 7)
		laneIotaMem = &m
	}
	return *laneIotaMem
}

var laneIotaMem *operand.Mem
