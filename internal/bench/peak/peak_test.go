package peak

import (
	"math"
	"testing"
)

func TestSum32(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000, block + 77} {
		x := make([]float32, n)
		var want float64
		for i := range x {
			x[i] = float32(i%7) - 3
			want += float64(x[i])
		}
		if got := Sum32(x); math.Abs(float64(got)-want) > 1e-3*float64(n+1) {
			t.Errorf("Sum32 of %d elements = %v, want %v", n, got, want)
		}
	}
}

func TestFMA(t *testing.T) {
	if got := FMA32(10); got <= 0 || got%(10*Chains) != 0 {
		t.Errorf("FMA32(10) = %d multiply-adds", got)
	}
	if got := FMA64(10); got <= 0 || got%(10*Chains) != 0 {
		t.Errorf("FMA64(10) = %d multiply-adds", got)
	}
	if FMA32(0) != 0 || FMA64(-1) != 0 {
		t.Error("no iterations should do nothing")
	}
	if got := FMA32Wide(10); got <= 0 || got%(10*Chains) != 0 {
		t.Errorf("FMA32Wide(10) = %d multiply-adds", got)
	}
	if got := FMA64Wide(10); got <= 0 || got%(10*Chains) != 0 {
		t.Errorf("FMA64Wide(10) = %d multiply-adds", got)
	}
	if FMA32Wide(0) != 0 || FMA64Wide(-1) != 0 {
		t.Error("no iterations should do nothing")
	}
	t.Logf("kind: %s (asm %v), widest: %s (wide %v)", Kind(), Asm(), WidestKind(), HasWide())
}
