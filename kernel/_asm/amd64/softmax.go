package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// softmax writes softmaxF32 / softmaxF64: the softmax cross-entropy of n
// rows of k logits, in blocks of four rows whose four sums share one log1p
// and one division, then the last rows one at a time. All arithmetic is in
// float64; float32 rows are widened on load and rounded on store.
func softmax(g *gen, p prec) {
	f32 := p.size == 4
	P := p.name
	E := uint8(p.size)
	L := "sm" + P
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }

	load := func(dst int, addr operand.Mem, tail bool) {
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

	// maxexp runs the max and exp passes over the row at R: it leaves
	// Y13 = max (broadcast), X12 = z_y − max (label in R9) and X11 = Σ e,
	// and stores the row's e in place.
	maxexp := func(R Register, tag string) {
		at := memi(R, 0, RAX, E)
		g.VMOVAPD(Y14, Y0)
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("maxtail" + tag))
		g.Label(L + "maxloop" + tag)
		load(1, at, false)
		g.VMAXPD(Y1, Y0, Y0)
		g.ADDQ(u8(4), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("maxloop" + tag))
		g.Label(L + "maxtail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("maxreduce" + tag))
		load(1, at, true)
		g.VBLENDVPD(Y10, Y1, Y14, Y1)
		g.VMAXPD(Y1, Y0, Y0)
		g.Label(L + "maxreduce" + tag)
		g.VEXTRACTF128(u8(1), Y0, X1)
		g.VMAXPD(X1, X0, X0)
		g.VPERMILPD(u8(1), X0, X1)
		g.VMAXPD(X1, X0, X0)
		g.VBROADCASTSD(X0, Y13)
		sload(12, memi(R, 0, R9, E))
		g.VSUBSD(X13, X12, X12)
		g.VXORPD(Y11, Y11, Y11)
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("exptail" + tag))
		g.Label(L + "exploop" + tag)
		load(0, at, false)
		g.VSUBPD(Y13, Y0, Y0)
		g.expPD(ymm, Y0, Y1, Y2, Y3, Y4, true)
		g.VADDPD(Y1, Y11, Y11)
		store(1, at, false)
		g.ADDQ(u8(4), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("exploop" + tag))
		g.Label(L + "exptail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("sumreduce" + tag))
		load(0, at, true)
		g.VSUBPD(Y13, Y0, Y0)
		g.expPD(ymm, Y0, Y1, Y2, Y3, Y4, true)
		g.VANDPD(Y10, Y1, Y1)
		g.VADDPD(Y1, Y11, Y11)
		store(1, at, true)
		g.Label(L + "sumreduce" + tag)
		g.VEXTRACTF128(u8(1), Y11, X1)
		g.VADDPD(X1, X11, X11)
		g.VHADDPD(X11, X11, X11)
	}

	// scale sets z_j *= inv (Y2 broadcast) over the row at R, then
	// z_y = e_y·inv − 1 (e_y loaded before the pass; label in R9).
	scale := func(R Register, tag string) {
		at := memi(R, 0, RAX, E)
		sload(3, memi(R, 0, R9, E))
		g.XORQ(RAX, RAX)
		g.TESTQ(R8, R8)
		g.JZ(lbl("scaletail" + tag))
		g.Label(L + "scaleloop" + tag)
		load(0, at, false)
		g.VMULPD(Y2, Y0, Y0)
		store(0, at, false)
		g.ADDQ(u8(4), RAX)
		g.CMPQ(RAX, R8)
		g.JB(lbl("scaleloop" + tag))
		g.Label(L + "scaletail" + tag)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("fix" + tag))
		load(0, at, true)
		g.VMULPD(Y2, Y0, Y0)
		store(0, at, true)
		g.Label(L + "fix" + tag)
		g.VMULSD(X2, X3, X3)
		g.VSUBSD(k["one"], X3, X3)
		sstore(3, memi(R, 0, R9, E))
	}

	g.text("softmax" + P)
	frame := g.AllocLocal(64) // four sums at 0(SP), four z_y − max at 32(SP)
	sp := func(disp int, index Register) operand.Mem {
		return operand.Mem{Base: frame.Base, Disp: disp, Index: index, Scale: 8}
	}
	g.MOVQ(g.param("loss"), RDI)
	g.MOVQ(g.param("z"), RSI)
	g.MOVQ(g.param("label"), RBX)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("k"), RDX)
	g.MOVQ(RDX, R13)
	if f32 {
		g.SHLQ(u8(2), R13)
	} else {
		g.SHLQ(u8(3), R13)
	}
	g.MOVQ(RDX, R8)
	g.ANDQ(i32(-4), R8)
	g.MOVQ(RDX, R10)
	g.SUBQ(R8, R10)
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

	// Blocks of four rows: per-row max, exp and sum; one log1p and one
	// division for the four rows; per-row scaling.
	g.Label(L + "block")
	g.CMPQ(RCX, u8(4))
	g.JB(lbl("row"))
	g.XORQ(R11, R11)
	g.MOVQ(RSI, R12)
	g.Label(L + "blkrow")
	g.MOVLQSX(memi(RBX, 0, R11, 4), R9)
	maxexp(R12, "b")
	g.VMOVSD(X11, sp(0, R11))
	g.VMOVSD(X12, sp(32, R11))
	g.ADDQ(R13, R12)
	g.INCQ(R11)
	g.CMPQ(R11, u8(4))
	g.JB(lbl("blkrow"))
	g.VMOVUPD(mem(frame.Base, 0), Y0)
	g.VSUBPD(k["one"], Y0, Y0)
	g.log1pPD(ymm, Y0, Y1, Y2, Y3, Y4, Y5)
	g.VSUBPD(mem(frame.Base, 32), Y1, Y1)
	if f32 {
		g.VCVTPD2PSY(Y1, X1)
		g.VMOVUPS(X1, mem(RDI, 0))
	} else {
		g.VMOVUPD(Y1, mem(RDI, 0))
	}
	g.VMOVUPD(k["one"], Y2)
	g.VDIVPD(mem(frame.Base, 0), Y2, Y2)
	g.VMOVUPD(Y2, mem(frame.Base, 0))
	g.XORQ(R11, R11)
	g.MOVQ(RSI, R12)
	g.Label(L + "blkscale")
	g.MOVLQSX(memi(RBX, 0, R11, 4), R9)
	g.VBROADCASTSD(sp(0, R11), Y2)
	scale(R12, "b")
	g.ADDQ(R13, R12)
	g.INCQ(R11)
	g.CMPQ(R11, u8(4))
	g.JB(lbl("blkscale"))
	g.MOVQ(R12, RSI)
	g.ADDQ(u8(4*p.size), RDI)
	g.ADDQ(u8(16), RBX)
	g.SUBQ(u8(4), RCX)
	g.JMP(lbl("block"))

	// The last rows one at a time.
	g.Label(L + "row")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	g.MOVLQSX(mem(RBX, 0), R9)
	maxexp(RSI, "r")
	g.VBROADCASTSD(X11, Y0)
	g.VSUBPD(k["one"], Y0, Y0)
	g.log1pPD(ymm, Y0, Y1, Y2, Y3, Y4, Y5)
	g.VSUBSD(X12, X1, X1)
	sstore(1, mem(RDI, 0))
	g.VMOVSD(k["one"], X2)
	g.VDIVSD(X11, X2, X2)
	g.VBROADCASTSD(X2, Y2)
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

// f32mask16 is maskTab32+16: indexed by 4−r in units of 4 bytes, it starts
// with r lanes of ones for a four-lane (128-bit) float32 mask.
func f32mask16() operand.Mem {
	m := f32.maskTab
	m.Disp += 16
	return m
}
