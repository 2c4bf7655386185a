package main

import (
	"bytes"
	"os"
	"path/filepath"
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

// TestOutputRules: cvargen writes its file as cvar does: never over an
// existing file without -force, only over a regular file with it, and
// never a partial file; -h prints to stdout and exits with status 0.
func TestOutputRules(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "text.svm")
	small := []string{"-n", "20", "-d", "100", "-nnz", "3", "-o", out}
	var o, e bytes.Buffer
	if rc := run(small, &o, &e); rc != 0 {
		t.Fatalf("exit %d: %s", rc, e.String())
	}
	first, _ := os.ReadFile(out)
	e.Reset()
	if rc := run(append(small, "-seed", "2"), &o, &e); rc != 1 || !strings.Contains(e.String(), "already exists") || !strings.Contains(e.String(), "-force") {
		t.Errorf("over an existing file: exit %d, stderr %q", rc, e.String())
	}
	if now, _ := os.ReadFile(out); !bytes.Equal(now, first) {
		t.Error("the existing file changed without -force")
	}
	if rc := run(append(small, "-seed", "2", "-force"), &o, &e); rc != 0 {
		t.Errorf("-force: exit %d, stderr %q", rc, e.String())
	}
	if now, _ := os.ReadFile(out); bytes.Equal(now, first) {
		t.Error("-force did not replace the file")
	}
	e.Reset()
	if rc := run([]string{"-n", "20", "-d", "100", "-nnz", "3", "-force", "-o", dir}, &o, &e); rc != 1 || !strings.Contains(e.String(), "not a regular file") {
		t.Errorf("-force over a directory: exit %d, stderr %q", rc, e.String())
	}
	e.Reset()
	if rc := run([]string{"-n", "20", "-d", "100", "-nnz", "3", "-o", filepath.Join(dir, "no", "x.svm")}, &o, &e); rc != 1 || !strings.Contains(e.String(), "does not exist") {
		t.Errorf("missing directory: exit %d, stderr %q", rc, e.String())
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
	o.Reset()
	e.Reset()
	if rc := run([]string{"-h"}, &o, &e); rc != 0 || !strings.Contains(o.String(), "-nnz") || e.Len() != 0 {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", rc, o.String(), e.String())
	}
}
