// Package heappeak measures how far the Go heap grows while a function
// runs. The tests of the memory bounds of cvar's readers and commands
// share it.
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Of runs fn and returns the largest growth of the heap's objects over
// their size at the start. Objects live or not yet swept count
// (runtime/metrics). It samples every 100 µs.
func Of(fn func()) int64 {
	const name = "/memory/classes/heap/objects:bytes"
	read := func(s []metrics.Sample) int64 {
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	runtime.GC()
	base := read([]metrics.Sample{{Name: name}})
	var peak atomic.Int64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: name}}
		for {
			if v := read(s); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	return peak.Load() - base
}
