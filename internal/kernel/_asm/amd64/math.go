package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The constants of the elementwise kernels, as bit patterns. Each is
// broadcast to a whole 256-bit register of four float64 or eight float32
// lanes.
//
// The constants e11..e2 are the coefficients of P in e^r = 1 + r + r²·P(r).
// P is a Chebyshev fit (degree 9) of (e^r − 1 − r)/r² on [−ln2/2 − 1e-6,
// ln2/2 + 1e-6]. It comes from mpmath's chebyfit at 40 digits, rounded to
// float64. With the rounded coefficients, the error of e^r is below 0.15
// ulp. The file accuracy_test.go checks the kernel against math/big. The
// constants lg1..lg7 are fdlibm's log coefficients, and slg1..slg4 fdlibm's
// float ones. The constants sp3..sp7 are the Taylor coefficients 1/k!,
// rounded to float32.
var consts64 = []struct {
	name string
	bits uint64
}{
	{"one", 0x3ff0000000000000}, {"two", 0x4000000000000000}, {"half", 0x3fe0000000000000},
	{"negOne", 0xbff0000000000000}, {"posInf", 0x7ff0000000000000}, {"negInf", 0xfff0000000000000},
	{"nan", 0x7ff8000000000000}, {"absMask", 0x7fffffffffffffff}, {"signMask", 0x8000000000000000},
	{"expHi", 0x4086300000000000}, {"expLo", 0xc087500000000000},
	{"log2e", 0x3ff71547652b82fe}, {"shifter", 0x4338000000000000},
	{"ln2hi", 0x3fe62e42fee00000}, {"ln2lo", 0x3dea39ef35793c76},
	{"e11", 0x3e5af389f20208c6}, {"e10", 0x3e928917ccaf39d3}, {"e9", 0x3ec71de0db2d4e97},
	{"e8", 0x3efa019b91463588}, {"e7", 0x3f2a01a01a7c2f89}, {"e6", 0x3f56c16c17889fd3},
	{"e5", 0x3f811111111109b5}, {"e4", 0x3fa5555555553d68}, {"e3", 0x3fc5555555555556},
	{"e2", 0x3fe0000000000001},
	{"expKBias", 0x4337fffffffff800}, {"qone", 0x0000000000000001},
	{"logOff", 0x00095f619980c433}, {"q2046", 0x00000000000007fe},
	{"magic", 0x4330000000000000}, {"magicBias", 0x43300000000003ff},
	{"lg1", 0x3fe5555555555593}, {"lg2", 0x3fd999999997fa04}, {"lg3", 0x3fd2492494229359},
	{"lg4", 0x3fcc71c51d8e78af}, {"lg5", 0x3fc7466496cb03de}, {"lg6", 0x3fc39a09d078c69f},
	{"lg7", 0x3fc2f112df3e5244},
	{"sqrt2", 0x3ff6a09e667f3bcd}, {"log1pBig", 0x7e70000000000000}, {"log1pScale", 0x39b0000000000000},
	{"hundred", 0x4059000000000000},
}

var consts32 = []struct {
	name string
	bits uint64
}{
	{"sone", 0x3f800000}, {"stwo", 0x40000000}, {"shalf", 0x3f000000}, {"snegOne", 0xbf800000},
	{"sposInf", 0x7f800000}, {"snegInf", 0xff800000}, {"snan", 0x7fc00000}, {"sabsMask", 0x7fffffff},
	{"ssignMask", 0x80000000}, {"sexpHi", 0x42b20000}, {"sexpLo", 0xc2d00000}, {"slog2e", 0x3fb8aa3b},
	{"sshifter", 0x4b400000}, {"sln2hi", 0x3f317200}, {"sln2lo", 0x35bfbe8e},
	{"sp3", 0x3e2aaaab}, {"sp4", 0x3d2aaaab}, {"sp5", 0x3c088889}, {"sp6", 0x3ab60b61}, {"sp7", 0x39500d01},
	{"sexpKBias", 0x4b3fff00}, {"sqone", 0x00000001}, {"slogOff", 0x004afb0d}, {"sq254", 0x000000fe},
	{"smagic", 0x4b000000}, {"smagicBias", 0x4b00007f},
	{"slg1", 0x3f2aaaaa}, {"slg2", 0x3eccce13}, {"slg3", 0x3e91e9ee}, {"slg4", 0x3e789e26},
	{"stinyArg", 0xc2ae0000}, {"slog1pBig", 0x71800000}, {"slog1pScale", 0x1f800000}, {"ssixtyfour", 0x42800000},
}

// k holds the address of each constant by name.
var k = map[string]operand.Mem{}

func mathConstants(g *gen) {
	for _, c := range consts64 {
		k[c.name] = g.data(c.name, 8, c.bits, c.bits, c.bits, c.bits)
	}
	for _, c := range consts32 {
		v := c.bits
		k[c.name] = g.data(c.name, 4, v, v, v, v, v, v, v, v)
	}
}

// expPD sets r = e^x for four float64 lanes. x is clobbered, and t1..t3 are
// scratch. With neg, x ≤ 0 or NaN is known, so the upper clamp is left out
// (EXPNEG).
func (g *gen) expPD(v vec, x, r, t1, t2, t3 VecPhysical, neg bool) {
	g.expPDs(v, neg, expRegs{x, r, t1, t2, t3})
}

// expRegs are the registers of one expPD: x is clobbered (it may be r),
// t1..t3 are scratch.
type expRegs struct{ x, r, t1, t2, t3 VecPhysical }

// expPDs is expPD on several registers at once. Each step is emitted for all
// of them before the next. So their independent chains sit side by side in
// the scheduler. (The polynomial is ten dependent FMAs.)
func (g *gen) expPDs(v vec, neg bool, regs ...expRegs) {
	each := func(step func(e expRegs)) {
		for _, e := range regs {
			step(e)
		}
	}
	if !neg {
		each(func(e expRegs) {
			g.VMOVUPD(v.k("expHi"), e.t1)
			g.VMINPD(e.x, e.t1, e.x)
		})
	}
	each(func(e expRegs) {
		g.VMOVUPD(v.k("expLo"), e.t1)
		g.VMAXPD(e.x, e.t1, e.x)
		g.VMOVUPD(v.k("shifter"), e.t1)
		g.VFMADD231PD(v.k("log2e"), e.x, e.t1)
		g.VSUBPD(v.k("shifter"), e.t1, e.t2)
		g.VMOVAPD(e.x, e.r)
		g.VFNMADD231PD(v.k("ln2hi"), e.t2, e.r)
		g.VFNMADD231PD(v.k("ln2lo"), e.t2, e.r)
		g.VMOVUPD(v.k("e11"), e.t3)
	})
	for _, c := range []string{"e10", "e9", "e8", "e7", "e6", "e5", "e4", "e3", "e2"} {
		each(func(e expRegs) { g.VFMADD213PD(v.k(c), e.r, e.t3) })
	}
	each(func(e expRegs) {
		g.VMULPD(e.r, e.r, e.t2)
		g.VFMADD213PD(e.r, e.t2, e.t3)
		g.VADDPD(v.k("one"), e.t3, e.t3)
		g.VPSUBQ(v.k("expKBias"), e.t1, e.t1)
		g.VPSRLQ(u8(1), e.t1, e.t2)
		g.VPSUBQ(e.t2, e.t1, e.t1)
		g.VPSUBQ(v.k("qone"), e.t1, e.t1)
		g.VPSUBQ(v.k("qone"), e.t2, e.t2)
		g.VPSLLQ(u8(52), e.t1, e.t1)
		g.VPSLLQ(u8(52), e.t2, e.t2)
		g.VMULPD(e.t2, e.t3, e.t3)
		g.VMULPD(e.t1, e.t3, e.r)
	})
}

// log1pPD sets r = log(1+x) for four float64 lanes; x is kept, t1..t4 are
// scratch.
func (g *gen) log1pPD(v vec, x, r, t1, t2, t3, t4 VecPhysical) {
	m := v.cmp(g, f64, 0x1e, v.k("log1pBig"), x, t4, K2)
	g.VMULPD(v.k("log1pScale"), x, t1)
	v.blend(g, f64, m, t1, x, t4)
	g.VADDPD(v.k("one"), t4, t1)
	g.VPADDQ(v.k("logOff"), t1, t1)
	g.VPSRLQ(u8(52), t1, t1)
	v.movdqu(g, v.k("q2046"), t2)
	g.VPSUBQ(t1, t2, t2)
	g.VPSLLQ(u8(52), t2, t2)
	g.VSUBPD(v.k("one"), t2, t3)
	g.VFMADD231PD(t4, t2, t3)
	v.por(g, f64, v.k("magic"), t1, t1)
	g.VSUBPD(v.k("magicBias"), t1, t1)
	m = v.cmp(g, f64, 0x1e, v.k("log1pBig"), x, t4, K2)
	v.maskConst(g, f64, "hundred", m, t4)
	g.VADDPD(t4, t1, t1)
	g.VADDPD(v.k("two"), t3, t2)
	g.VDIVPD(t2, t3, t2)
	g.VMULPD(t2, t2, t4)
	g.log1pTailPD(v, r, t1, t2, t3, t4)
	m1 := v.cmp(g, f64, 3, x, x, t1, K2)
	m2 := v.cmp(g, f64, 0, v.k("posInf"), x, t2, K3)
	v.maskOr(g, f64, m1, m2)
	v.zero(g, f64, t2)
	m2 = v.cmp(g, f64, 0, t2, x, t2, K3)
	v.maskOr(g, f64, m1, m2)
	v.blend(g, f64, m1, x, r, r)
	g.VMOVUPD(v.k("negOne"), t3)
	m1 = v.cmp(g, f64, 0, t3, x, t1, K2)
	v.blend(g, f64, m1, v.k("negInf"), r, r)
	m1 = v.cmp(g, f64, 1, t3, x, t1, K2)
	v.blend(g, f64, m1, v.k("nan"), r, r)
}

// log1pTailPD is the common end of log1pPD and log1pUnit2PD. It takes
// t1 = e, t2 = s, t3 = f, t4 = s². It computes
// r = e·ln2 + f − hfsq + s·(hfsq + R(s²)).
func (g *gen) log1pTailPD(v vec, r, t1, t2, t3, t4 VecPhysical) {
	g.VMOVUPD(v.k("lg7"), r)
	for _, c := range []string{"lg6", "lg5", "lg4", "lg3", "lg2", "lg1"} {
		g.VFMADD213PD(v.k(c), t4, r)
	}
	g.VMULPD(t4, r, r)
	g.VMULPD(t3, t3, t4)
	g.VMULPD(v.k("half"), t4, t4)
	g.VADDPD(t4, r, r)
	g.VMULPD(t2, r, r)
	g.VFMADD231PD(v.k("ln2lo"), t1, r)
	g.VSUBPD(r, t4, r)
	g.VSUBPD(t3, r, r)
	g.VFMSUB231PD(v.k("ln2hi"), t1, r)
}

// log1pUnit2PD is log1pPD for x in [0, 1] or NaN only, with no scaling and
// no special values to blend. It also leaves u = 1 + x. It finds e ∈ {0, 1}
// by comparing u with √2.
func (g *gen) log1pUnit2PD(v vec, x, r, u, t1, t2, t3, t4 VecPhysical) {
	g.VADDPD(v.k("one"), x, u)
	m := v.cmp(g, f64, 0x0d, v.k("sqrt2"), u, t1, K2)
	g.VMOVUPD(v.k("one"), t2)
	v.blend(g, f64, m, v.k("half"), t2, t2)
	v.maskConst(g, f64, "one", m, t1)
	g.VSUBPD(v.k("one"), t2, t3)
	g.VFMADD231PD(x, t2, t3)
	g.VADDPD(v.k("two"), t3, t2)
	g.VDIVPD(t2, t3, t2)
	g.VMULPD(t2, t2, t4)
	g.log1pTailPD(v, r, t1, t2, t3, t4)
}

// expPS sets r = e^x for eight float32 lanes; x is clobbered. It is the
// float32 twin of expPD: clamp [−104, 89], Taylor polynomial to degree 7.
func (g *gen) expPS(v vec, x, r, t1, t2, t3 VecPhysical) {
	g.VMOVUPS(v.k("sexpHi"), t1)
	g.VMINPS(x, t1, x)
	g.VMOVUPS(v.k("sexpLo"), t1)
	g.VMAXPS(x, t1, x)
	g.VMOVUPS(v.k("sshifter"), t1)
	g.VFMADD231PS(v.k("slog2e"), x, t1)
	g.VSUBPS(v.k("sshifter"), t1, t2)
	g.VMOVAPS(x, r)
	g.VFNMADD231PS(v.k("sln2hi"), t2, r)
	g.VFNMADD231PS(v.k("sln2lo"), t2, r)
	g.VMOVUPS(v.k("sp7"), t3)
	for _, c := range []string{"sp6", "sp5", "sp4", "sp3", "shalf"} {
		g.VFMADD213PS(v.k(c), r, t3)
	}
	g.VMULPS(r, r, t2)
	g.VFMADD213PS(r, t2, t3)
	g.VADDPS(v.k("sone"), t3, t3)
	g.VPSUBD(v.k("sexpKBias"), t1, t1)
	g.VPSRLD(u8(1), t1, t2)
	g.VPSUBD(t2, t1, t1)
	g.VPSUBD(v.k("sqone"), t1, t1)
	g.VPSUBD(v.k("sqone"), t2, t2)
	g.VPSLLD(u8(23), t1, t1)
	g.VPSLLD(u8(23), t2, t2)
	g.VMULPS(t2, t3, t3)
	g.VMULPS(t1, t3, r)
}

// log1pPS sets r = log(1+x) for eight float32 lanes; x is kept. It is the
// float32 twin of log1pPD. It scales inputs above 2^100 by 2^−64, and uses
// fdlibm's float polynomial Lg1..Lg4. With unit, x is in [0, 1] or NaN only:
// the e = exp(−|t|) of the logistic loss and softplus. Then there is no
// scaling, and no special values to blend.
func (g *gen) log1pPS(v vec, x, r, t1, t2, t3, t4 VecPhysical, unit bool) {
	xin := x
	if !unit {
		m := v.cmp(g, f32, 0x1e, v.k("slog1pBig"), x, t4, K2)
		g.VMULPS(v.k("slog1pScale"), x, t1)
		v.blend(g, f32, m, t1, x, t4)
		xin = t4
	}
	g.VADDPS(v.k("sone"), xin, t1)
	g.VPADDD(v.k("slogOff"), t1, t1)
	g.VPSRLD(u8(23), t1, t1)
	v.movdqu(g, v.k("sq254"), t2)
	g.VPSUBD(t1, t2, t2)
	g.VPSLLD(u8(23), t2, t2)
	g.VSUBPS(v.k("sone"), t2, t3)
	g.VFMADD231PS(xin, t2, t3)
	v.por(g, f32, v.k("smagic"), t1, t1)
	g.VSUBPS(v.k("smagicBias"), t1, t1)
	if !unit {
		m := v.cmp(g, f32, 0x1e, v.k("slog1pBig"), x, t4, K2)
		v.maskConst(g, f32, "ssixtyfour", m, t4)
		g.VADDPS(t4, t1, t1)
	}
	g.VADDPS(v.k("stwo"), t3, t2)
	g.VDIVPS(t2, t3, t2)
	g.VMULPS(t2, t2, t4)
	g.VMOVUPS(v.k("slg4"), r)
	g.VFMADD213PS(v.k("slg3"), t4, r)
	g.VFMADD213PS(v.k("slg2"), t4, r)
	g.VFMADD213PS(v.k("slg1"), t4, r)
	g.VMULPS(t4, r, r)
	g.VMULPS(t3, t3, t4)
	g.VMULPS(v.k("shalf"), t4, t4)
	g.VADDPS(t4, r, r)
	g.VMULPS(t2, r, r)
	g.VFMADD231PS(v.k("sln2lo"), t1, r)
	g.VSUBPS(r, t4, r)
	g.VSUBPS(t3, r, r)
	g.VFMSUB231PS(v.k("sln2hi"), t1, r)
	if !unit {
		m1 := v.cmp(g, f32, 3, x, x, t1, K2)
		m2 := v.cmp(g, f32, 0, v.k("sposInf"), x, t2, K3)
		v.maskOr(g, f32, m1, m2)
		v.zero(g, f32, t2)
		m2 = v.cmp(g, f32, 0, t2, x, t2, K3)
		v.maskOr(g, f32, m1, m2)
		v.blend(g, f32, m1, x, r, r)
		g.VMOVUPS(v.k("snegOne"), t3)
		m1 = v.cmp(g, f32, 0, t3, x, t1, K2)
		v.blend(g, f32, m1, v.k("snegInf"), r, r)
		m1 = v.cmp(g, f32, 1, t3, x, t1, K2)
		v.blend(g, f32, m1, v.k("snan"), r, r)
	}
}
