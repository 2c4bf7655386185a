package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// process runs the program (TestMain) with args, stdin from in, and
// returns its stderr, exit status and peak resident memory in bytes.
func process(t *testing.T, in io.Reader, args ...string) (string, int, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CVAR_TEST_MAIN="+strings.Join(args, "\n"))
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, io.Discard, &stderr
	err := cmd.Run()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot run the test binary again here (an emulated architecture): %v", err)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// endless is a reader of the same line without end.
type endless struct{ line []byte }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	return n, nil
}

// TestPredictPipeWithinMaxMemory: predict reading rows without end from a
// pipe (-data /dev/stdin) stops at -max-memory with the flag named, and
// the process stays within what it holds on a small file plus the bound,
// dataset.ReadOverhead and readSlack: the collector reclaims the garbage
// of the growing buffers, which would otherwise reach the size of the data.
func TestPredictPipeWithinMaxMemory(t *testing.T) {
	dir := t.TempDir()
	model := dir + "/m.cvar"
	small := write(t, dir, "d.csv", manyClasses(300, 3))
	ok(t, "train", "-data", small, "-no-header", "-epochs", "1", "-o", model)
	const bound = 128 << 20
	args := []string{"predict", "-in", model, "-format", "csv", "-no-header", "-max-memory", "128MiB"}
	msg, code, base := process(t, nil, append(args, "-data", small)...)
	if code != 0 {
		t.Fatalf("predict on %s: exit %d: %s", small, code, msg)
	}
	msg, code, rss := process(t, endless{[]byte("5.1,3.5,1.4,0.2\n")}, append(args, "-data", "/dev/stdin")...)
	t.Logf("predict from a pipe under -max-memory 128MiB: peak resident %s, %s on a small file", numtext.Bytes(rss), numtext.Bytes(base))
	if code != 1 || !strings.Contains(msg, "/dev/stdin:") || !strings.Contains(msg, "-max-memory") {
		t.Errorf("predict from a pipe: exit %d, %q; want 1 and the bound named", code, msg)
	}
	// The race detector's shadow memory multiplies the resident set: the
	// bound is measured without it.
	if limit := base + bound + dataset.ReadOverhead + readSlack; rss > limit && !raceDetector {
		t.Errorf("predict from a pipe under -max-memory 128MiB: peak resident %s, more than %s", numtext.Bytes(rss), numtext.Bytes(limit))
	}
}
