package main

import (
	"fmt"
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() { sectionDocs = append(sectionDocs, rowsDoc) }

// pfDist is how far ahead, in bytes, the prefetching (PF) variants of the
// row kernels prefetch each row they read. For rows out of cache,
// interleaved row streams otherwise fall short of one stream's bandwidth.
// (For rows in cache the prefetches only cost load slots, so the wrappers
// call the plain kernels there.)
const pfDist = 512

// pfHeadBytes is how much of the next block's four rows the prefetching
// margins kernels ask for as each block starts. The lines pfDist ahead
// within a row never reach a row's first ones. 1 KiB of each covers that
// start. Asking for the next rows whole would take bandwidth from the rows
// being read.
const pfHeadBytes = 2 * pfDist

// rowKernelNames returns a row kernel's TEXT name and its label prefix. The
// name is base, then "PF" for the prefetching variant, then the precision.
// The prefix is short, then "p" for the prefetching variant, then the
// precision in lower case.
func rowKernelNames(base, short string, p prec, pf bool) (name, labels string) {
	if pf {
		base, short = base+"PF", short+"p"
	}
	return base + p.name, short + lower(p.name)
}

func rowKernels(g *gen) {
	for _, pf := range []bool{false, true} {
		for _, p := range []prec{f32, f64} {
			margins(g, ymm, p, pf)
			addRows(g, ymm, p, pf)
		}
	}
	for _, p := range []prec{f32, f64} {
		addRowsK(g, ymm, p)
	}
}

// rowRegs are the four row pointers of a block.
var rowRegs = []Register{R10, R11, R12, R13}

// shift is log2 of the element size.
func shift(p prec) int {
	if p.size == 4 {
		return 2
	}
	return 3
}

// maskSet loads the lane mask for the last d mod lanes columns into Y15 and
// rounds d (in dreg) down to whole two-register chunks.
func maskSet(g *gen, p prec, dreg Register) {
	w := p.lanes
	g.MOVQ(dreg, RAX)
	g.ANDQ(u8(w-1), RAX)
	g.NEGQ(RAX)
	g.ADDQ(u8(w), RAX)
	g.LEAQ(p.maskTab, R10)
	g.VMOVDQU(memi(R10, 0, RAX, uint8(p.size)), Y15)
	g.ANDQ(i32(-2*w), dreg)
}

// rows4 sets R10..R13 to the next four rows: gathered through idx (BX) or
// consecutive from SI; R9 is the row stride in bytes.
func rows4(g *gen, L string) {
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec"))
	for i, r := range rowRegs {
		g.MOVQ(mem(RBX, 8*i), r)
		g.IMULQ(R9, r)
		g.ADDQ(RSI, r)
	}
	g.ADDQ(u8(32), RBX)
	g.JMP(operand.LabelRef(L + "ready"))
	g.Label(L + "consec")
	g.MOVQ(RSI, R10)
	g.LEAQ(memi(R10, 0, R9, 1), R11)
	g.LEAQ(memi(R11, 0, R9, 1), R12)
	g.LEAQ(memi(R12, 0, R9, 1), R13)
	g.LEAQ(memi(R13, 0, R9, 1), RSI)
	g.Label(L + "ready")
}

// rows1 sets R10 to the next row.
func rows1(g *gen, L string) {
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec1"))
	g.MOVQ(mem(RBX, 0), R10)
	g.IMULQ(R9, R10)
	g.ADDQ(RSI, R10)
	g.ADDQ(u8(8), RBX)
	g.JMP(operand.LabelRef(L + "ready1"))
	g.Label(L + "consec1")
	g.MOVQ(RSI, R10)
	g.ADDQ(R9, RSI)
	g.Label(L + "ready1")
}

// margins: four rows × two registers of columns, eight accumulators, then
// one row at a time; the tail of each row under v's mask.
func margins(g *gen, v vec, p prec, pf bool) {
	f32 := p.size == 4
	E := uint8(p.size)
	V := v.lanes(p)
	U := 2 * V
	R := v.bytes
	r := v.reg
	name, L := rowKernelNames("margins", v.prefix+"m", p, pf)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	v.text(g, name)
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	g.SHLQ(u8(shift(p)), R9)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("w"), RDX)
	g.MOVQ(g.param("d"), R8)
	mask := v.setMask(g, p, R8)

	g.Label(L + "block")
	g.CMPQ(RCX, u8(4))
	g.JB(lbl("single"))
	rows4(g, L)
	if pf {
		prefetchNextHeads(g, L)
	}
	for i := 0; i < 8; i++ {
		v.zero(g, p, r(i))
	}
	g.XORQ(RAX, RAX)
	g.TESTQ(R8, R8)
	g.JZ(lbl("tail4"))

	g.Label(L + "loop4")
	g.vmovu(p, memi(RDX, 0, RAX, E), r(8))
	g.vmovu(p, memi(RDX, R, RAX, E), r(9))
	if pf {
		v.prefetchRows(g, E)
	}
	for i, rr := range rowRegs {
		g.vfmadd231(p, memi(rr, 0, RAX, E), r(8), r(i))
		g.vfmadd231(p, memi(rr, R, RAX, E), r(9), r(i+4))
	}
	g.ADDQ(u8(U), RAX)
	g.CMPQ(RAX, R8)
	g.JB(lbl("loop4"))

	g.Label(L + "tail4")
	g.TESTQ(u32(V), g.param("d"))
	g.JZ(lbl("mask4"))
	g.vmovu(p, memi(RDX, 0, RAX, E), r(8))
	for i, rr := range rowRegs {
		g.vfmadd231(p, memi(rr, 0, RAX, E), r(8), r(i))
	}
	g.ADDQ(u8(V), RAX)

	g.Label(L + "mask4")
	g.TESTQ(u32(V-1), g.param("d"))
	g.JZ(lbl("reduce4"))
	v.maskLoad(g, p, mask, memi(RDX, 0, RAX, E), r(8))
	for i, rr := range rowRegs {
		v.maskLoad(g, p, mask, memi(rr, 0, RAX, E), r(10))
		g.vfmadd231(p, r(10), r(8), r(i+4))
	}

	g.Label(L + "reduce4")
	for i := 0; i < 4; i++ {
		g.vadd(p, r(i+4), r(i), r(i))
		v.fold(g, p, i, i, 8)
	}
	sum4(g, p, []int{0, 1, 2, 3}, 0, 2, 1, 1)
	if f32 {
		g.MOVQ(g.param("mstride"), RAX)
		g.SHLQ(u8(2), RAX)
		g.VMOVSS(X0, mem(RDI, 0))
		for j := 1; j <= 3; j++ {
			g.ADDQ(RAX, RDI)
			g.VEXTRACTPS(u8(j), X0, mem(RDI, 0))
		}
		g.ADDQ(RAX, RDI)
	} else {
		g.VEXTRACTF128(u8(1), Y0, X1)
		g.MOVQ(g.param("mstride"), RAX)
		g.SHLQ(u8(3), RAX)
		g.VMOVSD(X0, mem(RDI, 0))
		g.ADDQ(RAX, RDI)
		g.VMOVHPD(X0, mem(RDI, 0))
		g.ADDQ(RAX, RDI)
		g.VMOVSD(X1, mem(RDI, 0))
		g.ADDQ(RAX, RDI)
		g.VMOVHPD(X1, mem(RDI, 0))
		g.ADDQ(RAX, RDI)
	}
	g.SUBQ(u8(4), RCX)
	g.JMP(lbl("block"))

	g.Label(L + "single")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	rows1(g, L)
	v.zero(g, p, r(0))
	v.zero(g, p, r(4))
	g.XORQ(RAX, RAX)
	g.TESTQ(R8, R8)
	g.JZ(lbl("tail1"))

	g.Label(L + "loop1")
	g.vmovu(p, memi(RDX, 0, RAX, E), r(8))
	g.vmovu(p, memi(RDX, R, RAX, E), r(9))
	g.vfmadd231(p, memi(R10, 0, RAX, E), r(8), r(0))
	g.vfmadd231(p, memi(R10, R, RAX, E), r(9), r(4))
	g.ADDQ(u8(U), RAX)
	g.CMPQ(RAX, R8)
	g.JB(lbl("loop1"))

	g.Label(L + "tail1")
	g.TESTQ(u32(V), g.param("d"))
	g.JZ(lbl("mask1"))
	g.vmovu(p, memi(RDX, 0, RAX, E), r(8))
	g.vfmadd231(p, memi(R10, 0, RAX, E), r(8), r(0))
	g.ADDQ(u8(V), RAX)

	g.Label(L + "mask1")
	g.TESTQ(u32(V-1), g.param("d"))
	g.JZ(lbl("reduce1"))
	v.maskLoad(g, p, mask, memi(RDX, 0, RAX, E), r(8))
	v.maskLoad(g, p, mask, memi(R10, 0, RAX, E), r(10))
	g.vfmadd231(p, r(10), r(8), r(4))

	g.Label(L + "reduce1")
	g.vadd(p, r(4), r(0), r(0))
	v.fold(g, p, 0, 0, 1)
	sum1Store(g, p, mem(RDI, 0))
	g.MOVQ(g.param("mstride"), RAX)
	g.LEAQ(memi(RDI, 0, RAX, E), RDI)
	g.DECQ(RCX)
	g.JMP(lbl("single"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// Kernel addRows: four rows at a time over two registers of dst, in row
// order, then one row at a time. The tail of each row goes under v's mask.
func addRows(g *gen, v vec, p prec, pf bool) {
	E := uint8(p.size)
	V := v.lanes(p)
	U := 2 * V
	R := v.bytes
	r := v.reg
	name, L := rowKernelNames("addRows", v.prefix+"a", p, pf)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	v.text(g, name)
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("d"), R8)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	g.SHLQ(u8(shift(p)), R9)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("c"), RDX)
	g.MOVQ(g.param("n"), RCX)
	mask := v.setMask(g, p, R8)

	g.Label(L + "block")
	g.CMPQ(RCX, u8(4))
	g.JB(lbl("single"))
	rows4(g, L)
	g.MOVQ(g.param("cstride"), RAX)
	g.SHLQ(u8(shift(p)), RAX)
	for i := 0; i < 4; i++ {
		g.vbroadcast(p, mem(RDX, 0), r(4+i))
		g.ADDQ(RAX, RDX)
	}
	g.XORQ(RAX, RAX)
	g.TESTQ(R8, R8)
	g.JZ(lbl("tail4"))

	g.Label(L + "loop4")
	if pf {
		v.prefetchRows(g, E)
	}
	g.vmovu(p, memi(RDI, 0, RAX, E), r(0))
	g.vmovu(p, memi(RDI, R, RAX, E), r(1))
	for i, rr := range rowRegs {
		g.vfmadd231(p, memi(rr, 0, RAX, E), r(4+i), r(0))
		g.vfmadd231(p, memi(rr, R, RAX, E), r(4+i), r(1))
	}
	g.vmovu(p, r(0), memi(RDI, 0, RAX, E))
	g.vmovu(p, r(1), memi(RDI, R, RAX, E))
	g.ADDQ(u8(U), RAX)
	g.CMPQ(RAX, R8)
	g.JB(lbl("loop4"))

	g.Label(L + "tail4")
	g.TESTQ(u32(V), g.param("d"))
	g.JZ(lbl("mask4"))
	g.vmovu(p, memi(RDI, 0, RAX, E), r(0))
	for i, rr := range rowRegs {
		g.vfmadd231(p, memi(rr, 0, RAX, E), r(4+i), r(0))
	}
	g.vmovu(p, r(0), memi(RDI, 0, RAX, E))
	g.ADDQ(u8(V), RAX)

	g.Label(L + "mask4")
	g.TESTQ(u32(V-1), g.param("d"))
	g.JZ(lbl("next4"))
	v.maskLoad(g, p, mask, memi(RDI, 0, RAX, E), r(0))
	for i, rr := range rowRegs {
		v.maskLoad(g, p, mask, memi(rr, 0, RAX, E), r(8))
		g.vfmadd231(p, r(8), r(4+i), r(0))
	}
	v.maskStore(g, p, mask, r(0), memi(RDI, 0, RAX, E))

	g.Label(L + "next4")
	g.SUBQ(u8(4), RCX)
	g.JMP(lbl("block"))

	g.Label(L + "single")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	rows1(g, L)
	g.vbroadcast(p, mem(RDX, 0), r(4))
	g.MOVQ(g.param("cstride"), RAX)
	g.LEAQ(memi(RDX, 0, RAX, E), RDX)
	g.XORQ(RAX, RAX)
	g.TESTQ(R8, R8)
	g.JZ(lbl("tail1"))

	g.Label(L + "loop1")
	g.vmovu(p, memi(RDI, 0, RAX, E), r(0))
	g.vmovu(p, memi(RDI, R, RAX, E), r(1))
	g.vfmadd231(p, memi(R10, 0, RAX, E), r(4), r(0))
	g.vfmadd231(p, memi(R10, R, RAX, E), r(4), r(1))
	g.vmovu(p, r(0), memi(RDI, 0, RAX, E))
	g.vmovu(p, r(1), memi(RDI, R, RAX, E))
	g.ADDQ(u8(U), RAX)
	g.CMPQ(RAX, R8)
	g.JB(lbl("loop1"))

	g.Label(L + "tail1")
	g.TESTQ(u32(V), g.param("d"))
	g.JZ(lbl("mask1"))
	g.vmovu(p, memi(RDI, 0, RAX, E), r(0))
	g.vfmadd231(p, memi(R10, 0, RAX, E), r(4), r(0))
	g.vmovu(p, r(0), memi(RDI, 0, RAX, E))
	g.ADDQ(u8(V), RAX)

	g.Label(L + "mask1")
	g.TESTQ(u32(V-1), g.param("d"))
	g.JZ(lbl("next1"))
	v.maskLoad(g, p, mask, memi(RDI, 0, RAX, E), r(0))
	v.maskLoad(g, p, mask, memi(R10, 0, RAX, E), r(8))
	g.vfmadd231(p, r(8), r(4), r(0))
	v.maskStore(g, p, mask, r(0), memi(RDI, 0, RAX, E))

	g.Label(L + "next1")
	g.DECQ(RCX)
	g.JMP(lbl("single"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// sum1Store stores the horizontal sum of Y0 to dst; X1 is scratch.
func sum1Store(g *gen, p prec, dst operand.Mem) {
	g.VEXTRACTF128(u8(1), Y0, X1)
	g.vadd(p, X1, X0, X0)
	g.vhadd(p, X0, X0, X0)
	if p.size == 4 {
		g.VHADDPS(X0, X0, X0)
		g.VMOVSS(X0, dst)
	} else {
		g.VMOVSD(X0, dst)
	}
}

// lower is "f32" for "F32".
func lower(s string) string { return "f" + s[1:] }

// prefetchNextHeads asks, when the call has a next block of four rows, for
// the first pfHeadBytes of each of them (R14 is clobbered).
func prefetchNextHeads(g *gen, L string) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.CMPQ(RCX, u8(8))
	g.JB(lbl("nohead"))
	for i := 0; i < 4; i++ {
		li := fmt.Sprintf("head%d", i)
		// rows4 has moved BX (gathered) or SI (consecutive) to the next block.
		g.TESTQ(RBX, RBX)
		g.JZ(lbl(li + "c"))
		g.MOVQ(mem(RBX, 8*i), R14)
		g.IMULQ(R9, R14)
		g.ADDQ(RSI, R14)
		g.JMP(lbl(li + "r"))
		g.Label(L + li + "c")
		g.MOVQ(RSI, R14)
		for j := 0; j < i; j++ {
			g.ADDQ(R9, R14)
		}
		g.Label(L + li + "r")
		for off := 0; off < pfHeadBytes; off += 64 {
			g.PREFETCHT0(mem(R14, off))
		}
	}
	g.Label(L + "nohead")
}
