package main

import (
	"strings"
	"testing"
)

// TestHugeFeatureValues: features near float64's limit (±1.79e308) are
// standardised and trained on, in memory and streamed: their means and
// deviations do not overflow.
func TestHugeFeatureValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 60 {
		sign, y := "", "1"
		if i%3 == 2 {
			sign = "-" // two of three positive: their sum overflows
		}
		if i%2 == 0 {
			y = "0"
		}
		b.WriteString(sign + "1.79e308," + strings.Repeat("1", 1+i%3) + "," + y + "\n")
	}
	path := write(t, dir, "huge.csv", b.String())
	for _, args := range [][]string{
		{"train", "-data", path, "-epochs", "2"},
		{"train", "-data", path, "-stream", "-method", "alg1"},
		{"train", "-data", path, "-scale", "maxabs", "-epochs", "2"},
	} {
		if out := ok(t, args...); !strings.Contains(out, "logistic on 2 features") {
			t.Errorf("cvar %s: %q", strings.Join(args, " "), out)
		}
	}
}
