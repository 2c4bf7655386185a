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
		"F32": {"Exp and log are expPD and log1pPD, in float64. Here e and the", "results are rounded to float32 where the generic rounds them."},
		"F64": {"Exp and log are expPD and log1pPD."},
	}
	for P, end := range rounded {
		lanes := func(name, intro string, how ...string) {
			doc := append([]string{fmt.Sprintf(intro, name+P)}, how...)
			doc = append(doc,
				"Each row's max, exp and sum are those of softmaxCEGeneric, in its",
				"order: the sum adds classes 0, 1, …, k−1.")
			stubDocs[name+P] = stub{sig: "func(loss, z, label unsafe.Pointer, n, k int)", doc: append(doc, end...)}
		}
		lanes("zSoftmaxLanes", fmt.Sprintf("%%s is zSoftmax%s for 1 ≤ k ≤ %d with the rows as the lanes.", P, maxLaneClasses),
			"It takes eight rows at a time. Class j of the eight is gathered into",
			"one float64 register (VGATHERDP*) and scattered back (VSCATTERDP*).",
			"The last n mod 8 rows run under K1.")
		lanes("softmaxLanes", fmt.Sprintf("%%s is softmax%s for 1 ≤ k ≤ %d and n a multiple of 4.", P, maxLaneClassesYmm),
			"It takes the rows as the lanes, four rows at a time. Class j of the",
			"four is loaded element by element into one float64 register. It is",
			"stored back the same way. There are no gathers: they are slow on many",
			"AVX2 cores.")
	}
}

// softmaxLanes writes zSoftmaxLanesF32 / F64: SoftmaxCE for few classes with
// the rows as the lanes. The row kernel (softmax) spends most of a short row
// in horizontal max and sum reductions and per-row loop control. Here eight
// rows share every instruction, and nothing is reduced across lanes.
//
// Registers:
//
//   - Z0..Z(k−1): the classes of eight rows (float64);
//   - Z12: max, then scratch; Z13: the sums, then their inverses;
//   - Z14: z_y − max; Y15: the labels;
//   - Y16: the rows' offsets (lane·k, in elements);
//   - Y17: offsets of the labels' classes; Y18: the class j being fixed;
//   - Z17..Z22: the scratch of two exps (expScratch) and of log1p;
//   - Z23..Z31: exp's constants (the rest from memory);
//   - K1: the block's rows; K2: a copy for each gather and scatter.
func softmaxLanes(g *gen, p prec) {
	f32 := p.size == 4
	E := p.size
	L := "zsml" + p.name
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("zSoftmaxLanes" + p.name)

	softmaxArgs(g)
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

// maxLaneClassesYmm is the most classes softmaxLanesYmm takes: a block's
// class vectors wait in a stack frame of this many 32-byte slots.
const maxLaneClassesYmm = 16

// softmaxLanesYmm writes softmaxLanesF32 / F64, the 256-bit twin of
// softmaxLanes. It takes four rows a step. Their class vectors lie in a
// stack frame, as sixteen ymm registers cannot hold them. They are built
// from scalar loads, and stored by scalar stores and extracts. So it runs on
// any AVX2 core.
//
// Registers: R8..R11 the block's four rows, AX the class, R14 its frame
// slot; Y13 the max, then the sums' inverses; Y12 the sums; Y11
// z_y − max; X14 the labels; X7 the class as int32 lanes and X8 all ones
// (the fix-up pass); Y0..Y6 scratch.
func softmaxLanesYmm(g *gen, p prec) {
	f32 := p.size == 4
	E := p.size
	L := "sml" + p.name
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("softmaxLanes" + p.name)
	frame := g.AllocLocal(32 * maxLaneClassesYmm)
	slot := operand.Mem{Base: frame.Base, Disp: frame.Disp, Index: R14, Scale: 1}
	rows := []Register{R8, R9, R10, R11}

	softmaxArgs(g)
	g.MOVQ(RDX, R13)
	g.SHLQ(u8(shift(p)), R13) // R13: bytes of a row
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))

	// load4 sets y(dst) to the elements at (rows[r])(index[r]·E) of the
	// four rows, as float64; x(tmp) is scratch.
	load4 := func(dst, tmp int, index func(r int) Register) {
		at := func(r int) operand.Mem { return memi(rows[r], 0, index(r), uint8(E)) }
		if f32 {
			g.VMOVSS(at(0), x(dst))
			for r := 1; r < 4; r++ {
				g.VINSERTPS(u8(r<<4), at(r), x(dst), x(dst))
			}
			g.VCVTPS2PD(x(dst), y(dst))
			return
		}
		g.VMOVSD(at(0), x(dst))
		g.VMOVHPD(at(1), x(dst), x(dst))
		g.VMOVSD(at(2), x(tmp))
		g.VMOVHPD(at(3), x(tmp), x(tmp))
		g.VINSERTF128(u8(1), x(tmp), y(dst), y(dst))
	}
	class := func(int) Register { return RAX }
	// classLoop runs body for each class, AX = j and R14 = 32·j.
	classLoop := func(tag string, body func()) {
		g.XORQ(RAX, RAX)
		g.XORQ(R14, R14)
		g.Label(L + tag)
		body()
		g.INCQ(RAX)
		g.ADDQ(u8(32), R14)
		g.CMPQ(RAX, RDX)
		g.JB(lbl(tag))
	}

	g.Label(L + "block")
	g.MOVQ(RSI, R8)
	g.LEAQ(memi(R8, 0, R13, 1), R9)
	g.LEAQ(memi(R9, 0, R13, 1), R10)
	g.LEAQ(memi(R10, 0, R13, 1), R11)
	g.VMOVDQU(mem(RBX, 0), X14)

	// The max over the classes, in order; the classes to the frame.
	g.VMOVUPD(k["negInf"], Y13)
	classLoop("max", func() {
		load4(0, 1, class)
		g.VMAXPD(Y0, Y13, Y13)
		g.VMOVUPD(Y0, slot)
	})
	// z_y − max: each row's label in R12 in turn.
	if f32 {
		for r := 0; r < 4; r++ {
			g.MOVLQSX(mem(RBX, 4*r), R12)
			if r == 0 {
				g.VMOVSS(memi(rows[r], 0, R12, 4), X11)
			} else {
				g.VINSERTPS(u8(r<<4), memi(rows[r], 0, R12, 4), X11, X11)
			}
		}
		g.VCVTPS2PD(X11, Y11)
	} else {
		for r := 0; r < 4; r++ {
			g.MOVLQSX(mem(RBX, 4*r), R12)
			d := []VecPhysical{X11, X11, X1, X1}[r]
			if r%2 == 0 {
				g.VMOVSD(memi(rows[r], 0, R12, 8), d)
			} else {
				g.VMOVHPD(memi(rows[r], 0, R12, 8), d, d)
			}
		}
		g.VINSERTF128(u8(1), X1, Y11, Y11)
	}
	g.VSUBPD(Y13, Y11, Y11)

	// e_j = exp(z_j − max) goes to the frame, two classes at a time, their
	// steps interleaved. It is summed in class order. A float32 e is rounded
	// as the generic stores it.
	g.VXORPD(Y12, Y12, Y12)
	next := operand.Mem{Base: frame.Base, Disp: frame.Disp + 32, Index: R14, Scale: 1}
	exps := func(slots []operand.Mem) {
		regs := []expRegs{{Y0, Y0, Y1, Y2, Y3}, {Y4, Y4, Y5, Y6, Y7}}[:len(slots)]
		for i, s := range slots {
			g.VMOVUPD(s, regs[i].x)
			g.VSUBPD(Y13, regs[i].x, regs[i].x)
		}
		g.expPDs(ymm, true, regs...)
		for i, s := range slots {
			r := regs[i].r
			g.VADDPD(r, Y12, Y12)
			if f32 {
				g.VCVTPD2PSY(r, x(int(r.PhysicalIndex())))
				g.VCVTPS2PD(x(int(r.PhysicalIndex())), r)
			}
			g.VMOVUPD(r, s)
		}
	}
	g.XORQ(RAX, RAX)
	g.XORQ(R14, R14)
	g.Label(L + "exp2")
	g.LEAQ(mem(RAX, 2), R12)
	g.CMPQ(R12, RDX)
	g.JA(lbl("exp1"))
	exps([]operand.Mem{slot, next})
	g.MOVQ(R12, RAX)
	g.ADDQ(u8(64), R14)
	g.JMP(lbl("exp2"))
	g.Label(L + "exp1")
	g.CMPQ(RAX, RDX)
	g.JAE(lbl("summed"))
	exps([]operand.Mem{slot})
	g.Label(L + "summed")

	// loss = log1p(sum − 1) − (z_y − max).
	g.VMOVAPD(Y12, Y0)
	softmaxLoss4(g, f32, Y12, Y11, Y13)

	// z_j = e_j / sum, less one in the rows labelled j (X7 = j).
	g.VPXOR(X7, X7, X7)
	g.VPCMPEQD(X8, X8, X8)
	classLoop("scale", func() {
		g.VMULPD(slot, Y13, Y0)
		g.VPCMPEQD(X7, X14, X1)
		g.VPMOVSXDQ(X1, Y1)
		g.VANDPD(k["one"], Y1, Y1)
		g.VSUBPD(Y1, Y0, Y0)
		at := func(r int) operand.Mem { return memi(rows[r], 0, RAX, uint8(E)) }
		if f32 {
			g.VCVTPD2PSY(Y0, X0)
			g.VMOVSS(X0, at(0))
			for r := 1; r < 4; r++ {
				g.VEXTRACTPS(u8(r), X0, at(r))
			}
		} else {
			g.VMOVSD(X0, at(0))
			g.VMOVHPD(X0, at(1))
			g.VEXTRACTF128(u8(1), Y0, X1)
			g.VMOVSD(X1, at(2))
			g.VMOVHPD(X1, at(3))
		}
		g.VPSUBD(X8, X7, X7)
	})

	g.LEAQ(memi(RSI, 0, R13, 4), RSI)
	g.ADDQ(u8(4*E), RDI)
	g.ADDQ(u8(16), RBX)
	g.SUBQ(u8(4), RCX)
	g.JNZ(lbl("block"))
	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}
