package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// vec is the register width a shared kernel body is emitted for. The AVX2
// (ymm) kernels and their AVX-512 (zmm) twins differ mostly in what it
// describes. That is the width, registers, tail-mask and broadcast idioms,
// and names. So each kernel shape is written once.
type vec struct {
	bytes  int                   // bytes per register
	reg    func(int) VecPhysical // register i of this width
	prefix string                // label prefix: "" (ymm), "z" (zmm)
}

var (
	ymm = vec{bytes: 32, reg: y}
	zmm = vec{bytes: 64, reg: z, prefix: "z"}
)

func (v vec) isZ() bool { return v.bytes == 64 }

// lanes is the number of elements of a register.
func (v vec) lanes(p prec) int { return v.bytes / p.size }

// text starts the kernel base, or its zmm twin "z"+Base.
func (v vec) text(g *gen, base string) {
	if v.isZ() {
		g.ztext(base)
	} else {
		g.text(base)
	}
}

// zero clears r.
func (v vec) zero(g *gen, p prec, r VecPhysical) {
	if v.isZ() {
		g.zzero(r)
	} else {
		g.vxor(p, r, r, r)
	}
}

// setMask prepares the mask of the last d mod lanes columns, Y15 or K1, and
// returns it. It rounds dreg down to whole two-register chunks.
func (v vec) setMask(g *gen, p prec, dreg Register) operand.Op {
	if v.isZ() {
		g.zmaskD(p, dreg)
		return K1
	}
	maskSet(g, p, dreg)
	return Y15
}

// tailMask prepares the mask of the low DX lanes (0 < DX < lanes) and
// returns it. In ymm it is ymmMask, from maskTab (R8, R9 clobbered). In zmm
// it is K1 (R8 clobbered).
func (v vec) tailMask(g *gen, p prec, ymmMask VecPhysical) operand.Op {
	if v.isZ() {
		g.lowLanesK1(EDX, R8L)
		return K1
	}
	g.LEAQ(p.maskTab, R8)
	g.MOVQ(u32(p.lanes), R9)
	g.SUBQ(RDX, R9)
	g.VMOVDQU(memi(R8, 0, R9, uint8(p.size)), ymmMask)
	return ymmMask
}

// maskLoad loads the lanes of mask, zeroing the others.
func (v vec) maskLoad(g *gen, p prec, mask operand.Op, src operand.Mem, dst VecPhysical) {
	if v.isZ() {
		byPrec(p, g.VMOVUPS_Z, g.VMOVUPD_Z)(src, mask, dst)
	} else {
		g.vmaskmov(p, src, mask, dst)
	}
}

// maskStore stores the lanes of mask.
func (v vec) maskStore(g *gen, p prec, mask operand.Op, src VecPhysical, dst operand.Mem) {
	if v.isZ() {
		g.vmovu(p, src, mask, dst)
	} else {
		g.vmaskmov(p, src, mask, dst)
	}
}

// unrolledStep is the index step of an unrolled loop. The zmm kernels spell
// it as a 32-bit immediate, as 8 registers of float32 exceed an int8. The
// ymm ones spell it as an 8-bit one.
func (v vec) unrolledStep(n int) operand.Op {
	if v.isZ() {
		return u32(n)
	}
	return u8(n)
}

// maskAndChunks prepares the mask of the last R8 mod lanes columns (Y15 or
// K1) and returns it. It sets R8 to the whole two-register chunks of R8.
func (v vec) maskAndChunks(g *gen, p prec) operand.Op {
	if !v.isZ() {
		maskAndIters(g, p)
		return Y15
	}
	g.MOVQ(R8, RAX)
	g.ANDQ(u8(v.lanes(p)-1), RAX)
	g.lowLanesK1(EAX, R10L)
	g.SHRQ(u8(7-shift(p)), R8) // log2 of 2·64 bytes, in elements
	return K1
}

// maxClasses is the largest class block of marginsK / addOuterK. The zmm
// kernels have 32 registers, for twice the classes.
func (v vec) maxClasses() int {
	if v.isZ() {
		return zMaxClasses
	}
	return maxClasses
}

// fmaBroadcast is acc += a · broadcast(m). Zmm embeds the broadcast in the
// FMA; ymm broadcasts into tmp first.
func (v vec) fmaBroadcast(g *gen, p prec, m operand.Mem, a, acc, tmp VecPhysical) {
	if v.isZ() {
		g.vfmadd231bcst(p, m, a, acc)
		return
	}
	g.vbroadcast(p, m, tmp)
	g.vfmadd231(p, a, tmp, acc)
}

// fold leaves the sum of the halves of zmm a in ymm t, with ymm scratch. A
// ymm register needs no fold.
func (v vec) fold(g *gen, p prec, a, t, scratch int) {
	if v.isZ() {
		g.zfold(p, a, t, scratch)
	}
}

// prefetchRows prefetches each row's cache lines of a two-register step,
// pfDist ahead.
func (v vec) prefetchRows(g *gen, E uint8) {
	for _, r := range rowRegs {
		for off := 0; off < 2*v.bytes; off += 64 {
			g.PREFETCHT0(memi(r, pfDist+off, RAX, E))
		}
	}
}
