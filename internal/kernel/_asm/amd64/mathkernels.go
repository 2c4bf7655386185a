package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() { sectionDocs = append(sectionDocs, mathDoc) }

// mathKernels writes Exp, Log1p, the linear losses, Plus and SoftmaxCE.
func mathKernels(g *gen) {
	mathConstants(g)
	unary(g, ymm)
	losses(g, ymm)
	plus(g, ymm)
	softmax(g, ymm, f32)
	softmax(g, ymm, f64)
	softmaxLanesYmm(g, f32)
	softmaxLanesYmm(g, f64)
}

// zmathKernels writes the zmm twins of Exp, Log1p, the linear losses, Plus
// and SoftmaxCE.
func zmathKernels(g *gen) {
	zmathConstants(g)
	unary(g, zmm)
	losses(g, zmm)
	plus(g, zmm)
	softmax(g, zmm, f32)
	softmax(g, zmm, f64)
	softmaxLanes(g, f32)
	softmaxLanes(g, f64)
}

func unary(g *gen, v vec) {
	r := v.reg
	setup := func() {
		g.MOVQ(g.param("dst"), RDI)
		g.MOVQ(g.param("x"), RSI)
		g.MOVQ(g.param("n"), RCX)
	}
	ins, outs := []inout{{RSI, 0}}, []inout{{RDI, 1}}
	g.elementwise(v, "exp", native32, ins, outs, setup, func(string) { g.expPS(v, r(0), r(1), r(2), r(3), r(4)) }, false)
	g.elementwise(v, "exp", wide64, ins, outs, setup, func(string) { g.expPD(v, r(0), r(1), r(2), r(3), r(4), false) }, false)
	g.elementwise(v, "log1p", native32, ins, outs, setup, func(string) { g.log1pPS(v, r(0), r(1), r(2), r(3), r(4), r(5), false) }, false)
	g.elementwise(v, "log1p", wide64, ins, outs, setup, func(string) { g.log1pPD(v, r(0), r(1), r(2), r(3), r(4), r(5)) }, false)
}

func losses(g *gen, v vec) {
	r := v.reg
	setup := func() {
		g.MOVQ(g.param("loss"), RDI)
		g.MOVQ(g.param("dloss"), R10)
		g.MOVQ(g.param("m"), RSI)
		g.MOVQ(g.param("y"), RDX)
		g.MOVQ(g.param("n"), RCX)
	}
	ins := []inout{{RSI, 0}, {RDX, 1}}

	// Logistic: loss = max(−z, 0) + log1p(e), dloss = −y·σ(−z), with
	// z = y·m and e = exp(−|z|).
	logistic := func(string) {
		g.VMULPD(r(0), r(1), r(2))
		v.or(g, f64, v.k("signMask"), r(2), r(3))
		g.expPD(v, r(3), r(4), r(5), r(6), r(7), true)
		g.log1pUnit2PD(v, r(4), r(5), r(8), r(6), r(7), r(9), r(10))
		v.xor(g, f64, v.k("signMask"), r(2), r(6))
		v.zero(g, f64, r(7))
		g.VMAXPD(r(7), r(6), r(6))
		g.VADDPD(r(5), r(6), r(6))
		m := v.cmp(g, f64, 0x11, r(7), r(2), r(9), K2)
		v.blend(g, f64, m, v.k("one"), r(4), r(10))
		g.VDIVPD(r(8), r(10), r(10))
		v.xor(g, f64, v.k("signMask"), r(1), r(11))
		g.VMULPD(r(10), r(11), r(11))
	}
	// Float32 logistic. Lanes where e = exp(−|z|) is below float32's normal
	// range (−|z| < −87) take a slow path, rarely. Loss and derivative are
	// recomputed in float64 from z = y·m, which is exact in float64. So a
	// label |y| ≠ 1 does not magnify the subnormal rounding of e.
	logistic32half := func(lo bool) {
		if lo {
			v.cvtps2pd(g, v.half(0), 2)
			v.cvtps2pd(g, v.half(1), 3)
		} else {
			v.extractHi(g, 0, 2)
			v.cvtps2pd(g, v.half(2), 2)
			v.extractHi(g, 1, 3)
			v.cvtps2pd(g, v.half(3), 3)
		}
		g.VMULPD(r(2), r(3), r(2))
		v.or(g, f64, v.k("signMask"), r(2), r(4))
		g.expPD(v, r(4), r(5), r(7), r(8), r(9), true)
		v.xor(g, f64, v.k("signMask"), r(2), r(7))
		v.zero(g, f64, r(8))
		g.VMAXPD(r(8), r(7), r(7))
		g.VADDPD(r(5), r(7), r(7))
		m := v.cmp(g, f64, 0x11, r(8), r(2), r(9), K2)
		v.blend(g, f64, m, v.k("one"), r(5), r(10))
		g.VADDPD(v.k("one"), r(5), r(4))
		g.VDIVPD(r(4), r(10), r(10))
		v.xor(g, f64, v.k("signMask"), r(3), r(3))
		g.VMULPD(r(10), r(3), r(3))
		if lo {
			v.cvtpd2ps(g, 7, 13)
			v.cvtpd2ps(g, 3, 14)
		} else {
			v.cvtpd2ps(g, 7, 7)
			v.insertHi(g, 7, 13)
			v.cvtpd2ps(g, 3, 3)
			v.insertHi(g, 3, 14)
		}
	}
	logistic32 := func(skip string) {
		g.VMULPS(r(0), r(1), r(2))
		v.and(g, f32, v.k("sabsMask"), r(2), r(3))
		v.xor(g, f32, v.k("ssignMask"), r(3), r(3))
		g.expPS(v, r(3), r(4), r(5), r(6), r(7))
		tiny := v.cmp(g, f32, 1, v.k("stinyArg"), r(3), r(12), K3)
		g.log1pPS(v, r(4), r(5), r(6), r(7), r(8), r(9), true)
		v.xor(g, f32, v.k("ssignMask"), r(2), r(6))
		v.zero(g, f32, r(7))
		g.VMAXPS(r(7), r(6), r(6))
		g.VADDPS(r(5), r(6), r(6))
		g.VADDPS(v.k("sone"), r(4), r(8))
		m := v.cmp(g, f32, 0x0d, r(7), r(2), r(9), K2)
		g.VMOVUPS(v.k("sone"), r(10))
		v.blend(g, f32, m, r(4), r(10), r(10))
		g.VDIVPS(r(8), r(10), r(10))
		v.xor(g, f32, v.k("ssignMask"), r(1), r(11))
		g.VMULPS(r(10), r(11), r(11))
		v.anyMask(g, tiny)
		g.JZ(operand.LabelRef(skip))
		logistic32half(true)
		logistic32half(false)
		v.blend(g, f32, tiny, r(13), r(6), r(6))
		v.blend(g, f32, tiny, r(14), r(11), r(11))
		g.Label(skip)
	}
	// Squared: loss = r²/2, dloss = r, r = m − y.
	squared := func(string) {
		g.VSUBPD(r(1), r(0), r(2))
		g.VMULPD(v.k("half"), r(2), r(3))
		g.VMULPD(r(2), r(3), r(3))
	}
	// Absolute: loss = |r|, dloss = sign(r).
	absolute := func(string) {
		g.VSUBPD(r(1), r(0), r(2))
		v.and(g, f64, v.k("absMask"), r(2), r(3))
		v.zero(g, f64, r(7))
		pos := v.cmp(g, f64, 0x1e, r(7), r(2), r(4), K2)
		neg := v.cmp(g, f64, 0x11, r(7), r(2), r(5), K3)
		v.maskConst(g, f64, "one", pos, r(4))
		v.maskConst(g, f64, "negOne", neg, r(5))
		v.or(g, f64, r(5), r(4), r(2))
	}

	g.elementwise(v, "logistic", native32, ins, []inout{{RDI, 6}, {R10, 11}}, setup, logistic32, false)
	g.elementwise(v, "logistic", wide64, ins, []inout{{RDI, 6}, {R10, 11}}, setup, logistic, false)
	for _, l := range []layout{widened32, wide64} {
		g.elementwise(v, "squared", l, ins, []inout{{RDI, 3}, {R10, 2}}, setup, squared, false)
	}
	for _, l := range []layout{widened32, wide64} {
		g.elementwise(v, "absolute", l, ins, []inout{{RDI, 3}, {R10, 2}}, setup, absolute, false)
	}
}

// plus writes plusF32 and plusF64 (or their zmm twins): one entry with a
// switch on kind, and one loop per kind (none, hinge, softplus, quadratic).
func plus(g *gen, v vec) {
	r := v.reg
	for _, p := range []prec{f32, f64} {
		P := p.name
		L := v.prefix + "plus"
		v.text(g, "plus"+P)
		g.MOVQ(g.param("kind"), RBX)
		g.CMPQ(RBX, u8(1))
		g.JB(operand.LabelRef(L + "None" + P))
		g.JE(operand.LabelRef(L + "Hinge" + P))
		g.CMPQ(RBX, u8(2))
		g.JE(operand.LabelRef(L + "Softplus" + P))
		g.JMP(operand.LabelRef(L + "Quad" + P))

		// r14 = ε, r12 = 2ε, r11 = 4ε, r13 = ε/4, r10 = −ε.
		setup := func() {
			g.MOVQ(g.param("rho"), RDI)
			g.MOVQ(g.param("drho"), R10)
			g.MOVQ(g.param("s"), RSI)
			g.MOVQ(g.param("n"), RCX)
			g.VBROADCASTSD(g.param("eps"), r(14))
			g.VADDPD(r(14), r(14), r(12))
			g.VADDPD(r(12), r(12), r(11))
			g.VMULPD(v.k("half"), r(14), r(13))
			g.VMULPD(v.k("half"), r(13), r(13))
			v.xor(g, f64, v.k("signMask"), r(14), r(10))
		}
		// Native float32 softplus: r14 = float32(ε) in every lane, r13 = ε.
		setup32 := func() {
			g.MOVQ(g.param("rho"), RDI)
			g.MOVQ(g.param("drho"), R10)
			g.MOVQ(g.param("s"), RSI)
			g.MOVQ(g.param("n"), RCX)
			g.MOVSD(g.param("eps"), X14)
			g.VCVTSD2SS(X14, X14, X14)
			g.VBROADCASTSS(X14, r(14))
			g.VBROADCASTSD(g.param("eps"), r(13))
		}
		ins := []inout{{RSI, 0}}
		l := widened32
		if P == "F64" {
			l = wide64
		}

		// None: ρ = s, ρ' = 1.
		g.elementwise(v, "plusNone", l, ins, []inout{{RDI, 0}, {R10, 1}}, setup, func(string) {
			g.VMOVUPD(v.k("one"), r(1))
		}, true)
		// Hinge: ρ = max(s, 0), ρ' = [s > 0].
		g.elementwise(v, "plusHinge", l, ins, []inout{{RDI, 0}, {R10, 1}}, setup, func(string) {
			v.zero(g, f64, r(3))
			m := v.cmp(g, f64, 0x1e, r(3), r(0), r(2), K2)
			v.maskKeep(g, f64, r(0), m, r(0))
			v.maskConst(g, f64, "one", m, r(1))
		}, true)
		// Softplus: ρ = max(s, 0) + ε·log1p(e), ρ' = (t ≥ 0 ? 1 : e)/(1+e),
		// e = exp(−|t|), t = s/ε.
		if P == "F32" {
			g.elementwise(v, "plusSoftplus", native32, ins, []inout{{RDI, 5}, {R10, 8}}, setup32, softplus32(g, v), true)
		} else {
			g.elementwise(v, "plusSoftplus", l, ins, []inout{{RDI, 5}, {R10, 8}}, setup, func(string) {
				g.VDIVPD(r(14), r(0), r(1))
				v.or(g, f64, v.k("signMask"), r(1), r(2))
				g.expPD(v, r(2), r(3), r(4), r(5), r(6), true)
				g.log1pUnit2PD(v, r(3), r(4), r(10), r(5), r(6), r(7), r(8))
				v.zero(g, f64, r(9))
				g.VMAXPD(r(9), r(0), r(5))
				g.VFMADD231PD(r(4), r(14), r(5))
				m := v.cmp(g, f64, 0x0d, r(9), r(1), r(7), K2)
				v.blend(g, f64, m, v.k("one"), r(3), r(8))
				g.VDIVPD(r(10), r(8), r(8))
			}, true)
		}
		// Quadratic: on |s| < ε, ρ = s²/(4ε) + s/2 + ε/4 and
		// ρ' = s/(2ε) + 1/2. Below −ε both are 0; above ε they are s and 1.
		g.elementwise(v, "plusQuad", l, ins, []inout{{RDI, 1}, {R10, 2}}, setup, func(string) {
			g.VMULPD(r(0), r(0), r(1))
			g.VDIVPD(r(11), r(1), r(1))
			g.VMULPD(v.k("half"), r(0), r(2))
			g.VADDPD(r(2), r(1), r(1))
			g.VADDPD(r(13), r(1), r(1))
			g.VDIVPD(r(12), r(0), r(2))
			g.VADDPD(v.k("half"), r(2), r(2))
			m := v.cmp(g, f64, 0x02, r(10), r(0), r(3), K2)
			v.zero(g, f64, r(4))
			v.blend(g, f64, m, r(4), r(1), r(1))
			v.blend(g, f64, m, r(4), r(2), r(2))
			m = v.cmp(g, f64, 0x0d, r(14), r(0), r(3), K2)
			v.blend(g, f64, m, r(0), r(1), r(1))
			v.blend(g, f64, m, v.k("one"), r(2), r(2))
		}, true)
	}
}

// softplus32 is the native float32 softplus body. Lanes where e = exp(−|t|)
// is below float32's normal range (−|t| < −87) take a slow path, rarely.
// Then ρ = max(s, 0) + ε·e is recomputed in float64, with t = s/ε and
// e = expPD(−|t|). So a large ε magnifies neither the subnormal rounding of
// e nor the clamp of expPS.
func softplus32(g *gen, v vec) func(skip string) {
	r := v.reg
	return func(skip string) {
		g.VDIVPS(r(14), r(0), r(1))
		v.and(g, f32, v.k("sabsMask"), r(1), r(2))
		v.xor(g, f32, v.k("ssignMask"), r(2), r(2))
		g.expPS(v, r(2), r(3), r(4), r(5), r(6))
		tiny := v.cmp(g, f32, 1, v.k("stinyArg"), r(2), r(11), K3)
		g.log1pPS(v, r(3), r(4), r(5), r(6), r(7), r(8), true)
		v.zero(g, f32, r(9))
		g.VMAXPS(r(9), r(0), r(5))
		g.VFMADD231PS(r(4), r(14), r(5))
		g.VADDPS(v.k("sone"), r(3), r(6))
		m := v.cmp(g, f32, 0x0d, r(9), r(1), r(7), K2)
		g.VMOVUPS(v.k("sone"), r(8))
		v.blend(g, f32, m, r(8), r(3), r(8))
		g.VDIVPS(r(6), r(8), r(8))
		v.anyMask(g, tiny)
		g.JZ(operand.LabelRef(skip))
		half := func(lo bool) {
			if lo {
				v.cvtps2pd(g, v.half(0), 1)
			} else {
				v.extractHi(g, 0, 1)
				v.cvtps2pd(g, v.half(1), 1)
			}
			g.VDIVPD(r(13), r(1), r(2))
			v.and(g, f64, v.k("absMask"), r(2), r(2))
			v.xor(g, f64, v.k("signMask"), r(2), r(2))
			g.expPD(v, r(2), r(3), r(4), r(6), r(7), false)
			v.zero(g, f64, r(9))
			g.VMAXPD(r(9), r(1), r(1))
			g.VFMADD231PD(r(3), r(13), r(1))
		}
		half(true)
		v.cvtpd2ps(g, 1, 10)
		half(false)
		v.cvtpd2ps(g, 1, 12)
		v.insertHi(g, 12, 10)
		v.blend(g, f32, tiny, r(10), r(5), r(5))
		g.Label(skip)
	}
}
