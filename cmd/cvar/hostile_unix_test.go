//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// feedFIFO makes a named pipe in dir and writes head and then content to
// it from a goroutine, content times times (forever when times < 0, until the reader closes
// it); the cleanup ends a writer whose reader never came or stopped.
func feedFIFO(t *testing.T, dir, name, head, content string, times int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		if _, err := w.Write([]byte(head)); err != nil {
			return
		}
		b := []byte(content)
		for i := 0; times < 0 || i < times; i++ {
			if _, err := w.Write(b); err != nil {
				return // the reader closed the pipe
			}
		}
	}()
	t.Cleanup(func() {
		// Opening the read end wakes a writer still waiting for a reader;
		// closing it makes the writer's next write fail.
		if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		<-done
	})
	return p
}

// TestHostileFIFO: data and model files that are named pipes: bad rows
// and rows without end read from a pipe fail as from a file, within
// -max-memory; -stream, which reads its file several times, and -force
// over a pipe are refused without opening it.
func TestHostileFIFO(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", write(t, dir, "d.csv", csvRows(60)), "-epochs", "1", "-o", model)
	rows := strings.Repeat("0,1,0\n1,0,1\n", 1<<16)
	mib := endlessMiB()
	for _, c := range []struct {
		row        hostileRow
		fifo       string
		head, feed string
		times      int
	}{
		{hostileRow{name: "bad row", args: []string{"predict", "-in", model, "-format", "csv"}, code: 1, want: []string{`nan.pipe:2: column 2 ("b"): "NaN" is not a finite number`}}, "nan.pipe", "a,b\n", "1,NaN\n", 1},
		{hostileRow{name: "endless rows", args: []string{"train", "-format", "csv", "-max-memory", fmt.Sprintf("%dMiB", mib)}, code: 1,
			want: []string{fmt.Sprintf("more than the bound of %d MiB", mib), "(-max-memory)"}, at: `rows\.pipe:\d+: `}, "rows.pipe", "a,b,y\n", rows, -1},
		{hostileRow{name: "model from a pipe", args: []string{"eval", "-data", filepath.Join(dir, "d.csv"), "-in"}, code: 1, want: []string{"model.pipe: not a cvar model file"}}, "model.pipe", "a,b,y\n", "1,2,0\n", 1},
	} {
		p := feedFIFO(t, dir, c.fifo, c.head, c.feed, c.times)
		r := c.row
		if r.args[len(r.args)-1] == "-in" {
			r.args = append(r.args, p)
		} else {
			r.args = append(r.args, "-data", p)
		}
		runHostile(t, dir, []hostileRow{r})
	}
	idle := filepath.Join(dir, "idle.pipe")
	if err := syscall.Mkfifo(idle, 0o644); err != nil {
		t.Fatal(err)
	}
	runHostile(t, dir, []hostileRow{
		{name: "-stream on a pipe", args: []string{"train", "-stream", "-method", "alg1", "-format", "csv", "-data", idle}, code: 1, want: []string{idle, "not a regular file", "-stream"}},
		{name: "-o a pipe", args: []string{"train", "-n", "300", "-epochs", "1", "-o", idle, "-force"}, code: 1, want: []string{idle + " is a named pipe, not a regular file"}},
	})
}
