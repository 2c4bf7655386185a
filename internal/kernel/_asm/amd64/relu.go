package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() {
	sectionDocs = append(sectionDocs, reluDoc)
	for _, p := range []string{"F32", "F64"} {
		goType := "float32"
		if p == "F64" {
			goType = "float64"
		}
		stubDocs["biasReLU"+p] = stub{
			sig: "func(z, b unsafe.Pointer, n, h, stride int)",
			doc: []string{
				"biasReLU" + p + " computes, for n rows of h columns stride elements apart",
				"(n, h ≥ 1; " + goType + "),",
				"",
				"\tfor i := 0; i < n; i++ {",
				"\t\tfor j := 0; j < h; j++ {",
				"\t\t\tv := z[i*stride+j] + b[j]",
				"\t\t\tif v <= 0 { v = 0 }",
				"\t\t\tz[i*stride+j] = v",
				"\t\t}",
				"\t}",
			},
		}
		stubDocs["reluBackward"+p] = stub{
			sig: "func(gb, dh, a unsafe.Pointer, n, h, stride int)",
			doc: []string{
				"reluBackward" + p + " computes, for n rows of h columns stride elements apart",
				"(n, h ≥ 1; " + goType + "),",
				"",
				"\tfor i := 0; i < n; i++ {",
				"\t\tfor j := 0; j < h; j++ {",
				"\t\t\tif a[i*stride+j] <= 0 { dh[i*stride+j] = 0 }",
				"\t\t\tgb[j] += dh[i*stride+j]",
				"\t\t}",
				"\t}",
			},
		}
	}
}

const reluDoc = `// ReLU kernels: BiasReLU (z = max(z + b, 0) over rows) and ReLUBackward
// (dh zeroed where the activation is ≤ 0, its rows summed into gb), for
// float32 and float64, ymm and zmm.
//
// Four registers of columns go at a time down all the rows; b, or gb's four
// sums, stay in registers. Then one register goes, then the last h mod lanes
// columns under the tail mask (VMASKMOVPS/PD, or K1). So nothing outside the
// columns is read or written. The mask of kept lanes is v NLE 0: VCMPPS
// predicate 6, true for NaN. It is ANDed in (ymm) or applied by a zeroing
// move (zmm). So a value ≤ 0, −0 included, becomes +0, and a NaN passes.
// Each gb[j] adds the rows in order: both kernels are bit for bit their Go
// loops.
`

// cmpNLEUQ is VCMPPS/PD's "not less-or-equal, unordered true" predicate:
// v NLE 0 holds for v > 0 and for NaN.
const cmpNLEUQ = 6

func reluKernels(g *gen, v vec) {
	for _, p := range []prec{f32, f64} {
		reluKernel(g, v, p, false)
		reluKernel(g, v, p, true)
	}
}

// reluKernel emits biasReLU (backward false) or reluBackward.
//
// Registers:
//
//   - DI: the rows being rewritten (z or dh); SI: b or a; BX: gb;
//   - CX: n; R10: h; R11: the stride in bytes; AX: the column;
//   - R9, R12: the columns of whole blocks of four registers, and of one;
//   - R13/R15: the walk down the columns (z or dh / a); R14: the rows left.
func reluKernel(g *gen, v vec, p prec, backward bool) {
	s := uint8(p.size)
	V := v.lanes(p)
	r := v.reg
	base, short := "biasReLU", "brelu"
	if backward {
		base, short = "reluBackward", "rrelu"
	}
	v.text(g, base+p.name)
	L := fmt.Sprintf("%s%s%d", v.prefix, short, 8*p.size)
	lbl := func(x string) operand.LabelRef { return operand.LabelRef(L + x) }
	if backward {
		g.MOVQ(g.param("gb"), RBX)
		g.MOVQ(g.param("dh"), RDI)
		g.MOVQ(g.param("a"), RSI)
	} else {
		g.MOVQ(g.param("z"), RDI)
		g.MOVQ(g.param("b"), RSI)
	}
	g.MOVQ(g.param("n"), RCX)
	g.MOVQ(g.param("h"), R10)
	g.MOVQ(g.param("stride"), R11)
	g.SHLQ(u8(shift(p)), R11)
	zero := r(15)
	v.zero(g, p, zero)
	g.XORQ(RAX, RAX)
	g.MOVQ(R10, R12)
	g.ANDQ(i32(-V), R12)

	// column runs w registers of columns down the rows, with w = 1 under a
	// tail mask. It keeps w independent sums. One sum's add latency, not the
	// loads, would bound a walk of one register.
	column := func(tag string, w int, mask operand.Op) {
		load := func(src operand.Mem, dst VecPhysical) {
			if mask == nil {
				g.vmovu(p, src, dst)
			} else {
				v.maskLoad(g, p, mask, src, dst)
			}
		}
		store := func(src VecPhysical, dst operand.Mem) {
			if mask == nil {
				g.vmovu(p, src, dst)
			} else {
				v.maskStore(g, p, mask, src, dst)
			}
		}
		// keep zeroes the lanes of val where the lanes of test are ≤ 0
		// (test is clobbered on ymm).
		keep := func(test, val VecPhysical) {
			if v.isZ() {
				byPrec(p, g.VCMPPS, g.VCMPPD)(u8(cmpNLEUQ), zero, test, K2)
				byPrec(p, g.VMOVUPS_Z, g.VMOVUPD_Z)(val, K2, val)
				return
			}
			byPrec(p, g.VCMPPS, g.VCMPPD)(u8(cmpNLEUQ), zero, test, test)
			byPrec(p, g.VANDPS, g.VANDPD)(test, val, val)
		}
		R := v.bytes
		// r(8+c): b or the sums of gb; r(c): z or dh; r(4+c): a.
		for c := 0; c < w; c++ {
			if backward {
				load(memi(RBX, R*c, RAX, s), r(8+c))
			} else {
				load(memi(RSI, R*c, RAX, s), r(8+c))
			}
		}
		if backward {
			g.LEAQ(memi(RSI, 0, RAX, s), R15)
		}
		g.LEAQ(memi(RDI, 0, RAX, s), R13)
		g.MOVQ(RCX, R14)
		g.Label(L + tag)
		for c := 0; c < w; c++ {
			load(mem(R13, R*c), r(c))
			if backward {
				load(mem(R15, R*c), r(4+c))
				keep(r(4+c), r(c))
				store(r(c), mem(R13, R*c))
				g.vadd(p, r(c), r(8+c), r(8+c))
			} else {
				g.vadd(p, r(8+c), r(c), r(c))
				if v.isZ() {
					keep(r(c), r(c))
				} else {
					g.vmovu(p, r(c), r(4+c))
					keep(r(4+c), r(c))
				}
				store(r(c), mem(R13, R*c))
			}
		}
		if backward {
			g.ADDQ(R11, R15)
		}
		g.ADDQ(R11, R13)
		g.DECQ(R14)
		g.JNZ(lbl(tag))
		if backward {
			for c := 0; c < w; c++ {
				store(r(8+c), memi(RBX, R*c, RAX, s))
			}
		}
	}

	// Four registers of columns a walk, then one, then the masked rest.
	g.MOVQ(R10, R9)
	g.ANDQ(i32(-4*V), R9)
	g.Label(L + "col4")
	g.CMPQ(RAX, R9)
	g.JAE(lbl("col"))
	column("rows4", 4, nil)
	g.ADDQ(v.unrolledStep(4*V), RAX)
	g.JMP(lbl("col4"))

	g.Label(L + "col")
	g.CMPQ(RAX, R12)
	g.JAE(lbl("tail"))
	column("rows", 1, nil)
	g.ADDQ(u8(V), RAX)
	g.JMP(lbl("col"))

	g.Label(L + "tail")
	g.MOVQ(R10, RDX)
	g.SUBQ(RAX, RDX)
	g.JZ(lbl("done"))
	column("tailrows", 1, v.tailMask(g, p, Y13))

	g.Label(L + "done")
	g.VZEROUPPER()
	g.RET()
}
