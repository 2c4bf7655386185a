package bench

import (
	"math"
	"time"

	"github.com/cvarlearn/cvar/internal/rng"
)

// PageFloats is the float32s of a 4 KiB page.
const PageFloats = 4096 / 4

// pageCycle returns next, a random cyclic order of the pages [0, n). From
// page p the chase goes to next[p]. n steps from any page visit every page
// once.
func pageCycle(n int, seed uint64) []int32 {
	perm := rng.New(seed, 1).Perm(n)
	next := make([]int32, n)
	for i, p := range perm {
		next[p] = int32(perm[(i+1)%n])
	}
	return next
}

// chaseBits encodes page p as a float32 in [1, 2) that holds p in its
// mantissa. It is a normal number, so the buffer's later passes add no
// subnormals.
func chaseBits(p int32) float32 { return math.Float32frombits(0x3f800000 | uint32(p)) }

// chasePage is the page chaseBits encoded in f.
func chasePage(f float32) int32 { return int32(math.Float32bits(f) &^ 0x3f800000) }

// PageLatency measures the latency in nanoseconds of a load from a random
// 4 KiB page of x. It chases dependent loads, one word a page, over the
// pages of x in a random cycle. So each load waits for the one before. It
// finds neither its line nor, beyond the TLB's reach, its page's
// translation. It runs up to 1<<20 loads and at least minTime. It returns
// the best of its rounds of 1<<16 loads. It returns 0 when x has fewer
// than 2 pages or more than 1<<23. The chase overwrites the first word of
// every page of x. It restores NewStreamBuffer's value after it.
func PageLatency(x []float32, minTime time.Duration) float64 {
	n := len(x) / PageFloats
	if n < 2 || n > 1<<23 {
		return 0
	}
	next := pageCycle(n, 7)
	for p, q := range next {
		x[p*PageFloats] = chaseBits(q)
	}
	defer func() {
		for p := range n {
			x[p*PageFloats] = streamValue(p * PageFloats)
		}
	}()
	const round = 1 << 16
	p := int32(0)
	for range min(n, round) { // the first lap: the pages mapped and cached as far as they can be
		p = chasePage(x[int(p)*PageFloats])
	}
	best := math.Inf(1)
	start := time.Now()
	for r := 0; r < 16 && (r < 3 || time.Since(start) < minTime); r++ {
		t0 := time.Now()
		for range round {
			p = chasePage(x[int(p)*PageFloats])
		}
		best = min(best, float64(time.Since(t0).Nanoseconds())/round)
	}
	sink += float64(p)
	return best
}
