//go:build !race

package main

// raceDetector reports whether the tests run under the race detector,
// which slows reading some tenfold.
const raceDetector = false
