package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// How an elementwise loop holds its data.
type layout int

const (
	wide64    layout = iota // float64, four lanes per register
	widened32               // float32 widened to float64 (VCVTPS2PD), four lanes
	native32                // float32, eight lanes per register
)

// inout names a data pointer register and the vector register its element
// block is loaded into (ins) or stored from (outs).
type inout struct {
	ptr Register
	vec int
}

// elementwise writes the loop of one elementwise kernel: whole blocks of
// four (native32: eight) elements, then one masked block for the rest. body
// computes the outs from the ins; skip is a label name unique to the step
// for bodies that branch around a rare path. With embed, the loop starts at
// label name+sfx inside the current TEXT instead of a TEXT of its own.
func (g *gen) elementwise(name string, l layout, ins []inout, outs []inout, setup func(), body func(skip string), embed bool) {
	sfx := "F32"
	if l == wide64 {
		sfx = "F64"
	}
	L := name + sfx
	w := 4
	if l == native32 {
		w = 8
	}
	if embed {
		g.Label(L)
	} else {
		g.text(name + sfx)
	}
	setup()
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, R9)
	g.ANDQ(i32(-w), R9)
	g.JZ(operand.LabelRef(L + "tail"))

	step := func(tail bool) {
		for _, in := range ins {
			switch l {
			case native32:
				if tail {
					g.VMASKMOVPS(memi(in.ptr, 0, RAX, 4), Y15, y(in.vec))
				} else {
					g.VMOVUPS(memi(in.ptr, 0, RAX, 4), y(in.vec))
				}
			case widened32:
				if tail {
					g.VMASKMOVPS(memi(in.ptr, 0, RAX, 4), X15, x(in.vec))
					g.VCVTPS2PD(x(in.vec), y(in.vec))
				} else {
					g.VCVTPS2PD(memi(in.ptr, 0, RAX, 4), y(in.vec))
				}
			default:
				if tail {
					g.VMASKMOVPD(memi(in.ptr, 0, RAX, 8), Y15, y(in.vec))
				} else {
					g.VMOVUPD(memi(in.ptr, 0, RAX, 8), y(in.vec))
				}
			}
		}
		skip := L + "skipl"
		if tail {
			skip = L + "skipt"
		}
		body(skip)
		for _, out := range outs {
			switch l {
			case native32:
				if tail {
					g.VMASKMOVPS(y(out.vec), Y15, memi(out.ptr, 0, RAX, 4))
				} else {
					g.VMOVUPS(y(out.vec), memi(out.ptr, 0, RAX, 4))
				}
			case widened32:
				g.VCVTPD2PSY(y(out.vec), x(out.vec))
				if tail {
					g.VMASKMOVPS(x(out.vec), X15, memi(out.ptr, 0, RAX, 4))
				} else {
					g.VMOVUPS(x(out.vec), memi(out.ptr, 0, RAX, 4))
				}
			default:
				if tail {
					g.VMASKMOVPD(y(out.vec), Y15, memi(out.ptr, 0, RAX, 8))
				} else {
					g.VMOVUPD(y(out.vec), memi(out.ptr, 0, RAX, 8))
				}
			}
		}
	}

	g.Label(L + "loop")
	step(false)
	g.ADDQ(u8(w), RAX)
	g.CMPQ(RAX, R9)
	g.JB(operand.LabelRef(L + "loop"))

	g.Label(L + "tail")
	g.MOVQ(RCX, R9)
	g.SUBQ(RAX, R9)
	g.JZ(operand.LabelRef(L + "done"))
	g.NEGQ(R9)
	if l == wide64 {
		g.ADDQ(u8(4), R9)
		g.LEAQ(f64.maskTab, R8)
		g.VMOVDQU(memi(R8, 0, R9, 8), Y15)
	} else {
		g.ADDQ(u8(8), R9)
		g.LEAQ(f32.maskTab, R8)
		if l == native32 {
			g.VMOVDQU(memi(R8, 0, R9, 4), Y15)
		} else {
			g.VMOVDQU(memi(R8, 0, R9, 4), X15)
		}
	}
	step(true)

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}
