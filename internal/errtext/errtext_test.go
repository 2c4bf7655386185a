package errtext

import (
	"errors"
	"testing"
)

// TestPlain: the library packages' prefixes go, at the start or inside.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"cvar: dataset: x":                 "x",
		"batch: labels: bad":               "labels: bad",
		"a.csv: dataset: no rows":          "a.csv: no rows",
		"m.cvar: cvar: invalid: kernel: y": "m.cvar: invalid: y",
		"cvar: a\n  b\r\nc ":               "a; b; c",
		"mycvar: x":                        "mycvar: x",
	} {
		if got := Plain(errors.New(in)); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{"a": "a", " a \n b ": "a; b", "a\r\n\r\nb": "a; b"} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
