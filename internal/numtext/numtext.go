// Package numtext formats numbers for the text tables that the library's
// reports and the commands print, so that both print a value alike.
package numtext

import (
	"math"
	"strconv"
)

// Short formats v to 4 significant digits (strconv's 'g' format), "-"
// for NaN (a metric with no value) and "+Inf" or "-Inf" for infinities.
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
