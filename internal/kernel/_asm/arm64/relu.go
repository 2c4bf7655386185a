package main

import "fmt"

// The ReLU kernels of a hidden layer. biasReLU is the forward step: add the
// bias, clamp at zero. The kernel reluBackward masks the incoming gradient
// by the activation. It sums it over the rows into the bias gradient.

const reluDoc = `// ReLU kernels, for n rows of h columns stride elements apart. biasReLU sets
// z = z + b, or +0 where that sum is <= 0. The kernel reluBackward clears dh
// where a <= 0 and sums dh over the rows into gb.
//
// Column registers go outside, rows inside. A block takes 4 registers of
// columns (16 float32 / 8 float64), then single registers. It loads b (or
// gb, the accumulator) once, and walks down the n rows with the stride.
// Backward, it stores gb once at the end of the block. So each gb[j] is the
// sum over rows in row order, bit-exact with the Go loop. The mask is
// FCMGE(0 >= v), i.e. v <= 0, false for NaN. BIC clears those lanes. So a
// sum <= 0, -0 included, becomes +0, and NaN is kept as FADD produced it.
// FADD takes its operands in the Go loop's order (z + b, gb + dh).
//
// Requires: ASIMD. FADD and FCMGE on vectors and BIC (vector, register) come
// from neon_arm64.h as WORD encodings.
//
// Tails: the last h mod 4 (float32) or h mod 2 (float64) columns are taken
// one at a time. They use scalar FMOVS/FMOVD loads, which zero the other
// lanes, the same vector operations, and a scalar store. Nothing outside the
// h columns of each row (and of b, gb) is read or written.
`

// reluPrec names one precision's forms for the ReLU kernels.
type reluPrec struct {
	name  string
	arr   string // vector arrangement
	size  int    // bytes per element
	shift int    // log2(size)
	lanes int    // elements per register
	mov   string // scalar load/store
	add   string // vector FADD (neon_arm64.h)
	cmpge string // vector FCMGE (register) (neon_arm64.h)
}

var reluPrecs = []reluPrec{
	{name: "F64", arr: "D2", size: 8, shift: 3, lanes: 2, mov: "FMOVD", add: "VFADD_D2", cmpge: "VFCMGE_D2"},
	{name: "F32", arr: "S4", size: 4, shift: 2, lanes: 4, mov: "FMOVS", add: "VFADD_S4", cmpge: "VFCMGE_S4"},
}

func reluKernels(a *asm) {
	for _, p := range reluPrecs {
		biasReLU(a, p)
		reluBackward(a, p)
	}
}

// reluZero is the register that holds +0 in every lane.
const reluZero = 31

// zeroWhereNotPositive clears, for i < k, the lanes of V(val+i) where
// V(test+i) ≤ 0. It uses the masks V(mask+i). A NaN lane compares false and
// is kept. These are ReLU's forward and backward steps.
func zeroWhereNotPositive(a *asm, p reluPrec, k, test, mask, val int) {
	for i := 0; i < k; i++ {
		a.w("\t%s(%d, %d, %d)", p.cmpge, test+i, reluZero, mask+i) // mask = 0 >= test
	}
	for i := 0; i < k; i++ {
		a.w("\tVBIC_B16(%d, %d, %d)", mask+i, val+i, val+i) // val = val AND NOT mask
	}
}

// biasReLU registers:
//
//   - R0: z (current column block); R1: b; R2: n; R3: columns left;
//   - R4: stride in bytes; R5: walks down the rows; R6: counts them;
//   - V0..: values; V4..: masks; V16..: bias.
func biasReLU(a *asm, p reluPrec) {
	lab := "br" + p.name
	a.w("// func biasReLU%s(z, b unsafe.Pointer, n, h, stride int)", p.name)
	a.w("TEXT ·biasReLU%s(SB), NOSPLIT, $0-40", p.name)
	a.w("\tMOVD z+0(FP), R0\n\tMOVD b+8(FP), R1\n\tMOVD n+16(FP), R2\n\tMOVD h+24(FP), R3\n\tMOVD stride+32(FP), R4")
	a.w("\tLSL $%d, R4, R4", p.shift)
	a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", reluZero, reluZero, reluZero)
	// body computes V0..V(k-1) = relu(V0.. + V16..) with masks in V4...
	body := func(k int) {
		for i := 0; i < k; i++ {
			a.w("\t%s(%d, %d, %d)", p.add, 16+i, i, i) // Vi = Vi + V(16+i): z + b
		}
		zeroWhereNotPositive(a, p, k, 0, 4, 0)
	}
	for _, k := range []int{4, 1} {
		cols := k * p.lanes
		blk := fmt.Sprintf("%s%d", lab, k)
		a.w("%s:", blk)
		a.w("\tCMP $%d, R3\n\tBLT %snext", cols, blk)
		a.w("\tVLD1.P %d(R1), %s", 16*k, vregs(16, 16+k-1, p.arr))
		a.w("\tMOVD R0, R5\n\tMOVD R2, R6")
		a.w("%srow:", blk)
		a.w("\tVLD1 (R5), %s", vregs(0, k-1, p.arr))
		body(k)
		a.w("\tVST1 %s, (R5)", vregs(0, k-1, p.arr))
		a.w("\tADD R4, R5, R5")
		a.w("\tSUB $1, R6\n\tCBNZ R6, %srow", blk)
		a.w("\tADD $%d, R0, R0\n\tSUB $%d, R3, R3\n\tB %s", 16*k, cols, blk)
		a.w("%snext:", blk)
	}
	// One column at a time: scalar loads zero the other lanes.
	a.w("\tCBZ R3, %sdone", lab)
	a.w("%scol:", lab)
	a.w("\t%s.P %d(R1), F16", p.mov, p.size)
	a.w("\tMOVD R0, R5\n\tMOVD R2, R6")
	a.w("%scolrow:", lab)
	a.w("\t%s (R5), F0", p.mov)
	body(1)
	a.w("\t%s F0, (R5)", p.mov)
	a.w("\tADD R4, R5, R5")
	a.w("\tSUB $1, R6\n\tCBNZ R6, %scolrow", lab)
	a.w("\tADD $%d, R0, R0", p.size)
	a.w("\tSUB $1, R3\n\tCBNZ R3, %scol", lab)
	a.w("%sdone:\n\tRET\n", lab)
}

// reluBackward registers:
//
//   - R0: gb (current column block); R1: dh; R2: a (both at the current
//     column block); R3: n; R4: columns left; R5: stride in bytes;
//   - R6, R7: walk down the rows of dh and a; R8: counts them;
//   - V0..: dh; V4..: a; V8..: masks; V16..: the gb accumulators.
func reluBackward(a *asm, p reluPrec) {
	lab := "rb" + p.name
	a.w("// func reluBackward%s(gb, dh, a unsafe.Pointer, n, h, stride int)", p.name)
	a.w("TEXT ·reluBackward%s(SB), NOSPLIT, $0-48", p.name)
	a.w("\tMOVD gb+0(FP), R0\n\tMOVD dh+8(FP), R1\n\tMOVD a+16(FP), R2\n\tMOVD n+24(FP), R3\n\tMOVD h+32(FP), R4\n\tMOVD stride+40(FP), R5")
	a.w("\tLSL $%d, R5, R5", p.shift)
	a.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", reluZero, reluZero, reluZero)
	body := func(k int) {
		zeroWhereNotPositive(a, p, k, 4, 8, 0)
	}
	sum := func(k int) {
		for i := 0; i < k; i++ {
			a.w("\t%s(%d, %d, %d)", p.add, i, 16+i, 16+i) // gb = gb + dh
		}
	}
	for _, k := range []int{4, 1} {
		cols := k * p.lanes
		blk := fmt.Sprintf("%s%d", lab, k)
		a.w("%s:", blk)
		a.w("\tCMP $%d, R4\n\tBLT %snext", cols, blk)
		a.w("\tVLD1 (R0), %s", vregs(16, 16+k-1, p.arr))
		a.w("\tMOVD R1, R6\n\tMOVD R2, R7\n\tMOVD R3, R8")
		a.w("%srow:", blk)
		a.w("\tVLD1 (R7), %s", vregs(4, 4+k-1, p.arr))
		a.w("\tVLD1 (R6), %s", vregs(0, k-1, p.arr))
		body(k)
		a.w("\tVST1 %s, (R6)", vregs(0, k-1, p.arr))
		sum(k)
		a.w("\tADD R5, R6, R6\n\tADD R5, R7, R7")
		a.w("\tSUB $1, R8\n\tCBNZ R8, %srow", blk)
		a.w("\tVST1.P %s, %d(R0)", vregs(16, 16+k-1, p.arr), 16*k)
		a.w("\tADD $%d, R1, R1\n\tADD $%d, R2, R2\n\tSUB $%d, R4, R4\n\tB %s", 16*k, 16*k, cols, blk)
		a.w("%snext:", blk)
	}
	a.w("\tCBZ R4, %sdone", lab)
	a.w("%scol:", lab)
	a.w("\t%s (R0), F16", p.mov)
	a.w("\tMOVD R1, R6\n\tMOVD R2, R7\n\tMOVD R3, R8")
	a.w("%scolrow:", lab)
	a.w("\t%s (R7), F4\n\t%s (R6), F0", p.mov, p.mov)
	body(1)
	a.w("\t%s F0, (R6)", p.mov)
	sum(1)
	a.w("\tADD R5, R6, R6\n\tADD R5, R7, R7")
	a.w("\tSUB $1, R8\n\tCBNZ R8, %scolrow", lab)
	a.w("\t%s.P F16, %d(R0)", p.mov, p.size)
	a.w("\tADD $%d, R1, R1\n\tADD $%d, R2, R2", p.size, p.size)
	a.w("\tSUB $1, R4\n\tCBNZ R4, %scol", lab)
	a.w("%sdone:\n\tRET\n", lab)
}
