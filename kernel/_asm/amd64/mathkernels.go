package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func init() { sectionDocs = append(sectionDocs, mathDoc) }

// mathKernels writes Exp, Log1p, the linear losses, Plus and SoftmaxCE.
func mathKernels(g *gen) {
	mathConstants(g)
	unary(g)
	losses(g)
	plus(g)
	softmax(g, f32)
	softmax(g, f64)
}

func unary(g *gen) {
	setup := func() {
		g.MOVQ(g.param("dst"), RDI)
		g.MOVQ(g.param("x"), RSI)
		g.MOVQ(g.param("n"), RCX)
	}
	ins, outs := []inout{{RSI, 0}}, []inout{{RDI, 1}}
	g.elementwise("exp", native32, ins, outs, setup, func(string) { g.expPS(Y0, Y1, Y2, Y3, Y4) }, false)
	g.elementwise("exp", wide64, ins, outs, setup, func(string) { g.expPD(Y0, Y1, Y2, Y3, Y4, false) }, false)
	g.elementwise("log1p", native32, ins, outs, setup, func(string) { g.log1pPS(Y0, Y1, Y2, Y3, Y4, Y5, false) }, false)
	g.elementwise("log1p", wide64, ins, outs, setup, func(string) { g.log1pPD(Y0, Y1, Y2, Y3, Y4, Y5) }, false)
}

func losses(g *gen) {
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
		g.VMULPD(Y0, Y1, Y2)
		g.VORPD(k["signMask"], Y2, Y3)
		g.expPD(Y3, Y4, Y5, Y6, Y7, true)
		g.log1pUnit2PD(Y4, Y5, Y8, Y6, Y7, Y9, Y10)
		g.VXORPD(k["signMask"], Y2, Y6)
		g.VXORPD(Y7, Y7, Y7)
		g.VMAXPD(Y7, Y6, Y6)
		g.VADDPD(Y5, Y6, Y6)
		g.VCMPPD(u8(0x11), Y7, Y2, Y9)
		g.VBLENDVPD(Y9, k["one"], Y4, Y10)
		g.VDIVPD(Y8, Y10, Y10)
		g.VXORPD(k["signMask"], Y1, Y11)
		g.VMULPD(Y10, Y11, Y11)
	}
	// Float32 logistic. Lanes where e = exp(−|z|) is below float32's normal
	// range (−|z| < −87) take a slow path, rarely: loss and derivative
	// recomputed in float64 from z = y·m (exact in float64), so that a label
	// |y| ≠ 1 does not magnify the subnormal rounding of e.
	logistic32half := func(lo bool) {
		if lo {
			g.VCVTPS2PD(X0, Y2)
			g.VCVTPS2PD(X1, Y3)
		} else {
			g.VEXTRACTF128(u8(1), Y0, X2)
			g.VCVTPS2PD(X2, Y2)
			g.VEXTRACTF128(u8(1), Y1, X3)
			g.VCVTPS2PD(X3, Y3)
		}
		g.VMULPD(Y2, Y3, Y2)
		g.VORPD(k["signMask"], Y2, Y4)
		g.expPD(Y4, Y5, Y7, Y8, Y9, true)
		g.VXORPD(k["signMask"], Y2, Y7)
		g.VXORPD(Y8, Y8, Y8)
		g.VMAXPD(Y8, Y7, Y7)
		g.VADDPD(Y5, Y7, Y7)
		g.VCMPPD(u8(0x11), Y8, Y2, Y9)
		g.VBLENDVPD(Y9, k["one"], Y5, Y10)
		g.VADDPD(k["one"], Y5, Y4)
		g.VDIVPD(Y4, Y10, Y10)
		g.VXORPD(k["signMask"], Y3, Y3)
		g.VMULPD(Y10, Y3, Y3)
		if lo {
			g.VCVTPD2PSY(Y7, X13)
			g.VCVTPD2PSY(Y3, X14)
		} else {
			g.VCVTPD2PSY(Y7, X7)
			g.VINSERTF128(u8(1), X7, Y13, Y13)
			g.VCVTPD2PSY(Y3, X3)
			g.VINSERTF128(u8(1), X3, Y14, Y14)
		}
	}
	logistic32 := func(skip string) {
		g.VMULPS(Y0, Y1, Y2)
		g.VANDPS(k["sabsMask"], Y2, Y3)
		g.VXORPS(k["ssignMask"], Y3, Y3)
		g.expPS(Y3, Y4, Y5, Y6, Y7)
		g.VCMPPS(u8(1), k["stinyArg"], Y3, Y12)
		g.log1pPS(Y4, Y5, Y6, Y7, Y8, Y9, true)
		g.VXORPS(k["ssignMask"], Y2, Y6)
		g.VXORPS(Y7, Y7, Y7)
		g.VMAXPS(Y7, Y6, Y6)
		g.VADDPS(Y5, Y6, Y6)
		g.VADDPS(k["sone"], Y4, Y8)
		g.VCMPPS(u8(0x0d), Y7, Y2, Y9)
		g.VMOVUPS(k["sone"], Y10)
		g.VBLENDVPS(Y9, Y4, Y10, Y10)
		g.VDIVPS(Y8, Y10, Y10)
		g.VXORPS(k["ssignMask"], Y1, Y11)
		g.VMULPS(Y10, Y11, Y11)
		g.VMOVMSKPS(Y12, EBX)
		g.TESTL(EBX, EBX)
		g.JZ(operand.LabelRef(skip))
		logistic32half(true)
		logistic32half(false)
		g.VBLENDVPS(Y12, Y13, Y6, Y6)
		g.VBLENDVPS(Y12, Y14, Y11, Y11)
		g.Label(skip)
	}
	// Squared: loss = r²/2, dloss = r, r = m − y.
	squared := func(string) {
		g.VSUBPD(Y1, Y0, Y2)
		g.VMULPD(k["half"], Y2, Y3)
		g.VMULPD(Y2, Y3, Y3)
	}
	// Absolute: loss = |r|, dloss = sign(r).
	absolute := func(string) {
		g.VSUBPD(Y1, Y0, Y2)
		g.VANDPD(k["absMask"], Y2, Y3)
		g.VXORPD(Y7, Y7, Y7)
		g.VCMPPD(u8(0x1e), Y7, Y2, Y4)
		g.VCMPPD(u8(0x11), Y7, Y2, Y5)
		g.VANDPD(k["one"], Y4, Y4)
		g.VANDPD(k["negOne"], Y5, Y5)
		g.VORPD(Y5, Y4, Y2)
	}

	g.elementwise("logistic", native32, ins, []inout{{RDI, 6}, {R10, 11}}, setup, logistic32, false)
	g.elementwise("logistic", wide64, ins, []inout{{RDI, 6}, {R10, 11}}, setup, logistic, false)
	for _, l := range []layout{widened32, wide64} {
		g.elementwise("squared", l, ins, []inout{{RDI, 3}, {R10, 2}}, setup, squared, false)
	}
	for _, l := range []layout{widened32, wide64} {
		g.elementwise("absolute", l, ins, []inout{{RDI, 3}, {R10, 2}}, setup, absolute, false)
	}
}

// plus writes plusF32 and plusF64: one entry with a switch on kind, and one
// loop per kind (none, hinge, softplus, quadratic).
func plus(g *gen) {
	for _, p := range []prec{f32, f64} {
		P := p.name
		g.text("plus" + P)
		g.MOVQ(g.param("kind"), RBX)
		g.CMPQ(RBX, u8(1))
		g.JB(operand.LabelRef("plusNone" + P))
		g.JE(operand.LabelRef("plusHinge" + P))
		g.CMPQ(RBX, u8(2))
		g.JE(operand.LabelRef("plusSoftplus" + P))
		g.JMP(operand.LabelRef("plusQuad" + P))

		// Y14 = ε, Y12 = 2ε, Y11 = 4ε, Y13 = ε/4, Y10 = −ε.
		setup := func() {
			g.MOVQ(g.param("rho"), RDI)
			g.MOVQ(g.param("drho"), R10)
			g.MOVQ(g.param("s"), RSI)
			g.MOVQ(g.param("n"), RCX)
			g.VBROADCASTSD(g.param("eps"), Y14)
			g.VADDPD(Y14, Y14, Y12)
			g.VADDPD(Y12, Y12, Y11)
			g.VMULPD(k["half"], Y14, Y13)
			g.VMULPD(k["half"], Y13, Y13)
			g.VXORPD(k["signMask"], Y14, Y10)
		}
		// Native float32 softplus: Y14 = float32(ε) in eight lanes, Y13 = ε.
		setup32 := func() {
			g.MOVQ(g.param("rho"), RDI)
			g.MOVQ(g.param("drho"), R10)
			g.MOVQ(g.param("s"), RSI)
			g.MOVQ(g.param("n"), RCX)
			g.MOVSD(g.param("eps"), X14)
			g.VCVTSD2SS(X14, X14, X14)
			g.VBROADCASTSS(X14, Y14)
			g.VBROADCASTSD(g.param("eps"), Y13)
		}
		ins := []inout{{RSI, 0}}
		l := widened32
		if P == "F64" {
			l = wide64
		}

		// None: ρ = s, ρ' = 1.
		g.elementwise("plusNone", l, ins, []inout{{RDI, 0}, {R10, 1}}, setup, func(string) {
			g.VMOVUPD(k["one"], Y1)
		}, true)
		// Hinge: ρ = max(s, 0), ρ' = [s > 0].
		g.elementwise("plusHinge", l, ins, []inout{{RDI, 0}, {R10, 1}}, setup, func(string) {
			g.VXORPD(Y3, Y3, Y3)
			g.VCMPPD(u8(0x1e), Y3, Y0, Y2)
			g.VANDPD(Y2, Y0, Y0)
			g.VANDPD(k["one"], Y2, Y1)
		}, true)
		// Softplus: ρ = max(s, 0) + ε·log1p(e), ρ' = (t ≥ 0 ? 1 : e)/(1+e),
		// e = exp(−|t|), t = s/ε.
		if P == "F32" {
			g.elementwise("plusSoftplus", native32, ins, []inout{{RDI, 5}, {R10, 8}}, setup32, softplus32(g), true)
		} else {
			g.elementwise("plusSoftplus", l, ins, []inout{{RDI, 5}, {R10, 8}}, setup, func(string) {
				g.VDIVPD(Y14, Y0, Y1)
				g.VORPD(k["signMask"], Y1, Y2)
				g.expPD(Y2, Y3, Y4, Y5, Y6, true)
				g.log1pUnit2PD(Y3, Y4, Y10, Y5, Y6, Y7, Y8)
				g.VXORPD(Y9, Y9, Y9)
				g.VMAXPD(Y9, Y0, Y5)
				g.VFMADD231PD(Y4, Y14, Y5)
				g.VCMPPD(u8(0x0d), Y9, Y1, Y7)
				g.VBLENDVPD(Y7, k["one"], Y3, Y8)
				g.VDIVPD(Y10, Y8, Y8)
			}, true)
		}
		// Quadratic: ρ = s²/(4ε) + s/2 + ε/4 and ρ' = s/(2ε) + 1/2 on
		// |s| < ε, 0 below −ε, s and 1 above ε.
		g.elementwise("plusQuad", l, ins, []inout{{RDI, 1}, {R10, 2}}, setup, func(string) {
			g.VMULPD(Y0, Y0, Y1)
			g.VDIVPD(Y11, Y1, Y1)
			g.VMULPD(k["half"], Y0, Y2)
			g.VADDPD(Y2, Y1, Y1)
			g.VADDPD(Y13, Y1, Y1)
			g.VDIVPD(Y12, Y0, Y2)
			g.VADDPD(k["half"], Y2, Y2)
			g.VCMPPD(u8(0x02), Y10, Y0, Y3)
			g.VXORPD(Y4, Y4, Y4)
			g.VBLENDVPD(Y3, Y4, Y1, Y1)
			g.VBLENDVPD(Y3, Y4, Y2, Y2)
			g.VCMPPD(u8(0x0d), Y14, Y0, Y3)
			g.VBLENDVPD(Y3, Y0, Y1, Y1)
			g.VBLENDVPD(Y3, k["one"], Y2, Y2)
		}, true)
	}
}

// softplus32 is the native float32 softplus body. Lanes where
// e = exp(−|t|) is below float32's normal range (−|t| < −87) take a slow
// path, rarely: ρ = max(s, 0) + ε·e recomputed in float64 (t = s/ε,
// e = expPD(−|t|)), so that neither the subnormal rounding of e nor the
// clamp of expPS is magnified by a large ε.
func softplus32(g *gen) func(skip string) {
	return func(skip string) {
		g.VDIVPS(Y14, Y0, Y1)
		g.VANDPS(k["sabsMask"], Y1, Y2)
		g.VXORPS(k["ssignMask"], Y2, Y2)
		g.expPS(Y2, Y3, Y4, Y5, Y6)
		g.VCMPPS(u8(1), k["stinyArg"], Y2, Y11)
		g.log1pPS(Y3, Y4, Y5, Y6, Y7, Y8, true)
		g.VXORPS(Y9, Y9, Y9)
		g.VMAXPS(Y9, Y0, Y5)
		g.VFMADD231PS(Y4, Y14, Y5)
		g.VADDPS(k["sone"], Y3, Y6)
		g.VCMPPS(u8(0x0d), Y9, Y1, Y7)
		g.VMOVUPS(k["sone"], Y8)
		g.VBLENDVPS(Y7, Y8, Y3, Y8)
		g.VDIVPS(Y6, Y8, Y8)
		g.VMOVMSKPS(Y11, EBX)
		g.TESTL(EBX, EBX)
		g.JZ(operand.LabelRef(skip))
		half := func(lo bool) {
			if lo {
				g.VCVTPS2PD(X0, Y1)
			} else {
				g.VEXTRACTF128(u8(1), Y0, X1)
				g.VCVTPS2PD(X1, Y1)
			}
			g.VDIVPD(Y13, Y1, Y2)
			g.VANDPD(k["absMask"], Y2, Y2)
			g.VXORPD(k["signMask"], Y2, Y2)
			g.expPD(Y2, Y3, Y4, Y6, Y7, false)
			g.VXORPD(Y9, Y9, Y9)
			g.VMAXPD(Y9, Y1, Y1)
			g.VFMADD231PD(Y3, Y13, Y1)
		}
		half(true)
		g.VCVTPD2PSY(Y1, X10)
		half(false)
		g.VCVTPD2PSY(Y1, X12)
		g.VINSERTF128(u8(1), X12, Y10, Y10)
		g.VBLENDVPS(Y11, Y10, Y5, Y5)
		g.Label(skip)
	}
}
