package footprint

import (
	"math"
	"runtime"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestTraining: the parameters times their copies, the scratch of
// the rows a pass holds, the element size, and saturation instead of
// overflow.
func TestTraining(t *testing.T) {
	// Softmax, 10 features, 3 classes: 33 parameters × (4 + 4 chunks of 16
	// of the 64 rows), and 2·3+4 values a row of 1024 training rows and 16
	// pieces of 1024 rows of an evaluation, 8 bytes each.
	if got, want := Training[float64](batch.KindSoftmax, 10, 3, 0, 2, 64, 0), int64(33*8+(1024+16*1024)*10)*8; got != want {
		t.Errorf("softmax: %d, want %d", got, want)
	}
	// Linear regression in float32: 11 parameters × 5 copies, 8 values a
	// row, 4 bytes each.
	if got, want := Training[float32](batch.KindLinear, 10, 0, 0, 1, 1, 0), int64(11*5+(1024+16*1024)*8)*4; got != want {
		t.Errorf("linear: %d, want %d", got, want)
	}
	// The scratch grows with the classes and the hidden units: 5000 classes
	// of 4 features take more than the 25 005 parameters' copies, the
	// logits of 1024 + 16·16 rows.
	soft := Training[float64](batch.KindSoftmax, 4, 5000, 0, 2, 512, 0)
	if want := int64(1024+16*16) * 10004 * 8; soft < want {
		t.Errorf("softmax of 5000 classes: %d, want at least %d", soft, want)
	}
	if a, b := Training[float64](batch.KindMLP, 4, 10, 100, 2, 512, 0), Training[float64](batch.KindMLP, 4, 10, 2000, 2, 512, 0); b < 5*a {
		t.Errorf("mlp of 2000 hidden units %d, of 100 %d: want the scratch to grow with them", b, a)
	}
	// 300 rows hold the scratch of 300 rows at most.
	if got, want := Training[float64](batch.KindSoftmax, 10, 3, 0, 2, 64, 300), int64(33*8+(300+300)*10)*8; got != want {
		t.Errorf("softmax on 300 rows: %d, want %d", got, want)
	}
	if got := Training[float64](batch.KindMLP, math.MaxInt32, 1000, math.MaxInt32, 64, 1<<30, 0); got != math.MaxInt64 {
		t.Errorf("absurd mlp: %d, want saturation", got)
	}
	if got, want := Training[float64](batch.KindLogistic, 10, 2, 0, 0, 0, 0), Training[float64](batch.KindLogistic, 10, 2, 0, runtime.GOMAXPROCS(0), 0, 0); got != want {
		t.Errorf("threads 0: %d, want GOMAXPROCS's %d", got, want)
	}
}

// TestDense: n·d elements of T's size, 0 for an empty shape, saturation
// instead of overflow.
func TestDense(t *testing.T) {
	if got := Dense[float32](1000, 784); got != 1000*784*4 {
		t.Errorf("1000 × 784 float32: %d", got)
	}
	if got := Dense[float64](0, 784); got != 0 {
		t.Errorf("no rows: %d", got)
	}
	if got := Dense[float64](math.MaxInt32, math.MaxInt32); got != math.MaxInt64 {
		t.Errorf("2³¹ × 2³¹ float64: %d, want saturation", got)
	}
}
