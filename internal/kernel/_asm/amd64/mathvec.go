package main

// The idioms the elementwise math bodies spell differently in ymm and zmm:
//
//   - constants: 32-byte tables, or their 64-byte copies;
//   - lane masks: a vector register of all-ones lanes for VBLENDVPD, or an
//     opmask register for VBLENDMPD;
//   - bitwise operations: VANDPD … on ymm, VPANDQ … on zmm (which need only
//     AVX512F);
//   - the halves of a register.
//
// The ymm forms are the instructions the 256-bit kernels always used.

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const zmathDoc = `// AVX-512 elementwise kernels: zExp*, zLog1p*, zLogistic*, zSquared*,
// zAbsolute*, zPlus*, zSoftmax*, zSoftmaxLanes*. They are the kernels of the
// elementwise section above, emitted from the same bodies on 512-bit zmm
// registers: sixteen float32 or eight float64 lanes. They keep the same Go
// signatures and accuracy contracts, with the same operations lane for lane.
// So squared, absolute, none, hinge and quadratic stay bit-identical to the
// generic reference. SoftmaxCE's sums add eight lanes, then four.
//
// Requires: AVX512F, AVX512VL (masked 256-bit loads and stores of the
// widened float32 kernels), BMI2, AVX2, FMA3.
//
// Differences from the 256-bit forms. Lane masks are opmask registers where
// the 256-bit code uses all-ones lanes and VBLENDVPD/PS. They use VCMPPD/PS
// into K2, K3, and VBLENDMPD/PS, KORW, and KORTESTW for the rare float32
// slow path. Bitwise operations are VPANDQ/D, VPORQ/D, VPXORQ/D. Each loop
// loads the constants its body uses into the zmm registers the body leaves
// free, before it starts. They go from Z31 downwards, in order of first use.
// So the loop reads only its data. A 512-bit load per constant use would
// bound the loop by the load ports. Tails: one step under the opmask K1 (the
// low n mod 16 (8) lanes). It uses zeroing masked loads and masked stores,
// as for the products.
//
// Kernel zSoftmax: rows eight float64 lanes at a time, the last k mod 8
// under K1. A masked store does not forward to a later load of the same
// bytes. So the exp pass keeps each row's tail e in a 64-byte stack slot,
// one per row of a block of four. It does not store it to z. The scale pass
// reads it from there, and is the only masked store. A block's rows are
// scaled last to first. So no row is loaded after a masked store that spans
// it. The log1p of the sums and the scalar steps are the 256-bit code's.
//
// Kernel zSoftmaxLanes (k ≤ 12): the rows as the lanes, eight rows a step.
// Class j of the eight rows is gathered into Z(j) by VGATHERDPS/PD, the
// rows' offsets lane·k in Y16. The max, exp, sum, log1p, division and
// scaling are lane for lane. The sum adds the classes in order, as the
// generic adds them. So no sum or max is reduced across lanes. The results
// are scattered back (VSCATTERDPS/PD). Two classes at a time go through exp,
// their steps interleaved (expPDs). The last n mod 8 rows run under K1.
// Every gather and scatter takes a copy of it in K2.
`

// kz holds the address of each constant's 64-byte (zmm) copy by name.
var kz = map[string]operand.Mem{}

// zmathConstants adds the 64-byte copies of the math constants.
func zmathConstants(g *gen) {
	for _, c := range consts64 {
		v := c.bits
		kz[c.name] = g.data("z"+c.name, 8, v, v, v, v, v, v, v, v)
	}
	for _, c := range consts32 {
		v := c.bits
		kz[c.name] = g.data("z"+c.name, 4, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v)
	}
}

// k is the constant name, a whole register of it. It lies in memory, or
// (zmm) in the register the current loop keeps it in (see pinConstants).
func (v vec) k(name string) operand.Op {
	tab := k
	if v.isZ() {
		if zrec != nil {
			zrec.use(name)
		}
		if r, ok := zpinned[name]; ok {
			return r
		}
		tab = kz
	}
	c, ok := tab[name]
	if !ok {
		panic("no constant " + name)
	}
	return c
}

// The zmm loops keep their constants in registers. With 32 zmm registers,
// most bodies leave 16 or more free. A constant read from memory costs a
// load per use. A core issues fewer 512-bit loads a cycle than 256-bit ones.
// pinConstants runs the loop's setup and body once into a scratch context.
// So it learns which constants and registers they use. Then it loads the
// constants, in order of first use, into registers neither touches.
var (
	zpinned map[string]VecPhysical // constants held in registers now
	zrec    *constRecorder         // the dry run's record, or nil
)

type constRecorder struct {
	names []string
	seen  map[string]bool
}

func (r *constRecorder) use(name string) {
	if !r.seen[name] {
		r.seen[name] = true
		r.names = append(r.names, name)
	}
}

// pinConstants loads the constants that emit uses into free zmm registers:
// not in busy, and not used by emit. It records them in zpinned. unpin
// forgets them after the loop.
func (g *gen) pinConstants(emit func(), busy ...int) {
	rec := &constRecorder{seen: map[string]bool{}}
	saved := g.Context
	cur, _ := saved.Result()
	fns := cur.Functions()
	g.Context = build.NewContext()
	g.Function("dryrun")
	g.Signature(fns[len(fns)-1].Signature) // setup reads the parameters
	zrec = rec
	emit()
	zrec = nil
	f, _ := g.Context.Result()
	g.Context = saved

	used := map[int]bool{}
	for _, b := range busy {
		used[b] = true
	}
	for _, fn := range f.Functions() {
		for _, in := range fn.Instructions() {
			for _, op := range in.Operands {
				for _, r := range operand.Registers(op) {
					if p, ok := r.(Physical); ok && r.Kind() == KindVector {
						used[int(p.PhysicalIndex())] = true
					}
				}
			}
		}
	}
	zpinned = map[string]VecPhysical{}
	next := 31
	for _, name := range rec.names {
		for next >= 0 && used[next] {
			next--
		}
		if next < 0 {
			break
		}
		g.VMOVUPS(kz[name], z(next))
		zpinned[name] = z(next)
		next--
	}
}

func unpin() { zpinned = nil }

// cmp compares a with b into a lane mask and returns the mask. The predicate
// is imm, with operands in VCMPPD order: b, a. The mask is the ymm register
// t, or the opmask kr.
func (v vec) cmp(g *gen, p prec, imm int, b, a operand.Op, t VecPhysical, kr operand.Op) operand.Op {
	dst := operand.Op(t)
	if v.isZ() {
		dst = kr
	}
	byPrec(p, g.VCMPPS, g.VCMPPD)(u8(imm), b, a, dst)
	return dst
}

// blend sets dst to set in the lanes of mask m, to clear elsewhere.
func (v vec) blend(g *gen, p prec, m, set, clear, dst operand.Op) {
	if v.isZ() {
		byPrec(p, g.VBLENDMPS, g.VBLENDMPD)(set, clear, m, dst)
	} else {
		byPrec(p, g.VBLENDVPS, g.VBLENDVPD)(m, set, clear, dst)
	}
}

// maskOr sets mask m1 to m1 | m2.
func (v vec) maskOr(g *gen, p prec, m1, m2 operand.Op) {
	if v.isZ() {
		g.KORW(m2, m1, m1)
	} else {
		byPrec(p, g.VORPS, g.VORPD)(m2, m1, m1)
	}
}

// maskConst sets dst to the constant name in the lanes of mask m, to 0
// elsewhere.
func (v vec) maskConst(g *gen, p prec, name string, m operand.Op, dst VecPhysical) {
	if v.isZ() {
		byPrec(p, g.VMOVUPS_Z, g.VMOVUPD_Z)(v.k(name), m, dst)
	} else {
		byPrec(p, g.VANDPS, g.VANDPD)(k[name], m, dst)
	}
}

// maskKeep sets dst to src in the lanes of mask m, to 0 elsewhere.
func (v vec) maskKeep(g *gen, p prec, src VecPhysical, m operand.Op, dst VecPhysical) {
	if v.isZ() {
		byPrec(p, g.VMOVUPS_Z, g.VMOVUPD_Z)(src, m, dst)
	} else {
		byPrec(p, g.VANDPS, g.VANDPD)(m, src, dst)
	}
}

// anyMask sets the flags so that JZ jumps when no lane of mask m is set
// (ymm: EBX clobbered).
func (v vec) anyMask(g *gen, m operand.Op) {
	if v.isZ() {
		g.KORTESTW(m, m)
		return
	}
	g.VMOVMSKPS(m, EBX)
	g.TESTL(EBX, EBX)
}

// and, or and xor are the bitwise operations of whole registers (floating
// point on ymm, integer on zmm).
func (v vec) and(g *gen, p prec, a, b, dst operand.Op) {
	if v.isZ() {
		byPrec(p, g.VPANDD, g.VPANDQ)(a, b, dst)
	} else {
		byPrec(p, g.VANDPS, g.VANDPD)(a, b, dst)
	}
}

func (v vec) or(g *gen, p prec, a, b, dst operand.Op) {
	if v.isZ() {
		byPrec(p, g.VPORD, g.VPORQ)(a, b, dst)
	} else {
		byPrec(p, g.VORPS, g.VORPD)(a, b, dst)
	}
}

func (v vec) xor(g *gen, p prec, a, b, dst operand.Op) {
	if v.isZ() {
		byPrec(p, g.VPXORD, g.VPXORQ)(a, b, dst)
	} else {
		byPrec(p, g.VXORPS, g.VXORPD)(a, b, dst)
	}
}

// por is VPOR (ymm) or VPORD/VPORQ (zmm).
func (v vec) por(g *gen, p prec, a, b, dst operand.Op) {
	if v.isZ() {
		byPrec(p, g.VPORD, g.VPORQ)(a, b, dst)
	} else {
		g.VPOR(a, b, dst)
	}
}

// movdqu is VMOVDQU (ymm) or VMOVDQU64 (zmm).
func (v vec) movdqu(g *gen, src, dst operand.Op) {
	if v.isZ() {
		g.VMOVDQU64(src, dst)
	} else {
		g.VMOVDQU(src, dst)
	}
}

// half is register i at half this width (xmm for ymm, ymm for zmm).
func (v vec) half(i int) VecPhysical {
	if v.isZ() {
		return yy(i)
	}
	return x(i)
}

// extractHi sets half register dst to the upper half of register src.
func (v vec) extractHi(g *gen, src, dst int) {
	if v.isZ() {
		g.VEXTRACTF64X4(u8(1), z(src), yy(dst))
	} else {
		g.VEXTRACTF128(u8(1), y(src), x(dst))
	}
}

// insertHi sets the upper half of register dst to half register src.
func (v vec) insertHi(g *gen, src, dst int) {
	if v.isZ() {
		g.VINSERTF64X4(u8(1), yy(src), z(dst), z(dst))
	} else {
		g.VINSERTF128(u8(1), x(src), y(dst), y(dst))
	}
}

// cvtpd2ps rounds the float64 lanes of register src into half register dst.
func (v vec) cvtpd2ps(g *gen, src, dst int) {
	if v.isZ() {
		g.VCVTPD2PS(z(src), yy(dst))
	} else {
		g.VCVTPD2PSY(y(src), x(dst))
	}
}

// cvtps2pd widens the float32 lanes of half register (or memory) src into
// register dst.
func (v vec) cvtps2pd(g *gen, src operand.Op, dst int) {
	g.VCVTPS2PD(src, v.reg(dst))
}
