//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bench

import "time"

// ProcessCPU returns 0 and false: this OS's CPU time is not read.
func ProcessCPU() (time.Duration, bool) { return 0, false }
