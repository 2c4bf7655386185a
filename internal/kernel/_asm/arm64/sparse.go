package main

// The CSR kernels; sparse_arm64.go holds their Go declarations. NEON has no
// gather. So each entry takes four scalar steps: a load of its column index,
// a compare with d, a load of w at that index and a fused multiply-add.
// Margins take four entries per step into four accumulators. The scatter-add
// takes one at a time through memory. A vector of four weights would have to
// be built by four lane inserts, one dependent on the other. That costs as
// many loads and more vector work than the scalar FMADDs. Scalar loads with
// register-offset addressing keep the loads as the only cost besides the
// FMADD. They are two indices by LDPW, two values by FLDP, and one weight
// each.

const sparseDoc = `// CSR kernels: SparseMargins(K) and SparseAddRows / SparseAddOuterK, for
// float32 and float64. Their Go declarations are in sparse_arm64.go. The
// k ≥ 1 weight vectors of d elements lie one after another. The driver
// (sparse_driver.go) bounds each call to a budget of k·(non-zeros)
// multiply-adds.
//
// Checks: each row index is checked against nrows, and each row's offsets
// against the number of entries. A failing row stops the call. Each column
// index is compared with d before its load. An index ≥ d stops the call:
// margins set maxcol = 2^32−1, and addRows bad = true. The driver then
// panics through Go's bounds checks.
//
// Kernel sparseMargins: per row and weight vector, four entries a step.
// Indices load by LDPW, values by FLDP, and the weights by scalar loads at
// register offsets. Each goes into its own scalar accumulator with FMADD,
// the last count mod 4 into the first. The sum is (a0+a1)+(a2+a3). Accuracy:
// |m − exact| ≤ (nnz+1)·u·Σ|v·w|, in an order fixed by the row.
//
// Kernel sparseAddRows: one entry at a time, g[col] = fma(c, v, g[col]), in
// entry order. This is bit-exact to the sequential loop with each
// multiply-add fused, repeated columns included.
//
// Rows gathered through idx are prefetched. With ahead > 0, row i asks for
// the offsets of row i+2·ahead. It asks for the first 256 bytes of the
// indices and values of row i+ahead. PRFM never faults, so those offsets are
// not checked.
`

// spPrec are the forms of one precision.
type spPrec struct {
	name, mov, fma, fadd, fldp string
	shift, size                int
}

var spPrecs = []spPrec{
	{"F32", "FMOVS", "FMADDS", "FADDS", "FLDPS", 2, 4},
	{"F64", "FMOVD", "FMADDD", "FADDD", "FLDPD", 3, 8},
}

func sparseKernels(a *asm) {
	for _, p := range spPrecs {
		sparseKernel(a, p, false)
		sparseKernel(a, p, true)
	}
}

// Registers:
//
//   - R0: the outputs (margins) or coefficients (addRows); R1: k; R2: n;
//   - R3: indptr; R4: idx; R5: nrows; R6: cols; R7: vals; R8: nnz;
//   - R9: w (g); R10: d; R11: the budget left; R12: ahead; R13: the row i;
//   - R14/R15: scratch; R16: the row's entry count; R17: the classes left;
//   - R19/R20: the row's indices and values; R21: the current weight vector;
//   - R22: the entries left; R23/R24: the entry pointers; R25/R26: indices.
func sparseKernel(a *asm, p spPrec, add bool) {
	name, L := "sparseMargins"+p.name, "sm"+p.name
	first, wname, last := "m", "w", "maxcol+112(FP)"
	frame := 116
	if add {
		name, L = "sparseAddRows"+p.name, "sa"+p.name
		first, wname, last = "dst", "c", "bad+112(FP)"
		frame = 113
	}
	a.w("// func %s(%s unsafe.Pointer, k, n int, indptr, idx unsafe.Pointer, nrows int, cols, vals unsafe.Pointer, nnz int, %s unsafe.Pointer, d, budget, ahead int) (...)", name, first, wname)
	a.w("TEXT ·%s(SB), NOSPLIT, $0-%d", name, frame)
	if add {
		a.w("\tMOVD c+72(FP), R0\n\tMOVD dst+0(FP), R9")
	} else {
		a.w("\tMOVD m+0(FP), R0\n\tMOVD w+72(FP), R9")
	}
	a.w("\tMOVD k+8(FP), R1\n\tMOVD n+16(FP), R2\n\tMOVD indptr+24(FP), R3\n\tMOVD idx+32(FP), R4")
	a.w("\tMOVD nrows+40(FP), R5\n\tMOVD cols+48(FP), R6\n\tMOVD vals+56(FP), R7\n\tMOVD nnz+64(FP), R8")
	a.w("\tMOVD d+80(FP), R10\n\tMOVD budget+88(FP), R11\n\tMOVD ahead+96(FP), R12")
	a.w("\tMOVD ZR, R13")

	a.w("%srow:", L)
	a.w("\tCMP R2, R13\n\tBHS %sstop", L)
	// Prefetch rows ahead.
	a.w("\tCBZ R4, %snopf\n\tCBZ R12, %snopf", L, L)
	a.w("\tADD R12<<1, R13, R14\n\tCMP R2, R14\n\tBHS %spf1", L)
	a.w("\tMOVD (R4)(R14<<3), R14\n\tCMP R5, R14\n\tBHS %spf1", L)
	a.w("\tADD R14<<3, R3, R14\n\tPRFM (R14), PLDL1KEEP")
	a.w("%spf1:", L)
	a.w("\tADD R12, R13, R14\n\tCMP R2, R14\n\tBHS %snopf", L)
	a.w("\tMOVD (R4)(R14<<3), R14\n\tCMP R5, R14\n\tBHS %snopf", L)
	a.w("\tMOVD (R3)(R14<<3), R14")
	a.w("\tADD R14<<2, R6, R15")
	for off := 0; off < 256; off += 64 {
		a.w("\tPRFM %d(R15), PLDL1KEEP", off)
	}
	a.w("\tADD R14<<%d, R7, R15", p.shift)
	for off := 0; off < 256; off += 64 {
		a.w("\tPRFM %d(R15), PLDL1KEEP", off)
	}
	a.w("%snopf:", L)
	// The row, checked.
	a.w("\tMOVD R13, R14\n\tCBZ R4, %shave\n\tMOVD (R4)(R13<<3), R14", L)
	a.w("%shave:", L)
	a.w("\tCMP R5, R14\n\tBHS %sstop", L)
	a.w("\tADD R14<<3, R3, R14\n\tLDP (R14), (R15, R16)")
	a.w("\tCMP R8, R16\n\tBHI %sstop", L)
	a.w("\tCMP R16, R15\n\tBHI %sstop", L)
	a.w("\tSUB R15, R16, R16")
	a.w("\tMUL R1, R16, R14\n\tCMP R11, R14\n\tBHI %sstop\n\tSUB R14, R11, R11", L)
	a.w("\tADD R15<<2, R6, R19\n\tADD R15<<%d, R7, R20", p.shift)
	a.w("\tMOVD R9, R21\n\tMOVD R1, R17")

	a.w("%sclass:", L)
	if add {
		a.w("\t%s.P %d(R0), F12", p.mov, p.size)
	} else {
		for i := 0; i < 4; i++ {
			a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
		}
	}
	a.w("\tMOVD R19, R23\n\tMOVD R20, R24\n\tMOVD R16, R22")
	a.w("\tCMP $4, R22\n\tBLT %stail", L)
	a.w("%sloop:", L)
	a.w("\tLDPW (R23), (R25, R26)\n\tLDPW 8(R23), (R14, R15)")
	a.w("\t%s (R24), (F4, F5)\n\t%s %d(R24), (F6, F7)", p.fldp, p.fldp, 2*p.size)
	ix := []string{"R25", "R26", "R14", "R15"}
	if add {
		for i, r := range ix {
			a.w("\tCMP R10, %s\n\tBHS %sbad", r, L)
			a.w("\t%s (R21)(%s<<%d), F8", p.mov, r, p.shift)
			a.w("\t%s F12, F8, F%d, F8", p.fma, 4+i)
			a.w("\t%s F8, (R21)(%s<<%d)", p.mov, r, p.shift)
		}
	} else {
		for _, r := range ix {
			a.w("\tCMP R10, %s\n\tBHS %sbad", r, L)
		}
		for i, r := range ix {
			a.w("\t%s (R21)(%s<<%d), F%d", p.mov, r, p.shift, 8+i)
		}
		for i := 0; i < 4; i++ {
			a.w("\t%s F%d, F%d, F%d, F%d", p.fma, 8+i, i, 4+i, i)
		}
	}
	a.w("\tADD $16, R23\n\tADD $%d, R24", 4*p.size)
	a.w("\tSUB $4, R22\n\tCMP $4, R22\n\tBGE %sloop", L)
	a.w("%stail:", L)
	a.w("\tCBZ R22, %snext", L)
	a.w("%stail1:", L)
	a.w("\tMOVWU.P 4(R23), R25\n\tCMP R10, R25\n\tBHS %sbad", L)
	a.w("\t%s.P %d(R24), F4", p.mov, p.size)
	a.w("\t%s (R21)(R25<<%d), F8", p.mov, p.shift)
	if add {
		a.w("\t%s F12, F8, F4, F8", p.fma)
		a.w("\t%s F8, (R21)(R25<<%d)", p.mov, p.shift)
	} else {
		a.w("\t%s F8, F0, F4, F0", p.fma)
	}
	a.w("\tSUB $1, R22\n\tCBNZ R22, %stail1", L)
	a.w("%snext:", L)
	if !add {
		a.w("\t%s F1, F0, F0\n\t%s F3, F2, F2\n\t%s F2, F0, F0", p.fadd, p.fadd, p.fadd)
		a.w("\t%s.P F0, %d(R0)", p.mov, p.size)
	}
	a.w("\tADD R10<<%d, R21, R21", p.shift)
	a.w("\tSUB $1, R17\n\tCBNZ R17, %sclass", L)
	a.w("\tADD $1, R13\n\tB %srow", L)

	a.w("%sbad:", L)
	a.w("\tMOVD R13, done+104(FP)")
	if add {
		a.w("\tMOVD $1, R14\n\tMOVB R14, %s\n\tRET", last)
	} else {
		a.w("\tMOVD $0xffffffff, R14\n\tMOVW R14, %s\n\tRET", last)
	}
	a.w("%sstop:", L)
	a.w("\tMOVD R13, done+104(FP)")
	if add {
		a.w("\tMOVB ZR, %s\n\tRET", last)
	} else {
		a.w("\tMOVW ZR, %s\n\tRET", last)
	}
	a.w("")
}
