//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time the process has used so
// far, and true. Where the OS does not say, it returns 0 and false. Beside
// wall time it shows how much of a core a measurement got on a busy
// machine.
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
