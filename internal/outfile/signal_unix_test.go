//go:build unix

package outfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// writeAndWait is the program of TestSignalRemovesTemporary: Write to the
// path in OUTFILE_TEST_WRITE a first line, said on stdout, and then wait
// for a signal.
func writeAndWait(path string) {
	Write(path, false, nil, func(w io.Writer) error {
		io.WriteString(w, "partial\n")
		w.(*bufio.Writer).Flush()
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Minute)
		return nil
	})
}

// TestSignalRemovesTemporary: an interrupt, termination or hangup signal
// during Write ends the program as the signal does, and leaves neither the
// file nor its hidden temporary file.
func TestSignalRemovesTemporary(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.csv")
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OUTFILE_TEST_WRITE="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("cannot run the test binary again here (an emulated architecture): %v", err)
		} else if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "writing\n" {
			cmd.Process.Kill()
			t.Fatalf("the writer said %q, %v", line, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("while writing, %d entries in the directory, want the temporary file", len(entries))
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if err == nil || !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("%v during Write: the program ended with %v, want the signal", sig, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v during Write left %v", sig, entries[0].Name())
		}
	}
}

// TestMain runs writeAndWait instead of the tests when the environment
// names its path.
func TestMain(m *testing.M) {
	if path := os.Getenv("OUTFILE_TEST_WRITE"); path != "" {
		writeAndWait(path)
		os.Exit(3)
	}
	os.Exit(m.Run())
}
