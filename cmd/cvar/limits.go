package main

import "runtime"

// maxBootstrap is the largest eval -bootstrap: 100 000 resamples give
// percentiles to well within the intervals' own sampling error; more only
// costs time.
const maxBootstrap = 100_000

// threadsFlag checks a -threads value: negative is a usage error, and more
// threads than the cores the program may use (GOMAXPROCS) are clamped to
// them, since more workers only add goroutines. Results do not depend on
// the number of threads, so clamping never changes them. 0 stays 0: all
// cores.
func threadsFlag(n int) (int, error) {
	if n < 0 {
		return 0, usagef("-threads %d must be ≥ 0 (0: all cores)", n)
	}
	return min(n, runtime.GOMAXPROCS(0)), nil
}
