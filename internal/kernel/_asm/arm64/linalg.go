package main

import (
	"fmt"
	"strings"
)

// linPrec names one precision's instruction forms.
type linPrec struct {
	name, goType string
	arr          string // vector arrangement: D2 or S4
	size         int    // bytes per element
	lanes        int    // elements per 128-bit register
	mov, fma     string // scalar load/store and fused multiply-add
	add, sub     string // vector add and subtract (neon_arm64.h)
	faddp        string // pairwise vector add before the scalar reduction ("" for D2)
	red          string // scalar pairwise add: Fd = Vn[0] + Vn[1]
	max, maxs    string // vector and scalar maximum
	maxp         string // scalar pairwise maximum
}

var linPrecs = []linPrec{
	{name: "F64", goType: "float64", arr: "D2", size: 8, lanes: 2, mov: "FMOVD", fma: "FMADDD",
		add: "VFADD_D2", sub: "VFSUB_D2", red: "FADDP_D", max: "VFMAX_D2", maxs: "FMAXD", maxp: "FMAXP_D"},
	{name: "F32", goType: "float32", arr: "S4", size: 4, lanes: 4, mov: "FMOVS", fma: "FMADDS",
		add: "VFADD_S4", sub: "VFSUB_S4", faddp: "VFADDP_S4", red: "FADDP_S", max: "VFMAX_S4", maxs: "FMAXS", maxp: "FMAXP_S"},
}

// vregs is the register list [Va.arr, ..., Vb.arr].
func vregs(a, b int, arr string) string {
	var rs []string
	for i := a; i <= b; i++ {
		rs = append(rs, fmt.Sprintf("V%d.%s", i, arr))
	}
	return "[" + strings.Join(rs, ", ") + "]"
}

// prefetchNext asks for the first two cache lines of each row of the next
// group of four while this group is computed. Gathered rows defeat the
// hardware prefetcher at their start. R8 points at the next group's
// pointers. R11 counts the rows left, this group included.
func prefetchNext(a *asm, lab string) {
	a.w("\tCMP $8, R11\n\tBLT %snopf", lab)
	a.w("\tLDP (R8), (R12, R13)\n\tLDP 16(R8), (R14, R15)")
	for _, r := range []int{12, 13, 14, 15} {
		a.w("\tPRFM (R%d), PLDL1KEEP\n\tPRFM 64(R%d), PLDL1KEEP", r, r)
	}
	a.w("%snopf:", lab)
}

// reduceToScalar leaves in F<acc> the sum of the lanes of V<acc>.
func reduceToScalar(a *asm, p linPrec, acc int) {
	if p.faddp != "" {
		a.w("\t%s(%d, %d, %d)", p.faddp, acc, acc, acc)
	}
	a.w("\t%s(%d, %d)", p.red, acc, acc)
}

func linalgKernels(a *asm) {
	for _, p := range linPrecs {
		dot(a, p)
		axpyLerp(a, p, "axpy")
		axpyLerp(a, p, "lerp")
		dotRows(a, p)
		axpyRows(a, p)
		maxKernel(a, p)
	}
}

func dot(a *asm, p linPrec) {
	arr, vl, es := p.arr, p.lanes, p.size
	a.w("// func dot%s(x, y *%s, n int) %s", p.name, p.goType, p.goType)
	a.w("TEXT ·dot%s(SB), NOSPLIT, $0-%d", p.name, 24+es)
	a.w("\tMOVD x+0(FP), R0\n\tMOVD y+8(FP), R1\n\tMOVD n+16(FP), R2")
	for i := 16; i < 24; i++ {
		a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	blk := 8 * vl
	a.w("\tCMP $%d, R2\n\tBLT dot1", blk)
	a.w("dot8:")
	a.w("\tVLD1.P 64(R0), %s", vregs(0, 3, arr))
	a.w("\tVLD1.P 64(R1), %s", vregs(8, 11, arr))
	a.w("\tVLD1.P 64(R0), %s", vregs(4, 7, arr))
	a.w("\tVLD1.P 64(R1), %s", vregs(12, 15, arr))
	for i := 0; i < 8; i++ {
		a.w("\tVFMLA V%d.%s, V%d.%s, V%d.%s", i, arr, i+8, arr, 16+i, arr)
	}
	a.w("\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE dot8", blk, blk)
	a.w("dot1:")
	a.w("\tCMP $%d, R2\n\tBLT dotred", vl)
	a.w("dot1loop:")
	a.w("\tVLD1.P 16(R0), [V0.%s]\n\tVLD1.P 16(R1), [V8.%s]", arr, arr)
	a.w("\tVFMLA V0.%s, V8.%s, V16.%s", arr, arr, arr)
	a.w("\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE dot1loop", vl, vl)
	a.w("dotred:")
	for _, ab := range [][2]int{{17, 16}, {19, 18}, {21, 20}, {23, 22}, {18, 16}, {22, 20}, {20, 16}} {
		a.w("\t%s(%d, %d, %d)", p.add, ab[0], ab[1], ab[1])
	}
	reduceToScalar(a, p, 16)
	a.w("\tCBZ R2, dotdone")
	a.w("dotscalar:")
	a.w("\t%s.P %d(R0), F0\n\t%s.P %d(R1), F1", p.mov, es, p.mov, es)
	a.w("\t%s F1, F16, F0, F16", p.fma)
	a.w("\tSUB $1, R2\n\tCBNZ R2, dotscalar")
	a.w("dotdone:")
	a.w("\t%s F16, ret+24(FP)\n\tRET\n", p.mov)
}

// axpyLerp: y = fma(a, x, y), or for lerp y = fma(t, x-y, y).
func axpyLerp(a *asm, p linPrec, kern string) {
	arr, vl, es := p.arr, p.lanes, p.size
	lerp := kern == "lerp"
	c := "a"
	if lerp {
		c = "t"
	}
	a.w("// func %s%s(%s %s, x, y *%s, n int)", kern, p.name, c, p.goType, p.goType)
	a.w("TEXT ·%s%s(SB), NOSPLIT, $0-32", kern, p.name)
	a.w("\tMOVD $%s+0(FP), R3\n\tVLD1R (R3), [V28.%s]", c, arr)
	a.w("\tMOVD x+8(FP), R0\n\tMOVD y+16(FP), R1\n\tMOVD n+24(FP), R2")
	blk := 4 * vl
	a.w("\tCMP $%d, R2\n\tBLT %s1", blk, kern)
	a.w("%s4:", kern)
	a.w("\tVLD1.P 64(R0), %s", vregs(0, 3, arr))
	a.w("\tVLD1 (R1), %s", vregs(4, 7, arr))
	for i := 0; i < 4; i++ {
		if lerp {
			a.w("\t%s(%d, %d, %d)", p.sub, 4+i, i, i)
		}
		a.w("\tVFMLA V%d.%s, V28.%s, V%d.%s", i, arr, arr, 4+i, arr)
	}
	a.w("\tVST1.P %s, 64(R1)", vregs(4, 7, arr))
	a.w("\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE %s4", blk, blk, kern)
	a.w("%s1:", kern)
	a.w("\tCMP $%d, R2\n\tBLT %stail", vl, kern)
	a.w("%s1loop:", kern)
	a.w("\tVLD1.P 16(R0), [V0.%s]\n\tVLD1 (R1), [V4.%s]", arr, arr)
	if lerp {
		a.w("\t%s(4, 0, 0)", p.sub)
	}
	a.w("\tVFMLA V0.%s, V28.%s, V4.%s\n\tVST1.P [V4.%s], 16(R1)", arr, arr, arr, arr)
	a.w("\tSUB $%d, R2\n\tCMP $%d, R2\n\tBGE %s1loop", vl, vl, kern)
	a.w("%stail:", kern)
	a.w("\tCBZ R2, %sdone", kern)
	a.w("%sscalar:", kern)
	a.w("\t%s.P %d(R0), F0\n\t%s (R1), F4", p.mov, es, p.mov)
	if lerp {
		fsub := "FSUBS"
		if p.name == "F64" {
			fsub = "FSUBD"
		}
		a.w("\t%s F4, F0, F0", fsub)
	}
	a.w("\t%s F28, F4, F0, F4", p.fma)
	a.w("\t%s.P F4, %d(R1)", p.mov, es)
	a.w("\tSUB $1, R2\n\tCBNZ R2, %sscalar", kern)
	a.w("%sdone:\n\tRET\n", kern)
}

// dotRows: groups of four rows, each against a; each load of a serves four
// rows.
func dotRows(a *asm, p linPrec) {
	arr, vl, es := p.arr, p.lanes, p.size
	a.w("// func dotRows%s(out, a *%s, rows **%s, nrows, n int)", p.name, p.goType, p.goType)
	a.w("TEXT ·dotRows%s(SB), NOSPLIT, $0-40", p.name)
	a.w("\tMOVD out+0(FP), R7\n\tMOVD a+8(FP), R6\n\tMOVD rows+16(FP), R8\n\tMOVD nrows+24(FP), R11\n\tMOVD n+32(FP), R10")
	a.w("drgroup:")
	a.w("\tCBZ R11, drdone")
	a.w("\tLDP.P 16(R8), (R1, R2)\n\tLDP.P 16(R8), (R3, R4)")
	prefetchNext(a, "dr")
	a.w("\tMOVD R6, R0\n\tMOVD R10, R5")
	for i := 16; i < 32; i++ {
		a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	blk := 4 * vl
	a.w("\tCMP $%d, R5\n\tBLT d4one", blk)
	a.w("d4loop:")
	a.w("\tVLD1.P 64(R0), %s", vregs(0, 3, arr))
	for r, pb := range []struct {
		ptr  string
		base int
	}{{"R1", 4}, {"R2", 8}, {"R3", 12}, {"R4", 4}} {
		a.w("\tVLD1.P 64(%s), %s", pb.ptr, vregs(pb.base, pb.base+3, arr))
		for i := 0; i < 4; i++ {
			a.w("\tVFMLA V%d.%s, V%d.%s, V%d.%s", i, arr, pb.base+i, arr, 16+4*r+i, arr)
		}
	}
	a.w("\tSUB $%d, R5\n\tCMP $%d, R5\n\tBGE d4loop", blk, blk)
	a.w("d4one:")
	a.w("\tCMP $%d, R5\n\tBLT d4red", vl)
	a.w("d4oneloop:")
	a.w("\tVLD1.P 16(R0), [V0.%s]", arr)
	for r, ptr := range []string{"R1", "R2", "R3", "R4"} {
		reg := 4 + r
		a.w("\tVLD1.P 16(%s), [V%d.%s]", ptr, reg, arr)
		a.w("\tVFMLA V0.%s, V%d.%s, V%d.%s", arr, reg, arr, 16+4*r, arr)
	}
	a.w("\tSUB $%d, R5\n\tCMP $%d, R5\n\tBGE d4oneloop", vl, vl)
	a.w("d4red:")
	for r := 0; r < 4; r++ {
		b := 16 + 4*r
		a.w("\t%s(%d, %d, %d)", p.add, b+1, b, b)
		a.w("\t%s(%d, %d, %d)", p.add, b+3, b+2, b+2)
		a.w("\t%s(%d, %d, %d)", p.add, b+2, b, b)
		reduceToScalar(a, p, b)
	}
	a.w("\tCBZ R5, d4store")
	a.w("d4scalar:")
	a.w("\t%s.P %d(R0), F0", p.mov, es)
	for r, ptr := range []string{"R1", "R2", "R3", "R4"} {
		reg := 1 + r
		a.w("\t%s.P %d(%s), F%d", p.mov, es, ptr, reg)
		a.w("\t%s F0, F%d, F%d, F%d", p.fma, 16+4*r, reg, 16+4*r)
	}
	a.w("\tSUB $1, R5\n\tCBNZ R5, d4scalar")
	a.w("d4store:")
	for r := 0; r < 4; r++ {
		a.w("\t%s.P F%d, %d(R7)", p.mov, 16+4*r, es)
	}
	a.w("\tSUB $4, R11\n\tJMP drgroup")
	a.w("drdone:\n\tRET\n")
}

// axpyRows: groups of four rows, y loaded and stored once per group.
func axpyRows(a *asm, p linPrec) {
	arr, vl, es := p.arr, p.lanes, p.size
	a.w("// func axpyRows%s(y *%s, n int, c *%s, rows **%s, nrows int)", p.name, p.goType, p.goType, p.goType)
	a.w("TEXT ·axpyRows%s(SB), NOSPLIT, $0-40", p.name)
	a.w("\tMOVD y+0(FP), R9\n\tMOVD n+8(FP), R10\n\tMOVD c+16(FP), R2\n\tMOVD rows+24(FP), R8\n\tMOVD nrows+32(FP), R11")
	a.w("argroup:")
	a.w("\tCBZ R11, ardone")
	a.w("\tLDP.P 16(R8), (R3, R4)\n\tLDP.P 16(R8), (R5, R6)")
	prefetchNext(a, "ar")
	a.w("\tMOVD R9, R0\n\tMOVD R10, R1")
	for i := 0; i < 4; i++ {
		a.w("\tVLD1R.P %d(R2), [V%d.%s]", es, 28+i, arr)
	}
	blk := 4 * vl
	a.w("\tCMP $%d, R1\n\tBLT a4one", blk)
	a.w("a4loop:")
	a.w("\tVLD1 (R0), %s", vregs(0, 3, arr))
	for r, ptr := range []string{"R3", "R4", "R5", "R6"} {
		base := 4 + 4*r
		a.w("\tVLD1.P 64(%s), %s", ptr, vregs(base, base+3, arr))
		for i := 0; i < 4; i++ {
			a.w("\tVFMLA V%d.%s, V%d.%s, V%d.%s", base+i, arr, 28+r, arr, i, arr)
		}
	}
	a.w("\tVST1.P %s, 64(R0)", vregs(0, 3, arr))
	a.w("\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE a4loop", blk, blk)
	a.w("a4one:")
	a.w("\tCMP $%d, R1\n\tBLT a4tail", vl)
	a.w("a4oneloop:")
	a.w("\tVLD1 (R0), [V0.%s]", arr)
	for r, ptr := range []string{"R3", "R4", "R5", "R6"} {
		reg := 4 + r
		a.w("\tVLD1.P 16(%s), [V%d.%s]", ptr, reg, arr)
		a.w("\tVFMLA V%d.%s, V%d.%s, V0.%s", reg, arr, 28+r, arr, arr)
	}
	a.w("\tVST1.P [V0.%s], 16(R0)", arr)
	a.w("\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE a4oneloop", vl, vl)
	a.w("a4tail:")
	a.w("\tCBZ R1, a4next")
	a.w("a4scalar:")
	a.w("\t%s (R0), F0", p.mov)
	for r, ptr := range []string{"R3", "R4", "R5", "R6"} {
		reg := 4 + r
		a.w("\t%s.P %d(%s), F%d", p.mov, es, ptr, reg)
		a.w("\t%s F%d, F0, F%d, F0", p.fma, 28+r, reg)
	}
	a.w("\t%s.P F0, %d(R0)", p.mov, es)
	a.w("\tSUB $1, R1\n\tCBNZ R1, a4scalar")
	a.w("a4next:")
	a.w("\tSUB $4, R11\n\tJMP argroup")
	a.w("ardone:\n\tRET\n")
}

// maxKernel: the maximum of x, n ≥ 1.
func maxKernel(a *asm, p linPrec) {
	arr, vl, es := p.arr, p.lanes, p.size
	a.w("// func max%s(x *%s, n int) %s", p.name, p.goType, p.goType)
	a.w("TEXT ·max%s(SB), NOSPLIT, $0-%d", p.name, 16+es)
	a.w("\tMOVD x+0(FP), R0\n\tMOVD n+8(FP), R1")
	a.w("\t%s (R0), F16", p.mov)
	a.w("\tVDUP V16.%s[0], V16.%s", arr[:1], arr)
	for i := 17; i < 20; i++ {
		a.w("\tVORR V16.B16, V16.B16, V%d.B16", i)
	}
	blk := 4 * vl
	a.w("\tCMP $%d, R1\n\tBLT mxone", blk)
	a.w("mxloop:")
	a.w("\tVLD1.P 64(R0), %s", vregs(0, 3, arr))
	for i := 0; i < 4; i++ {
		a.w("\t%s(%d, %d, %d)", p.max, i, 16+i, 16+i)
	}
	a.w("\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE mxloop", blk, blk)
	a.w("mxone:")
	a.w("\tCMP $%d, R1\n\tBLT mxred", vl)
	a.w("mxoneloop:")
	a.w("\tVLD1.P 16(R0), [V0.%s]", arr)
	a.w("\t%s(0, 16, 16)", p.max)
	a.w("\tSUB $%d, R1\n\tCMP $%d, R1\n\tBGE mxoneloop", vl, vl)
	a.w("mxred:")
	a.w("\t%s(17, 16, 16)\n\t%s(19, 18, 18)\n\t%s(18, 16, 16)", p.max, p.max, p.max)
	if p.name == "F32" {
		a.w("\tVFMAXP_S4(16, 16, 16)")
	}
	a.w("\t%s(16, 16)", p.maxp)
	a.w("\tCBZ R1, mxdone")
	a.w("mxscalar:")
	a.w("\t%s.P %d(R0), F0", p.mov, es)
	a.w("\t%s F0, F16, F16", p.maxs)
	a.w("\tSUB $1, R1\n\tCBNZ R1, mxscalar")
	a.w("mxdone:")
	a.w("\t%s F16, ret+16(FP)\n\tRET\n", p.mov)
}
