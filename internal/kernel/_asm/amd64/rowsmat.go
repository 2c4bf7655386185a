package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() {
	for _, P := range []string{"F32", "F64"} {
		T := map[string]string{"F32": "float32", "F64": "float64"}[P]
		stubDocs["addRowsK"+P] = stub{
			sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, c unsafe.Pointer, k, n int)",
			doc: []string{
				"addRowsK" + P + " adds the k rows of x to each of the n rows of d " + T + "s at",
				"dst. They are weighted by that row's k coefficients in c. That is the product",
				"of the n×k matrix c and the k×d matrix x. The multiply-adds on each dst",
				"element run in the order of j:",
				"",
				"\tfor i := 0; i < n; i++ {",
				"\t\tfor l := 0; l < d; l++ {",
				"\t\t\tfor j := 0; j < k; j++ {",
				"\t\t\t\tdst[i*d+l] = fma(c[i*k+j], x[j*stride+l], dst[i*d+l])",
				"\t\t\t}",
				"\t\t}",
				"\t}",
				"",
				"Eight registers of a row's columns are summed at a time: eight",
				"independent chains of multiply-adds. Then the rest of the row is one",
				"group: whole registers and the masked last one. It needs k ≥ 1.",
			},
		}
	}
}

// addRowsKGroup is the most registers of columns addRowsK sums at once.
const addRowsKGroup = 8

// addRowsK writes addRowsKF32 / F64 (or their zmm twins): dst += c·x row by
// row of dst. The row of dst stays in registers over the k rows of x, a
// group of registers of columns at a time. A loop runs over groups of eight.
// Then the rest of the row is one group: 0–7 whole registers and the masked
// one. Groups of eight keep more independent loads in flight than groups of
// four.
//
// Registers:
//
//   - DI: the row of dst; DX: its coefficients; SI: x;
//   - R9: x's row stride in bytes; CX: the rows left; R13: d;
//   - R14: the groups of eight a row;
//   - R15: the rest's shape (whole registers·2 + masked);
//   - per group, AX: the byte offset of its columns; R10: x's row j there;
//     R11: c_ij; R12: the classes left;
//   - accumulators r(0..7); r(8): the broadcast; r(9): x's masked row.
func addRowsK(g *gen, v vec, p prec) {
	E := uint8(p.size)
	V := v.lanes(p)
	R := v.bytes
	r := v.reg
	L := v.prefix + "ark" + lower(p.name)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	v.text(g, "addRowsK"+p.name)
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	g.SHLQ(u8(shift(p)), R9)
	g.MOVQ(g.param("c"), RDX)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("d"), R13)
	// R14 = d / (8V); R15 = 2·((d / V) mod 8) + (d mod V ≠ 0).
	g.MOVQ(R13, R14)
	g.SHRQ(u8(shiftOf(V*addRowsKGroup)), R14)
	g.MOVQ(R13, R15)
	g.SHRQ(u8(shiftOf(V)), R15)
	g.ANDQ(u8(addRowsKGroup-1), R15)
	g.SHLQ(u8(1), R15)
	g.MOVQ(R13, RAX)
	g.ANDQ(u8(V-1), RAX)
	g.JZ(lbl("whole"))
	g.INCQ(R15)
	g.Label(L + "whole")
	// The mask of the last d mod V columns (all lanes when there are none:
	// it is used only when there are).
	mask := lowLanes(g, v, p)
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))

	// group sums nr registers of columns over the k rows of x, the last
	// masked if masked. It adds them to dst, at byte offset AX.
	group := func(tag string, nr int, masked bool) {
		load := func(t int, src operand.Mem, dst VecPhysical) {
			if masked && t == nr-1 {
				v.maskLoad(g, p, mask, src, dst)
			} else {
				g.vmovu(p, src, dst)
			}
		}
		for t := 0; t < nr; t++ {
			load(t, memi(RDI, t*R, RAX, 1), r(t))
		}
		g.LEAQ(memi(RSI, 0, RAX, 1), R10)
		g.MOVQ(RDX, R11)
		g.MOVQ(g.param("k"), R12)
		g.Label(L + tag)
		g.vbroadcast(p, mem(R11, 0), r(addRowsKGroup))
		for t := 0; t < nr; t++ {
			if masked && t == nr-1 {
				v.maskLoad(g, p, mask, mem(R10, t*R), r(addRowsKGroup+1))
				g.vfmadd231(p, r(addRowsKGroup+1), r(addRowsKGroup), r(t))
			} else {
				g.vfmadd231(p, mem(R10, t*R), r(addRowsKGroup), r(t))
			}
		}
		g.ADDQ(R9, R10)
		g.ADDQ(u8(int(E)), R11)
		g.DECQ(R12)
		g.JNZ(lbl(tag))
		for t := 0; t < nr; t++ {
			if masked && t == nr-1 {
				v.maskStore(g, p, mask, r(t), memi(RDI, t*R, RAX, 1))
			} else {
				g.vmovu(p, r(t), memi(RDI, t*R, RAX, 1))
			}
		}
	}

	g.Label(L + "row")
	g.XORQ(RAX, RAX)
	g.MOVQ(R14, RBX)
	g.TESTQ(RBX, RBX)
	g.JZ(lbl("rest"))
	g.Label(L + "g4")
	group("j4", addRowsKGroup, false)
	g.ADDQ(u32(addRowsKGroup*R), RAX)
	g.DECQ(RBX)
	g.JNZ(lbl("g4"))
	g.Label(L + "rest")
	for shape := 1; shape < 2*addRowsKGroup; shape++ {
		whole, masked := shape/2, shape%2 == 1
		g.CMPQ(R15, u8(shape))
		g.JNE(lbl(fmt.Sprintf("not%d", shape)))
		nr := whole
		if masked {
			nr++
		}
		group(fmt.Sprintf("j%dr", shape), nr, masked)
		g.JMP(lbl("next"))
		g.Label(L + fmt.Sprintf("not%d", shape))
	}
	g.Label(L + "next")
	g.LEAQ(memi(RDI, 0, R13, E), RDI)
	g.MOVQ(g.param("k"), RAX)
	g.LEAQ(memi(RDX, 0, RAX, E), RDX)
	g.DECQ(RCX)
	g.JNZ(lbl("row"))
	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// lowLanes prepares the mask of the low AX lanes (0 ≤ AX < lanes; AX and
// R8 clobbered) for addRowsK: K1, or Y15 from maskTab.
func lowLanes(g *gen, v vec, p prec) operand.Op {
	if v.isZ() {
		g.lowLanesK1(EAX, R8L)
		return K1
	}
	g.LEAQ(p.maskTab, R8)
	g.NEGQ(RAX)
	g.ADDQ(u32(p.lanes), RAX)
	g.VMOVDQU(memi(R8, 0, RAX, uint8(p.size)), Y15)
	return Y15
}

// shiftOf is log2 of a power of two.
func shiftOf(n int) int {
	s := 0
	for 1<<s < n {
		s++
	}
	return s
}
