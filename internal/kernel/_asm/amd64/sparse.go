package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The CSR kernels. SparseMargins and SparseMarginsK take the sparse dot of
// CSR rows with k dense weight vectors. SparseAddRows and SparseAddOuterK
// scatter-add scaled CSR rows into k dense vectors.

func init() {
	sectionDocs = append(sectionDocs, sparseDoc)
	for _, p := range []string{"F32", "F64"} {
		stubDocs["sparseMargins"+p] = stub{
			sig: "func(m unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, w unsafe.Pointer, d, budget, ahead int) (done int, maxcol uint32)",
			doc: sparseMarginsDoc("sparseMargins" + p),
		}
		stubDocs["sparseAddRows"+p] = stub{
			sig: "func(dst unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, c unsafe.Pointer, d, budget, ahead int) (done int, bad bool)",
			doc: sparseAddRowsDoc("sparseAddRows" + p),
		}
	}
}

// sparseRowCheck is the row walk both kernels share, in their doc comments.
var sparseRowCheck = []string{
	"\tleft := budget // (and prefetching rows ahead, see below)",
	"\tfor i := 0; i < n; i++ {",
	"\t\tr := i",
	"\t\tif idx != nil {",
	"\t\t\tr = idx[i]",
	"\t\t}",
	"\t\tif uint(r) >= uint(nrows) {",
	"\t\t\treturn i, …",
	"\t\t}",
	"\t\tlo, hi := indptr[r], indptr[r+1]",
	"\t\tif uint(hi) > uint(nnz) || uint(lo) > uint(hi) || (hi-lo)*k > left {",
	"\t\t\treturn i, …",
	"\t\t}",
	"\t\tleft -= (hi - lo) * k",
}

func sparseMarginsDoc(name string) []string {
	d := []string{
		name + " computes the loop below for the gathered CSR rows. A nil idx",
		"means rows 0..n-1:",
		"",
		"\tvar maxcol uint32",
	}
	d = append(d, sparseRowCheck...)
	d = append(d,
		"\t\tfor j := 0; j < k; j++ {",
		"\t\t\tvar s T",
		"\t\t\tfor p := lo; p < hi; p++ {",
		"\t\t\t\tmaxcol = max(maxcol, cols[p])",
		"\t\t\t\ts += vals[p] * w[j*d+min(cols[p], d-1)]",
		"\t\t\t}",
		"\t\t\tm[i*k+j] = s",
		"\t\t}",
		"\t}",
		"\treturn n, maxcol",
		"",
		"It gathers the entries of a row eight (float32) or four (float64) at a",
		"time into vector accumulators. It sums them horizontally at the end of",
		"the row. Column indices are clamped to d-1, so the gathers never leave",
		"w; the caller checks maxcol < d. It needs 1 ≤ d < 2^31 and k ≥ 1.",
		"With idx and ahead > 0, row i prefetches the offsets of row i+2·ahead.",
		"It also prefetches the first 256 bytes of the entries of row i+ahead.",
	)
	return d
}

func sparseAddRowsDoc(name string) []string {
	d := []string{
		name + " computes the loop below for the gathered CSR rows. A nil idx",
		"means rows 0..n-1:",
		"",
	}
	d = append(d, sparseRowCheck...)
	d = append(d,
		"\t\tfor j := 0; j < k; j++ {",
		"\t\t\tfor p := lo; p < hi; p++ {",
		"\t\t\t\tif uint(cols[p]) >= uint(d) {",
		"\t\t\t\t\treturn i, true // row i partly added",
		"\t\t\t\t}",
		"\t\t\t\tdst[j*d+cols[p]] = math.FMA(c[i*k+j], vals[p], dst[j*d+cols[p]])",
		"\t\t\t}",
		"\t\t}",
		"\t}",
		"\treturn n, false",
		"",
		"It takes one entry at a time, in order, as AVX2 has no scatter. So",
		"repeated columns add up exactly as in the loop. With idx and ahead > 0,",
		"row i prefetches the offsets of row i+2·ahead. It also prefetches the",
		"first 256 bytes of the entries of row i+ahead.",
	)
	return d
}

const sparseDoc = `// CSR kernels, for float32 and float64:
//
//   - SparseMargins(K): m_ij = Σ_p vals[p]·w_j[cols[p]] over the entries of
//     row r_i;
//   - SparseAddRows / SparseAddOuterK: g_j[cols[p]] += c_ij·vals[p].
//
// The k ≥ 1 weight vectors of d elements lie one after another. The driver
// (sparse_driver.go) bounds each call to a budget of k·(non-zeros)
// multiply-adds.
//
// Requires: AVX2, FMA3.
//
// Checks: each row index is checked against nrows, and each row's offsets
// against the number of entries. A failing row stops the call. The driver
// then panics through Go's own bounds checks. The kernel sparseMargins
// clamps every column index to d−1 with VPMINUD before the gather. So it
// never reads outside w. It returns the largest index it saw. The kernel
// sparseAddRows compares each index with d before its store.
//
// Kernel sparseMargins: per row and weight vector, it takes 16 float32 or 8
// float64 entries per step into two vector accumulators. That is two
// VGATHERDPS of 8, or two VGATHERDPD of 4 with 4 dword indices each. Then it
// takes one 8- (4-) entry step. The last entries (count mod 8, or mod 4)
// load their indices and values with VPMASKMOVD / VMASKMOVPS/PD. They gather
// under the same lane mask, so nothing past the row's entries is read.
// Accuracy: |m − exact| ≤ (nnz+1)·u·Σ|v·w|, the bound of a dot product in
// any order. The order is fixed by the row. So results do not depend on how
// rows are split between calls or threads.
//
// Kernel sparseAddRows: there is no scatter in AVX2. A gather-add-scatter of
// eight entries would lose the updates of a column repeated among them. So
// the entries are taken one at a time, unrolled by four. Each is a scalar
// FMA g[col] = fma(c, v, g[col]). This is bit-exact to the sequential loop
// with each multiply-add fused, repeated columns included.
`

func sparseKernels(g *gen) {
	for _, p := range []prec{f32, f64} {
		sparseMargins(g, p)
		sparseAddRows(g, p)
	}
}

// sparseRow emits the row walk shared by both kernels. Row CX (through idx
// BX, or CX itself) is checked. R10 and R11 are set to its first column
// index and value, and R13 to its entry count. The budget R8 is charged. A
// failing row jumps to stop. It clobbers AX and R12.
func sparseRow(g *gen, p prec, L string) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	sparsePrefetch(g, p, L)
	g.MOVQ(RCX, RAX)
	g.TESTQ(RBX, RBX)
	g.JZ(lbl("have"))
	g.MOVQ(memi(RBX, 0, RCX, 8), RAX)
	g.Label(L + "have")
	g.CMPQ(RAX, g.param("nrows"))
	g.JAE(lbl("stop"))
	g.MOVQ(memi(RSI, 0, RAX, 8), R12)
	g.MOVQ(memi(RSI, 8, RAX, 8), R13)
	g.CMPQ(R13, g.param("nnz"))
	g.JHI(lbl("stop"))
	g.CMPQ(R12, R13)
	g.JHI(lbl("stop"))
	g.SUBQ(R12, R13)
	g.MOVQ(R13, RAX)
	g.IMULQ(g.param("k"), RAX)
	g.CMPQ(RAX, R8)
	g.JHI(lbl("stop"))
	g.SUBQ(RAX, R8)
	g.MOVQ(g.param("cols"), R10)
	g.LEAQ(memi(R10, 0, R12, 4), R10)
	g.MOVQ(g.param("vals"), R11)
	g.LEAQ(memi(R11, 0, R12, uint8(p.size)), R11)
}

// sparsePrefetch prefetches for gathered rows (idx not nil) when ahead > 0.
// It fetches the offsets (indptr) of row i+2·ahead. It fetches the first 256
// bytes of the column indices and values of row i+ahead. So the misses of
// rows chosen at random overlap. Rows past n, or not below nrows, are
// skipped. The offsets read for row i+ahead are not checked, but prefetches
// never fault. It clobbers AX and R12.
func sparsePrefetch(g *gen, p prec, L string) {
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.TESTQ(RBX, RBX)
	g.JZ(lbl("nopf"))
	g.MOVQ(g.param("ahead"), R12)
	g.TESTQ(R12, R12)
	g.JZ(lbl("nopf"))
	g.LEAQ(memi(RCX, 0, R12, 2), RAX)
	g.CMPQ(RAX, g.param("n"))
	g.JAE(lbl("pf1"))
	g.MOVQ(memi(RBX, 0, RAX, 8), RAX)
	g.CMPQ(RAX, g.param("nrows"))
	g.JAE(lbl("pf1"))
	g.PREFETCHT0(memi(RSI, 0, RAX, 8))
	g.Label(L + "pf1")
	g.LEAQ(memi(RCX, 0, R12, 1), RAX)
	g.CMPQ(RAX, g.param("n"))
	g.JAE(lbl("nopf"))
	g.MOVQ(memi(RBX, 0, RAX, 8), RAX)
	g.CMPQ(RAX, g.param("nrows"))
	g.JAE(lbl("nopf"))
	g.MOVQ(memi(RSI, 0, RAX, 8), RAX)
	g.MOVQ(g.param("cols"), R12)
	g.LEAQ(memi(R12, 0, RAX, 4), R12)
	for off := 0; off < 256; off += 64 {
		g.PREFETCHT0(mem(R12, off))
	}
	g.MOVQ(g.param("vals"), R12)
	g.LEAQ(memi(R12, 0, RAX, uint8(p.size)), R12)
	for off := 0; off < 256; off += 64 {
		g.PREFETCHT0(mem(R12, off))
	}
	g.Label(L + "nopf")
}

// Registers of both kernels:
//
//   - CX: the row; BX: idx;
//   - SI: indptr, free once the row is read, reloaded per row;
//   - R8: the budget left;
//   - R10/R11: the row's indices/values; R13: its entry count; R9: the entry;
//   - DX: the current weight (gradient) vector; AX: the classes left;
//   - R12: scratch.

func sparseMargins(g *gen, p prec) {
	single := p.size == 4
	E := uint8(p.size)
	L := "sm" + lower(p.name)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("sparseMargins" + p.name)
	g.MOVQ(g.param("m"), RDI)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("budget"), R8)
	g.MOVQ(g.param("d"), RAX)
	g.DECQ(RAX)
	g.MOVQ(RAX, X15)
	g.VPBROADCASTD(X15, Y15) // d−1 in every dword
	g.VPXOR(Y14, Y14, Y14)   // the largest column index seen
	g.XORQ(RCX, RCX)

	sparseRowStart(g, p, L, "w")

	g.Label(L + "class")
	g.vxor(p, Y0, Y0, Y0)
	g.vxor(p, Y1, Y1, Y1)
	g.XORQ(R9, R9)
	g.MOVQ(R13, R12)
	// Full steps of two gathers: 16 float32 or 8 float64 entries; the
	// indices of a step are one 256-bit load either way.
	step := 2 * p.lanes
	g.ANDQ(i32(-step), R12)
	g.JZ(lbl("half"))
	g.Label(L + "loop")
	if single {
		g.VMOVDQU(memi(R10, 0, R9, 4), Y2)
		g.VMOVDQU(memi(R10, 32, R9, 4), Y3)
		for _, ix := range []VecPhysical{Y2, Y3} {
			g.VPMAXUD(ix, Y14, Y14)
			g.VPMINUD(ix, Y15, ix)
		}
		g.VPCMPEQD(Y4, Y4, Y4)
		g.VPCMPEQD(Y5, Y5, Y5)
		g.VGATHERDPS(Y4, memi(RDX, 0, Y2, 4), Y6)
		g.VGATHERDPS(Y5, memi(RDX, 0, Y3, 4), Y7)
	} else {
		g.VMOVDQU(memi(R10, 0, R9, 4), Y2)
		g.VPMAXUD(Y2, Y14, Y14)
		g.VPMINUD(Y2, Y15, Y2)
		g.VEXTRACTI128(u8(1), Y2, X3)
		g.VPCMPEQQ(Y4, Y4, Y4)
		g.VPCMPEQQ(Y5, Y5, Y5)
		g.VGATHERDPD(Y4, memi(RDX, 0, X2, 8), Y6)
		g.VGATHERDPD(Y5, memi(RDX, 0, X3, 8), Y7)
	}
	g.vfmadd231(p, memi(R11, 0, R9, E), Y6, Y0)
	g.vfmadd231(p, memi(R11, 32, R9, E), Y7, Y1)
	g.ADDQ(u8(step), R9)
	g.CMPQ(R9, R12)
	g.JB(lbl("loop"))

	// One more gather if a register's worth is left.
	g.Label(L + "half")
	g.TESTQ(u32(p.lanes), R13)
	g.JZ(lbl("tail"))
	if single {
		g.VMOVDQU(memi(R10, 0, R9, 4), Y2)
	} else {
		g.VMOVDQU(memi(R10, 0, R9, 4), X2)
	}
	g.VPMAXUD(Y2, Y14, Y14)
	g.VPMINUD(Y2, Y15, Y2)
	if single {
		g.VPCMPEQD(Y4, Y4, Y4)
		g.VGATHERDPS(Y4, memi(RDX, 0, Y2, 4), Y6)
	} else {
		g.VPCMPEQQ(Y4, Y4, Y4)
		g.VGATHERDPD(Y4, memi(RDX, 0, X2, 8), Y6)
	}
	g.vfmadd231(p, memi(R11, 0, R9, E), Y6, Y0)
	g.ADDQ(u8(p.lanes), R9)

	// The last count mod lanes entries go under a lane mask. Indices and
	// values take masked loads, and the gather goes masked into a zeroed
	// register.
	g.Label(L + "tail")
	g.MOVQ(R13, R12)
	g.ANDQ(u8(p.lanes-1), R12)
	g.JZ(lbl("reduce"))
	g.NEGQ(R12)
	g.ADDQ(u8(8), R12)
	g.LEAQ(f32.maskTab, RSI)
	if single {
		g.VMOVDQU(memi(RSI, 0, R12, 4), Y4)
		g.VPMASKMOVD(memi(R10, 0, R9, 4), Y4, Y2)
		g.VMOVDQA(Y4, Y5)
	} else {
		g.VMOVDQU(memi(RSI, 0, R12, 4), X4)
		g.VPMASKMOVD(memi(R10, 0, R9, 4), X4, X2)
		g.SUBQ(u8(4), R12)
		g.LEAQ(f64.maskTab, RSI)
		g.VMOVDQU(memi(RSI, 0, R12, 8), Y4)
		g.VMOVDQA(Y4, Y5)
	}
	g.VPMAXUD(Y2, Y14, Y14)
	g.VPMINUD(Y2, Y15, Y2)
	g.vxor(p, Y6, Y6, Y6)
	if single {
		g.VGATHERDPS(Y5, memi(RDX, 0, Y2, 4), Y6)
	} else {
		g.VGATHERDPD(Y5, memi(RDX, 0, X2, 8), Y6)
	}
	g.vmaskmov(p, memi(R11, 0, R9, E), Y4, Y7)
	g.vfmadd231(p, Y7, Y6, Y1)

	g.Label(L + "reduce")
	sparseStoreMargin(g, ymm, p)
	sparseNextClass(g, p, L)

	g.Label(L + "stop")
	sparseReturnMaxCol(g, ymm)
}

func sparseAddRows(g *gen, p prec) {
	single := p.size == 4
	L := "sa" + lower(p.name)
	lbl := func(s string) operand.LabelRef { return operand.LabelRef(L + s) }
	g.text("sparseAddRows" + p.name)
	g.MOVQ(g.param("c"), RDI)
	g.MOVQ(g.param("idx"), RBX)
	g.MOVQ(g.param("budget"), R8)
	g.XORQ(RCX, RCX)

	sparseRowStart(g, p, L, "dst")

	g.Label(L + "class")
	if single {
		g.VMOVSS(mem(RDI, 0), X1)
	} else {
		g.VMOVSD(mem(RDI, 0), X1)
	}
	g.ADDQ(u8(p.size), RDI)
	g.XORQ(R9, R9)
	g.MOVQ(R13, RSI)
	g.ANDQ(i32(-4), RSI)
	g.JZ(lbl("tail"))
	one := func(h int) { sparseAddOne(g, p, L, h) }
	g.Label(L + "loop")
	for h := 0; h < 4; h++ {
		one(h)
	}
	g.ADDQ(u8(4), R9)
	g.CMPQ(R9, RSI)
	g.JB(lbl("loop"))

	g.Label(L + "tail")
	g.CMPQ(R9, R13)
	g.JAE(lbl("next"))
	one(0)
	g.INCQ(R9)
	g.JMP(lbl("tail"))

	g.Label(L + "next")
	sparseNextClass(g, p, L)
	sparseAddRowsExits(g, L, false)
}

// sparseRowStart begins the next row. It stops after n rows. Else it reads
// the row (sparseRow). It sets DX to the first class's vector (the argument
// vecs), and AX to the class count k.
func sparseRowStart(g *gen, p prec, L, vecs string) {
	g.Label(L + "row")
	g.CMPQ(RCX, g.param("n"))
	g.JAE(operand.LabelRef(L + "stop"))
	g.MOVQ(g.param("indptr"), RSI)
	sparseRow(g, p, L)
	g.MOVQ(g.param(vecs), RDX)
	g.MOVQ(g.param("k"), RAX)
}

// sparseStoreMargin stores the sum of the accumulators 0 and 1 of width v to
// the margin at DI. It moves DI on.
func sparseStoreMargin(g *gen, v vec, p prec) {
	g.vadd(p, v.reg(1), v.reg(0), v.reg(0))
	v.fold(g, p, 0, 0, 1)
	sum1Store(g, p, mem(RDI, 0))
	g.ADDQ(u8(p.size), RDI)
}

// sparseNextClass moves DX on to the next class's vector (of d elements),
// looping over the classes, then the rows.
func sparseNextClass(g *gen, p prec, L string) {
	g.MOVQ(g.param("d"), R12)
	g.LEAQ(memi(RDX, 0, R12, uint8(p.size)), RDX)
	g.DECQ(RAX)
	g.JNZ(operand.LabelRef(L + "class"))
	g.INCQ(RCX)
	g.JMP(operand.LabelRef(L + "row"))
}

// sparseReturnMaxCol returns the rows done (CX) and the largest column index
// seen. That is the maximum of the lanes of Y14 (Z14 for zmm).
func sparseReturnMaxCol(g *gen, v vec) {
	g.MOVQ(RCX, g.ret())
	if v.isZ() {
		g.VEXTRACTI64X4(u8(1), Z14, Y0)
		g.VPMAXUD(Y0, Y14, Y14)
	}
	g.VEXTRACTI128(u8(1), Y14, X0)
	g.VPMAXUD(X0, X14, X14)
	g.VPSHUFD(u8(0x4e), X14, X0)
	g.VPMAXUD(X0, X14, X14)
	g.VPSHUFD(u8(0xb1), X14, X0)
	g.VPMAXUD(X0, X14, X14)
	g.VMOVD(X14, EAX)
	g.MOVL(EAX, addr(g.ReturnIndex(1)))
	g.VZEROUPPER()
	g.RET()
}

// sparseAddOne adds c (X1) times the value of entry R9+h to g at the entry's
// column. It jumps to bad for a column ≥ d.
func sparseAddOne(g *gen, p prec, L string, h int) {
	E := uint8(p.size)
	g.MOVL(memi(R10, 4*h, R9, 4), R12L)
	g.CMPQ(R12, g.param("d"))
	g.JAE(operand.LabelRef(L + "bad"))
	g.vmovs(p, memi(RDX, 0, R12, E), X2)
	byPrec(p, g.VFMADD231SS, g.VFMADD231SD)(memi(R11, p.size*h, R9, E), X1, X2)
	g.vmovs(p, X2, memi(RDX, 0, R12, E))
}

// vmovs moves one float32 (float64) element.
func (g *gen) vmovs(p prec, src, dst operand.Op) { byPrec(p, g.VMOVSS, g.VMOVSD)(src, dst) }

// sparseAddRowsExits are the returns of sparseAddRows: the rows done, and
// whether it stopped at a column ≥ d (bad). The zmm kernels leave with
// VZEROUPPER.
func sparseAddRowsExits(g *gen, L string, vzeroupper bool) {
	for _, exit := range []struct {
		label string
		bad   uint8
	}{{"bad", 1}, {"stop", 0}} {
		g.Label(L + exit.label)
		g.MOVQ(RCX, g.ret())
		g.MOVB(u8(int(exit.bad)), addr(g.ReturnIndex(1)))
		if vzeroupper {
			g.VZEROUPPER()
		}
		g.RET()
	}
}
