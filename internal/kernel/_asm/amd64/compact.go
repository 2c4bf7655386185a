package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The compact-feature loads: rows of uint8 (x = scale·u) or IEEE
// half-precision features, widened to float32. The row kernels of package
// kernel convert a block of rows with these into an L1-sized float32 buffer.
// They run the float32 row kernels on it. So a row costs its compact bytes
// from memory.

func init() {
	sectionDocs = append(sectionDocs, compactDoc)
	for name, st := range compactStubs {
		stubDocs[name] = st
	}
	compactKStubs()
}

const compactDoc = `// Compact features: conversions, and kernels that read compact rows.
// cvtU8F32 widens bytes with VPMOVZXBD and converts them with VCVTDQ2PS.
// That is exact: every byte is a float32. It then multiplies by the scale
// with VMULPS. That is one rounding, the float32 product fl(scale·u), which
// the generic reference replays. Then cvtF16F32 widens IEEE half floats with
// VCVTPH2PS (F16C; exact). The kernel cvtBF16F32 widens bfloat16s with
// VPMOVZXWD and shifts them into a float32's top half with VPSLLD (exact).
// All take n a multiple of 8; the Go driver converts the last n mod 8
// elements. They touch nothing past the n elements.
//
// marginsU8F32 and addRowsU8F32 read byte rows directly: the row kernels of
// the linear models on u8 data. VPMOVZXBD and VCVTDQ2PS widen 8 bytes to 8
// floats. These meet the float32 weights or coefficients in FMAs. The
// kernels marginsF16F32 and addRowsF16F32 do the same on halves with
// VCVTPH2PS (F16C). The kernels marginsBF16F32 and addRowsBF16F32 do it on
// bfloat16s with VPMOVZXWD and VPSLLD. The margins prefetch pfRows rows
// ahead, as rows come one at a time. They take a row at a time, 32 columns a
// step in four accumulators, then 8. The count d is a multiple of 8: the Go
// driver takes the last d mod 8 columns and the scale.
//
// Requires: AVX2, FMA3 (cvtU8F32, marginsU8F32, addRowsU8F32), and F16C
// (cvtF16F32, marginsF16F32, addRowsF16F32).
//
// zMarginsU8F32, zAddRowsU8F32, zMarginsF16F32, zAddRowsF16F32 and the BF16
// pair are their AVX-512 twins. They are emitted from the same bodies on zmm
// registers (AVX512F). VPMOVZXBD zmm widens 16 bytes, VCVTPH2PS zmm 16
// halves, VPMOVZXWD zmm 16 bfloat16s. They take 64 columns a step, then 16.
// The last 8 go in ymm with the 256-bit loads, as d is a multiple of 8. So
// no load reaches past d, and no opmask is needed. AddRows makes the same
// FMAs in the same order as the 256-bit kernels, bit for bit. Margins sum in
// other lanes, within the same bound. The Go side (impl_amd64.go) takes them
// only for the "avx512" implementation.
//
// zMarginsKU8F32, zAddOuterKU8F32, zMarginsKF16F32, zAddOuterKF16F32 and the
// BF16 ones are zmm class kernels. So are their PF variants. They are
// zMarginsKF32 and zAddOuterKF32 emitted on compact rows. So the multi-class
// products (softmax, the MLP's first layer) read bytes, halves or bfloat16s
// without a float32 conversion buffer. Each register of a row is widened as
// it loads:
//
//   - 16 bytes: VPMOVZXBD, VCVTDQ2PS, then VMULPS by the scale;
//   - 16 halves: VCVTPH2PS;
//   - 16 bfloat16s: VPMOVZXWD and VPSLLD.
//
// That gives exactly the float32 value of the converted matrix. It then
// meets the same FMAs in the same order as in the float32 kernel, bit for
// bit. Tails: the last d mod 16 columns load under K1 with zeroing masking.
// VPMOVZXBD, VCVTPH2PS and VPMOVZXWD with an opmask read nothing of
// masked-off lanes. So rows may end at an unreadable page, and d is any.
// They prefetch as the float32 kernels, at the same distance in columns.
// Requires: AVX512F, BMI2, F16C (halves).
//
// marginsKU8F32, addOuterKU8F32, marginsKF16F32, addOuterKF16F32 and the
// BF16 ones (and PF) are ymm class kernels. They are marginsKF32 and
// addOuterKF32 emitted on compact rows the same way, bit for bit those
// kernels. A register holds 8 elements, and Y14 holds the scale of bytes.
// AVX2 has no byte- or half-masked load. So the last t = d (cols) mod 8
// columns are read as the 8 elements that end with them. VPERMPS moves them
// down to lanes 0..t−1, with indices 8−t+i from laneIdx. VANDPS with the
// lane mask clears them past t. These are the values VMASKMOVPS gives on the
// converted row. So nothing past a row is read. A row (the strip up to its
// end) must have 8 elements. Requires: AVX2, FMA3, F16C (halves).
`

var compactStubs = map[string]stub{
	"prefetchBytes": {
		sig: "func(p unsafe.Pointer, n int)",
		doc: []string{
			"prefetchBytes asks for the cache lines of p[0:n] (PREFETCHT0 every 64",
			"bytes); it reads nothing and cannot fault.",
		},
	},
	"marginsU8F32": {
		sig: "func(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)",
		doc: []string{
			"marginsU8F32 computes the loop below for d a multiple of 8, with",
			"r_i = idx[i]. Here x is []uint8 and idx []int. With a nil idx, x",
			"advances by stride bytes a row:",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tvar s float32",
			"\t\tfor l := 0; l < d; l++ {",
			"\t\t\ts += float32(x[r_i*stride+l]) * w[l]",
			"\t\t}",
			"\t\tm[i] = s",
			"\t}",
		},
	},
	"marginsF16F32": {
		sig: "func(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)",
		doc: []string{
			"marginsF16F32 is marginsU8F32 on rows of IEEE halves (x is []uint16,",
			"stride in elements), each widened exactly to float32.",
		},
	},
	"marginsBF16F32": {
		sig: "func(m unsafe.Pointer, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int)",
		doc: []string{
			"marginsBF16F32 is marginsU8F32 on rows of bfloat16s (x is []uint16,",
			"stride in elements), each widened exactly to float32.",
		},
	},
	"addRowsBF16F32": {
		sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)",
		doc: []string{
			"addRowsBF16F32 is addRowsU8F32 on rows of bfloat16s (x is []uint16,",
			"stride in elements), each widened exactly to float32.",
		},
	},
	"addRowsF16F32": {
		sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)",
		doc: []string{
			"addRowsF16F32 is addRowsU8F32 on rows of IEEE halves (x is []uint16,",
			"stride in elements), each widened exactly to float32.",
		},
	},
	"addRowsU8F32": {
		sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, n int)",
		doc: []string{
			"addRowsU8F32 computes, for d a multiple of 8, with r_i as for",
			"marginsU8F32:",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tfor l := 0; l < d; l++ {",
			"\t\t\tdst[l] = fma(c[i], float32(x[r_i*stride+l]), dst[l])",
			"\t\t}",
			"\t}",
		},
	},
	"cvtU8F32": {
		sig: "func(dst, src unsafe.Pointer, n int, scale float32)",
		doc: []string{
			"cvtU8F32 computes, for n a multiple of 8:",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tdst[i] = scale * float32(src[i]) // src is []uint8",
			"\t}",
		},
	},
	"cvtF16F32": {
		sig: "func(dst, src unsafe.Pointer, n int)",
		doc: []string{
			"cvtF16F32 computes, for n a multiple of 8:",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tdst[i] = float32 value of the IEEE half src[i] // src is []uint16",
			"\t}",
		},
	},
	"cvtBF16F32": {
		sig: "func(dst, src unsafe.Pointer, n int)",
		doc: []string{
			"cvtBF16F32 computes, for n a multiple of 8:",
			"",
			"\tfor i := 0; i < n; i++ {",
			"\t\tdst[i] = math.Float32frombits(uint32(src[i]) << 16) // src is []uint16",
			"\t}",
		},
	},
}

func compactKernels(g *gen) {
	prefetch(g)
	cvtU8(g)
	cvt16(g, f16Rows)
	cvt16(g, bf16Rows)
	for _, v := range []vec{ymm, zmm} {
		for _, f := range []rowFormat{u8Rows, f16Rows, bf16Rows} {
			marginsU8(g, v, f)
			addRowsU8(g, v, f)
		}
	}
	for _, pf := range []bool{false, true} {
		for _, f := range []rowFormat{u8Rows, f16Rows, bf16Rows} {
			zmarginsK(g, f32, f, pf)
			addOuterK(g, zmm, f32, f, prefetchOf(pf))
		}
	}
	laneIdx = g.data("laneIdx", 4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
	for _, pf := range []bool{false, true} {
		for _, f := range []rowFormat{u8Rows, f16Rows, bf16Rows} {
			marginsK(g, f32, f, pf)
			addOuterK(g, ymm, f32, f, prefetchOf(pf))
		}
	}
	for _, v := range []vec{zmm, ymm} {
		for _, f := range []rowFormat{u8Rows, f16Rows, bf16Rows} {
			addOuterK(g, v, f32, f, prefetchNext)
		}
	}
}

// compactKName is the class kernel of v on rows of format f, named after the
// float32 kernel base ("marginsKF32", "addOuterKPFF32"). It gives
// "zMarginsKU8F32", "zAddOuterKPFF16F32" (zmm) or "marginsKU8F32" (ymm).
func compactKName(v vec, base string, f rowFormat) string {
	b := strings.TrimSuffix(base, "F32") + f.name + "F32"
	if v.isZ() {
		return "z" + strings.ToUpper(b[:1]) + b[1:]
	}
	return b
}

// compactKStubs declares the class kernels on compact rows (zmm and ymm).
// They have the float32 kernels' signatures, plus the scale of bytes.
func compactKStubs() {
	for _, v := range []vec{zmm, ymm} {
		// zn is the name of v's float32 kernel base.
		zn := func(base string) string {
			if v.isZ() {
				return "z" + strings.ToUpper(base[:1]) + base[1:]
			}
			return base
		}
		for _, pf := range []string{"", "PF"} {
			for _, f := range []rowFormat{u8Rows, f16Rows, bf16Rows} {
				scale, value := "", "float32 value of the half (VCVTPH2PS)"
				if f.bf16 {
					value = "float32 value of the bfloat16 (VPMOVZXWD, VPSLLD)"
				}
				if f.size == 1 {
					scale, value = ", scale float32", "float32 scale·float32(u) (VPMOVZXBD, VCVTDQ2PS, VMULPS)"
				}
				elem := map[uint8]string{1: "[]uint8", 2: "[]uint16"}[f.size]
				dAny, mDoc, aDoc := "d any", []string{}, []string{}
				if !v.isZ() {
					dAny = "d ≥ 8"
					mDoc = []string{"", "The last d mod 8 columns are read as the 8 elements that end the row.", "VPERMPS moves them to their lanes. So a row must have 8."}
					aDoc = []string{"", "The last cols mod 8 columns are read as the 8 elements that end at", "column cols. VPERMPS moves them to their lanes. Those 8 must be in the", "row: cols ≥ 8, or x at a column ≥ 8 − cols."}
				}
				switch {
				case pf != "" && v.isZ():
					mDoc = []string{"", "It prefetches as zMarginsKPFF32 (the rows three pairs ahead), for rows", "that are not in cache."}
				case pf != "":
					mDoc = append(mDoc, "", "It prefetches as marginsKPFF32, for rows that are not in cache.")
				}
				if pf != "" {
					aDoc = append(aDoc, "", "It prefetches as "+zn("addOuterKPFF32")+", for rows that are not in cache.")
				}
				m := compactKName(v, "marginsK"+pf+"F32", f)
				stubDocs[m] = stub{
					sig: "func(m unsafe.Pointer, k, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d, c int" + scale + ")",
					doc: append([]string{
						m + " is " + zn("marginsK"+pf+"F32") + " on rows of " + f.name + " features.",
						"Here x is " + elem + ", the stride is in elements, and " + dAny + ".",
						"Each feature is loaded as the " + value + ".",
						"That is the value the float32 kernel would read from the converted",
						"matrix. So the results are that kernel's, bit for bit.",
					}, mDoc...),
				}
				a := compactKName(v, "addOuterK"+pf+"F32", f)
				stubDocs[a] = stub{
					sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, k, n, cols, nc int" + scale + ")",
					doc: append([]string{
						a + " is " + zn("addOuterK"+pf+"F32") + " on rows of " + f.name + " features.",
						"Here x is " + elem + ", and the stride is in elements. Each feature is",
						"loaded as the " + value + ".",
						"It makes the same fused multiply-adds in the same order, bit for bit.",
					}, aDoc...),
				}
				if pf == "" {
					nx := compactKName(v, "addOuterKNXF32", f)
					stubDocs[nx] = stub{
						sig: "func(dst unsafe.Pointer, d int, x unsafe.Pointer, stride int, idx, c unsafe.Pointer, k, n, cols, nc int" + scale + ", next unsafe.Pointer, nnext int)",
						doc: []string{
							nx + " is " + a + " that also prefetches the rows a following call",
							"will read. As " + zn("addOuterKNXF32") + " does, it prefetches the same",
							"columns of the nnext rows at next. Its result is " + a + "'s.",
						},
					}
				}
			}
		}
	}
}

// rowFormat is the storage a row kernel reads: bytes, IEEE halves or
// bfloat16s.
type rowFormat struct {
	name  string // "U8", "F16" or "BF16"
	label string // label prefix
	size  uint8  // bytes per element
	bf16  bool   // 16-bit elements are bfloat16s, not IEEE halves
}

var (
	u8Rows   = rowFormat{name: "U8", label: "u8", size: 1}
	f16Rows  = rowFormat{name: "F16", label: "f16", size: 2}
	bf16Rows = rowFormat{name: "BF16", label: "bf16", size: 2, bf16: true}
)

// load loads a register of v's width of elements at m as float32 into r: 8
// for ymm, 16 for zmm. Bytes take VPMOVZXBD and VCVTDQ2PS, and halves
// VCVTPH2PS. Bfloat16s take VPMOVZXWD and VPSLLD by 16, into a float32's top
// half.
func (f rowFormat) load(g *gen, v vec, m operand.Mem, r VecPhysical) {
	switch {
	case f.size == 1:
		g.VPMOVZXBD(m, r)
		g.VCVTDQ2PS(r, r)
	case f.bf16:
		g.VPMOVZXWD(m, r)
		g.VPSLLD(u8(16), r, r)
	default:
		g.VCVTPH2PS(m, r)
	}
}

// load8 loads 8 elements at m as 8 float32 into the ymm register r. It is a
// VEX form, so the upper half of the zmm register is cleared.
func (f rowFormat) load8(g *gen, m operand.Mem, r VecPhysical) { f.load(g, ymm, m, r) }

// u8Row sets R10 to the next row, of bytes, halves or bfloat16s. Rows are
// gathered through idx (BX) or consecutive from SI. R9 is the row stride in
// bytes.
func u8Row(g *gen, L string) {
	g.TESTQ(RBX, RBX)
	g.JZ(operand.LabelRef(L + "consec"))
	g.MOVQ(mem(RBX, 0), R10)
	g.IMULQ(R9, R10)
	g.ADDQ(RSI, R10)
	g.ADDQ(u8(8), RBX)
	g.JMP(operand.LabelRef(L + "ready"))
	g.Label(L + "consec")
	g.MOVQ(RSI, R10)
	g.ADDQ(R9, RSI)
	g.Label(L + "ready")
}

// prefetchRowLines asks for the lines of the row at R12, of R8 elements of E
// bytes, in a loop labelled L. It issues PREFETCHT0 every 64 bytes, and
// clobbers R12 and R13.
func prefetchRowLines(g *gen, L string, E uint8) {
	g.LEAQ(memi(R12, 0, R8, E), R13)
	g.Label(L)
	g.PREFETCHT0(mem(R12, 0))
	g.ADDQ(u8(64), R12)
	g.CMPQ(R12, R13)
	g.JB(operand.LabelRef(L))
}

// pfRows is how many rows ahead marginsU8 prefetches. Byte rows gathered
// at random arrive at memory latency, a dozen lines a row. Too few rows
// ahead leave that latency exposed; more only add traffic. 8 rows keep
// enough lines in flight for MNIST-sized rows.
const pfRows = 8

// marginsU8 is the margins of byte (or half) rows against float32 weights, a
// row at a time. It takes four registers of columns a step in four
// accumulators: 32 columns in ymm, 64 in zmm. Then it takes one register. In
// zmm it then folds the accumulators to one ymm register. The last 8 columns
// go in ymm, as d is a multiple of 8.
func marginsU8(g *gen, v vec, f rowFormat) {
	L := v.prefix + "m" + f.label
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	E := f.size
	W := v.lanes(f32) // columns a register
	r := v.reg
	v.text(g, "margins"+f.name+"F32")
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	if E == 2 {
		g.SHLQ(u8(1), R9)
	}
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("w"), RDX)
	g.MOVQ(g.param("d"), R8)
	g.MOVQ(R8, R11)
	g.ANDQ(i32(-4*W), R11)
	if v.isZ() {
		// R14 bounds the one-register steps.
		g.MOVQ(R8, R14)
		g.ANDQ(i32(-W), R14)
	}

	// The first rows of a call have no earlier row to ask for them. So ask
	// for rows 1 … pfRows−1 now; row 0 is read at once.
	g.MOVQ(i32(1), R15)
	g.Label(L + "pfhead")
	g.CMPQ(R15, RCX)
	g.JAE(lbl("row"))
	g.CMPQ(R15, u8(pfRows))
	g.JAE(lbl("row"))
	g.TESTQ(RBX, RBX)
	g.JZ(lbl("pfhconsec"))
	g.MOVQ(memi(RBX, 0, R15, 8), R12)
	g.IMULQ(R9, R12)
	g.ADDQ(RSI, R12)
	g.JMP(lbl("pfh"))
	g.Label(L + "pfhconsec")
	g.MOVQ(R15, R12)
	g.IMULQ(R9, R12)
	g.ADDQ(RSI, R12)
	g.Label(L + "pfh")
	prefetchRowLines(g, L+"pfhloop", E)
	g.INCQ(R15)
	g.JMP(lbl("pfhead"))

	g.Label(L + "row")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	u8Row(g, L)
	// Rows gathered from memory come one at a time. So prefetch the row
	// pfRows ahead, whose address is known. Then several rows' lines are in
	// flight; a row of bytes is only a few cache lines.
	g.CMPQ(RCX, u8(pfRows+1))
	g.JB(lbl("nopf"))
	g.TESTQ(RBX, RBX)
	g.JZ(lbl("pfconsec"))
	g.MOVQ(mem(RBX, 8*(pfRows-1)), R12)
	g.IMULQ(R9, R12)
	g.ADDQ(g.param("x"), R12)
	g.JMP(lbl("pf"))
	g.Label(L + "pfconsec")
	g.IMUL3Q(i32(pfRows-1), R9, R12)
	g.ADDQ(RSI, R12)
	g.Label(L + "pf")
	prefetchRowLines(g, L+"pfloop", E)
	g.Label(L + "nopf")
	for i := 0; i < 4; i++ {
		v.zero(g, f32, r(i))
	}
	g.XORQ(RAX, RAX)
	step, one := fmt.Sprintf("loop%d", 4*W), fmt.Sprintf("loop%d", W)
	g.Label(L + step)
	g.CMPQ(RAX, R11)
	g.JAE(lbl(one))
	for j := 0; j < 4; j++ {
		f.load(g, v, memi(R10, W*j*int(E), RAX, E), r(4+j))
	}
	for j := 0; j < 4; j++ {
		g.VFMADD231PS(memi(RDX, v.bytes*j, RAX, 4), r(4+j), r(j))
	}
	g.ADDQ(u8(4*W), RAX)
	g.JMP(lbl(step))

	g.Label(L + one)
	if v.isZ() {
		g.CMPQ(RAX, R14)
		g.JAE(lbl("fold"))
	} else {
		g.CMPQ(RAX, R8)
		g.JAE(lbl("reduce"))
	}
	f.load(g, v, memi(R10, 0, RAX, E), r(4))
	g.VFMADD231PS(memi(RDX, 0, RAX, 4), r(4), r(0))
	g.ADDQ(u8(W), RAX)
	g.JMP(lbl(one))

	if v.isZ() {
		// Fold the four accumulators into Y0, then the last 8 columns.
		g.Label(L + "fold")
		g.VADDPS(Z1, Z0, Z0)
		g.VADDPS(Z3, Z2, Z2)
		g.VADDPS(Z2, Z0, Z0)
		g.VEXTRACTF64X4(u8(1), Z0, Y1)
		g.VADDPS(Y1, Y0, Y0)
		g.CMPQ(RAX, R8)
		g.JAE(lbl("reduce"))
		f.load8(g, memi(R10, 0, RAX, E), Y4)
		g.VFMADD231PS(memi(RDX, 0, RAX, 4), Y4, Y0)
		g.Label(L + "reduce")
	} else {
		g.Label(L + "reduce")
		g.VADDPS(Y1, Y0, Y0)
		g.VADDPS(Y3, Y2, Y2)
		g.VADDPS(Y2, Y0, Y0)
	}
	g.VEXTRACTF128(u8(1), Y0, X1)
	g.VADDPS(X1, X0, X0)
	g.VHADDPS(X0, X0, X0)
	g.VHADDPS(X0, X0, X0)
	g.VMOVSS(X0, mem(RDI, 0))
	g.ADDQ(u8(4), RDI)
	g.DECQ(RCX)
	g.JMP(lbl("row"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// addRowsU8 accumulates byte (or half) rows times float32 coefficients into
// g. It takes four rows, then one row, at a time. A step takes four
// registers of columns: 32 columns in ymm, 64 in zmm. Then it takes one
// register. In zmm the last 8 columns go in ymm, as d is a multiple of 8.
func addRowsU8(g *gen, v vec, f rowFormat) {
	L := v.prefix + "a" + f.label
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	E := f.size
	W := v.lanes(f32) // columns a register
	R := v.bytes
	r := v.reg
	v.text(g, "addRows"+f.name+"F32")
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("d"), R8)
	g.MOVQ(g.param("x"), RSI)
	g.MOVQ(g.param("stride"), R9)
	if E == 2 {
		g.SHLQ(u8(1), R9)
	}
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("c"), RDX)
	g.MOVQ(g.param("n"), RCX)
	// R14 bounds the four-register steps (R10–R13 hold the rows of a
	// block); zmm: R15 the one-register steps.
	g.MOVQ(R8, R14)
	g.ANDQ(i32(-4*W), R14)
	if v.isZ() {
		g.MOVQ(R8, R15)
		g.ANDQ(i32(-W), R15)
	}
	// oneBound is the bound of the one-register steps.
	oneBound := R8
	if v.isZ() {
		oneBound = R15
	}
	step, one := fmt.Sprintf("%d", 4*W), fmt.Sprintf("%d", W)

	// Blocks of four rows: each column group of g is loaded and stored once
	// per four rows. The rows meet it in row order, with the FMAs of the
	// one-row loop, in the same order.
	g.Label(L + "block")
	g.CMPQ(RCX, u8(4))
	g.JB(lbl("row"))
	rows4(g, L+"q")
	for i := 0; i < 4; i++ {
		g.VBROADCASTSS(mem(RDX, 4*i), r(12+i))
	}
	g.ADDQ(u8(16), RDX)
	g.XORQ(RAX, RAX)
	g.Label(L + "b" + step)
	g.CMPQ(RAX, R14)
	g.JAE(lbl("b" + one))
	for j := 0; j < 4; j++ {
		g.VMOVUPS(memi(RDI, R*j, RAX, 4), r(j))
	}
	for i, rr := range rowRegs {
		for j := 0; j < 4; j++ {
			t := r(4 + (4*i+j)%8)
			f.load(g, v, memi(rr, W*j*int(E), RAX, E), t)
			g.VFMADD231PS(t, r(12+i), r(j))
		}
	}
	for j := 0; j < 4; j++ {
		g.VMOVUPS(r(j), memi(RDI, R*j, RAX, 4))
	}
	g.ADDQ(u8(4*W), RAX)
	g.JMP(lbl("b" + step))
	g.Label(L + "b" + one)
	g.CMPQ(RAX, oneBound)
	if v.isZ() {
		g.JAE(lbl("b8"))
	} else {
		g.JAE(lbl("bnext"))
	}
	g.VMOVUPS(memi(RDI, 0, RAX, 4), r(0))
	for i, rr := range rowRegs {
		f.load(g, v, memi(rr, 0, RAX, E), r(4+i))
		g.VFMADD231PS(r(4+i), r(12+i), r(0))
	}
	g.VMOVUPS(r(0), memi(RDI, 0, RAX, 4))
	g.ADDQ(u8(W), RAX)
	g.JMP(lbl("b" + one))
	if v.isZ() {
		// The last 8 columns in ymm (Y12..Y15 hold the broadcasts too).
		g.Label(L + "b8")
		g.CMPQ(RAX, R8)
		g.JAE(lbl("bnext"))
		g.VMOVUPS(memi(RDI, 0, RAX, 4), Y0)
		for i, rr := range rowRegs {
			f.load8(g, memi(rr, 0, RAX, E), y(4+i))
			g.VFMADD231PS(y(4+i), y(12+i), Y0)
		}
		g.VMOVUPS(Y0, memi(RDI, 0, RAX, 4))
	}
	g.Label(L + "bnext")
	g.SUBQ(u8(4), RCX)
	g.JMP(lbl("block"))

	g.Label(L + "row")
	g.TESTQ(RCX, RCX)
	g.JZ(lbl("done"))
	u8Row(g, L)
	g.VBROADCASTSS(mem(RDX, 0), r(15))
	g.ADDQ(u8(4), RDX)
	g.XORQ(RAX, RAX)
	g.Label(L + "loop" + step)
	g.CMPQ(RAX, R14)
	g.JAE(lbl("loop" + one))
	for j := 0; j < 4; j++ {
		f.load(g, v, memi(R10, W*j*int(E), RAX, E), r(4+j))
	}
	for j := 0; j < 4; j++ {
		g.VMOVUPS(memi(RDI, R*j, RAX, 4), r(j))
		g.VFMADD231PS(r(4+j), r(15), r(j))
		g.VMOVUPS(r(j), memi(RDI, R*j, RAX, 4))
	}
	g.ADDQ(u8(4*W), RAX)
	g.JMP(lbl("loop" + step))

	g.Label(L + "loop" + one)
	g.CMPQ(RAX, oneBound)
	if v.isZ() {
		g.JAE(lbl("tail8"))
	} else {
		g.JAE(lbl("next"))
	}
	f.load(g, v, memi(R10, 0, RAX, E), r(4))
	g.VMOVUPS(memi(RDI, 0, RAX, 4), r(0))
	g.VFMADD231PS(r(4), r(15), r(0))
	g.VMOVUPS(r(0), memi(RDI, 0, RAX, 4))
	g.ADDQ(u8(W), RAX)
	g.JMP(lbl("loop" + one))
	if v.isZ() {
		g.Label(L + "tail8")
		g.CMPQ(RAX, R8)
		g.JAE(lbl("next"))
		f.load8(g, memi(R10, 0, RAX, E), Y4)
		g.VMOVUPS(memi(RDI, 0, RAX, 4), Y0)
		g.VFMADD231PS(Y4, Y15, Y0)
		g.VMOVUPS(Y0, memi(RDI, 0, RAX, 4))
	}

	g.Label(L + "next")
	g.DECQ(RCX)
	g.JMP(lbl("row"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// cvtU8 converts 32 bytes a step, then 8.
func cvtU8(g *gen) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef("cu8" + s) }
	g.text("cvtU8F32")
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("src"), RSI)
	g.MOVQ(g.param("n"), RCX)
	g.VBROADCASTSS(g.param("scale"), Y15)

	g.Label("cu8loop4")
	g.CMPQ(RCX, u8(32))
	g.JB(lbl("one"))
	for i := 0; i < 4; i++ {
		g.VPMOVZXBD(mem(RSI, 8*i), y(i))
	}
	for i := 0; i < 4; i++ {
		g.VCVTDQ2PS(y(i), y(i))
		g.VMULPS(Y15, y(i), y(i))
		g.VMOVUPS(y(i), mem(RDI, 32*i))
	}
	g.ADDQ(u8(32), RSI)
	g.ADDQ(u32(128), RDI)
	g.SUBQ(u8(32), RCX)
	g.JMP(lbl("loop4"))

	g.Label("cu8one")
	g.CMPQ(RCX, u8(8))
	g.JB(lbl("done"))
	g.VPMOVZXBD(mem(RSI, 0), Y0)
	g.VCVTDQ2PS(Y0, Y0)
	g.VMULPS(Y15, Y0, Y0)
	g.VMOVUPS(Y0, mem(RDI, 0))
	g.ADDQ(u8(8), RSI)
	g.ADDQ(u8(32), RDI)
	g.SUBQ(u8(8), RCX)
	g.JMP(lbl("one"))

	g.Label("cu8done")
	g.VZEROUPPER()
	g.RET()
}

// cvt16 converts 32 elements of the 16-bit format f (halves or bfloat16s) a
// step, then 8. f's register loads widen them.
func cvt16(g *gen, f rowFormat) {
	L := "c" + f.label
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("cvt" + f.name + "F32")
	g.MOVQ(g.param("dst"), RDI)
	g.MOVQ(g.param("src"), RSI)
	g.MOVQ(g.param("n"), RCX)

	g.Label(L + "loop4")
	g.CMPQ(RCX, u8(32))
	g.JB(lbl("one"))
	for i := 0; i < 4; i++ {
		f.load(g, ymm, mem(RSI, 16*i), y(i))
	}
	for i := 0; i < 4; i++ {
		g.VMOVUPS(y(i), mem(RDI, 32*i))
	}
	g.ADDQ(u8(64), RSI)
	g.ADDQ(u32(128), RDI)
	g.SUBQ(u8(32), RCX)
	g.JMP(lbl("loop4"))

	g.Label(L + "one")
	g.CMPQ(RCX, u8(8))
	g.JB(lbl("done"))
	f.load(g, ymm, mem(RSI, 0), Y0)
	g.VMOVUPS(Y0, mem(RDI, 0))
	g.ADDQ(u8(16), RSI)
	g.ADDQ(u8(32), RDI)
	g.SUBQ(u8(8), RCX)
	g.JMP(lbl("one"))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}

// prefetch issues PREFETCHT0 for every 64 bytes of [p, p+n).
func prefetch(g *gen) {
	g.text("prefetchBytes")
	g.MOVQ(g.param("p"), RSI)
	g.MOVQ(g.param("n"), RCX)
	g.ADDQ(RSI, RCX)
	g.Label("pfbloop")
	g.CMPQ(RSI, RCX)
	g.JAE(operand.LabelRef("pfbdone"))
	g.PREFETCHT0(mem(RSI, 0))
	g.ADDQ(u8(64), RSI)
	g.JMP(operand.LabelRef("pfbloop"))
	g.Label("pfbdone")
	g.RET()
}

// denseRows marks the class kernels' rows as values of the kernel's own
// precision. These are the float32 and float64 marginsK and addOuterK.
var denseRows = rowFormat{}

// dense reports rows of the kernel's precision rather than a compact format.
func (f rowFormat) dense() bool { return f.size == 0 }

// shift is log2 of a row element's size in bytes.
func (f rowFormat) shift(p prec) int {
	if f.dense() {
		return shift(p)
	}
	return int(f.size) / 2
}

// rowBytes is the size in the rows of n bytes of float32 (or p) columns. It
// is the bytes of a row that a register of columns, or a distance, covers.
func (f rowFormat) rowBytes(n int) int {
	if f.dense() {
		return n
	}
	return n / 4 * int(f.size)
}

// compactScale is the register that holds the scale of byte rows in the
// class kernels. loadScale sets it from the scale argument. It is one the
// zmm bodies leave free. In ymm it is one of the two that neither body uses.
func compactScale(v vec) VecPhysical {
	if v.isZ() {
		return z(28)
	}
	return Y14
}

// loadScale broadcasts the scale argument of a byte-row kernel.
func (f rowFormat) loadScale(g *gen, v vec) {
	if f.size == 1 {
		g.VBROADCASTSS(g.param("scale"), compactScale(v))
	}
}

// loadRow loads a register of v of a row's columns as the kernel's values.
// Dense rows load as they are. Bytes are widened, converted and multiplied
// by the scale. That is one rounding, fl(scale·u): the float32 value the
// dense path sees. Halves are widened exactly.
func (f rowFormat) loadRow(g *gen, v vec, p prec, m operand.Mem, r VecPhysical) {
	switch f.size {
	case 0:
		g.vmovu(p, m, r)
	case 1:
		f.load(g, v, m, r)
		g.VMULPS(compactScale(v), r, r)
	default:
		f.load(g, v, m, r)
	}
}

// laneIdx is the table 0, 1, …, 15 of int32 from which endTail loads its
// VPERMPS indices. compactKernels sets it.
var laneIdx operand.Mem

// endTail prepares the ymm compact class kernels' last cnt mod 8 columns,
// which have no byte- or half-masked load. Here cnt is the d or cols
// argument. It sets R14 = (cnt mod 8 − 8)·size. That is the offset from the
// tail's first column to the register of 8 elements that ends with the last
// column. The last column is the row's, or the strip's. It sets Y13 to the
// VPERMPS indices 8−t+i, with t = cnt mod 8. They move those t elements down
// to lanes 0..t−1. Lanes past t wrap, and are masked off.
func (f rowFormat) endTail(g *gen, cnt operand.Mem) {
	g.MOVQ(cnt, R14)
	g.ANDQ(u8(7), R14)
	g.NEGQ(R14)
	g.LEAQ(laneIdx, R15)
	g.VMOVDQU(memi(R15, 32, R14, 4), Y13)
	g.ADDQ(u8(8), R14)
	g.NEGQ(R14)
	if f.size == 2 {
		g.SHLQ(u8(1), R14)
	}
}

// loadRowEnd loads the tail columns at m (set up by endTail) as loadRow
// does, on the lanes of the mask in Y15. It zeroes the others. It reads the
// 8 elements that end with the tail, within the row. It moves the tail's
// down to their lanes and clears the rest. These are the values a masked
// load of the converted row gives. The caller makes sure the row has 8
// elements up to the tail's end.
func (f rowFormat) loadRowEnd(g *gen, p prec, m operand.Mem, r VecPhysical) {
	m.Index, m.Scale = R14, 1
	f.loadRow(g, ymm, p, m, r)
	g.VPERMPS(r, Y13, r)
	g.VANDPS(Y15, r, r)
}

// maskLoadRow is loadRow of the lanes in K1, zeroing the others. The
// masked-off elements are not read, as EVEX masking suppresses their faults.
// So a row may end at an unreadable page.
func (f rowFormat) maskLoadRow(g *gen, p prec, m operand.Mem, r VecPhysical) {
	switch f.size {
	case 0:
		g.zload(p, m, r)
	case 1:
		g.VPMOVZXBD_Z(m, K1, r)
		g.VCVTDQ2PS(r, r)
		g.VMULPS(compactScale(zmm), r, r)
	default:
		if f.bf16 {
			g.VPMOVZXWD_Z(m, K1, r)
			g.VPSLLD(u8(16), r, r)
		} else {
			g.VCVTPH2PS_Z(m, K1, r)
		}
	}
}
