package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileFlags: sizes that are not positive, or too large to hold, and
// outputs that cannot be written fail with the first line of stderr naming
// the problem, no stack trace and no file written.
func TestHostileFlags(t *testing.T) {
	dir := t.TempDir()
	small := []string{"-n", "5", "-d", "10", "-nnz", "2"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-n", "0", "-o", "-"}, 2, "must be positive"},
		{[]string{"-n", "-1", "-o", "-"}, 2, "must be positive"},
		{[]string{"-d", "0", "-o", "-"}, 2, "must be positive"},
		{[]string{"-zipf", "NaN", "-o", "-"}, 2, "must be positive"},
		{[]string{"-n", "abc", "-o", "-"}, 2, `invalid value "abc" for flag -n`},
		{[]string{"-o", "-", "extra"}, 2, "give the output file with -o FILE"},
		{nil, 2, "give the output file with -o FILE"},
		{append([]string{"-o", "-"}, "-nnz", "5", "-d", "3"), 1, "5 non-zeros a row of 3 features"},
		{append(small, "-zipf", "+Inf", "-o", "-"), 1, "Zipf exponent +Inf"},
		{append(small, "-noise", "0.5", "-o", "-"), 1, "label noise 0.5"},
		{append(small, "-noise", "NaN", "-o", "-"), 1, "label noise NaN"},
		{[]string{"-n", "9000000000", "-nnz", "1", "-o", "-"}, 2, "-n 9000000000"},
		{[]string{"-d", "4000000000", "-o", "-"}, 2, "-d 4000000000"},
		{[]string{"-n", "100000000", "-nnz", "100", "-o", "-"}, 2, "need more than"},
		{append(small, "-o", dir), 1, "already exists"},
		{append(small, "-o", filepath.Join(dir, "nodir", "x.svm")), 1, "does not exist"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != c.code || !strings.Contains(first, c.want) {
			t.Errorf("cvargen %q: exit %d, first line %q; want %d and %q", c.args, code, first, c.code, c.want)
		}
		if s := errb.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			t.Errorf("cvargen %q: a stack trace: %q", c.args, s)
		}
		if out.Len() != 0 {
			t.Errorf("cvargen %q: stdout %q", c.args, out.String())
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}
