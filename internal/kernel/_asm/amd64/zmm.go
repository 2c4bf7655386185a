package main

// The AVX-512 (zmm) twins of the products: Dot, Axpy, Lerp, Margins,
// AddRows, MarginsK, AddOuterK. FusedLinear is built on Margins and AddRows,
// so it gets them too. Each is named "z" + the 256-bit kernel's name, with
// the same Go signature. Tails use opmask registers. K1 holds the lanes of
// the last partial register, built with BZHI from the remainder. Masked
// loads (zeroing) and stores touch nothing past the end of a slice or row.

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() { sectionDocs = append(sectionDocs, zmmDoc, zmathDoc) }

const zmmDoc = `// AVX-512 kernels (the z* functions): Dot, Axpy, Lerp, Margins, AddRows,
// MarginsK and AddOuterK for float32 and float64. They run in 512-bit zmm
// registers. They are twins of the kernels above, with the same Go
// signatures and contracts.
//
// Requires: AVX512F, AVX512VL, BMI2, AVX2, FMA3. AVX512VL gives the EVEX
// forms of 256-bit instructions on Y16..Y31 in the reductions. BMI2's BZHI
// builds the tail masks. The Go side (impl_amd64.go) takes them only for the
// "avx512" implementation.
//
// Tails: whole registers of 16 float32 / 8 float64, then one step under the
// opmask K1 (the low d mod 16 (8) lanes). Loads are VMOVUPS/VMOVUPD with
// zeroing masking, and stores with merging masking. These neither read nor
// write masked-off lanes. So nothing past a slice, row, w or g is touched.
//
// Blocking: Margins and AddRows as the 256-bit kernels (four rows, two
// registers of columns). MarginsK takes two rows × c ≤ 10 classes: 20
// accumulators of 32. AddOuterK keeps 2c ≤ 20 registers of g over the
// block's rows. With 32 registers, MNIST's ten classes are one block.
//
// Accuracy: as the 256-bit kernels. AddRows, AddOuterK, Axpy and Lerp are
// bit-exact to the fused sequential loops; Dot, Margins and MarginsK sum in
// vector accumulators: |got − exact| ≤ (n+1)·u·Σ|x_i·y_i|.
`

// zStub registers the Go declaration of the zmm twin name of the kernel
// base. It has the same signature, and the doc comment with the names
// changed.
func zStub(name, base string) {
	st, ok := stubDocs[base]
	if !ok {
		panic("no declaration for " + base)
	}
	plain := strings.Replace(base, "PF", "", 1)
	r := strings.NewReplacer(base, name, plain, "z"+strings.ToUpper(plain[:1])+plain[1:], "≤ 5", "≤ 10")
	var doc []string
	for _, l := range st.doc {
		doc = append(doc, r.Replace(l))
	}
	doc = append(doc, "", "It is the AVX-512 (zmm) twin of "+base+".")
	stubDocs[name] = stub{sig: st.sig, doc: doc}
}

// ztext starts the zmm twin of base.
func (g *gen) ztext(base string) {
	name := "z" + strings.ToUpper(base[:1]) + base[1:]
	zStub(name, base)
	g.text(name)
}

func z(i int) VecPhysical {
	return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}[i]
}

func yy(i int) VecPhysical {
	return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15,
		Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31}[i]
}

// zzero clears a zmm register (VPXORD: VXORPS on zmm would need AVX512DQ).
func (g *gen) zzero(r VecPhysical) { g.VPXORD(r, r, r) }

// zload loads under K1 with zeroing.
func (g *gen) zload(p prec, src operand.Mem, dst operand.Op) {
	byPrec(p, g.VMOVUPS_Z, g.VMOVUPD_Z)(src, K1, dst)
}

// zfold adds the upper half of zmm a into its lower half, leaving the sum in
// ymm t. That is a ymm register numbered below 16 when t is.
func (g *gen) zfold(p prec, a, t, scratch int) {
	g.VEXTRACTF64X4(u8(1), z(a), yy(scratch))
	g.vadd(p, yy(scratch), yy(a), yy(t))
}

func zmmKernels(g *gen) {
	for _, p := range []prec{f32, f64} {
		dot(g, zmm, p)
	}
	for _, p := range []prec{f32, f64} {
		axpyLerp(g, zmm, p, false)
		axpyLerp(g, zmm, p, true)
	}
	for _, pf := range []bool{false, true} {
		for _, p := range []prec{f32, f64} {
			margins(g, zmm, p, pf)
			addRows(g, zmm, p, pf)
		}
	}
	for _, p := range []prec{f32, f64} {
		addRowsK(g, zmm, p)
	}
	for _, pf := range []bool{false, true} {
		for _, p := range []prec{f32, f64} {
			zmarginsK(g, p, denseRows, pf)
			addOuterK(g, zmm, p, denseRows, prefetchOf(pf))
		}
	}
}

// lowLanesK1 sets K1 to the low n lanes (n in a 32-bit register); tmp is
// clobbered.
func (g *gen) lowLanesK1(n, tmp Register) {
	g.MOVL(operand.U32(0xffffffff), tmp)
	g.BZHIL(n, tmp, tmp)
	g.KMOVW(tmp, K1)
}

// zmaskD sets K1 to the lanes of the last d mod lanes columns (d in dreg).
// It rounds dreg down to whole two-register chunks. AX and R10 are
// clobbered.
func (g *gen) zmaskD(p prec, dreg Register) {
	V := zmm.lanes(p)
	g.MOVQ(dreg, RAX)
	g.ANDQ(u8(V-1), RAX)
	g.lowLanesK1(EAX, R10L)
	g.ANDQ(i32(-2*V), dreg)
}

// zMaxClasses is the largest class block of the zmm marginsK / addOuterK.
const zMaxClasses = 10

// zclassAddr is class j's row (of w or g) at byte offset off. Classes 0..4
// lie from base0, and 5..9 from base1 = base0 + 5 class strides. R12 holds
// one class stride, and R13 three.
func zclassAddr(base0, base1 Register, j, off int) operand.Mem {
	if j < 5 {
		return classAddr(base0, j, off)
	}
	return classAddr(base1, j-5, off)
}

// zReduceStore stores the horizontal sums of the zmm accumulators accs to
// dst + j·size (j = 0..len−1); Y0..Y4 are scratch.
func zReduceStore(g *gen, p prec, accs []int, dst Register) {
	E := p.size
	j := 0
	for ; len(accs)-j >= 4; j += 4 {
		for t := 0; t < 4; t++ {
			g.zfold(p, accs[j+t], t, 4)
		}
		sum4(g, p, []int{0, 1, 2, 3}, 0, 2, 1, 1)
		if p.size == 4 {
			g.VMOVUPS(X0, mem(dst, j*E))
		} else {
			g.VMOVUPD(Y0, mem(dst, j*E))
		}
	}
	for ; j < len(accs); j++ {
		g.zfold(p, accs[j], 0, 4)
		sum1Store(g, p, mem(dst, j*E))
	}
}

// Kernel zmarginsK: two rows × c ≤ 10 classes, one zmm accumulator per pair
// (Z8..Z27). It takes a register of columns at a time, then a masked one.
// Rows of a compact format f are read as they load (loadRow), 16 elements at
// a time; p is then f32.
func zmarginsK(g *gen, p prec, f rowFormat, pf bool) {
	V := zmm.lanes(p)
	base, L0 := rowKernelNames("marginsK", "zmk", p, pf)
	if f.dense() {
		g.ztext(base)
	} else {
		L0 += f.label
		g.text(compactKName(zmm, base, f))
	}
	// RB is a register of columns in the rows, in bytes.
	RB := f.rowBytes(64)
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	if sh := f.shift(p); sh > 0 {
		g.SHLQ(u8(sh), R9)
	}
	f.loadScale(g, zmm)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("w"), RDX)
	g.MOVQ(g.param("d"), R8)
	g.MOVQ(R8, R12)
	g.SHLQ(u8(shift(p)), R12) // R12 = d bytes: class stride of w
	g.LEAQ(memi(R12, 0, R12, 2), R13)
	g.LEAQ(memi(RDX, 0, R12, 4), R14)
	g.ADDQ(R12, R14) // R14 = class 5 of w
	g.MOVQ(R8, RAX)
	g.ANDQ(u8(V-1), RAX)
	g.lowLanesK1(EAX, R10L)
	g.MOVQ(g.param("c"), RAX)
	classSwitch(g, zMaxClasses, L0, "pair")

	ca := func(j, off int) operand.Mem { return zclassAddr(RDX, R14, j, off) }
	// chunks sets AX to the whole registers of a row (d / lanes).
	chunks := func() {
		g.MOVQ(g.param("d"), RAX)
		g.SHRQ(u8(6-shift(p)), RAX)
	}
	resetW := func() {
		g.MOVQ(g.param("w"), RDX)
		g.LEAQ(memi(RDX, 0, R12, 4), R14)
		g.ADDQ(R12, R14)
	}
	for C := zMaxClasses; C > 0; C-- {
		L := fmt.Sprintf("%sc%d", L0, C)
		lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
		var acc [2][]int // acc[row][class]
		for r := 0; r < 2; r++ {
			for j := 0; j < C; j++ {
				acc[r] = append(acc[r], 8+r*C+j)
			}
		}
		g.Label(L + "pair")
		g.CMPQ(RCX, u8(2))
		g.JB(lbl("single"))
		pairRows(g, L)
		if pf {
			// R8, R15: the rows of the third pair ahead, walked a line a
			// step (rowsAhead). PREFETCHT1: into L2, whose miss buffers
			// outnumber L1's, so more lines are in flight. The row's own
			// line 512 bytes ahead still goes to L1.
			rowsAhead(g, L, R8, R15)
		}
		for r := 0; r < 2; r++ {
			for j := 0; j < C; j++ {
				g.zzero(z(acc[r][j]))
			}
		}
		chunks()
		g.TESTQ(RAX, RAX)
		g.JZ(lbl("mask2"))
		g.Label(L + "loop2")
		if pf {
			// The same distance in columns on compact rows. The rows ahead
			// are walked a register of columns a step. On bytes and halves a
			// line is then asked for more than once.
			g.PREFETCHT0(mem(R10, f.rowBytes(pfDist)))
			g.PREFETCHT0(mem(R11, f.rowBytes(pfDist)))
			g.PREFETCHT1(mem(R8, 0))
			g.PREFETCHT1(mem(R15, 0))
			g.ADDQ(u8(RB), R8)
			g.ADDQ(u8(RB), R15)
		}
		f.loadRow(g, zmm, p, mem(R10, 0), Z0)
		f.loadRow(g, zmm, p, mem(R11, 0), Z1)
		for j := 0; j < C; j++ {
			wr := z(2 + j%6)
			g.vmovu(p, ca(j, 0), wr)
			g.vfmadd231(p, Z0, wr, z(acc[0][j]))
			g.vfmadd231(p, Z1, wr, z(acc[1][j]))
		}
		g.ADDQ(u8(RB), R10)
		g.ADDQ(u8(RB), R11)
		g.ADDQ(u8(64), RDX)
		g.ADDQ(u8(64), R14)
		g.DECQ(RAX)
		g.JNZ(lbl("loop2"))
		g.Label(L + "mask2")
		g.TESTQ(u32(V-1), g.param("d"))
		g.JZ(lbl("reduce2"))
		f.maskLoadRow(g, p, mem(R10, 0), Z0)
		f.maskLoadRow(g, p, mem(R11, 0), Z1)
		for j := 0; j < C; j++ {
			wr := z(2 + j%6)
			g.zload(p, ca(j, 0), wr)
			g.vfmadd231(p, Z0, wr, z(acc[0][j]))
			g.vfmadd231(p, Z1, wr, z(acc[1][j]))
		}
		g.Label(L + "reduce2")
		resetW()
		g.MOVQ(g.param("k"), RAX)
		g.SHLQ(u8(shift(p)), RAX)
		zReduceStore(g, p, acc[0], RDI)
		g.ADDQ(RAX, RDI)
		zReduceStore(g, p, acc[1], RDI)
		g.ADDQ(RAX, RDI)
		g.SUBQ(u8(2), RCX)
		g.JMP(lbl("pair"))

		// The last row: one accumulator per class.
		g.Label(L + "single")
		g.TESTQ(RCX, RCX)
		g.JZ(operand.LabelRef(L0 + "done"))
		lastRow(g, L)
		for j := 0; j < C; j++ {
			g.zzero(z(acc[0][j]))
		}
		chunks()
		g.TESTQ(RAX, RAX)
		g.JZ(lbl("mask1"))
		g.Label(L + "loop1")
		f.loadRow(g, zmm, p, mem(R10, 0), Z0)
		for j := 0; j < C; j++ {
			g.vfmadd231(p, ca(j, 0), Z0, z(acc[0][j]))
		}
		g.ADDQ(u8(RB), R10)
		g.ADDQ(u8(64), RDX)
		g.ADDQ(u8(64), R14)
		g.DECQ(RAX)
		g.JNZ(lbl("loop1"))
		g.Label(L + "mask1")
		g.TESTQ(u32(V-1), g.param("d"))
		g.JZ(lbl("reduce1"))
		f.maskLoadRow(g, p, mem(R10, 0), Z0)
		for j := 0; j < C; j++ {
			g.zload(p, ca(j, 0), Z2)
			g.vfmadd231(p, Z0, Z2, z(acc[0][j]))
		}
		g.Label(L + "reduce1")
		zReduceStore(g, p, acc[0], RDI)
		if C > 1 { // the one-class body ends at done
			g.JMP(operand.LabelRef(L0 + "done"))
		}
	}
	g.Label(L0 + "done")
	g.VZEROUPPER()
	g.RET()
}

// vfmadd231bcst is acc += a · broadcast(m) with the broadcast embedded in
// the FMA's memory operand.
func (g *gen) vfmadd231bcst(p prec, m operand.Mem, a, acc operand.Op) {
	byPrec(p, g.VFMADD231PS_BCST, g.VFMADD231PD_BCST)(m, a, acc)
}
