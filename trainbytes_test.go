package cvar

import (
	"math"
	"runtime"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestTrainingBytes: the parameters times their copies, the mlp's
// activations, the element size, and saturation instead of overflow.
func TestTrainingBytes(t *testing.T) {
	// Softmax, 10 features, 3 classes: 33 parameters × (4 + 2 threads) × 8.
	if got := TrainingBytes[float64](batch.KindSoftmax, 10, 3, 0, 2, 64); got != 33*6*8 {
		t.Errorf("softmax: %d, want %d", got, 33*6*8)
	}
	// Linear regression in float32: 11 parameters × 5 copies × 4 bytes.
	if got := TrainingBytes[float32](batch.KindLinear, 10, 0, 0, 1, 64); got != 11*5*4 {
		t.Errorf("linear: %d, want %d", got, 11*5*4)
	}
	// The mlp: 5·10+5 + 2·5+2 = 67 parameters × 5 copies, and 2 × 512 × 5
	// activations (the batch raised to DefaultBatch), 8 bytes each.
	if got, want := TrainingBytes[float64](batch.KindMLP, 10, 2, 5, 1, 10), int64(67*5+2*DefaultBatch*5)*8; got != want {
		t.Errorf("mlp: %d, want %d", got, want)
	}
	if got := TrainingBytes[float64](batch.KindMLP, math.MaxInt32, 1000, math.MaxInt32, 64, 1<<30); got != math.MaxInt64 {
		t.Errorf("absurd mlp: %d, want saturation", got)
	}
	if got, want := TrainingBytes[float64](batch.KindLogistic, 10, 2, 0, 0, 0), TrainingBytes[float64](batch.KindLogistic, 10, 2, 0, runtime.GOMAXPROCS(0), 0); got != want {
		t.Errorf("threads 0: %d, want GOMAXPROCS's %d", got, want)
	}
}
