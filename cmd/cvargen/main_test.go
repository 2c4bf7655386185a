package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCvargen(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"-n", "50", "-d", "300", "-nnz", "5", "-o", "-"}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 50 || len(strings.Fields(lines[0])) != 6 {
		t.Fatalf("%d lines, the first %q", len(lines), lines[0])
	}
	for _, args := range [][]string{{}, {"-n", "0", "-o", "-"}, {"-d", "3", "-nnz", "4", "-o", "-"}} {
		errb.Reset()
		if rc := run(args, &out, &errb); rc == 0 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, rc, errb.String())
		}
	}
}
