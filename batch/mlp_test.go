package batch

import (
	"math"
	"testing"
)

// TestReluMask checks the branch-free ReLU derivative against its
// definition (dh kept where a > 0, NaN counting as positive, zeroed where
// a ≤ 0) on the values where bit tricks go wrong: ±0, the smallest
// subnormals, ±Inf, NaN of either sign, and ordinary values, in both
// precisions.
func TestReluMask(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-45, -1e-45, 1.4e-45, -1.4e-45,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(math.NaN(), -1), 1, -1, 0.5, -3.25, math.MaxFloat64, -math.MaxFloat64}
	t.Run("f64", func(t *testing.T) { checkReluMask[float64](t, vals) })
	t.Run("f32", func(t *testing.T) { checkReluMask[float32](t, vals) })
}

func checkReluMask[T Float](t *testing.T, vals []float64) {
	a := make([]T, len(vals))
	dh := make([]T, len(vals))
	for i, v := range vals {
		a[i] = T(v)
		dh[i] = T(i + 1)
	}
	reluMask(dh, a)
	for i, v := range a {
		want := T(i + 1)
		if v <= 0 {
			want = 0
		}
		if dh[i] != want || math.Signbit(float64(dh[i])) {
			t.Errorf("a = %v: dh %v, want %v", v, dh[i], want)
		}
	}
}
