package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: a new file is written whole; an existing one is kept without
// force and replaced with it; an input is never replaced; a failed write
// leaves neither the file nor a temporary one.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Write(path, false, nil, text("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, false, nil, text("two")); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("without force: %v", err)
	}
	if err := Write(path, true, nil, text("three")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "three" {
		t.Errorf("content %q, want three", b)
	}
	if err := Write(path, true, []Input{{Flag: "-data", Path: path}}, text("four")); err == nil || !strings.Contains(err.Error(), "the -data file") {
		t.Errorf("over an input: %v", err)
	}
	failed := filepath.Join(dir, "failed.txt")
	if err := Write(failed, false, nil, func(w io.Writer) error { return errors.New("no room") }); err == nil || !strings.Contains(err.Error(), failed) {
		t.Errorf("failed write: %v", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}
