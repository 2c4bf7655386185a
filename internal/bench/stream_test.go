package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// BenchmarkStream is the read-only bandwidth: one pass summing a 256 MiB
// buffer (or twice the last-level cache, if bigger), on one thread and on
// GOMAXPROCS threads.
func BenchmarkStream(b *testing.B) {
	size := StreamBytes(cpuid.CPU.Cache.L3)
	x := NewStreamBuffer(size)
	threads := []int{1}
	if p := runtime.GOMAXPROCS(0); p > 1 {
		threads = append(threads, p)
	}
	for _, t := range threads {
		b.Run(fmt.Sprintf("threads=%d/size=%dMiB", t, size>>20), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				sink += float64(SumParallel(x, t))
			}
		})
	}
}
