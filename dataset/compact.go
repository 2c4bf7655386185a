package dataset

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// Storage names how BatchAs holds the features of a data set.
const (
	StorageDense = ""     // T values: what Batch gives
	StorageU8    = "u8"   // a byte a feature, x = scale·u (batch.NewDataU8)
	StorageF16   = "f16"  // an IEEE half a feature (batch.NewDataF16)
	StorageBF16  = "bf16" // a bfloat16 a feature (batch.NewDataBF16)
)

// BatchAs is Batch with the features held in the given storage. It may be
// dense T (StorageDense, or "f32"/"f64" naming T) or bytes (StorageU8). It
// may be IEEE halves (StorageF16) or bfloat16s (StorageBF16). Compact
// features live in memory of their own; ds is not referenced for them.
//
// StorageU8 needs every feature to be a byte in disguise. A feature may be
// u/255: the IDX reader's and -scale unit's pixel intensities, found again
// exactly. It may be an integer u in [0, 255]. Otherwise BatchAs fails,
// naming the first feature that is not. The kernels then see
// float32(1/255)·u rounded once in float32, within an ulp of u/255 (see
// batch.NewDataU8). StorageF16 rounds every feature to the nearest half,
// ties to even. It fails on a feature beyond the halves' range (±65504).
// StorageBF16 rounds every feature's float32 value to the nearest
// bfloat16, ties to even. A bfloat16 has 8 bits of significand and
// float32's range. It fails on a value that rounds to ±Inf. Sparse data
// has no compact storage. A nil ds is an error.
func (ds *Dataset[T]) BatchAs(storage string) (*batch.Data[T], error) {
	if ds == nil {
		return nil, errNoDataset
	}
	switch storage {
	case StorageDense, "f32", "f64":
		return ds.Batch()
	case StorageU8, StorageF16, StorageBF16:
	default:
		return nil, fmt.Errorf("%s: unknown storage %q (want f32, f64, f16, bf16 or u8)", ds.Name, storage)
	}
	if ds.IsSparse() {
		return nil, fmt.Errorf("%s: sparse data has no %s storage; read it dense", ds.Name, storage)
	}
	if err := ds.validateShape(); err != nil { // the conversions read every row
		return nil, err
	}
	var (
		labels []int32
		y      []T
		k      int
		d      *batch.Data[T]
		err    error
	)
	if ds.Task == Classification {
		labels, k = ds.Labels, ds.K()
	} else {
		y = ds.Y
	}
	switch storage {
	case StorageU8:
		u, scale, err2 := bytesOf(ds)
		if err2 != nil {
			return nil, err2
		}
		d, err = batch.NewDataU8(u, scale, ds.N, ds.D, y, labels, k)
	case StorageF16:
		h, err2 := halvesOf(ds)
		if err2 != nil {
			return nil, err2
		}
		d, err = batch.NewDataF16(h, ds.N, ds.D, y, labels, k)
	default:
		h, err2 := bfloat16sOf(ds)
		if err2 != nil {
			return nil, err2
		}
		d, err = batch.NewDataBF16(h, ds.N, ds.D, y, labels, k)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return d, nil
}

// bytesOf returns the features as bytes and the scale that gives them
// back: 1/255 when every feature is T(u/255), else 1 when every feature is
// an integer in [0, 255].
func bytesOf[T Float](ds *Dataset[T]) ([]uint8, float64, error) {
	x := ds.X[:ds.N*ds.D]
	u := make([]uint8, len(x))
	var table [256]T
	for p := range table {
		table[p] = T(float64(p) / 255)
	}
	unitFail := -1
	for i, v := range x {
		f := math.Round(float64(v) * 255)
		if !(f >= 0 && f <= 255) || table[int(f)] != v {
			unitFail = i
			break
		}
		u[i] = uint8(f)
	}
	if unitFail < 0 {
		return u, 1.0 / 255, nil
	}
	for i, v := range x {
		if !(v >= 0 && v <= 255) || T(math.Round(float64(v))) != v {
			i = max(i, unitFail) // the reading that got further names the culprit
			return nil, 0, fmt.Errorf("%s: row %d, column %d: %v is not a byte (u8 storage holds pixel intensities u/255 or whole numbers 0 to 255: use -scale unit or none, or f32/f16 storage)", ds.Name, i/ds.D, i%ds.D, x[i])
		}
		u[i] = uint8(v)
	}
	return u, 1, nil
}

// halvesOf returns the features rounded to IEEE halves.
func halvesOf[T Float](ds *Dataset[T]) ([]uint16, error) {
	x := ds.X[:ds.N*ds.D]
	h := make([]uint16, len(x))
	for i, v := range x {
		if math.Abs(float64(v)) >= 65520 {
			return nil, fmt.Errorf("%s: row %d, column %d: %v is beyond the range of f16 storage (±65504); use f32", ds.Name, i/ds.D, i%ds.D, v)
		}
		h[i] = kernel.F32ToF16(float32(v))
	}
	return h, nil
}

// bfloat16sOf returns the features' float32 values rounded to bfloat16s.
func bfloat16sOf[T Float](ds *Dataset[T]) ([]uint16, error) {
	x := ds.X[:ds.N*ds.D]
	h := make([]uint16, len(x))
	for i, v := range x {
		h[i] = kernel.F32ToBF16(float32(v))
		if h[i]&0x7f80 == 0x7f80 {
			return nil, fmt.Errorf("%s: row %d, column %d: %v is beyond the range of bf16 storage (±3.39e38); use f32 or f64", ds.Name, i/ds.D, i%ds.D, v)
		}
	}
	return h, nil
}
