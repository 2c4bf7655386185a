package numtext

import (
	"math"
	"testing"
)

func TestShort(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{math.NaN(), "-"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{0, "0"},
		{1.23456, "1.235"},
		{-0.000123456, "-0.0001235"},
		{123456, "1.235e+05"},
	} {
		if got := Short(c.v); got != c.want {
			t.Errorf("Short(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
