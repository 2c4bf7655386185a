package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHostileFlags: bad flag values exit with status 2 before anything is
// measured, the first line of stderr naming the flag and the value, and no
// stack trace.
func TestHostileFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-prec", "f16"}, `-prec: unknown value "f16"`},
		{[]string{"-threads", "0"}, `-threads: "0" is not a positive count`},
		{[]string{"-threads", "x"}, `-threads: "x" is not a positive count`},
		{[]string{"-sizes", "-5"}, `-sizes: "-5" is not a positive feature count`},
		{[]string{"-sizes", "0"}, `-sizes: "0" is not a positive feature count`},
		{[]string{"-sizes", "1e9x"}, `-sizes: "1e9x"`},
		{[]string{"-epochs", "0"}, "-epochs and -steps must be positive"},
		{[]string{"-steps", "-1"}, "-epochs and -steps must be positive"},
		{[]string{"-sparse-n", "-1"}, "-sparse-n -1"},
		{[]string{"-sparse-d", "10"}, "-sparse-d 10"},
		{[]string{"-stream-mib", "100000000"}, "-stream-mib 100000000"},
		{[]string{"-sparse-n", "1000000000000"}, "-sparse-n 1000000000000"},
		{[]string{"-sections", "nothing"}, `-sections: unknown value "nothing"`},
		{[]string{"-sections", ","}, "-sections: empty list"},
		{[]string{"-models", "svm"}, `-models: unknown value "svm"`},
		{[]string{"-kernels", "sse9"}, `-kernels: unknown value "sse9"`},
		{[]string{"-methods", "alg9"}, `-methods: unknown value "alg9"`},
		{[]string{"-epoch-kernels", "x"}, `-epoch-kernels: unknown value "x"`},
		{[]string{"-time", "xyz"}, `invalid value "xyz" for flag -time`},
		{[]string{"-epochs", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -epochs`},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != 2 || !strings.Contains(first, c.want) {
			t.Errorf("cvarbench %q: exit %d, first line %q; want 2 and %q", c.args, code, first, c.want)
		}
		if s := errb.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			t.Errorf("cvarbench %q: a stack trace: %q", c.args, s)
		}
		if out.Len() != 0 {
			t.Errorf("cvarbench %q: stdout %q", c.args, out.String())
		}
	}
}
