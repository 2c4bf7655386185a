package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// Format names how a Compact matrix stores its features.
type Format uint8

const (
	// Dense is no compact matrix: the features are T values.
	Dense Format = iota
	// U8 holds a byte u per feature and stands for x = Scale·u. It serves
	// 8-bit images, with the 1/255 scaling folded into the kernels.
	U8
	// F16 holds an IEEE 754 binary16 value per feature (F32ToF16,
	// F16ToF32).
	F16
	// BF16 holds a bfloat16 per feature: the top 16 bits of a float32
	// (F32ToBF16, BF16ToF32). It has float32's range with 8 bits of
	// significand.
	BF16
)

func (f Format) String() string {
	switch f {
	case Dense:
		return "dense"
	case U8:
		return "u8"
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Compact is a row-major matrix of compact features. Row r holds its
// features in one of three slices:
//
//   - U8[r*Stride : r*Stride+d] (Format U8, feature value Scale·u);
//   - F16[r*Stride : r*Stride+d] (Format F16, the half's value);
//   - BF16[r*Stride : r*Stride+d] (Format BF16, the bfloat16's value).
//
// The Compact kernels (MarginsC, AddRowsC, MarginsKC, AddOuterKC,
// FusedLinearC) compute what their dense twins compute on the matrix of
// these values. They convert the features as they load them. So a row costs
// its compact bytes from memory.
//
// The value of a U8 feature in T = float32 is float32(Scale)·float32(u),
// rounded once; in float64 it is Scale·float64(u). The value of an F16 or
// BF16 feature is exact in both.
type Compact struct {
	Format Format
	U8     []uint8
	F16    []uint16
	BF16   []uint16
	Stride int     // elements between rows
	Scale  float64 // Format U8: the value of a byte is Scale·u
}

// From returns the matrix of the rows from row lo on (sharing the storage).
func (x Compact) From(lo int) Compact {
	switch x.Format {
	case U8:
		x.U8 = x.U8[lo*x.Stride:]
	case F16:
		x.F16 = x.F16[lo*x.Stride:]
	case BF16:
		x.BF16 = x.BF16[lo*x.Stride:]
	}
	return x
}

// Len is the number of stored elements.
func (x *Compact) Len() int {
	if x.Format == U8 {
		return len(x.U8)
	}
	return len(x.halves())
}

// ElemBytes is the size of one stored feature: 1 for U8, 2 for F16 and
// BF16.
func (x *Compact) ElemBytes() int {
	if x.Format == U8 {
		return 1
	}
	return 2
}

// halves is the storage of a 16-bit format (F16 or BF16).
func (x *Compact) halves() []uint16 {
	if x.Format == BF16 {
		return x.BF16
	}
	return x.F16
}

// at returns the address of the element at flat position p, which must be
// within the storage.
func (x *Compact) at(p int) unsafe.Pointer {
	if x.Format == U8 {
		return unsafe.Pointer(&x.U8[p])
	}
	return unsafe.Pointer(&x.halves()[p])
}

// value returns the feature at flat position p in T.
func value[T Float](x *Compact, p int) T {
	switch x.Format {
	case F16:
		return T(F16ToF32(x.F16[p]))
	case BF16:
		return T(BF16ToF32(x.BF16[p]))
	}
	if is32[T]() {
		return T(float32(x.Scale) * float32(x.U8[p]))
	}
	return T(x.Scale * float64(x.U8[p]))
}

// checkCompactRows is checkRows for a compact matrix; it also panics on an
// unknown format.
func checkCompactRows(n int, x *Compact, idx []int, d int) {
	if x.Format != U8 && x.Format != F16 && x.Format != BF16 {
		panic("kernel: compact matrix of unknown format")
	}
	if n == 0 || d == 0 {
		return
	}
	if x.Stride < 0 {
		panic("kernel: negative row stride")
	}
	lo, hi := 0, n-1
	if idx != nil {
		idx = idx[:n]
		lo, hi = idx[0], idx[0]
		for _, r := range idx {
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	if lo < 0 {
		panic("kernel: negative row index")
	}
	if hi*x.Stride+d > x.Len() {
		panic(fmt.Sprintf("kernel: row %d of %d features past the %d compact elements", hi, d, x.Len()))
	}
}

// CompactAt returns the value, in T, of the feature at flat position p of x.
// Row r, column l is p = r·x.Stride + l. It is what the kernels compute
// with.
func CompactAt[T Float](x *Compact, p int) T { return value[T](x, p) }

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

// F32ToF16 rounds f to the nearest IEEE 754 binary16, ties to even.
// VCVTPS2PH and FCVTN do the same under the default rounding mode. Values
// beyond the largest half (65504) by half an ulp or more become ±Inf. Values
// below the smallest subnormal (2^−24) by half of it or less become ±0. NaNs
// stay NaNs: quiet, with the top bits of the payload.
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
		// rounded to nearest even. It is shifted right by 14 − e: 13 for the
		// format, 1 − e for the exponent.
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

// F32ToBF16 rounds f to the nearest bfloat16, ties to even. Values beyond
// the largest bfloat16 by half an ulp or more become ±Inf. NaNs stay NaNs:
// quiet, with the top bits of the payload. Subnormals round like the rest,
// as bfloat16 has float32's exponent range. (VCVTNEPS2BF16 would flush them
// to zero.)
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it one after the cut
		return uint16(b>>16) | 0x40
	}
	// Adding 0x7fff plus the kept part's low bit rounds to nearest, ties to
	// even. A carry may reach the exponent, up to Inf: still right.
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}
