//go:build unix

package main

import (
	"bytes"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "pred.csv")
	os.WriteFile(out, []byte("old"), 0o644)
	err := writeNew(out, true, nil, func(w io.Writer) error {
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
	t.Parallel()
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
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "rows.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	fails(t, 1, []string{fifo, "not a regular file", "-stream"}, "train", "-stream", "-method", "alg1", "-data", fifo)
}

// TestOutputNeverReplacesInput: an output path that names an input — the
// same name, a symbolic link to it, a hard link to it, a file of an input
// directory — is refused even with -force, by every command and output
// flag, and the input is left as it was.
func TestOutputNeverReplacesInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := write(t, dir, "d.csv", classCSV(120, 1, true))
	test := write(t, dir, "t.csv", classCSV(40, 2, true))
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", data, "-o", model, "-epochs", "1")
	sym := filepath.Join(dir, "sym.csv")
	hard := filepath.Join(dir, "hard.csv")
	hardModel := filepath.Join(dir, "hard.cvar")
	for _, err := range []error{os.Symlink(data, sym), os.Link(data, hard), os.Link(model, hardModel)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	idxDir := filepath.Join(dir, "idx")
	os.Mkdir(idxDir, 0o755)
	images := idxPair(t, idxDir, 30, false)
	plots := filepath.Join(dir, "plots")
	os.Mkdir(plots, 0o755)
	tails := filepath.Join(plots, "d.csv-tails.png")
	if err := os.Link(data, tails); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, p := range []string{data, test, model, images} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}
	quick := []string{"-epochs", "1", "-force"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-data", data, "-o", data}, []string{data + " is the -data file " + data, "even with -force"}},
		{[]string{"train", "-data", sym, "-o", data}, []string{"-data file " + sym}},
		{[]string{"train", "-data", data, "-o", hard}, []string{hard + " is the -data file " + data}},
		{[]string{"train", "-data", data, "-test", test, "-o", test}, []string{"-test file " + test}},
		{[]string{"train", "-data", data, "-stream", "-method", "alg1", "-o", data}, []string{"-data file"}},
		{[]string{"train", "-data", idxDir, "-o", images}, []string{images + " is " + images + " of the -data directory"}},
		{[]string{"predict", "-in", model, "-data", data, "-o", model}, []string{model + " is the -in file " + model}},
		{[]string{"predict", "-in", model, "-data", data, "-o", hardModel}, []string{"-in file " + model}},
		{[]string{"predict", "-in", model, "-data", data, "-o", hard, "-json"}, []string{"-data file " + data}},
		{[]string{"experiment", "-data", data, "-plot", plots, "-seeds", "1", "-lrs", "0.01", "-wds", "0"}, []string{tails + " is the -data file " + data}},
	} {
		args := c.args
		if args[0] != "predict" {
			args = append(args, quick...)
		} else {
			args = append(args, "-force")
		}
		fails(t, 1, c.want, args...)
	}
	for p, b := range before {
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s was changed: %v", p, err)
		}
	}
	// Another name is written, with -force over an existing file.
	other := write(t, dir, "other.cvar", "old")
	ok(t, "train", "-data", data, "-o", other, "-epochs", "1", "-force")
	ok(t, "predict", "-in", other, "-data", data, "-o", filepath.Join(idxDir, "pred.csv"))
}
