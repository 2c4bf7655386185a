package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() { sectionDocs = append(sectionDocs, rowsKDoc) }

// maxClasses is the largest class block one marginsK / addOuterK call takes.
// The class count selects one of maxClasses specialised bodies.
const maxClasses = 5

func rowKKernels(g *gen) {
	for _, pf := range []bool{false, true} {
		for _, p := range []prec{f32, f64} {
			marginsK(g, p, denseRows, pf)
			addOuterK(g, ymm, p, denseRows, prefetchOf(pf))
		}
	}
}

// rowPrefetch is what a variant of a row kernel prefetches.
type rowPrefetch int

const (
	prefetchNone rowPrefetch = iota
	// prefetchOwn: each row's own columns pfDist ahead (the PF variants),
	// for rows out of cache.
	prefetchOwn
	// prefetchNext: the same columns of the rows of another list, for the
	// rows a following call will read (the NX variants). Row i of the list
	// is fetched while row i of the call is read.
	prefetchNext
)

func prefetchOf(pf bool) rowPrefetch {
	if pf {
		return prefetchOwn
	}
	return prefetchNone
}

// nextKernels are the NX variants of addOuterK (dense rows).
func nextKernels(g *gen) {
	for _, v := range []vec{ymm, zmm} {
		for _, p := range []prec{f32, f64} {
			addOuterK(g, v, p, denseRows, prefetchNext)
		}
	}
}

// prefetchNextRow asks for the span bytes at the walk's columns (SI) of row
// next[RAX] of x. It does so while row RAX of a gathered walk is read, when
// RAX < nnext. R15 is clobbered.
func prefetchNextRow(g *gen, L string, span int) {
	g.CMPQ(RAX, g.param("nnext"))
	g.JAE(operand.LabelRef(L + "nonext"))
	g.MOVQ(g.param("next"), R15)
	g.MOVQ(memi(R15, 0, RAX, 8), R15)
	g.IMULQ(R9, R15)
	g.ADDQ(RSI, R15)
	for off := 0; off < span; off += 64 {
		g.PREFETCHT0(mem(R15, off))
	}
	g.Label(L + "nonext")
}

// classAddr is the address of class j's row (of w or g) at byte offset off
// from base. R12 holds one class stride, and R13 three.
func classAddr(base Register, j, off int) operand.Mem {
	switch j {
	case 0:
		return mem(base, off)
	case 1:
		return memi(base, off, R12, 1)
	case 2:
		return memi(base, off, R12, 2)
	case 3:
		return memi(base, off, R13, 1)
	default:
		return memi(base, off, R12, 4)
	}
}

// sum4 leaves the horizontal sums of the ymm accumulators a[0..3], in order,
// in x(t0) (float32) or y(t0) (float64). Registers t0..t2 are scratch; t0
// may be a[0], and t1 a[2]. Float32 extracts the upper half through x(xs).
func sum4(g *gen, p prec, a []int, t0, t1, t2, xs int) {
	if p.size == 4 {
		g.VHADDPS(y(a[1]), y(a[0]), y(t0))
		g.VHADDPS(y(a[3]), y(a[2]), y(t1))
		g.VHADDPS(y(t1), y(t0), y(t0))
		g.VEXTRACTF128(u8(1), y(t0), x(xs))
		g.VADDPS(x(xs), x(t0), x(t0))
	} else {
		g.VHADDPD(y(a[1]), y(a[0]), y(t0))
		g.VHADDPD(y(a[3]), y(a[2]), y(t1))
		g.VPERM2F128(u8(0x20), y(t1), y(t0), y(t2))
		g.VPERM2F128(u8(0x31), y(t1), y(t0), y(t0))
		g.VADDPD(y(t2), y(t0), y(t0))
	}
}

// reduceStore stores the horizontal sums of the accumulators accs (class
// j = 0..len−1) to dst + j·size. Registers t0..t2 are scratch.
func reduceStore(g *gen, p prec, accs []int, dst Register, t0, t1, t2 int) {
	E := p.size
	j := 0
	for ; len(accs)-j >= 4; j += 4 {
		sum4(g, p, accs[j:j+4], t0, t1, t2, t1)
		if p.size == 4 {
			g.VMOVUPS(x(t0), mem(dst, j*E))
		} else {
			g.VMOVUPD(y(t0), mem(dst, j*E))
		}
	}
	for ; j < len(accs); j++ {
		a := accs[j]
		g.VEXTRACTF128(u8(1), y(a), x(t0))
		g.vadd(p, x(t0), x(a), x(t0))
		g.vhadd(p, x(t0), x(t0), x(t0))
		if p.size == 4 {
			g.VHADDPS(x(t0), x(t0), x(t0))
			g.VMOVSS(x(t0), mem(dst, j*E))
		} else {
			g.VMOVSD(x(t0), mem(dst, j*E))
		}
	}
}

// classSwitch jumps to the body for the class count in AX, labelled
// prefix+"c<C>"+suffix, C = maxC..1. It takes one when no other matches.
func classSwitch(g *gen, maxC int, prefix, suffix string) {
	for C := maxC; C > 1; C-- {
		g.CMPQ(RAX, u8(C))
		g.JEQ(operand.LabelRef(fmt.Sprintf("%sc%d%s", prefix, C, suffix)))
	}
	g.JMP(operand.LabelRef(prefix + "c1" + suffix))
}

// pairRows sets R10, R11 to the next two rows: gathered through idx (BX)
// or consecutive from SI; R9 is the row stride in bytes.
func pairRows(g *gen, L string) {
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec2"))
	g.MOVQ(mem(RBX, 0), R10)
	g.IMULQ(R9, R10)
	g.ADDQ(RSI, R10)
	g.MOVQ(mem(RBX, 8), R11)
	g.IMULQ(R9, R11)
	g.ADDQ(RSI, R11)
	g.ADDQ(u8(16), RBX)
	g.JMP(operand.LabelRef(L + "ready2"))
	g.Label(L + "consec2")
	g.MOVQ(RSI, R10)
	g.LEAQ(memi(RSI, 0, R9, 1), R11)
	g.LEAQ(memi(R11, 0, R9, 1), RSI)
	g.Label(L + "ready2")
}

// pairsAhead is how many pairs of rows ahead the prefetching marginsK
// kernels fetch: 3 or 5. The consecutive case addresses the row 2·(pairs−1)
// ahead with one LEA.
const pairsAhead = 3

// rowsAhead sets a and b, after pairRows, to the rows of the pair pairsAhead
// pairs ahead. When there is none, they are this pair's, R10 and R11. The
// prefetching marginsK kernels walk them into L2 a line a step while this
// pair is computed. So gathered rows arrive before they are needed. A pair
// in cache takes about a memory latency / 3. One pair ahead is too close,
// and five are no better. The row's own lines 512 bytes ahead are too few in
// flight to keep up.
func rowsAhead(g *gen, L string, a, b Register) {
	g.MOVQ(R10, a)
	g.MOVQ(R11, b)
	g.CMPQ(RCX, u8(2+2*pairsAhead))
	g.JB(operand.LabelRef(L + "aheadok"))
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "aheadconsec"))
	g.MOVQ(mem(RBX, 16*(pairsAhead-1)), a)
	g.IMULQ(R9, a)
	g.ADDQ(RSI, a)
	g.MOVQ(mem(RBX, 16*(pairsAhead-1)+8), b)
	g.IMULQ(R9, b)
	g.ADDQ(RSI, b)
	g.JMP(operand.LabelRef(L + "aheadok"))
	g.Label(L + "aheadconsec")
	g.LEAQ(memi(RSI, 0, R9, uint8(2*(pairsAhead-1))), a)
	g.LEAQ(memi(a, 0, R9, 1), b)
	g.Label(L + "aheadok")
}

// lastRow sets R10 to the last row (BX and SI are left as they are).
func lastRow(g *gen, L string) {
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec1"))
	g.MOVQ(mem(RBX, 0), R10)
	g.IMULQ(R9, R10)
	g.ADDQ(RSI, R10)
	g.JMP(operand.LabelRef(L + "ready1"))
	g.Label(L + "consec1")
	g.MOVQ(RSI, R10)
	g.Label(L + "ready1")
}

// eachRow runs body over the n rows of an addOuterK block, in increasing
// order. R10 is the row's address (at the current column) and R11 = &c[i*k].
// AX counts.
func eachRow(g *gen, L string, body func(gathered bool)) {
	g.MOVQ(RDX, R11)
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec"))
	g.XORQ(RAX, RAX)
	g.Label(L + "gather")
	g.MOVQ(memi(RBX, 0, RAX, 8), R10)
	g.IMULQ(R9, R10)
	g.ADDQ(RSI, R10)
	body(true)
	g.ADDQ(RCX, R11)
	g.INCQ(RAX)
	g.CMPQ(RAX, g.param("n"))
	g.JB(operand.LabelRef(L + "gather"))
	g.JMP(operand.LabelRef(L + "store"))
	g.Label(L + "consec")
	g.MOVQ(g.param("n"), RAX)
	g.MOVQ(RSI, R10)
	g.Label(L + "next")
	body(false)
	g.ADDQ(RCX, R11)
	g.ADDQ(R9, R10)
	g.DECQ(RAX)
	g.JNZ(operand.LabelRef(L + "next"))
	g.Label(L + "store")
}

// maskAndIters loads the lane mask for the last cols mod lanes columns into
// Y15. It sets R8 to the number of whole two-register chunks of cols (in
// R8).
func maskAndIters(g *gen, p prec) {
	U := 2 * p.lanes
	g.MOVQ(R8, RAX)
	g.ANDQ(u8(U/2-1), RAX)
	g.NEGQ(RAX)
	g.ADDQ(u8(U/2), RAX)
	g.LEAQ(p.maskTab, R10)
	g.VMOVDQU(memi(R10, 0, RAX, uint8(p.size)), Y15)
	if p.size == 4 {
		g.SHRQ(u8(4), R8)
	} else {
		g.SHRQ(u8(3), R8)
	}
}

// Kernel marginsK: two rows × c ≤ 5 classes, two registers of columns a
// step, then one, then a masked one. Rows of a compact format f are read as
// they load (loadRow); p is then f32. The masked columns are read as the
// register that ends with them (loadRowEnd).
func marginsK(g *gen, p prec, f rowFormat, pf bool) {
	U := 2 * p.lanes
	name, L0 := rowKernelNames("marginsK", "mk", p, pf)
	if !f.dense() {
		L0 += f.label
		name = compactKName(ymm, name, f)
	}
	g.text(name)
	// rb is the bytes of the rows that n bytes of columns cover.
	rb := f.rowBytes
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	if sh := f.shift(p); sh > 0 {
		g.SHLQ(u8(sh), R9)
	}
	f.loadScale(g, ymm)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("w"), RDX)
	g.MOVQ(g.param("d"), R8)
	g.MOVQ(R8, R12)
	g.SHLQ(u8(shift(p)), R12) // R12 = d bytes: class stride of w
	g.LEAQ(memi(R12, 0, R12, 2), R13)
	maskAndIters(g, p)
	if !f.dense() {
		f.endTail(g, g.param("d"))
	}
	g.MOVQ(g.param("c"), RAX)
	classSwitch(g, maxClasses, L0, "pair")

	for C := maxClasses; C > 0; C-- {
		L := fmt.Sprintf("%sc%d", L0, C)
		lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
		var acc [2][]int // acc[row][class]
		for r := 0; r < 2; r++ {
			for j := 0; j < C; j++ {
				acc[r] = append(acc[r], r*C+j)
			}
		}
		// Two rows at a time.
		g.Label(L + "pair")
		g.CMPQ(RCX, u8(2))
		g.JB(lbl("single"))
		pairRows(g, L)
		ahead := pf && f.dense() // compact rows keep endTail's offset in R14
		if ahead {
			rowsAhead(g, L, R14, R15)
		}
		for r := 0; r < 2; r++ {
			for j := 0; j < C; j++ {
				a := y(acc[r][j])
				g.vxor(p, a, a, a)
			}
		}
		g.MOVQ(R8, RAX)
		g.TESTQ(RAX, RAX)
		g.JZ(lbl("tail2"))
		g.Label(L + "loop2")
		if pf {
			g.PREFETCHT0(mem(R10, rb(pfDist)))
			g.PREFETCHT0(mem(R11, rb(pfDist)))
		}
		if ahead {
			g.PREFETCHT1(mem(R14, 0))
			g.PREFETCHT1(mem(R15, 0))
			g.ADDQ(u8(64), R14)
			g.ADDQ(u8(64), R15)
		}
		for h := 0; h < 2; h++ {
			f.loadRow(g, ymm, p, mem(R10, rb(32*h)), Y10)
			f.loadRow(g, ymm, p, mem(R11, rb(32*h)), Y11)
			for j := 0; j < C; j++ {
				g.vmovu(p, classAddr(RDX, j, 32*h), Y12)
				g.vfmadd231(p, Y10, Y12, y(acc[0][j]))
				g.vfmadd231(p, Y11, Y12, y(acc[1][j]))
			}
		}
		g.ADDQ(u8(rb(64)), R10)
		g.ADDQ(u8(rb(64)), R11)
		g.ADDQ(u8(64), RDX)
		g.DECQ(RAX)
		g.JNZ(lbl("loop2"))
		g.Label(L + "tail2")
		g.TESTQ(u32(U/2), g.param("d"))
		g.JZ(lbl("mask2"))
		f.loadRow(g, ymm, p, mem(R10, 0), Y10)
		f.loadRow(g, ymm, p, mem(R11, 0), Y11)
		for j := 0; j < C; j++ {
			g.vmovu(p, classAddr(RDX, j, 0), Y12)
			g.vfmadd231(p, Y10, Y12, y(acc[0][j]))
			g.vfmadd231(p, Y11, Y12, y(acc[1][j]))
		}
		g.ADDQ(u8(rb(32)), R10)
		g.ADDQ(u8(rb(32)), R11)
		g.ADDQ(u8(32), RDX)
		g.Label(L + "mask2")
		g.TESTQ(u32(U/2-1), g.param("d"))
		g.JZ(lbl("reduce2"))
		if f.dense() {
			g.vmaskmov(p, mem(R10, 0), Y15, Y10)
			g.vmaskmov(p, mem(R11, 0), Y15, Y11)
		} else {
			f.loadRowEnd(g, p, mem(R10, 0), Y10)
			f.loadRowEnd(g, p, mem(R11, 0), Y11)
		}
		for j := 0; j < C; j++ {
			g.vmaskmov(p, classAddr(RDX, j, 0), Y15, Y12)
			g.vfmadd231(p, Y10, Y12, y(acc[0][j]))
			g.vfmadd231(p, Y11, Y12, y(acc[1][j]))
		}
		g.Label(L + "reduce2")
		g.MOVQ(g.param("w"), RDX)
		g.MOVQ(g.param("k"), RAX)
		g.SHLQ(u8(shift(p)), RAX)
		reduceStore(g, p, acc[0], RDI, 10, 11, 12)
		g.ADDQ(RAX, RDI)
		reduceStore(g, p, acc[1], RDI, 10, 11, 12)
		g.ADDQ(RAX, RDI)
		g.SUBQ(u8(2), RCX)
		g.JMP(lbl("pair"))

		// The last row: two accumulators per class, a1 and b1.
		g.Label(L + "single")
		g.TESTQ(RCX, RCX)
		g.JZ(operand.LabelRef(L0 + "done"))
		lastRow(g, L)
		var a1, b1 []int
		for j := 0; j < C; j++ {
			a1 = append(a1, j)
			b1 = append(b1, 5+j)
		}
		for _, r := range append(append([]int{}, a1...), b1...) {
			g.vxor(p, y(r), y(r), y(r))
		}
		g.MOVQ(R8, RAX)
		g.TESTQ(RAX, RAX)
		g.JZ(lbl("tail1"))
		g.Label(L + "loop1")
		f.loadRow(g, ymm, p, mem(R10, 0), Y10)
		f.loadRow(g, ymm, p, mem(R10, rb(32)), Y11)
		for j := 0; j < C; j++ {
			g.vfmadd231(p, classAddr(RDX, j, 0), Y10, y(a1[j]))
			g.vfmadd231(p, classAddr(RDX, j, 32), Y11, y(b1[j]))
		}
		g.ADDQ(u8(rb(64)), R10)
		g.ADDQ(u8(64), RDX)
		g.DECQ(RAX)
		g.JNZ(lbl("loop1"))
		g.Label(L + "tail1")
		g.TESTQ(u32(U/2), g.param("d"))
		g.JZ(lbl("mask1"))
		f.loadRow(g, ymm, p, mem(R10, 0), Y10)
		for j := 0; j < C; j++ {
			g.vfmadd231(p, classAddr(RDX, j, 0), Y10, y(a1[j]))
		}
		g.ADDQ(u8(rb(32)), R10)
		g.ADDQ(u8(32), RDX)
		g.Label(L + "mask1")
		g.TESTQ(u32(U/2-1), g.param("d"))
		g.JZ(lbl("reduce1"))
		if f.dense() {
			g.vmaskmov(p, mem(R10, 0), Y15, Y10)
		} else {
			f.loadRowEnd(g, p, mem(R10, 0), Y10)
		}
		for j := 0; j < C; j++ {
			g.vmaskmov(p, classAddr(RDX, j, 0), Y15, Y12)
			g.vfmadd231(p, Y10, Y12, y(b1[j]))
		}
		g.Label(L + "reduce1")
		for j := 0; j < C; j++ {
			g.vadd(p, y(b1[j]), y(a1[j]), y(a1[j]))
		}
		reduceStore(g, p, a1, RDI, 10, 11, 12)
		if C > 1 { // the one-class body ends at done
			g.JMP(operand.LabelRef(L0 + "done"))
		}
	}
	g.Label(L0 + "done")
	g.VZEROUPPER()
	g.RET()
}

// Kernel addOuterK: take each chunk of two registers of columns. The nc
// classes' chunks of g stay in registers 0..2nc−1 over every row of the
// block. Then it takes one register, then a masked one. Rows of a compact
// format f are read as they load (loadRow); p is then f32. Ymm has no byte-
// or half-masked load. So it reads the last columns as the register that
// ends with them (loadRowEnd).
func addOuterK(g *gen, v vec, p prec, f rowFormat, mode rowPrefetch) {
	pf := mode == prefetchOwn
	V := v.lanes(p)
	E := p.size
	R := v.bytes
	r := v.reg
	maxC := v.maxClasses()
	name, L0 := rowKernelNames("addOuterK", v.prefix+"ok", p, pf)
	if mode == prefetchNext {
		name, L0 = "addOuterKNX"+p.name, v.prefix+"okx"+lower(p.name)
	}
	if f.dense() {
		v.text(g, name)
	} else {
		L0 += f.label
		g.text(compactKName(v, name, f))
	}
	// RB is a register of columns in the rows, in bytes.
	RB := f.rowBytes(R)
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("d"), R12)
	g.SHLQ(u8(shift(p)), R12) // class stride of g, bytes
	g.LEAQ(memi(R12, 0, R12, 2), R13)
	if maxC > 5 {
		g.LEAQ(memi(RDI, 0, R12, 4), R14)
		g.ADDQ(R12, R14) // R14 = class 5 of g
	}
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	if sh := f.shift(p); sh > 0 {
		g.SHLQ(u8(sh), R9)
	}
	f.loadScale(g, v)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("c"), RDX)
	g.MOVQ(g.param("k"), RCX)
	g.SHLQ(u8(shift(p)), RCX) // row stride of c, bytes
	g.MOVQ(g.param("cols"), R8)
	mask := v.maskAndChunks(g, p)
	if !f.dense() && !v.isZ() {
		f.endTail(g, g.param("cols"))
	}
	g.MOVQ(g.param("nc"), RAX)
	classSwitch(g, maxC, L0, "")

	// Classes 5.. come from R14 (zmm only: ymm takes at most 5).
	ca := func(j, off int) operand.Mem { return zclassAddr(RDI, R14, j, off) }
	// advance moves g (both class bases) and x on by n bytes.
	advance := func(n int) {
		g.ADDQ(u8(n), RDI)
		if maxC > 5 {
			g.ADDQ(u8(n), R14)
		}
		g.ADDQ(u8(f.rowBytes(n)), RSI)
	}
	// The row's registers follow the 2·maxC of g, then the broadcasts of c.
	// Ymm reuses one register, as Y15 holds the mask. Zmm rotates over four.
	xr := 2 * maxC
	bcast := func(j int) VecPhysical { return r(xr + 2) }
	if v.isZ() {
		bcast = func(j int) VecPhysical { return r(xr + 2 + j%4) }
	}
	for C := maxC; C > 0; C-- {
		L := fmt.Sprintf("%sc%d", L0, C)
		g.Label(L)
		g.TESTQ(R8, R8)
		g.JZ(operand.LabelRef(L + "half"))
		// Two-register column chunks: class j's chunk of g in 2j, 2j+1.
		g.Label(L + "loop")
		for j := 0; j < C; j++ {
			for h := 0; h < 2; h++ {
				g.vmovu(p, ca(j, R*h), r(2*j+h))
			}
		}
		eachRow(g, L+"r2", func(gathered bool) {
			if mode == prefetchNext && gathered {
				prefetchNextRow(g, L+"r2", 2*RB)
			}
			if pf {
				for off := 0; off < 2*RB; off += 64 {
					g.PREFETCHT0(mem(R10, f.rowBytes(pfDist)+off))
				}
			}
			f.loadRow(g, v, p, mem(R10, 0), r(xr))
			f.loadRow(g, v, p, mem(R10, RB), r(xr+1))
			for j := 0; j < C; j++ {
				b := bcast(j)
				g.vbroadcast(p, mem(R11, j*E), b)
				g.vfmadd231(p, r(xr), b, r(2*j))
				g.vfmadd231(p, r(xr+1), b, r(2*j+1))
			}
		})
		for j := 0; j < C; j++ {
			for h := 0; h < 2; h++ {
				g.vmovu(p, r(2*j+h), ca(j, R*h))
			}
		}
		advance(2 * R)
		g.DECQ(R8)
		g.JNZ(operand.LabelRef(L + "loop"))
		// One register.
		g.Label(L + "half")
		g.TESTQ(u32(V), g.param("cols"))
		g.JZ(operand.LabelRef(L + "mask"))
		for j := 0; j < C; j++ {
			g.vmovu(p, ca(j, 0), r(j))
		}
		eachRow(g, L+"r1", func(gathered bool) {
			if mode == prefetchNext && gathered {
				prefetchNextRow(g, L+"r1", RB)
			}
			f.loadRow(g, v, p, mem(R10, 0), r(xr))
			for j := 0; j < C; j++ {
				v.fmaBroadcast(g, p, mem(R11, j*E), r(xr), r(j), bcast(0))
			}
		})
		for j := 0; j < C; j++ {
			g.vmovu(p, r(j), ca(j, 0))
		}
		advance(R)
		// The masked last columns.
		g.Label(L + "mask")
		g.TESTQ(u32(V-1), g.param("cols"))
		g.JZ(operand.LabelRef(L0 + "done"))
		for j := 0; j < C; j++ {
			v.maskLoad(g, p, mask, ca(j, 0), r(j))
		}
		eachRow(g, L+"rm", func(gathered bool) {
			if mode == prefetchNext && gathered {
				prefetchNextRow(g, L+"rm", RB)
			}
			switch {
			case f.dense():
				v.maskLoad(g, p, mask, mem(R10, 0), r(xr))
			case v.isZ():
				f.maskLoadRow(g, p, mem(R10, 0), r(xr))
			default:
				f.loadRowEnd(g, p, mem(R10, 0), r(xr))
			}
			for j := 0; j < C; j++ {
				v.fmaBroadcast(g, p, mem(R11, j*E), r(xr), r(j), bcast(0))
			}
		})
		for j := 0; j < C; j++ {
			v.maskStore(g, p, mask, r(j), ca(j, 0))
		}
		if C > 1 { // the one-class body ends at done
			g.JMP(operand.LabelRef(L0 + "done"))
		}
	}
	g.Label(L0 + "done")
	g.VZEROUPPER()
	g.RET()
}
