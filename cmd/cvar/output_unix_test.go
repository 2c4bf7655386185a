//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestForceOnlyRegularFiles: -force replaces regular files only; a named
// pipe, a directory or a device at the output path is refused, before any
// training, and left as it was.
func TestForceOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.cvar")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	fails(t, 1, []string{fifo, "named pipe", "not a regular file"}, "train", "-n", "300", "-epochs", "1", "-o", fifo, "-force")
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v, %v", st.Mode(), err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	fails(t, 1, []string{sub, "directory", "not a regular file"}, "train", "-n", "300", "-epochs", "1", "-o", sub, "-force")
	if _, err := os.Stat("/dev/full"); err == nil {
		fails(t, 1, []string{"/dev/full", "character device"}, "train", "-n", "300", "-epochs", "1", "-o", "/dev/full", "-force")
		if st, err := os.Lstat("/dev/full"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/full is no longer a device: %v, %v", st.Mode(), err)
		}
	}
	// Figures of experiment too.
	plots := filepath.Join(dir, "plots")
	os.Mkdir(plots, 0o755)
	curves := filepath.Join(plots, "synthetic-classification-curves.png")
	if err := syscall.Mkfifo(curves, 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{curves, "not a regular file"}, "experiment", "-n", "300", "-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-plot", plots, "-force")
}

// TestFailedWriteLeavesNothing: a write that fails (a read-only directory)
// names the user's path, not the temporary file, and leaves no file behind.
func TestFailedWriteLeavesNothing(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	out := filepath.Join(ro, "m.cvar")
	fails(t, 1, []string{out, "permission denied"}, "train", "-n", "300", "-epochs", "1", "-o", out)
	if names, _ := os.ReadDir(ro); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}

// TestFailedRenameNamesPath: a rename that fails names the path the user
// gave, and the temporary file is removed.
func TestFailedRenameNamesPath(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "pred.csv")
	os.WriteFile(out, []byte("old"), 0o644)
	err := writeNew(out, true, func(w io.Writer) error {
		// Replace the regular file with a directory after the check:
		// the rename then fails.
		os.Remove(out)
		os.Mkdir(out, 0o755)
		os.WriteFile(filepath.Join(out, "x"), nil, 0o644)
		_, err := w.Write([]byte("new"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "cannot replace "+out+":") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %v; want one naming %s and not the temporary file", err, out)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
}
