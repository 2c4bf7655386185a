package kernel

import "math"

// F16ToF32 returns the value of the IEEE 754 binary16 h (exact: every half
// is a float32). NaNs keep their sign and payload, shifted into place.
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0: // ±0
		return math.Float32frombits(sign)
	}
	// Subnormal: man·2^−24, exact in float32.
	v := float32(man) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// F32ToF16 rounds f to the nearest IEEE 754 binary16, ties to even (as
// VCVTPS2PH and FCVTN do under the default rounding mode): values beyond the
// largest half (65504) by half an ulp or more become ±Inf, values below the
// smallest subnormal (2^−24) by half of it or less become ±0, and NaNs stay
// NaNs (quiet, with the top bits of the payload).
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7e00 | uint16(man>>13)
	}
	e := exp - 127 + 15 // the half's biased exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal half (or zero): the significand with its implicit bit,
		// shifted right by 14 − e (13 for the format, 1 − e for the
		// exponent), rounded to nearest even.
		if e < -10 {
			return sign // below half the smallest subnormal: ±0
		}
		m := man | 0x800000
		shift := uint32(14 - e)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h) // a carry into bit 10 makes the smallest normal
	}
	h := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // a carry may reach the exponent, up to Inf: still right
	}
	return sign | uint16(h)
}

// BF16ToF32 returns the value of the bfloat16 h, the top half of a float32's
// bits (exact; NaNs keep their sign and payload).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 rounds f to the nearest bfloat16, ties to even: values beyond
// the largest bfloat16 by half an ulp or more become ±Inf, and NaNs stay
// NaNs (quiet, with the top bits of the payload). Subnormals round like the
// rest, bfloat16 having float32's exponent range (VCVTNEPS2BF16 would flush
// them to zero).
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it one after the cut
		return uint16(b>>16) | 0x40
	}
	// Adding 0x7fff plus the kept part's low bit rounds to nearest, ties to
	// even; a carry may reach the exponent, up to Inf: still right.
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}
