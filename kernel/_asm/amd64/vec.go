package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// vec is the register width a shared kernel body is emitted for: the
// AVX2 (ymm) kernels and their AVX-512 (zmm) twins differ only in what it
// describes, so each kernel shape is written once.
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

// setMask prepares the tail mask for the last d mod lanes columns (Y15 or
// K1) and rounds dreg down to whole two-register chunks.
func (v vec) setMask(g *gen, p prec, dreg Register) {
	if v.isZ() {
		g.zmaskD(p, dreg)
	} else {
		maskSet(g, p, dreg)
	}
}

// maskLoad loads the lanes of the tail mask, zeroing the others.
func (v vec) maskLoad(g *gen, p prec, src operand.Mem, dst VecPhysical) {
	if v.isZ() {
		g.zload(p, src, dst)
	} else {
		g.vmaskmov(p, src, Y15, dst)
	}
}

// maskStore stores the lanes of the tail mask.
func (v vec) maskStore(g *gen, p prec, src VecPhysical, dst operand.Mem) {
	if v.isZ() {
		g.zstore(p, src, dst)
	} else {
		g.vmaskmov(p, src, Y15, dst)
	}
}

// fold leaves the sum of the halves of zmm a in ymm t (scratch: ymm
// scratch); a ymm register needs no fold.
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
