package bench

import (
	"testing"
	"time"
)

// TestPageCycle checks that the chase's order is one cycle through every
// page: n steps from page 0 visit each page once and come back.
func TestPageCycle(t *testing.T) {
	for _, n := range []int{2, 3, 17, 1000} {
		next := pageCycle(n, 5)
		seen := make([]bool, n)
		p := int32(0)
		for i := 0; i < n; i++ {
			if seen[p] {
				t.Fatalf("n=%d: page %d visited twice after %d steps", n, p, i)
			}
			seen[p] = true
			p = next[p]
		}
		if p != 0 {
			t.Errorf("n=%d: after n steps at page %d, want 0", n, p)
		}
	}
}

// TestChaseBits checks that every page number round-trips through the
// float32 the chase stores, and that the float is normal and in [1, 2).
func TestChaseBits(t *testing.T) {
	for _, p := range []int32{0, 1, 1000, 1<<23 - 1} {
		f := chaseBits(p)
		if !(f >= 1 && f < 2) {
			t.Errorf("chaseBits(%d) = %v, want in [1, 2)", p, f)
		}
		if got := chasePage(f); got != p {
			t.Errorf("page %d came back as %d", p, got)
		}
	}
}

// TestPageLatency checks that the latency is positive and finite, that
// the buffer comes back as NewStreamBuffer made it, and that buffers of
// fewer than two pages are refused with 0.
func TestPageLatency(t *testing.T) {
	x := NewStreamBuffer(64 * 4096)
	want := NewStreamBuffer(64 * 4096)
	ns := PageLatency(x, time.Millisecond)
	if !(ns > 0) || ns > 1e6 {
		t.Errorf("PageLatency = %v ns", ns)
	}
	for i := range x {
		if x[i] != want[i] {
			t.Fatalf("x[%d] = %v after the chase, want %v", i, x[i], want[i])
		}
	}
	if ns := PageLatency(NewStreamBuffer(4096), time.Millisecond); ns != 0 {
		t.Errorf("one page: %v, want 0", ns)
	}
}
