package kernel

import (
	"fmt"
	"unsafe"
)

// Format names how a Compact matrix stores its features.
type Format uint8

const (
	// Dense is no compact matrix: the features are T values.
	Dense Format = iota
	// U8 holds a byte u per feature and stands for x = Scale·u (8-bit
	// images with the 1/255 scaling folded into the kernels).
	U8
	// F16 holds an IEEE 754 binary16 value per feature (F32ToF16,
	// F16ToF32).
	F16
	// BF16 holds a bfloat16 per feature: the top 16 bits of a float32
	// (F32ToBF16, BF16ToF32), its range with 8 bits of significand.
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

// Compact is a row-major matrix of compact features: row r holds its
// features in U8[r*Stride : r*Stride+d] (Format U8, feature value
// Scale·u), in F16[r*Stride : r*Stride+d] (Format F16, the half's value)
// or in BF16[r*Stride : r*Stride+d] (Format BF16, the bfloat16's value). The Compact kernels (MarginsC, AddRowsC, MarginsKC, AddOuterKC,
// FusedLinearC) compute what their dense twins compute on the matrix of
// these values, converting the features as they load them, so that a row
// costs its compact bytes from memory.
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

// CompactAt returns the value, in T, of the feature at flat position p of
// x (row r, column l is p = r·x.Stride + l): what the kernels compute with.
func CompactAt[T Float](x *Compact, p int) T { return value[T](x, p) }
