package dataset

import (
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

func pixelSet[T Float](div float64) *Dataset[T] {
	ds := &Dataset[T]{Name: "px", N: 256, D: 2, Task: Classification, Labels: make([]int32, 256), Classes: []string{"a", "b"}}
	ds.X = make([]T, 512)
	for p := 0; p < 256; p++ {
		ds.X[2*p] = T(float64(p) / div)
		ds.X[2*p+1] = T(float64(255-p) / div)
		ds.Labels[p] = int32(p % 2)
	}
	return ds
}

// TestBatchAs checks that u8 storage finds the bytes again, from u/255 and
// from raw intensities, that its values are within an ulp of the float32
// ones, and that f16 and bf16 storage round to the nearest half and
// bfloat16.
func TestBatchAs(t *testing.T) {
	t.Parallel()
	for _, div := range []float64{255, 1} {
		ds := pixelSet[float32](div)
		d, err := ds.BatchAs(StorageU8)
		if err != nil {
			t.Fatal(err)
		}
		if d.Storage() != "u8" || d.FeatureBytes() != int64(ds.N*ds.D) {
			t.Fatalf("div %v: storage %s, %d bytes for %d values", div, d.Storage(), d.FeatureBytes(), ds.N*ds.D)
		}
		row := make([]float32, 2)
		for i := 0; i < ds.N; i++ {
			for j, v := range d.RowTo(row, i) {
				want := ds.X[2*i+j]
				if ulps := math.Abs(float64(v-want)) / float64(math.Nextafter32(want, 2)-want); ulps > 1 {
					t.Fatalf("div %v: row %d col %d: %v, want %v (%v ulps)", div, i, j, v, want, ulps)
				}
			}
		}
		h, err := ds.BatchAs(StorageF16)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < ds.N; i++ {
			for j, v := range h.RowTo(row, i) {
				if want := kernel.F16ToF32(kernel.F32ToF16(ds.X[2*i+j])); v != want {
					t.Fatalf("f16 row %d col %d: %v, want %v", i, j, v, want)
				}
			}
		}
		b, err := ds.BatchAs(StorageBF16)
		if err != nil {
			t.Fatal(err)
		}
		if b.Storage() != "bf16" {
			t.Fatalf("bf16 storage %q", b.Storage())
		}
		for i := 0; i < ds.N; i++ {
			for j, v := range b.RowTo(row, i) {
				if want := kernel.BF16ToF32(kernel.F32ToBF16(ds.X[2*i+j])); v != want || math.Abs(float64(v-ds.X[2*i+j])) > math.Abs(float64(ds.X[2*i+j]))/256 {
					t.Fatalf("bf16 row %d col %d: %v, want %v", i, j, v, want)
				}
			}
		}
	}
	ds := pixelSet[float32](255)
	ds.X[7] = 0.5
	if _, err := ds.BatchAs(StorageU8); err == nil || !strings.Contains(err.Error(), "row 3, column 1") {
		t.Errorf("u8 of 0.5: %v", err)
	}
	ds.X[7] = 7e4
	if _, err := ds.BatchAs(StorageF16); err == nil || !strings.Contains(err.Error(), "f16") {
		t.Errorf("f16 of 7e4: %v", err)
	}
	if _, err := ds.BatchAs(StorageBF16); err != nil {
		t.Errorf("bf16 of 7e4: %v", err)
	}
	if d, err := pixelSet[float64](1).BatchAs(StorageBF16); err != nil || d.Storage() != "bf16" {
		t.Errorf("float64 bf16: %v", err)
	}
	big := pixelSet[float64](1)
	big.X[9] = 3.4e38
	if _, err := big.BatchAs(StorageBF16); err == nil || !strings.Contains(err.Error(), "row 4, column 1") || !strings.Contains(err.Error(), "bf16") {
		t.Errorf("bf16 of 3.4e38: %v", err)
	}
	if _, err := ds.BatchAs("u4"); err == nil {
		t.Error("storage u4 taken")
	}
	if d, err := pixelSet[float64](255).BatchAs(StorageU8); err != nil || d.Storage() != "u8" {
		t.Errorf("float64 u8: %v", err)
	}
}
