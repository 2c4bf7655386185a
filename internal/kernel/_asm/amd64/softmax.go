package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// softmax writes softmaxF32 / softmaxF64, or their zmm twins: the softmax
// cross-entropy of n rows of k logits. It takes blocks of four rows, whose
// four sums share one log1p and one division. Then it takes the last rows
// one at a time. All arithmetic is in float64; float32 rows are widened on
// load and rounded on store. The zmm kernel walks the rows eight float64
// lanes at a time. Its tail goes under the opmask K1, and exp's constants
// lie in Z16..Z31. The log1p of the sums and the scalar steps are the
// 256-bit ones.
func softmax(g *gen, v vec, p prec) {
	f32 := p.size == 4
	P := p.name
	E := uint8(p.size)
	L := v.prefix + "sm" + P
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	r := v.reg
	V := v.lanes(f64) // float64 lanes per register

	load := func(dst int, addr operand.Mem, tail bool) {
		if v.isZ() {
			switch {
			case f32 && tail:
				g.VMOVUPS_Z(addr, K1, yy(dst))
				g.VCVTPS2PD(yy(dst), z(dst))
			case f32:
				g.VCVTPS2PD(addr, z(dst))
			case tail:
				g.VMOVUPD_Z(addr, K1, z(dst))
			default:
				g.VMOVUPD(addr, z(dst))
			}
			return
		}
		if f32 {
			if tail {
				g.VMASKMOVPS(addr, X15, x(dst))
				g.VCVTPS2PD(x(dst), y(dst))
			} else {
				g.VCVTPS2PD(addr, y(dst))
			}
		} else if tail {
			g.VMASKMOVPD(addr, Y15, y(dst))
		} else {
			g.VMOVUPD(addr, y(dst))
		}
	}
	store := func(src int, addr operand.Mem, tail bool) {
		if v.isZ() {
			switch {
			case f32 && tail:
				g.VCVTPD2PS(z(src), yy(src))
				g.VMOVUPS(yy(src), K1, addr)
			case f32:
				g.VCVTPD2PS(z(src), yy(src))
				g.VMOVUPS(yy(src), addr)
			case tail:
				g.VMOVUPD(z(src), K1, addr)
			default:
				g.VMOVUPD(z(src), addr)
			}
			return
		}
		if f32 {
			g.VCVTPD2PSY(y(src), x(src))
			if tail {
				g.VMASKMOVPS(x(src), X15, addr)
			} else {
				g.VMOVUPS(x(src), addr)
			}
		} else if tail {
			g.VMASKMOVPD(y(src), Y15, addr)
		} else {
			g.VMOVUPD(y(src), addr)
		}
	}
	// Scalars as float64 in lane 0.
	sload := func(dst int, addr operand.Mem) {
		if f32 {
			g.VMOVSS(addr, x(dst))
			g.VCVTSS2SD(x(dst), x(dst), x(dst))
		} else {
			g.VMOVSD(addr, x(dst))
		}
	}
	sstore := func(src int, addr operand.Mem) {
		if f32 {
			g.VCVTSD2SS(x(src), x(src), x(src))
			g.VMOVSS(x(src), addr)
		} else {
			g.VMOVSD(x(src), addr)
		}
	}

	// The tail lanes' mask: Y10 (float64 lanes) or K1.
	tailMask := operand.Op(Y10)
	if v.isZ() {
		tailMask = K1
	}

	// maxexp runs the max and exp passes over the row at R, and stores the
	// row's e in place. It leaves r13 = max (broadcast), X12 = z_y − max
	// (label in R9) and X11 = Σ e.
	maxexp := func(R Register, tag string) {
		at := memi(R, 0, RAX, E)
		g.VMOVAPD(r(14), r(0))
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("maxtail" + tag))
		g.Label(L + "maxloop" + tag)
		load(1, at, false)
		g.VMAXPD(r(1), r(0), r(0))
		g.ADDQ(u8(V), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("maxloop" + tag))
		g.Label(L + "maxtail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("maxreduce" + tag))
		load(1, at, true)
		v.blend(g, f64, tailMask, r(1), r(14), r(1))
		g.VMAXPD(r(1), r(0), r(0))
		g.Label(L + "maxreduce" + tag)
		if v.isZ() {
			g.VEXTRACTF64X4(u8(1), Z0, Y1)
			g.VMAXPD(Y1, Y0, Y0)
		}
		g.VEXTRACTF128(u8(1), Y0, X1)
		g.VMAXPD(X1, X0, X0)
		g.VPERMILPD(u8(1), X0, X1)
		g.VMAXPD(X1, X0, X0)
		g.VBROADCASTSD(X0, r(13))
		sload(12, memi(R, 0, R9, E))
		g.VSUBSD(X13, X12, X12)
		v.zero(g, f64, r(11))
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("exptail" + tag))
		g.Label(L + "exploop" + tag)
		load(0, at, false)
		g.VSUBPD(r(13), r(0), r(0))
		g.expPD(v, r(0), r(1), r(2), r(3), r(4), true)
		g.VADDPD(r(1), r(11), r(11))
		store(1, at, false)
		g.ADDQ(u8(V), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("exploop" + tag))
		g.Label(L + "exptail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("sumreduce" + tag))
		load(0, at, true)
		g.VSUBPD(r(13), r(0), r(0))
		g.expPD(v, r(0), r(1), r(2), r(3), r(4), true)
		if v.isZ() {
			v.maskKeep(g, f64, Z1, K1, Z1)
		} else {
			g.VANDPD(Y10, Y1, Y1)
		}
		g.VADDPD(r(1), r(11), r(11))
		if v.isZ() {
			// The tail's e goes to the row's slot (R10) whole, not to z
			// under the mask. A masked store would stall the scale pass's
			// load of the same lanes: there is no store forwarding.
			if f32 {
				g.VCVTPD2PS(Z1, Y1)
				g.VMOVUPS(Y1, mem(R10, 0))
			} else {
				g.VMOVUPD(Z1, mem(R10, 0))
			}
		} else {
			store(1, at, true)
		}
		g.Label(L + "sumreduce" + tag)
		if v.isZ() {
			g.VEXTRACTF64X4(u8(1), Z11, Y1)
			g.VADDPD(Y1, Y11, Y11)
		}
		g.VEXTRACTF128(u8(1), Y11, X1)
		g.VADDPD(X1, X11, X11)
		g.VHADDPD(X11, X11, X11)
	}

	// scale sets z_j *= inv (r2 broadcast) over the row at R. Then it sets
	// z_y = e_y·inv − 1, with e_y loaded before the pass and the label in
	// R9. The zmm kernel takes the tail's e from the row's slot (R10).
	scale := func(R Register, tag string) {
		at := memi(R, 0, RAX, E)
		if v.isZ() {
			// e_y's address without a branch: in the slot when y is in
			// the tail (y ≥ R8).
			g.LEAQ(memi(R, 0, R9, E), RAX)
			g.MOVQ(R9, R14)
			g.SUBQ(R8, R14)
			g.LEAQ(memi(R10, 0, R14, E), R14)
			g.CMPQ(R9, R8)
			g.CMOVQCC(R14, RAX)
			sload(3, mem(RAX, 0))
		} else {
			sload(3, memi(R, 0, R9, E))
		}
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("scaletail" + tag))
		g.Label(L + "scaleloop" + tag)
		load(0, at, false)
		g.VMULPD(r(2), r(0), r(0))
		store(0, at, false)
		g.ADDQ(u8(V), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("scaleloop" + tag))
		g.Label(L + "scaletail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("fix" + tag))
		switch {
		case v.isZ() && f32:
			g.VCVTPS2PD(mem(R10, 0), Z0)
		case v.isZ():
			g.VMOVUPD(mem(R10, 0), Z0)
		default:
			load(0, at, true)
		}
		g.VMULPD(r(2), r(0), r(0))
		store(0, at, true)
		g.Label(L + "fix" + tag)
		g.VMULSD(X2, X3, X3)
		g.VSUBSD(k["one"], X3, X3)
		sstore(3, memi(R, 0, R9, E))
	}

	v.text(g, "softmax"+P)
	// Four sums at 0(SP), four z_y − max at 32(SP); zmm: the four rows'
	// tail slots at 64(SP).
	frameSize := 64
	if v.isZ() {
		frameSize += 4 * 64
	}
	frame := g.AllocLocal(frameSize)
	slots := operand.Mem{Base: frame.Base, Disp: frame.Disp + 64}
	sp := func(disp int, index Register) operand.Mem {
		return operand.Mem{Base: frame.Base, Disp: disp, Index: index, Scale: 8}
	}
	softmaxArgs(g)
	g.MOVQ(RDX, R13)
	if f32 {
		g.SHLQ(u8(2), R13)
	} else {
		g.SHLQ(u8(3), R13)
	}
	g.MOVQ(RDX, R8)
	g.ANDQ(i32(-V), R8)
	g.MOVQ(RDX, R10)
	g.SUBQ(R8, R10)
	if v.isZ() {
		g.lowLanesK1(R10L, R11L)
		// exp's constants in registers (log1p's, once per row or block of
		// four, stay in memory).
		g.pinConstants(func() { g.expPD(v, Z0, Z1, Z2, Z3, Z4, true) }, 0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15)
		defer unpin()
		g.VBROADCASTSD(k["negInf"], Z14)
	} else {
		g.NEGQ(R10)
		g.ADDQ(u8(4), R10)
		g.LEAQ(f64.maskTab, R11)
		g.VMOVDQU(memi(R11, 0, R10, 8), Y10)
		if f32 {
			g.LEAQ(f32mask16(), R11)
			g.VMOVDQU(memi(R11, 0, R10, 4), X15)
		} else {
			g.VMOVDQA(Y10, Y15)
		}
		g.VMOVUPD(k["negInf"], Y14)
	}

	// Blocks of four rows: per-row max, exp and sum; one log1p and one
	// division for the four rows; per-row scaling.
	g.Label(L + "block")
	g.CMPQ(RCX, u8(4))
	g.JB(lbl("row"))
	g.XORQ(R11, R11)
	g.MOVQ(RSI, R12)
	if v.isZ() {
		g.LEAQ(slots, R10)
	}
	g.Label(L + "blkrow")
	g.MOVLQSX(memi(RBX, 0, R11, 4), R9)
	maxexp(R12, "b")
	if v.isZ() {
		g.ADDQ(u8(64), R10)
	}
	g.VMOVSD(X11, sp(0, R11))
	g.VMOVSD(X12, sp(32, R11))
	g.ADDQ(R13, R12)
	g.INCQ(R11)
	g.CMPQ(R11, u8(4))
	g.JB(lbl("blkrow"))
	g.VMOVUPD(mem(frame.Base, 0), Y0)
	softmaxLoss4(g, f32, mem(frame.Base, 0), mem(frame.Base, 32), Y2)
	g.VMOVUPD(Y2, mem(frame.Base, 0))
	if v.isZ() {
		// The rows are scaled last to first. A row's masked tail store spans
		// the start of the next row. A later load of that row would have to
		// wait for it, as masked stores do not forward. Last to first, the
		// rows it spans are done.
		g.MOVQ(u32(3), R11)
		g.LEAQ(memi(R13, 0, R13, 2), R12)
		g.ADDQ(RSI, R12)
		g.LEAQ(operand.Mem{Base: slots.Base, Disp: slots.Disp + 3*64}, R10)
		g.Label(L + "blkscale")
		g.MOVLQSX(memi(RBX, 0, R11, 4), R9)
		g.VBROADCASTSD(sp(0, R11), r(2))
		scale(R12, "b")
		g.SUBQ(u8(64), R10)
		g.SUBQ(R13, R12)
		g.DECQ(R11)
		g.JNS(lbl("blkscale"))
		g.LEAQ(memi(RSI, 0, R13, 4), RSI)
	} else {
		g.XORQ(R11, R11)
		g.MOVQ(RSI, R12)
		g.Label(L + "blkscale")
		g.MOVLQSX(memi(RBX, 0, R11, 4), R9)
		g.VBROADCASTSD(sp(0, R11), r(2))
		scale(R12, "b")
		g.ADDQ(R13, R12)
		g.INCQ(R11)
		g.CMPQ(R11, u8(4))
		g.JB(lbl("blkscale"))
		g.MOVQ(R12, RSI)
	}
	g.ADDQ(u8(4*p.size), RDI)
	g.ADDQ(u8(16), RBX)
	g.SUBQ(u8(4), RCX)
	g.JMP(lbl("block"))

	// The last rows one at a time.
	g.Label(L + "row")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	g.MOVLQSX(mem(RBX, 0), R9)
	if v.isZ() {
		g.LEAQ(slots, R10)
	}
	maxexp(RSI, "r")
	g.VBROADCASTSD(X11, Y0)
	g.VSUBPD(k["one"], Y0, Y0)
	g.log1pPD(ymm, Y0, Y1, Y2, Y3, Y4, Y5)
	g.VSUBSD(X12, X1, X1)
	sstore(1, mem(RDI, 0))
	g.VMOVSD(k["one"], X2)
	g.VDIVSD(X11, X2, X2)
	g.VBROADCASTSD(X2, r(2))
	scale(RSI, "r")
	g.ADDQ(u8(p.size), RDI)
	g.ADDQ(u8(4), RBX)
	g.ADDQ(R13, RSI)
	g.DECQ(RCX)
	g.JMP(lbl("row"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// softmaxLoss4 stores the losses log(s) − zy of four rows to (DI), as
// log1p(s − 1). Here s are their sums (in Y0, clobbered, and at sum) and zy
// their z_y − max. It leaves 1/s in inv. Y1..Y5 are scratch.
func softmaxLoss4(g *gen, f32 bool, sum, zy operand.Op, inv VecPhysical) {
	g.VSUBPD(k["one"], Y0, Y0)
	g.log1pPD(ymm, Y0, Y1, Y2, Y3, Y4, Y5)
	g.VSUBPD(zy, Y1, Y1)
	if f32 {
		g.VCVTPD2PSY(Y1, X1)
		g.VMOVUPS(X1, mem(RDI, 0))
	} else {
		g.VMOVUPD(Y1, mem(RDI, 0))
	}
	g.VMOVUPD(k["one"], inv)
	g.VDIVPD(sum, inv, inv)
}

// softmaxArgs loads the arguments of the SoftmaxCE kernels. It loads loss
// into DI, z into SI, label into BX, n into CX and k into DX.
func softmaxArgs(g *gen) {
	g.MOVQ(g.param("loss"), RDI)
	g.MOVQ(g.param("z"), RSI)
	g.MOVQ(g.param("label"), RBX)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("k"), RDX)
}

// f32mask16 is maskTab32+16. Indexed by 4−r in units of 4 bytes, it starts
// with r lanes of ones. That is a four-lane (128-bit) float32 mask.
func f32mask16() operand.Mem {
	m := f32.maskTab
	m.Disp += 16
	return m
}
