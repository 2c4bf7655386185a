//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestPredictFromPipe: predict reads its data once, so -data may be a pipe
// (cat f.csv | cvar predict -data /dev/stdin -format csv), with or without
// the target column.
func TestPredictFromPipe(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", write(t, dir, "d.csv", classCSV(120, 1, true)), "-epochs", "1", "-o", model)
	for _, labelled := range []bool{true, false} {
		fifo := filepath.Join(dir, fmt.Sprintf("pipe%v", labelled))
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		content := classCSV(40, 2, labelled)
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			w.WriteString(content)
			w.Close()
		}()
		type result struct {
			out, errOut string
			code        int
		}
		done := make(chan result, 1)
		go func() {
			o, e, c := cli(t, "predict", "-in", model, "-data", fifo, "-format", "csv")
			done <- result{o, e, c}
		}()
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("predict from a pipe: exit %d, %s", r.code, r.errOut)
			}
			if recs := readCSV(t, r.out); len(recs) != 41 || (recs[0][len(recs[0])-1] == "loss") != labelled {
				t.Errorf("predict from a pipe (labelled %v): %d records, header %v", labelled, len(recs), recs[0])
			}
		case <-time.After(30 * time.Second):
			// Unblock the second open, if that is where it hangs.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			t.Fatal("predict from a pipe did not finish: it opens the file twice")
		}
	}
}

// TestStreamRefusesPipe: -stream reads its file several times, so a pipe
// is refused at once instead of yielding an empty second pass.
func TestStreamRefusesPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rows.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	fails(t, 1, []string{fifo, "not a regular file", "-stream"}, "train", "-stream", "-method", "alg1", "-data", fifo)
}
