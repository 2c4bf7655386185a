package main

import (
	"fmt"
	"math"
	"math/big"
)

// The constants of the math kernels. Each is stored twice in neonmath<>, so
// that FMOVQ loads a whole register. The offset is 16 bytes per constant.
type constant struct {
	name string
	bits uint64
}

var consts []constant

// expDegree is the degree of the Taylor polynomial of exp(r), |r| ≤ ln2/2:
// its truncation error is below 2^-57.
const expDegree = 13

func init() {
	f := math.Float64bits
	add := func(name string, bits uint64) { consts = append(consts, constant{name, bits}) }
	// exp
	add("one", f(1))
	add("exp_hi", f(710))
	add("exp_lo", f(-746))
	add("invln2", f(1.4426950408889634))
	add("shifter", 0x4338000000000000)
	add("ln2hi", 0x3fe62e42fee00000)
	add("ln2lo", 0x3dea39ef35793c76)
	add("exp_ca", 0x4338000000000000-2048)
	add("int1", 1)
	for k := expDegree; k > 1; k-- {
		add(fmt.Sprintf("c%d", k), f(invFactorial(k)))
	}
	// log1p
	add("lg_off", 0x3ff0000000000000-0x3fe6a09e667f3bcd)
	add("two52i", 0x4330000000000000)
	add("two52k", f(1<<52+1023))
	add("mant", 0x000fffffffffffff)
	add("sqrthalf", 0x3fe6a09e667f3bcd)
	add("two", f(2))
	for i, v := range []uint64{0x3FE5555555555593, 0x3FD999999997FA04, 0x3FD2492494229359, 0x3FCC71C51D8E78AF,
		0x3FC7466496CB03DE, 0x3FC39A09D078C69F, 0x3FC2F112DF3E5244} { // fdlibm's Lg1..Lg7
		add(fmt.Sprintf("lg%d", i+1), v)
	}
	add("half", f(0.5))
	add("tiny", f(0x1p-60))
	add("maxf", 0x7fefffffffffffff)
	add("inf", 0x7ff0000000000000)
	add("minusone", f(-1))
	add("neginf", 0xfff0000000000000)
	add("nan", 0x7ff8000000000001)
}

// invFactorial is 1/k! rounded to nearest.
func invFactorial(k int) float64 {
	d := new(big.Int).MulRange(1, int64(k))
	v, _ := new(big.Rat).SetFrac(big.NewInt(1), d).Float64()
	return v
}

// off is the offset of the named constant in neonmath<>.
func off(name string) int {
	for i, c := range consts {
		if c.name == name {
			return 16 * i
		}
	}
	panic("no constant " + name)
}

// A vector operand. It is a register of the pair (or group) being computed,
// V(n+lane) for each lane offset in use. Or it is a shared register V(n) for
// all.
type vreg struct {
	n      int
	shared bool
}

func p(n int) vreg { return vreg{n: n} }               // per lane
func s(n int) vreg { return vreg{n: n, shared: true} } // shared

// The shared registers: V31 = 1, V30 = 0 (or the shift of expsum), V28 and
// V29 constants loaded just before use.
var (
	one  = s(31)
	zero = s(30)
	k0   = s(28)
	k1   = s(29)
)

// math writes the kernels of one precision. The float64 and float32 variants
// are the same instructions but for their loads and stores.
type mathGen struct {
	*asm
	lanes []int // lane offsets of the registers in flight: {0, 1} or {0, 1, 12, 13}
}

func (g *mathGen) r(v vreg, lane int) int {
	if v.shared {
		return v.n
	}
	return v.n + lane
}

// Instruction forms, written once per lane. The form w3/w2 is a neon_arm64.h
// macro with three or two operands. The form nat is a native vector
// instruction, and sh a shift.
func (g *mathGen) w3(mac string, m, n, d vreg) {
	for _, l := range g.lanes {
		g.w("\t%s(%d, %d, %d)", mac, g.r(m, l), g.r(n, l), g.r(d, l))
	}
}

func (g *mathGen) w2(mac string, n, d vreg) {
	for _, l := range g.lanes {
		g.w("\t%s(%d, %d)", mac, g.r(n, l), g.r(d, l))
	}
}

func (g *mathGen) natArr(op string, m, n, d vreg, arr string) {
	for _, l := range g.lanes {
		g.w("\t%s V%d.%s, V%d.%s, V%d.%s", op, g.r(m, l), arr, g.r(n, l), arr, g.r(d, l), arr)
	}
}

func (g *mathGen) nat(op string, m, n, d vreg) { g.natArr(op, m, n, d, "D2") }
func (g *mathGen) bit(op string, m, n, d vreg) { g.natArr(op, m, n, d, "B16") }

func (g *mathGen) sh(op string, imm int, n, d vreg) {
	for _, l := range g.lanes {
		g.w("\t%s $%d, V%d.D2, V%d.D2", op, imm, g.r(n, l), g.r(d, l))
	}
}

// ldc loads a constant into the shared register V(k); ldp into every
// register of group k.
func (g *mathGen) ldc(name string, k int) { g.w("\tFMOVQ %d(R9), F%d", off(name), k) }

func (g *mathGen) ldp(name string, k int) {
	for _, l := range g.lanes {
		g.w("\tFMOVQ %d(R9), F%d", off(name), k+l)
	}
}

func (g *mathGen) mov(src, dst vreg) { g.bit("VORR", src, src, dst) }

const (
	fadd  = "VFADD_D2"
	fsub  = "VFSUB_D2"
	fmul  = "VFMUL_D2"
	fdiv  = "VFDIV_D2"
	fmax  = "VFMAX_D2"
	fmin  = "VFMIN_D2"
	fcmgt = "VFCMGT_D2"
	fcmge = "VFCMGE_D2"
	fabs  = "VFABS_D2"
	fneg  = "VFNEG_D2"
)

// expCore sets P0 = exp(P0); it clobbers P2..P10, V28, V29.
func (g *mathGen) expCore() {
	g.w("\t// exp: clamp, k = round(x/ln2) by the shifter, r = x - k*ln2 (two parts),")
	g.w("\t// p = Taylor polynomial of degree %d, result p * 2^(k>>1) * 2^(k-(k>>1)).", expDegree)
	g.ldc("exp_hi", 28)
	g.w3(fmin, k0, p(0), p(0))
	g.ldc("exp_lo", 28)
	g.w3(fmax, k0, p(0), p(0))
	g.ldc("invln2", 28)
	g.ldp("shifter", 2)
	g.nat("VFMLA", p(0), k0, p(2)) // t = shifter + x*invln2
	g.ldc("shifter", 29)
	g.w3(fsub, k1, p(2), p(4)) // kf = t - shifter
	g.ldc("ln2hi", 28)
	g.nat("VFMLS", p(4), k0, p(0))
	g.ldc("ln2lo", 28)
	g.nat("VFMLS", p(4), k0, p(0)) // r
	g.ldc("exp_ca", 28)
	g.ldc("int1", 29)
	g.nat("VSUB", k0, p(2), p(2))   // A = k + 2048
	g.sh("VUSHR", 1, p(2), p(4))    // H = e1 + 1024
	g.nat("VSUB", p(4), p(2), p(2)) // A - H = e2 + 1024
	g.nat("VSUB", k1, p(2), p(2))
	g.sh("VSHL", 52, p(2), p(2)) // bits of 2^e2
	g.nat("VSUB", k1, p(4), p(4))
	g.sh("VSHL", 52, p(4), p(4)) // bits of 2^e1
	q, t := 6, 8
	g.ldp(fmt.Sprintf("c%d", expDegree), q)
	for k := expDegree - 1; k > 1; k-- {
		g.ldp(fmt.Sprintf("c%d", k), t)
		g.nat("VFMLA", p(q), p(0), p(t)) // t = c_k + q*r
		q, t = t, q
	}
	g.mov(one, p(t))
	g.nat("VFMLA", p(q), p(0), p(t)) // 1 + q*r
	g.mov(one, p(10))
	g.nat("VFMLA", p(t), p(0), p(10)) // p = 1 + r*(...)
	g.w3(fmul, p(4), p(10), p(0))
	g.w3(fmul, p(2), p(0), p(0))
}

// log1pCore sets P6 = log1p(P0) for P0 > -1 (finite or NaN); P0 is kept.
// It clobbers P2..P20, V28, V29.
func (g *mathGen) log1pCore() {
	g.w("\t// log1p: u = 1+x, c = (x-(u-1))/u, u = 2^k*f with f in [sqrt(1/2), sqrt(2)),")
	g.w("\t// g = f-1, s = g/(2+g), fdlibm polynomial R(s^2); result")
	g.w("\t// k*ln2hi - ((g*g/2 - (s*(g*g/2+R) + (k*ln2lo + c))) - g).")
	g.w3(fadd, one, p(0), p(2)) // u
	g.w3(fsub, one, p(2), p(4))
	g.w3(fsub, p(4), p(0), p(4))
	g.w3(fdiv, p(2), p(4), p(4)) // c
	g.log1pReduce()
	g.ldc("two", 28)
	g.w3(fadd, k0, p(6), p(10))
	g.w3(fdiv, p(10), p(6), p(10)) // s
	g.log1pTail()
}

// log1pReduce: from P2 = u, P8 = k, P6 = g = f - 1.
func (g *mathGen) log1pReduce() {
	g.ldc("lg_off", 28)
	g.nat("VADD", k0, p(2), p(6)) // hu
	g.sh("VUSHR", 52, p(6), p(8))
	g.ldc("two52i", 28)
	g.bit("VORR", k0, p(8), p(8))
	g.ldc("two52k", 29)
	g.w3(fsub, k1, p(8), p(8)) // kf
	g.ldc("mant", 28)
	g.bit("VAND", k0, p(6), p(6))
	g.ldc("sqrthalf", 29)
	g.nat("VADD", k1, p(6), p(6)) // f
	g.w3(fsub, one, p(6), p(6))   // g
}

// log1pTail: from P4 = c/u, P6 = g, P8 = kf, P10 = s, sets P6 = log1p.
func (g *mathGen) log1pTail() {
	g.w3(fmul, p(10), p(10), p(12)) // z
	g.w3(fmul, p(12), p(12), p(14)) // w
	g.ldp("lg4", 16)
	g.ldc("lg6", 28)
	g.nat("VFMLA", p(14), k0, p(16))
	g.ldp("lg2", 18)
	g.nat("VFMLA", p(14), p(16), p(18))
	g.w3(fmul, p(18), p(14), p(16)) // t1
	g.ldp("lg5", 18)
	g.ldc("lg7", 28)
	g.nat("VFMLA", p(14), k0, p(18))
	g.ldp("lg3", 20)
	g.nat("VFMLA", p(14), p(18), p(20))
	g.ldp("lg1", 18)
	g.nat("VFMLA", p(14), p(20), p(18))
	g.w3(fmul, p(18), p(12), p(18)) // t2
	g.w3(fadd, p(16), p(18), p(12)) // R = t2 + t1
	g.ldc("half", 28)
	g.w3(fmul, k0, p(6), p(14))
	g.w3(fmul, p(6), p(14), p(14))  // hfsq
	g.w3(fadd, p(14), p(12), p(12)) // hfsq + R
	g.ldc("ln2lo", 28)
	g.nat("VFMLA", p(8), k0, p(4))     // c + k*ln2lo
	g.nat("VFMLA", p(10), p(12), p(4)) // + s*(hfsq+R)
	g.w3(fsub, p(4), p(14), p(14))     // hfsq - (...)
	g.w3(fsub, p(14), p(6), p(6))      // g - (hfsq - (...))
	g.ldc("ln2hi", 28)
	g.nat("VFMLA", p(8), k0, p(6)) // + k*ln2hi
}

// log1pCoreUnit is log1pCore for P0 in [0, 1] or NaN only: the e = exp(-|z|)
// of the logistic loss and softplus. Then u = 1+x ≤ 2. So one division
// serves both s = g/(2+g) and c/u:
//
//	q = 1/((2+g)*u), s = g*(u*q), c/u = c*((2+g)*q)
func (g *mathGen) log1pCoreUnit() {
	g.w("\t// log1p of e in [0, 1]: as below, with one division for s and c/u.")
	g.w3(fadd, one, p(0), p(2)) // u
	g.w3(fsub, one, p(2), p(4))
	g.w3(fsub, p(4), p(0), p(4)) // c (undivided)
	g.log1pReduce()
	g.ldc("two", 28)
	g.w3(fadd, k0, p(6), p(12))     // A = 2+g
	g.w3(fmul, p(2), p(12), p(10))  // A*u
	g.w3(fdiv, p(10), one, p(10))   // q = 1/(A*u)
	g.w3(fmul, p(10), p(12), p(12)) // A*q = 1/u
	g.w3(fmul, p(12), p(4), p(4))   // c/u
	g.w3(fmul, p(10), p(2), p(10))  // u*q = 1/A
	g.w3(fmul, p(10), p(6), p(10))  // s = g/A
	g.log1pTail()
}

// log1pSpecial fixes the special cases of P6 = log1p(P0) and moves the
// result to P0.
func (g *mathGen) log1pSpecial() {
	g.w("\t// special cases: |x| < 2^-60 -> x (keeps -0), +Inf -> +Inf, -1 -> -Inf, x < -1 -> NaN")
	g.ldc("tiny", 28)
	g.w2(fabs, p(0), p(2))
	g.w3(fcmgt, p(2), k0, p(2))
	g.bit("VBIT", p(2), p(0), p(6))
	g.ldc("maxf", 28)
	g.ldc("inf", 29)
	g.w3(fcmgt, k0, p(0), p(2))
	g.bit("VBIT", p(2), k1, p(6))
	g.ldc("minusone", 28)
	g.ldc("neginf", 29)
	g.w3(fcmge, p(0), k0, p(2))
	g.bit("VBIT", p(2), k1, p(6))
	g.ldc("nan", 29)
	g.w3(fcmgt, p(0), k0, p(2))
	g.bit("VBIT", p(2), k1, p(6))
	g.mov(p(6), p(0))
}

// load reads four elements at ptr into the pair Vk, Vk+1 as float64; float32
// is widened. store writes them back; float32 is narrowed.
func (g *mathGen) load(f32 bool, ptr string, k int) {
	if !f32 {
		g.w("\tVLD1.P 32(%s), [V%d.D2, V%d.D2]", ptr, k, k+1)
		return
	}
	g.w("\tVLD1.P 16(%s), [V%d.S4]", ptr, k)
	g.w("\tVFCVTL2_S2D(%d, %d)", k, k+1)
	g.w("\tVFCVTL_S2D(%d, %d)", k, k)
}

func (g *mathGen) store(f32 bool, ptr string, k int) {
	if !f32 {
		g.w("\tVST1.P [V%d.D2, V%d.D2], 32(%s)", k, k+1, ptr)
		return
	}
	g.w("\tVFCVTN_D2S(%d, %d)", k, k)
	g.w("\tVFCVTN2_D2S(%d, %d)", k+1, k)
	g.w("\tVST1.P [V%d.S4], 16(%s)", k, ptr)
}

// prologue points R9 at the constants and sets V31 = 1, V30 = 0.
func (g *mathGen) prologue() {
	g.w("\tMOVD $neonmath<>(SB), R9")
	g.ldc("one", 31)
	g.w("\tVEOR V30.B16, V30.B16, V30.B16")
}

// loop runs body over n (in register nreg, a multiple of 4) elements,
// four at a time.
func (g *mathGen) loop(label, nreg string, body func()) {
	g.w("%s:", label)
	g.w("\tCBZ %s, %sdone", nreg, label)
	body()
	g.w("\tSUB $4, %s", nreg)
	g.w("\tJMP %s", label)
	g.w("%sdone:", label)
}

func mathKernels(a *asm) {
	g := &mathGen{asm: a, lanes: []int{0, 1}}
	for _, pr := range []struct {
		name, goType string
		f32          bool
	}{{"F64", "float64", false}, {"F32", "float32", true}} {
		g.expsum(pr.name, pr.goType, pr.f32)
		g.log1p(pr.name, pr.goType, pr.f32)
		g.scale(pr.name, pr.goType, pr.f32)
		for _, kind := range []string{"logistic", "squared", "absolute"} {
			g.loss(kind, pr.name, pr.goType, pr.f32)
		}
		g.plus(pr.name, pr.goType, pr.f32)
	}
	g.w("// Constants, each stored twice so that FMOVQ loads a full register.")
	for i, c := range consts {
		g.w("DATA neonmath<>+%d(SB)/8, $0x%016x // %s", 16*i, c.bits, c.name)
		g.w("DATA neonmath<>+%d(SB)/8, $0x%016x", 16*i+8, c.bits)
	}
	g.w("GLOBL neonmath<>(SB), RODATA|NOPTR, $%d", 16*len(consts))
	g.w("")
}

// expsum: dst = exp(x - shift), returning the sum of dst. It takes eight
// elements at a time, then four. Four registers are in flight, and each
// constant load serves four.
func (g *mathGen) expsum(P, T string, f32 bool) {
	g.w("// func expsum%s(dst, x *%s, n int, shift float64) float64", P, T)
	g.w("TEXT ·expsum%s(SB), NOSPLIT, $0-40", P)
	g.prologue()
	g.w("\tMOVD dst+0(FP), R0\n\tMOVD x+8(FP), R1\n\tMOVD n+16(FP), R2")
	g.w("\tMOVD $shift+24(FP), R3\n\tVLD1R (R3), [V30.D2]")
	for i := 24; i < 28; i++ {
		g.w("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	g.w("exps8:")
	g.w("\tCMP $8, R2\n\tBLT exps4")
	g.load(f32, "R1", 0)
	g.load(f32, "R1", 12)
	g.lanes = []int{0, 1, 12, 13}
	g.w3(fsub, s(30), p(0), p(0))
	g.expCore()
	g.lanes = []int{0, 1}
	g.w("\tVFADD_D2(0, 24, 24)\n\tVFADD_D2(1, 25, 25)\n\tVFADD_D2(12, 26, 26)\n\tVFADD_D2(13, 27, 27)")
	g.store(f32, "R0", 0)
	g.store(f32, "R0", 12)
	g.w("\tSUB $8, R2\n\tJMP exps8")
	g.loop("exps4", "R2", func() {
		g.load(f32, "R1", 0)
		g.w3(fsub, s(30), p(0), p(0))
		g.expCore()
		g.w("\tVFADD_D2(0, 24, 24)\n\tVFADD_D2(1, 25, 25)")
		g.store(f32, "R0", 0)
	})
	g.w("\tVFADD_D2(25, 24, 24)\n\tVFADD_D2(27, 26, 26)\n\tVFADD_D2(26, 24, 24)")
	g.w("\tFADDP_D(24, 24)\n\tFMOVD F24, ret+32(FP)\n\tRET\n")
}

func (g *mathGen) log1p(P, T string, f32 bool) {
	g.w("// func log1p%s(dst, x *%s, n int)", P, T)
	g.w("TEXT ·log1p%s(SB), NOSPLIT, $0-24", P)
	g.prologue()
	g.w("\tMOVD dst+0(FP), R0\n\tMOVD x+8(FP), R1\n\tMOVD n+16(FP), R2")
	g.loop("lg", "R2", func() {
		g.load(f32, "R1", 0)
		g.log1pCore()
		g.log1pSpecial()
		g.store(f32, "R0", 0)
	})
	g.w("\tRET\n")
}

func (g *mathGen) scale(P, T string, f32 bool) {
	g.w("// func scale%s(x *%s, n int, a float64)", P, T)
	g.w("TEXT ·scale%s(SB), NOSPLIT, $0-24", P)
	g.w("\tMOVD x+0(FP), R0\n\tMOVD R0, R1\n\tMOVD n+8(FP), R2")
	g.w("\tMOVD $a+16(FP), R3\n\tVLD1R (R3), [V26.D2]")
	g.loop("sc", "R2", func() {
		g.load(f32, "R1", 0)
		g.w3(fmul, s(26), p(0), p(0))
		g.store(f32, "R0", 0)
	})
	g.w("\tRET\n")
}

func (g *mathGen) loss(kind, P, T string, f32 bool) {
	g.w("// func %s%s(loss, dloss, m, y *%s, n int)", kind, P, T)
	g.w("TEXT ·%s%s(SB), NOSPLIT, $0-40", kind, P)
	g.prologue()
	g.w("\tMOVD loss+0(FP), R0\n\tMOVD dloss+8(FP), R1\n\tMOVD m+16(FP), R2\n\tMOVD y+24(FP), R3\n\tMOVD n+32(FP), R4")
	g.loop(kind[:3], "R4", func() {
		g.load(f32, "R2", 22) // m
		g.load(f32, "R3", 24) // y
		switch kind {
		case "logistic":
			g.w3(fmul, p(24), p(22), p(26)) // z = y*m
			g.w2(fabs, p(26), p(0))
			g.w2(fneg, p(0), p(0)) // -|z|
			g.expCore()
			g.mov(p(0), p(22)) // e
			g.log1pCoreUnit()  // P6 = log1p(e)
			g.w2(fneg, p(26), p(2))
			g.w3(fmax, zero, p(2), p(2))
			g.w3(fadd, p(6), p(2), p(2))   // loss
			g.w3(fadd, one, p(22), p(4))   // 1+e
			g.w3(fcmgt, p(26), zero, p(8)) // 0 > z
			g.mov(p(22), p(10))
			g.bit("VBIT", p(8), one, p(10))
			g.w3(fdiv, p(4), p(10), p(10)) // σ(-z)
			g.w2(fneg, p(24), p(24))
			g.w3(fmul, p(10), p(24), p(12)) // -y*σ
			g.store(f32, "R0", 2)
			g.store(f32, "R1", 12)
		case "squared":
			g.w3(fsub, p(24), p(22), p(2)) // r = m - y
			g.ldc("half", 28)
			g.w3(fmul, k0, p(2), p(4))
			g.w3(fmul, p(2), p(4), p(4)) // (0.5*r)*r
			g.store(f32, "R0", 4)
			g.store(f32, "R1", 2)
		default:
			g.w3(fsub, p(24), p(22), p(2)) // r
			g.w2(fabs, p(2), p(4))
			g.w3(fcmgt, zero, p(2), p(6)) // r > 0
			g.w3(fcmgt, p(2), zero, p(8)) // 0 > r
			g.ldc("minusone", 28)
			g.bit("VAND", one, p(6), p(6))
			g.bit("VAND", k0, p(8), p(8))
			g.bit("VORR", p(6), p(8), p(6))
			g.store(f32, "R0", 4)
			g.store(f32, "R1", 6)
		}
	})
	g.w("\tRET\n")
}

// plus: one entry with a switch on kind; c holds ε and the derived
// constants the quadratic kind needs.
func (g *mathGen) plus(P, T string, f32 bool) {
	g.w("// func plus%s(kind int, c *[16]float64, rho, drho, s *%s, n int)", P, T)
	g.w("TEXT ·plus%s(SB), NOSPLIT, $0-48", P)
	g.prologue()
	g.w("\tMOVD kind+0(FP), R5\n\tMOVD c+8(FP), R8\n\tMOVD rho+16(FP), R0\n\tMOVD drho+24(FP), R1")
	g.w("\tMOVD s+32(FP), R2\n\tMOVD n+40(FP), R4")
	g.w("\tCMP $1, R5\n\tBEQ hinge\n\tCMP $2, R5\n\tBEQ soft\n\tJMP quad")
	// stores writes ρ and ρ' where the caller wants them (rho, drho non-nil).
	stores := func(rr, dr int, lab string) {
		g.w("\tCBZ R0, %sr", lab)
		g.store(f32, "R0", rr)
		g.w("%sr:", lab)
		g.w("\tCBZ R1, %sd", lab)
		g.store(f32, "R1", dr)
		g.w("%sd:", lab)
	}
	g.w("hinge:")
	g.loop("hl", "R4", func() {
		g.load(f32, "R2", 22)
		g.w3(fcmgt, zero, p(22), p(2)) // s > 0
		g.bit("VAND", p(2), p(22), p(4))
		g.bit("VAND", p(2), one, p(6))
		stores(4, 6, "hs")
	})
	g.w("\tRET")
	g.w("soft:\n\tCBZ R0, softd")
	g.loop("sl", "R4", func() {
		g.load(f32, "R2", 22)
		g.w("\tFMOVQ 0(R8), F28")
		g.w3(fdiv, k0, p(22), p(24)) // t = s/eps
		g.w2(fabs, p(24), p(0))
		g.w2(fneg, p(0), p(0))
		g.expCore()
		g.mov(p(0), p(26)) // e
		g.log1pCoreUnit()  // P6
		g.w3(fmax, zero, p(22), p(2))
		g.w("\tFMOVQ 0(R8), F28")
		g.nat("VFMLA", p(6), k0, p(2)) // max(s,0) + eps*log1p(e)
		g.w3(fadd, one, p(26), p(4))
		g.w3(fcmge, zero, p(24), p(8)) // t >= 0
		g.mov(p(26), p(10))
		g.bit("VBIT", p(8), one, p(10))
		g.w3(fdiv, p(4), p(10), p(10))
		stores(2, 10, "ss")
	})
	g.w("\tRET")
	// rho not wanted (FusedLinear): the derivative needs no log1p.
	g.w("softd:\n\tCBZ R1, sdret")
	g.loop("sd", "R4", func() {
		g.load(f32, "R2", 22)
		g.w("\tFMOVQ 0(R8), F28")
		g.w3(fdiv, k0, p(22), p(24)) // t = s/eps
		g.w2(fabs, p(24), p(0))
		g.w2(fneg, p(0), p(0))
		g.expCore()
		g.w3(fadd, one, p(0), p(4))
		g.w3(fcmge, zero, p(24), p(8)) // t >= 0
		g.mov(p(0), p(10))
		g.bit("VBIT", p(8), one, p(10))
		g.w3(fdiv, p(4), p(10), p(10))
		g.store(f32, "R1", 10)
	})
	g.w("sdret:\n\tRET")
	g.w("quad:")
	g.loop("ql", "R4", func() {
		g.load(f32, "R2", 22)
		g.w("\tFMOVQ 0(R8), F28\n\tFMOVQ 64(R8), F29")
		g.w3(fcmge, k0, p(22), p(24)) // s >= eps
		g.w3(fcmge, p(22), k1, p(26)) // -eps >= s
		g.w3(fmul, p(22), p(22), p(2))
		g.w("\tFMOVQ 16(R8), F28")
		g.w3(fdiv, k0, p(2), p(2)) // s*s/(4eps)
		g.w("\tFMOVQ 80(R8), F29")
		g.w3(fmul, k1, p(22), p(4)) // s*0.5
		g.w3(fadd, p(4), p(2), p(2))
		g.w("\tFMOVQ 48(R8), F28")
		g.w3(fadd, k0, p(2), p(2)) // + eps/4
		g.w("\tFMOVQ 32(R8), F28")
		g.w3(fdiv, k0, p(22), p(6)) // s/(2eps)
		g.w3(fadd, k1, p(6), p(6))  // + 0.5
		g.bit("VBIT", p(26), zero, p(2))
		g.bit("VBIT", p(24), p(22), p(2))
		g.bit("VBIT", p(26), zero, p(6))
		g.bit("VBIT", p(24), one, p(6))
		stores(2, 6, "qs")
	})
	g.w("\tRET\n")
}
