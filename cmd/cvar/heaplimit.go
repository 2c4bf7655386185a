package main

import (
	"math"
	"runtime/debug"
	rtmetrics "runtime/metrics"

	"github.com/cvarlearn/cvar/dataset"
)

// readSlack is the memory beyond -max-memory and dataset.ReadOverhead that
// a read may take. It is the garbage of the buffers the collector has yet
// to reclaim, and the freed pages not yet returned to the OS. The soft
// limit aims at readAim beyond the bound. A collector that lags behind a
// fast reader (on a busy machine) passes it by a few tens of MiB.
const (
	readSlack = 64 << 20
	readAim   = 8 << 20
)

// readWithin runs read, a reading of data that -max-memory bounds (bound).
// It runs it under a soft memory limit (debug.SetMemoryLimit). The limit
// is what the process holds when it starts, plus the bound,
// dataset.ReadOverhead and readAim. readWithin then restores the limit it
// found. The readers hold at most the bound and ReadOverhead. The limit
// makes the collector reclaim the arrays a growing buffer outgrew before
// the process passes it. By default their garbage may reach the size of
// what is live (GOGC 100). So reading a pipe or a file stays within what
// the process held, the bound, ReadOverhead and readSlack. No bound (0)
// leaves the limit as it is, and so does a tighter limit already set
// (GOMEMLIMIT). The limit is the process's. The command reads one file at
// a time: reads that overlapped would restore each other's limits out of
// order.
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
