package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// CompactModels are the epoch suite's models on compact features. A name
// is the model's name, a colon and the storage. "u8" stores a byte a
// pixel, with the 1/255 scale folded into the kernels. "f16" stores IEEE
// halves and "bf16" bfloat16s. The floor counts the compact bytes. Only
// float32 problems run them.
func CompactModels() []string {
	return []string{"logistic:u8", "softmax:u8", "mlp:u8", "logistic:f16", "softmax:f16", "mlp:f16", "logistic:bf16", "softmax:bf16", "mlp:bf16"}
}

// splitStorage splits "softmax:u8" into the model and the storage ("" for
// dense T features).
func splitStorage(name string) (model, storage string) {
	model, storage, _ = strings.Cut(name, ":")
	return model, storage
}

// storageBytes is the size of a feature in the storage, or elemSize for
// dense features.
func storageBytes(storage string, elemSize int) int {
	switch storage {
	case "u8":
		return 1
	case "f16", "bf16":
		return 2
	}
	return elemSize
}

// compactPair is a problem's data in one compact storage.
type compactPair[T kernel.Float] struct{ ten, two *batch.Data[T] }

// compactData returns p's ten-class or binary data in the storage, made on
// first use. MNIST's pixels are bytes already (u/255). Other features are
// rounded to the nearest u/255 in [0, 1] (u8). For f16 they are rounded to
// the nearest half, for bf16 to the nearest bfloat16.
func (p *Problem[T]) compactData(storage string, binary bool) (*batch.Data[T], error) {
	if _, ok := any(T(0)).(float32); !ok {
		return nil, fmt.Errorf("bench: %s storage is for float32 problems", storage)
	}
	if p.compact == nil {
		p.compact = map[string]compactPair[T]{}
	}
	c, ok := p.compact[storage]
	if !ok {
		x := p.Ten.X[:p.N*p.D]
		var err error
		switch storage {
		case "u8":
			u := make([]uint8, len(x))
			for i, v := range x {
				u[i] = uint8(math.Round(math.Min(math.Max(float64(v), 0), 1) * 255))
			}
			if c.ten, err = batch.NewDataU8[T](u, 1.0/255, p.N, p.D, nil, p.Ten.Labels, MNISTClasses); err == nil {
				c.two, err = batch.NewDataU8[T](u, 1.0/255, p.N, p.D, nil, p.Two.Labels, 2)
			}
		case "f16", "bf16":
			round, newData := kernel.F32ToF16, batch.NewDataF16[T]
			if storage == "bf16" {
				round, newData = kernel.F32ToBF16, batch.NewDataBF16[T]
			}
			h := make([]uint16, len(x))
			for i, v := range x {
				h[i] = round(float32(v))
			}
			if c.ten, err = newData(h, p.N, p.D, nil, p.Ten.Labels, MNISTClasses); err == nil {
				c.two, err = newData(h, p.N, p.D, nil, p.Two.Labels, 2)
			}
		default:
			return nil, fmt.Errorf("bench: unknown storage %q (want u8, f16 or bf16)", storage)
		}
		if err != nil {
			return nil, err
		}
		p.compact[storage] = c
	}
	if binary {
		return c.two, nil
	}
	return c.ten, nil
}

// IsCompact reports whether the named model of the epoch suite reads
// compact features ("softmax:u8"). Only float32 problems have them.
func IsCompact(model string) bool {
	_, s := splitStorage(model)
	return s != ""
}
