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

// elementwise writes the loop of one elementwise kernel. It takes whole
// blocks of one register, then one masked block for the rest. A register
// holds four float64 or eight native float32; in zmm, eight or sixteen. The
// body computes the outs from the ins. skip is a label name unique to the
// step, for bodies that branch around a rare path. With embed, the loop
// starts at label name+sfx inside the current TEXT instead of a TEXT of its
// own. The zmm loop (v = zmm) masks its tail with K1, which the bodies leave
// alone.
func (g *gen) elementwise(v vec, name string, l layout, ins []inout, outs []inout, setup func(), body func(skip string), embed bool) {
	sfx := "F32"
	if l == wide64 {
		sfx = "F64"
	}
	L := v.prefix + name + sfx
	w := v.bytes / 8
	if l == native32 {
		w = v.bytes / 4
	}
	if embed {
		g.Label(L)
	} else {
		v.text(g, name+sfx)
	}
	setup()
	if v.isZ() {
		var busy []int
		for _, io := range append(append([]inout(nil), ins...), outs...) {
			busy = append(busy, io.vec)
		}
		g.pinConstants(func() { setup(); body("dry") }, busy...)
		defer unpin()
	}
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, R9)
	g.ANDQ(i32(-w), R9)
	g.JZ(operand.LabelRef(L + "tail"))

	r := v.reg
	step := func(tail bool) {
		for _, in := range ins {
			switch {
			case v.isZ() && l == widened32:
				src := memi(in.ptr, 0, RAX, 4)
				if tail {
					g.VMOVUPS_Z(src, K1, v.half(in.vec))
					g.VCVTPS2PD(v.half(in.vec), r(in.vec))
				} else {
					g.VCVTPS2PD(src, r(in.vec))
				}
			case v.isZ():
				p := f64
				if l == native32 {
					p = f32
				}
				src := memi(in.ptr, 0, RAX, uint8(p.size))
				if tail {
					v.maskLoad(g, p, K1, src, r(in.vec))
				} else {
					g.vmovu(p, src, r(in.vec))
				}
			case l == native32:
				if tail {
					g.VMASKMOVPS(memi(in.ptr, 0, RAX, 4), Y15, y(in.vec))
				} else {
					g.VMOVUPS(memi(in.ptr, 0, RAX, 4), y(in.vec))
				}
			case l == widened32:
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
			switch {
			case v.isZ() && l == widened32:
				dst := memi(out.ptr, 0, RAX, 4)
				v.cvtpd2ps(g, out.vec, out.vec)
				if tail {
					g.VMOVUPS(v.half(out.vec), K1, dst)
				} else {
					g.VMOVUPS(v.half(out.vec), dst)
				}
			case v.isZ():
				p := f64
				if l == native32 {
					p = f32
				}
				dst := memi(out.ptr, 0, RAX, uint8(p.size))
				if tail {
					v.maskStore(g, p, K1, r(out.vec), dst)
				} else {
					g.vmovu(p, r(out.vec), dst)
				}
			case l == native32:
				if tail {
					g.VMASKMOVPS(y(out.vec), Y15, memi(out.ptr, 0, RAX, 4))
				} else {
					g.VMOVUPS(y(out.vec), memi(out.ptr, 0, RAX, 4))
				}
			case l == widened32:
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
	switch {
	case v.isZ():
		g.lowLanesK1(R9L, R8L)
	case l == wide64:
		g.NEGQ(R9)
		g.ADDQ(u8(4), R9)
		g.LEAQ(f64.maskTab, R8)
		g.VMOVDQU(memi(R8, 0, R9, 8), Y15)
	default:
		g.NEGQ(R9)
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
