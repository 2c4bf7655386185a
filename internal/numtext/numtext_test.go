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

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{
		{1000, "1000 bytes"},
		{12582912000, "11.7 GiB (12582912000 bytes)"},
		{6 << 20, "6 MiB (6291456 bytes)"},
		{math.MaxInt64, "more than 8 EiB"},
	} {
		if got := Bytes(c.b); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}
