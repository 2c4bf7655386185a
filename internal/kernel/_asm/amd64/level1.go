package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() {
	sectionDocs = append(sectionDocs, `// Level-1 kernels: Dot, Axpy, Lerp for float32 and float64.
//
// Tails: Dot's main loop takes 64 float32 / 32 float64 elements per
// iteration, in eight registers and eight accumulators. Then it takes two
// registers, and one. Axpy's and Lerp's main loops take four registers, then
// one at a time. The last 0..7 float32 / 0..3 float64 elements go under a
// lane mask from maskTab32/maskTab64. They are read and written with
// VMASKMOVPS/PD. So no kernel touches memory past the end of its slices:
// masked-off lanes are neither loaded nor stored. Dot's main loop prefetches
// 1 KiB ahead on both inputs. PREFETCHT0 never faults, so prefetching past
// the end is harmless.
//
// Accuracy: Axpy and Lerp are elementwise, y[i] = fma(a, x[i], y[i]) and
// y[i] = fma(t, x[i]-y[i], y[i]), each rounded once. Dot sums in eight
// vector accumulators, so its rounding differs from a sequential sum, within
// |got − exact| ≤ (n+1)·u·Σ|x_i·y_i|.
`)
}

// prec describes one precision's instruction forms.
type prec struct {
	name    string // "F32" or "F64"
	size    int    // bytes per element
	lanes   int    // elements per 256-bit register
	goType  string // "float32" or "float64"
	fmaSfx  string // "PS" or "PD"
	maskTab operand.Mem
}

var f32, f64 prec

// maskTables adds the lane-mask tables the tails load from:
// maskTab32+4*(8-r) (and maskTab64+8*(4-r)) starts with r lanes of ones
// followed by zeros.
func maskTables(g *gen) {
	ones, zeros := uint64(0xffffffff), uint64(0)
	f32 = prec{"F32", 4, 8, "float32", "PS",
		g.data("maskTab32", 4, ones, ones, ones, ones, ones, ones, ones, ones, zeros, zeros, zeros, zeros, zeros, zeros, zeros, zeros)}
	ones = 0xffffffffffffffff
	f64 = prec{"F64", 8, 4, "float64", "PD",
		g.data("maskTab64", 8, ones, ones, ones, ones, zeros, zeros, zeros, zeros)}
}

// Instruction forms that differ between the precisions: byPrec picks the
// float32 (PS/SS) or float64 (PD/SD) form.

func byPrec[F any](p prec, f32Form, f64Form F) F {
	if p.size == 4 {
		return f32Form
	}
	return f64Form
}

func (g *gen) vmovu(p prec, ops ...operand.Op) { byPrec(p, g.VMOVUPS, g.VMOVUPD)(ops...) }

func (g *gen) vfmadd231(p prec, a, b, acc operand.Op) {
	byPrec(p, g.VFMADD231PS, g.VFMADD231PD)(a, b, acc)
}

func (g *gen) vmaskmov(p prec, a, b, c operand.Op) { byPrec(p, g.VMASKMOVPS, g.VMASKMOVPD)(a, b, c) }
func (g *gen) vadd(p prec, a, b, c operand.Op)     { byPrec(p, g.VADDPS, g.VADDPD)(a, b, c) }
func (g *gen) vsub(p prec, a, b, c operand.Op)     { byPrec(p, g.VSUBPS, g.VSUBPD)(a, b, c) }
func (g *gen) vxor(p prec, a, b, c operand.Op)     { byPrec(p, g.VXORPS, g.VXORPD)(a, b, c) }
func (g *gen) vhadd(p prec, a, b, c operand.Op)    { byPrec(p, g.VHADDPS, g.VHADDPD)(a, b, c) }

func (g *gen) vbroadcast(p prec, src, dst operand.Op) {
	byPrec(p, g.VBROADCASTSS, g.VBROADCASTSD)(src, dst)
}

func level1(g *gen) {
	maskTables(g)
	for _, p := range []prec{f32, f64} {
		dot(g, ymm, p)
	}
	for _, p := range []prec{f32, f64} {
		axpyLerp(g, ymm, p, false)
		axpyLerp(g, ymm, p, true)
	}
}

// dot: eight accumulators over eight registers, then (ymm) two registers
// and one or (zmm) one register at a time, then a masked tail.
func dot(g *gen, v vec, p prec) {
	s := uint8(p.size)
	V := v.lanes(p)
	R := v.bytes
	r := v.reg
	v.text(g, "dot"+p.name)
	L := fmt.Sprintf("%sdot%d", v.prefix, 8*p.size)
	lbl := func(x string) operand.LabelRef { return operand.LabelRef(L + x) }
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("y"), RDI)
	g.MOVQ(g.param("n"), RCX)
	for i := 0; i < 8; i++ {
		v.zero(g, p, r(i))
	}
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-8*V), RDX)
	g.JZ(lbl("one"))

	loop8 := "loop4" // the ymm kernel's historical label
	if v.isZ() {
		loop8 = "loop8"
	}
	g.Label(L + loop8)
	for off := 0; off < 8*R; off += 256 { // a line per 256 bytes, 1 KiB ahead
		g.PREFETCHT0(memi(RSI, 1024+off, RAX, s))
		g.PREFETCHT0(memi(RDI, 1024+off, RAX, s))
	}
	for i := 0; i < 8; i++ {
		g.vmovu(p, memi(RSI, R*i, RAX, s), r(8+i))
	}
	for i := 0; i < 8; i++ {
		g.vfmadd231(p, memi(RDI, R*i, RAX, s), r(8+i), r(i))
	}
	g.ADDQ(v.unrolledStep(8*V), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(lbl(loop8))

	g.Label(L + "one")
	tailAcc := r(2)
	if v.isZ() {
		g.MOVQ(RCX, RDX)
		g.ANDQ(i32(-V), RDX)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("tail"))
		g.Label(L + "loop1")
		g.vmovu(p, memi(RSI, 0, RAX, s), r(8))
		g.vfmadd231(p, memi(RDI, 0, RAX, s), r(8), r(1))
		g.ADDQ(u8(V), RAX)
		g.CMPQ(RAX, RDX)
		g.JB(lbl("loop1"))
	} else {
		g.MOVQ(RCX, RDX)
		g.ANDQ(i32(-2*V), RDX)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("single"))

		g.Label(L + "loop2")
		g.vmovu(p, memi(RSI, 0, RAX, s), r(8))
		g.vmovu(p, memi(RSI, R, RAX, s), r(9))
		g.vfmadd231(p, memi(RDI, 0, RAX, s), r(8), r(0))
		g.vfmadd231(p, memi(RDI, R, RAX, s), r(9), r(1))
		g.ADDQ(u8(2*V), RAX)
		g.CMPQ(RAX, RDX)
		g.JB(lbl("loop2"))

		g.Label(L + "single")
		g.MOVQ(RCX, RDX)
		g.SUBQ(RAX, RDX)
		g.CMPQ(RDX, u8(V))
		g.JB(lbl("tail"))
		g.vmovu(p, memi(RSI, 0, RAX, s), r(8))
		g.vfmadd231(p, memi(RDI, 0, RAX, s), r(8), r(2))
		g.ADDQ(u8(V), RAX)
		tailAcc = r(3)
	}

	g.Label(L + "tail")
	g.MOVQ(RCX, RDX)
	g.SUBQ(RAX, RDX)
	g.JZ(lbl("reduce"))
	mask := v.tailMask(g, p, Y10)
	v.maskLoad(g, p, mask, memi(RSI, 0, RAX, s), r(8))
	v.maskLoad(g, p, mask, memi(RDI, 0, RAX, s), r(9))
	g.vfmadd231(p, r(9), r(8), tailAcc)

	g.Label(L + "reduce")
	for i := 0; i < 4; i++ {
		g.vadd(p, r(4+i), r(i), r(i))
	}
	g.vadd(p, r(1), r(0), r(0))
	g.vadd(p, r(3), r(2), r(2))
	g.vadd(p, r(2), r(0), r(0))
	v.fold(g, p, 0, 0, 1)
	g.VEXTRACTF128(u8(1), Y0, X1)
	g.vadd(p, X1, X0, X0)
	if p.size == 4 {
		g.VMOVHLPS(X0, X0, X1)
		g.VADDPS(X1, X0, X0)
		g.VMOVSHDUP(X0, X1)
		g.VADDSS(X1, X0, X0)
		g.VZEROUPPER()
		g.MOVSS(X0, g.ret())
	} else {
		g.VHADDPD(X0, X0, X0)
		g.VZEROUPPER()
		g.MOVSD(X0, g.ret())
	}
	g.RET()
}

// axpyLerp: y = fma(a, x, y) (lerp: y = fma(t, x-y, y)) over four
// registers, then one, then a masked tail.
func axpyLerp(g *gen, v vec, p prec, lerp bool) {
	kind, a := "axpy", "a"
	if lerp {
		kind, a = "lerp", "t"
	}
	v.text(g, kind+p.name)
	L := fmt.Sprintf("%s%sf%d", v.prefix, kind, 8*p.size)
	lbl := func(x string) operand.LabelRef { return operand.LabelRef(L + x) }
	s := uint8(p.size)
	V := v.lanes(p)
	R := v.bytes
	r := v.reg
	g.vbroadcast(p, g.param(a), r(15))
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("y"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-4*V), RDX)
	g.JZ(lbl("one"))

	// y moves with VMOVUPS in both precisions: a plain move needs no type.
	g.Label(L + "loop4")
	for i := 0; i < 4; i++ {
		g.VMOVUPS(memi(RDI, R*i, RAX, s), r(i))
	}
	if lerp {
		for i := 0; i < 4; i++ {
			g.VMOVUPS(memi(RSI, R*i, RAX, s), r(4+i))
		}
		for i := 0; i < 4; i++ {
			g.vsub(p, r(i), r(4+i), r(4+i))
		}
		for i := 0; i < 4; i++ {
			g.vfmadd231(p, r(4+i), r(15), r(i))
		}
	} else {
		for i := 0; i < 4; i++ {
			g.vfmadd231(p, memi(RSI, R*i, RAX, s), r(15), r(i))
		}
	}
	for i := 0; i < 4; i++ {
		g.VMOVUPS(r(i), memi(RDI, R*i, RAX, s))
	}
	g.ADDQ(v.unrolledStep(4*V), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(lbl("loop4"))

	g.Label(L + "one")
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-V), RDX)
	g.CMPQ(RAX, RDX)
	g.JAE(lbl("tail"))

	g.Label(L + "loop1")
	g.VMOVUPS(memi(RDI, 0, RAX, s), r(0))
	if lerp {
		g.VMOVUPS(memi(RSI, 0, RAX, s), r(4))
		g.vsub(p, r(0), r(4), r(4))
		g.vfmadd231(p, r(4), r(15), r(0))
	} else {
		g.vfmadd231(p, memi(RSI, 0, RAX, s), r(15), r(0))
	}
	g.VMOVUPS(r(0), memi(RDI, 0, RAX, s))
	g.ADDQ(u8(V), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(lbl("loop1"))

	g.Label(L + "tail")
	g.MOVQ(RCX, RDX)
	g.SUBQ(RAX, RDX)
	g.JZ(lbl("done"))
	mask := v.tailMask(g, p, Y8)
	v.maskLoad(g, p, mask, memi(RDI, 0, RAX, s), r(0))
	v.maskLoad(g, p, mask, memi(RSI, 0, RAX, s), r(4))
	if lerp {
		g.vsub(p, r(0), r(4), r(4))
	}
	g.vfmadd231(p, r(4), r(15), r(0))
	v.maskStore(g, p, mask, r(0), memi(RDI, 0, RAX, s))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}
