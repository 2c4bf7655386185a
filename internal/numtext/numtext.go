// Package numtext formats numbers for the text tables and messages of the
// library and the commands. So both print a value alike.
package numtext

import (
	"fmt"
	"math"
	"strconv"
)

// Short formats v to 4 significant digits (strconv's 'g' format). NaN (a
// metric with no value) is "-"; infinities are "+Inf" and "-Inf".
func Short(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Bytes formats a byte count for messages: "11.7 GiB (12582912000 bytes)",
// or "1000 bytes" below 1 KiB.
func Bytes(b int64) string {
	if b == math.MaxInt64 {
		return "more than 8 EiB"
	}
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d bytes", b)
	}
	v, i := float64(b), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.3g %ciB (%d bytes)", v, "KMGTPE"[i], b)
}
