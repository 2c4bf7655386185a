package dataset

import "math"

// Moments of values near float64's limit (±1.8e308) overflow: their sum,
// their squares. So once a value passes hugeValue, the fitting functions
// keep a column's moments in units of a power of two. The unit is 2^k,
// with k chosen so that the column's values are below 1 in it. Below
// hugeValue the plain arithmetic is kept, bit for bit. Powers of two scale
// exactly.

// hugeValue is the magnitude above which moments are kept in units. Below
// it the sum of n < 2^60 values stays below 2^1023. So does the sum of
// their squared deviations, each below (2·2^480)².
const hugeValue = 0x1p480

// unitOf returns 2^-k, the factor that brings values up to m in magnitude
// below 1. It returns 1 when m does not pass hugeValue.
func unitOf(m float64) float64 {
	if !(m > hugeValue) {
		return 1
	}
	_, k := math.Frexp(m)
	return math.Ldexp(1, -k)
}

// units returns, for columns whose values range over [lo[j], hi[j]], the
// factors of unitOf, and whether any is not 1.
func units(lo, hi []float64) ([]float64, bool) {
	inv := make([]float64, len(lo))
	huge := false
	for j := range inv {
		inv[j] = unitOf(max(-lo[j], hi[j]))
		huge = huge || inv[j] != 1
	}
	return inv, huge
}

// zscore returns (x − mean)/scale without overflow. x − mean can pass
// float64's range when both are near its limit; their quotients cannot.
func zscore(x, mean, scale float64) float64 {
	if e := x - mean; !math.IsInf(e, 0) {
		return e / scale
	}
	return x/scale - mean/scale
}
