package batch

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// Compact features: a Data may hold its dense features in a compact form
// instead of T values. It may hold bytes with a scale (NewDataU8: 8-bit
// images, x = scale·u). It may hold IEEE half floats (NewDataF16) or
// bfloat16s (NewDataBF16). The kernels convert them as they load them and
// accumulate in T. So a row costs its compact bytes from memory: a quarter
// of float32's for bytes, a half for halves and bfloat16s. The linear
// models, softmax and the MLP (its first layer) read compact data.
//
// The values the models see, for T = float32: a byte u is
// float32(scale)·float32(u), rounded once. For scale = 1/255 that is within
// an ulp of float32(u/255), which dataset's IDX reader gives. A half or
// bfloat16 is its exact value. Results equal those of the float32 data of
// these values, to the rounding of a reduction's order. Compact storage is
// meant for float32 models. Float64 models read it too, through the generic
// loops; a byte is then scale·u in float64.

// NewDataU8 wraps n×d bytes u (row-major, not copied) as features
// x = scale·u. Targets or labels are as for NewData. scale must be positive
// and finite: 1/255 for pixel intensities in [0, 1].
func NewDataU8[T Float](u []uint8, scale float64, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	if err := checkCompactShape(len(u), n, d); err != nil {
		return nil, err
	}
	if !(scale > 0) || math.IsInf(scale, 0) || math.IsInf(float64(T(scale)), 0) || T(scale) == 0 {
		return nil, fmt.Errorf("batch: u8 feature scale %v; want a positive finite number", scale)
	}
	c := kernel.Compact{Format: kernel.U8, U8: u, Stride: d, Scale: scale}
	return setTargets(&Data[T]{c: c, N: n, D: d, Stride: d}, y, labels, k)
}

// NewDataF16 wraps n×d IEEE 754 half-precision features h (row-major, not
// copied). Targets or labels are as for NewData. dataset's BatchAs("f16")
// makes them from float features. Every half must be finite.
func NewDataF16[T Float](h []uint16, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	return newData16(kernel.Compact{Format: kernel.F16, F16: h, Stride: d}, h, n, d, y, labels, k)
}

// NewDataBF16 wraps n×d bfloat16 features h (row-major, not copied). Targets
// or labels are as for NewData. dataset's BatchAs("bf16") makes them:
// float32's range with 8 bits of significand. Every value must be finite.
func NewDataBF16[T Float](h []uint16, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	return newData16(kernel.Compact{Format: kernel.BF16, BF16: h, Stride: d}, h, n, d, y, labels, k)
}

// newData16 wraps the 16-bit features h held by c (F16 or BF16), every one
// of which must be finite.
func newData16[T Float](c kernel.Compact, h []uint16, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	if err := checkCompactShape(len(h), n, d); err != nil {
		return nil, err
	}
	for i := range h {
		if v := kernel.CompactAt[float32](&c, i); math.IsInf(float64(v), 0) || v != v {
			return nil, fmt.Errorf("batch: row %d, column %d: value %v is not finite", i/d, i%d, v)
		}
	}
	return setTargets(&Data[T]{c: c, N: n, D: d, Stride: d}, y, labels, k)
}

func checkCompactShape(m, n, d int) error {
	switch {
	case n <= 0 || d <= 0:
		return fmt.Errorf("batch: data has %d rows and %d columns; need at least one of each", n, d)
	case m%d != 0 || m/d != n:
		return fmt.Errorf("batch: %d compact values, want n·d = %d·%d", m, n, d)
	}
	return nil
}

// IsCompact reports whether the features are held compact (NewDataU8,
// NewDataF16, NewDataBF16): in C, with X nil.
func (d *Data[T]) IsCompact() bool { return d.c.Format != kernel.Dense }

// Storage names how the features are held: "f32" or "f64" (dense T),
// "u8", "f16", "bf16" or "csr".
func (d *Data[T]) Storage() string {
	switch {
	case d.IsSparse():
		return "csr"
	case d.IsCompact():
		return d.c.Format.String()
	case is32[T]():
		return "f32"
	}
	return "f64"
}

// FeatureBytes is the size of the stored features: what a pass over the
// data reads of them.
func (d *Data[T]) FeatureBytes() int64 {
	switch {
	case d.IsSparse():
		return int64(len(d.Cols))*4 + int64(len(d.Vals))*sizeOf[T]() + int64(len(d.Indptr))*8
	case d.IsCompact():
		return int64(d.c.Len()) * int64(d.c.ElemBytes())
	}
	return int64(len(d.X)) * sizeOf[T]()
}

func sizeOf[T Float]() int64 {
	if is32[T]() {
		return 4
	}
	return 8
}

func is32[T Float]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

// RowTo writes sample i's features, in T, into dst (len ≥ D) and returns
// dst[:D]. They are the values the kernels see, for dense, compact or sparse
// data.
func (d *Data[T]) RowTo(dst []T, i int) []T {
	dst = dst[:d.D]
	switch {
	case d.IsSparse():
		clear(dst)
		cols, vals := d.SparseRow(i)
		for p, c := range cols {
			dst[c] += vals[p]
		}
	case d.IsCompact():
		r := i * d.c.Stride
		for l := range dst {
			dst[l] = kernel.CompactAt[T](&d.c, r+l)
		}
	default:
		copy(dst, d.Row(i))
	}
	return dst
}

// validateCompact is ValidateFeatures for compact data.
func (d *Data[T]) validateCompact() error {
	c := &d.c
	switch {
	case c.Format != kernel.U8 && c.Format != kernel.F16 && c.Format != kernel.BF16:
		return fmt.Errorf("batch: compact data of unknown format %v", c.Format)
	case d.X != nil:
		return fmt.Errorf("batch: data holds both dense (X) and compact (%v) features", c.Format)
	case d.N <= 0 || d.D <= 0 || d.Stride < d.D || c.Stride != d.Stride:
		return fmt.Errorf("batch: data has %d rows of %d columns with stride %d (compact stride %d); want at least one of each, stride ≥ columns", d.N, d.D, d.Stride, c.Stride)
	case c.Len() < d.D || (c.Len()-d.D)/d.Stride < d.N-1:
		return fmt.Errorf("batch: data has %d compact values, too few for %d rows of stride %d", c.Len(), d.N, d.Stride)
	case c.Format == kernel.U8 && !(c.Scale > 0 && !math.IsInf(c.Scale, 0)):
		return fmt.Errorf("batch: u8 feature scale %v; want a positive finite number", c.Scale)
	}
	return nil
}

// compactModel is a Model that reads compact features: the linear models,
// softmax and the MLP (its first layer). The Engine refuses compact data
// for any other.
type compactModel interface{ readsCompact() }

func (l *Linear[T]) readsCompact()  {}
func (s *Softmax[T]) readsCompact() {}
func (m *MLP[T]) readsCompact()     {}

// checkCompact reports compact data given to a model that cannot read it.
func checkCompact[T Float](model Model[T], data *Data[T]) error {
	if data != nil && data.IsCompact() {
		if _, ok := model.(compactModel); !ok {
			return fmt.Errorf("batch: the %s model does not run on %v features; use float32 storage or a linear or softmax model", model.Name(), data.c.Format)
		}
	}
	return nil
}
