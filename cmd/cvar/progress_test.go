package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLines: on a stderr that is not a terminal, progress prints a
// line with the units done and the time left at most every lineEvery, and
// a last line; a run shorter than lineEvery prints nothing; a stderr that
// is no file (a test's buffer) gets none.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := startProgress(&buf, false, true, "experiment epochs", 10)
	p.now = func() time.Time { return clock }
	p.start, p.drawn = clock, clock
	for i := range 10 {
		clock = clock.Add(2 * time.Second)
		p.add(1)
		if i == 0 && buf.Len() != 0 {
			t.Errorf("a line after 2s: %q", buf.String())
		}
	}
	p.finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		"experiment epochs: 3/10 (30%) in 6s, about 14s left",
		"experiment epochs: 6/10 (60%) in 12s, about 8s left",
		"experiment epochs: 9/10 (90%) in 18s, about 2s left",
		"experiment epochs: 10/10 in 20s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines:\n%s\nwant:\n%s", buf.String(), strings.Join(want, "\n"))
	}

	buf.Reset()
	q := startProgress(&buf, false, true, "training", 3)
	q.add(3)
	q.finish()
	if buf.Len() != 0 {
		t.Errorf("a short run printed %q", buf.String())
	}
	if p := newProgress(&env{stderr: &buf}, "training", 3); p.on {
		t.Error("progress on a stderr that is no file")
	}
}
