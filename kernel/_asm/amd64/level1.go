package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() {
	sectionDocs = append(sectionDocs, `// Level-1 kernels: Dot, Axpy, Lerp for float32 and float64.
//
// Tails: Dot's main loop takes 64 float32 / 32 float64 elements (eight
// registers, eight accumulators) per iteration, then two registers and one
// (Axpy's and Lerp's main loops take four registers, then one at a time);
// the last 0..7 float32 / 0..3 float64 elements are read and written with
// VMASKMOVPS/PD under a lane mask from maskTab32/maskTab64, so no kernel
// touches memory past the end of its slices (masked-off lanes are neither
// loaded nor stored). Dot's main loop prefetches 1 KiB ahead on both inputs
// (PREFETCHT0 never faults, so prefetching past the end is harmless).
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

// Instruction forms that differ between the precisions.

func (g *gen) vmovu(p prec, src, dst operand.Op) {
	if p.size == 4 {
		g.VMOVUPS(src, dst)
	} else {
		g.VMOVUPD(src, dst)
	}
}

func (g *gen) vfmadd231(p prec, a, b, acc operand.Op) {
	if p.size == 4 {
		g.VFMADD231PS(a, b, acc)
	} else {
		g.VFMADD231PD(a, b, acc)
	}
}

func (g *gen) vmaskmov(p prec, a, b, c operand.Op) {
	if p.size == 4 {
		g.VMASKMOVPS(a, b, c)
	} else {
		g.VMASKMOVPD(a, b, c)
	}
}

func (g *gen) vadd(p prec, a, b, c operand.Op) {
	if p.size == 4 {
		g.VADDPS(a, b, c)
	} else {
		g.VADDPD(a, b, c)
	}
}

func (g *gen) vsub(p prec, a, b, c operand.Op) {
	if p.size == 4 {
		g.VSUBPS(a, b, c)
	} else {
		g.VSUBPD(a, b, c)
	}
}

func (g *gen) vxor(p prec, a, b, c operand.Op) {
	if p.size == 4 {
		g.VXORPS(a, b, c)
	} else {
		g.VXORPD(a, b, c)
	}
}

func (g *gen) vhadd(p prec, a, b, c operand.Op) {
	if p.size == 4 {
		g.VHADDPS(a, b, c)
	} else {
		g.VHADDPD(a, b, c)
	}
}

func (g *gen) vbroadcast(p prec, src, dst operand.Op) {
	if p.size == 4 {
		g.VBROADCASTSS(src, dst)
	} else {
		g.VBROADCASTSD(src, dst)
	}
}

func level1(g *gen) {
	maskTables(g)
	for _, p := range []prec{f32, f64} {
		dot(g, p)
	}
	for _, p := range []prec{f32, f64} {
		axpyLerp(g, p, false)
		axpyLerp(g, p, true)
	}
}

// dot: eight accumulators over 64 float32 / 32 float64 elements, then two
// registers, one register and a masked tail.
func dot(g *gen, p prec) {
	n := p.name
	s := uint8(p.size)
	g.text("dot" + n)
	L := fmt.Sprintf("dot%d", 8*p.size)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("y"), RDI)
	g.MOVQ(g.param("n"), RCX)
	for i := 0; i < 8; i++ {
		g.vxor(p, y(i), y(i), y(i))
	}
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-8*p.lanes), RDX)
	g.JZ(operand.LabelRef(L + "one"))

	g.Label(L + "loop4")
	g.PREFETCHT0(memi(RSI, 1024, RAX, s))
	g.PREFETCHT0(memi(RDI, 1024, RAX, s))
	for i := 0; i < 8; i++ {
		g.vmovu(p, memi(RSI, 32*i, RAX, s), y(8+i))
	}
	for i := 0; i < 8; i++ {
		g.vfmadd231(p, memi(RDI, 32*i, RAX, s), y(8+i), y(i))
	}
	g.ADDQ(u8(8*p.lanes), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(operand.LabelRef(L + "loop4"))

	g.Label(L + "one")
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-2*p.lanes), RDX)
	g.CMPQ(RAX, RDX)
	g.JAE(operand.LabelRef(L + "single"))

	g.Label(L + "loop2")
	g.vmovu(p, memi(RSI, 0, RAX, s), Y8)
	g.vmovu(p, memi(RSI, 32, RAX, s), Y9)
	g.vfmadd231(p, memi(RDI, 0, RAX, s), Y8, Y0)
	g.vfmadd231(p, memi(RDI, 32, RAX, s), Y9, Y1)
	g.ADDQ(u8(2*p.lanes), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(operand.LabelRef(L + "loop2"))

	g.Label(L + "single")
	g.MOVQ(RCX, RDX)
	g.SUBQ(RAX, RDX)
	g.CMPQ(RDX, u8(p.lanes))
	g.JB(operand.LabelRef(L + "tail"))
	g.vmovu(p, memi(RSI, 0, RAX, s), Y8)
	g.vfmadd231(p, memi(RDI, 0, RAX, s), Y8, Y2)
	g.ADDQ(u8(p.lanes), RAX)

	g.Label(L + "tail")
	g.MOVQ(RCX, RDX)
	g.SUBQ(RAX, RDX)
	g.JZ(operand.LabelRef(L + "reduce"))
	g.LEAQ(p.maskTab, R8)
	g.MOVQ(u32(p.lanes), R9)
	g.SUBQ(RDX, R9)
	g.VMOVDQU(memi(R8, 0, R9, s), Y10)
	g.vmaskmov(p, memi(RSI, 0, RAX, s), Y10, Y8)
	g.vmaskmov(p, memi(RDI, 0, RAX, s), Y10, Y9)
	g.vfmadd231(p, Y9, Y8, Y3)

	g.Label(L + "reduce")
	for i := 0; i < 4; i++ {
		g.vadd(p, y(4+i), y(i), y(i))
	}
	g.vadd(p, Y1, Y0, Y0)
	g.vadd(p, Y3, Y2, Y2)
	g.vadd(p, Y2, Y0, Y0)
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
func axpyLerp(g *gen, p prec, lerp bool) {
	kind, a := "axpy", "a"
	if lerp {
		kind, a = "lerp", "t"
	}
	name := kind + p.name
	g.text(name)
	L := fmt.Sprintf("%sf%d", kind, 8*p.size)
	s := uint8(p.size)
	g.vbroadcast(p, g.param(a), Y15)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("y"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-4*p.lanes), RDX)
	g.JZ(operand.LabelRef(L + "one"))

	// y moves with VMOVUPS in both precisions: a plain move needs no type.
	g.Label(L + "loop4")
	for i := 0; i < 4; i++ {
		g.VMOVUPS(memi(RDI, 32*i, RAX, s), y(i))
	}
	if lerp {
		for i := 0; i < 4; i++ {
			g.VMOVUPS(memi(RSI, 32*i, RAX, s), y(4+i))
		}
		for i := 0; i < 4; i++ {
			g.vsub(p, y(i), y(4+i), y(4+i))
		}
		for i := 0; i < 4; i++ {
			g.vfmadd231(p, y(4+i), Y15, y(i))
		}
	} else {
		for i := 0; i < 4; i++ {
			g.vfmadd231(p, memi(RSI, 32*i, RAX, s), Y15, y(i))
		}
	}
	for i := 0; i < 4; i++ {
		g.VMOVUPS(y(i), memi(RDI, 32*i, RAX, s))
	}
	g.ADDQ(u8(4*p.lanes), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(operand.LabelRef(L + "loop4"))

	g.Label(L + "one")
	g.MOVQ(RCX, RDX)
	g.ANDQ(i32(-p.lanes), RDX)
	g.CMPQ(RAX, RDX)
	g.JAE(operand.LabelRef(L + "tail"))

	g.Label(L + "loop1")
	g.VMOVUPS(memi(RDI, 0, RAX, s), Y0)
	if lerp {
		g.VMOVUPS(memi(RSI, 0, RAX, s), Y4)
		g.vsub(p, Y0, Y4, Y4)
		g.vfmadd231(p, Y4, Y15, Y0)
	} else {
		g.vfmadd231(p, memi(RSI, 0, RAX, s), Y15, Y0)
	}
	g.VMOVUPS(Y0, memi(RDI, 0, RAX, s))
	g.ADDQ(u8(p.lanes), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(operand.LabelRef(L + "loop1"))

	g.Label(L + "tail")
	g.MOVQ(RCX, RDX)
	g.SUBQ(RAX, RDX)
	g.JZ(operand.LabelRef(L + "done"))
	g.LEAQ(p.maskTab, R8)
	g.MOVQ(u32(p.lanes), R9)
	g.SUBQ(RDX, R9)
	g.VMOVDQU(memi(R8, 0, R9, s), Y8)
	g.vmaskmov(p, memi(RDI, 0, RAX, s), Y8, Y0)
	g.vmaskmov(p, memi(RSI, 0, RAX, s), Y8, Y4)
	if lerp {
		g.vsub(p, Y0, Y4, Y4)
	}
	g.vfmadd231(p, Y4, Y15, Y0)
	g.vmaskmov(p, Y0, Y8, memi(RDI, 0, RAX, s))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}
