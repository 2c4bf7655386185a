package bench

import (
	"testing"

	"github.com/cvarlearn/cvar"
)

// TestCompactModels trains every compact model of the epoch suite for a
// few steps on each storage, checks that the data is held in it, and that
// the floor counts its bytes.
func TestCompactModels(t *testing.T) {
	const n, d = 600, 64
	p, err := SyntheticMNIST[float32](n, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	size := map[string]int{"u8": 1, "f16": 2, "bf16": 2}
	for _, m := range CompactModels() {
		name, storage := splitStorage(m)
		if err := Train(p, EpochOptions{Model: m, Method: cvar.Alg3, Threads: 1}, 3, nil); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		data, err := p.compactData(storage, name == "logistic")
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if data.Storage() != storage || data.FeatureBytes() != int64(n*d*size[storage]) {
			t.Errorf("%s: data in %q, %d bytes", m, data.Storage(), data.FeatureBytes())
		}
		if got, want := SampleCost(m, d, 4).Bytes, float64(d*size[storage]); got != want {
			t.Errorf("%s: %v bytes a sample, want %v", m, got, want)
		}
	}
}
