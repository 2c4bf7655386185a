package dataset

import (
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/kernel"
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
// ones, and that f16 storage rounds to the nearest half.
func TestBatchAs(t *testing.T) {
	for _, div := range []float64{255, 1} {
		ds := pixelSet[float32](div)
		d, err := ds.BatchAs(StorageU8)
		if err != nil {
			t.Fatal(err)
		}
		if d.Storage() != "u8" || d.C.Scale != 1/div {
			t.Fatalf("div %v: storage %s, scale %v", div, d.Storage(), d.C.Scale)
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
	if _, err := ds.BatchAs("u4"); err == nil {
		t.Error("storage u4 taken")
	}
	if d, err := pixelSet[float64](255).BatchAs(StorageU8); err != nil || d.Storage() != "u8" {
		t.Errorf("float64 u8: %v", err)
	}
}
