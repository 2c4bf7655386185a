package main

import (
	"math"
	"runtime/debug"
	rtmetrics "runtime/metrics"

	"github.com/cvarlearn/cvar/dataset"
)

// readSlack is the memory beyond -max-memory and dataset.ReadOverhead that
// a read may take: the garbage of the buffers the collector has yet to
// reclaim and the freed pages not yet returned to the OS. The soft limit
// aims at readAim beyond the bound; a collector that lags behind a fast
// reader (on a busy machine) passes it by a few tens of MiB.
const (
	readSlack = 64 << 20
	readAim   = 8 << 20
)

// readWithin runs read, a reading of data that -max-memory bounds (bound),
// under a soft memory limit (debug.SetMemoryLimit) of what the process
// holds when it starts, the bound, dataset.ReadOverhead and readAim, and
// then restores the limit it found. The readers hold at most the bound and
// ReadOverhead; the limit makes the collector reclaim the arrays a growing
// buffer outgrew before the process passes it, where by default their
// garbage may reach the size of what is live (GOGC 100), so that reading a
// pipe or a file stays within what the process held, the bound,
// ReadOverhead and readSlack. No bound (0), or a tighter limit already
// set (GOMEMLIMIT), leaves the limit as it is. The limit is the process's:
// the command reads one file at a time, and reads that overlapped would
// restore each other's limits out of order.
func readWithin(bound byteSize, read func() error) error {
	if bound == 0 {
		return read()
	}
	s := []rtmetrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	rtmetrics.Read(s)
	held := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	limit := held
	for _, v := range []int64{int64(bound), dataset.ReadOverhead, readAim} {
		if limit > math.MaxInt64-v {
			return read()
		}
		limit += v
	}
	if prev := debug.SetMemoryLimit(-1); limit < prev {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	return read()
}
