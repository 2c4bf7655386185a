package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/heappeak"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// bigGzip writes a gzip file holding head and then pattern repeated to
// about total bytes: gzip members of 1 MiB of pattern, compressed once and
// written again and again, so that a file of a few hundred kilobytes holds
// gigabytes, as a hostile input may.
func bigGzip(t *testing.T, name, head, pattern string, total int) string {
	t.Helper()
	member := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	body := member(strings.Repeat(pattern, (1<<20)/len(pattern)))
	out := member(head)
	for range total >> 20 {
		out = append(out, body...)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// heapPeak runs fn with the collector at GOGC 25, so that the heap
// measured is close to what is live, and returns its peak growth
// (heappeak.Of).
func heapPeak(fn func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	return heappeak.Of(fn)
}

// failsWithin runs the command, which must fail with one line holding
// every wanted substring, and asserts that the heap grew by no more than
// the -max-memory bound, dataset.ReadOverhead, readAim (where the
// command's soft limit aims) and a quarter of the bound for garbage not
// yet reclaimed.
func failsWithin(t *testing.T, bound int64, want []string, args ...string) {
	t.Helper()
	peak := heapPeak(func() { fails(t, 1, want, args...) })
	limit := bound + dataset.ReadOverhead + readAim + bound/4
	t.Logf("cvar %s: heap grew by %s under -max-memory %s", strings.Join(args, " "), numtext.Bytes(peak), numtext.Bytes(bound))
	if peak > limit {
		t.Errorf("cvar %s: the heap grew by %s, more than %s", strings.Join(args, " "), numtext.Bytes(peak), numtext.Bytes(limit))
	}
}

// TestTrainReadsWithinMaxMemory: train, on compressed files of a few
// hundred kilobytes that hold hundreds of megabytes (rows without end, one
// line without end, an IDX header claiming 842 GB), stops within
// -max-memory with one line naming the file, the line and the flag, in
// memory and with -stream; -max-line stops a long line at its line.
func TestTrainReadsWithinMaxMemory(t *testing.T) {
	const bound = 32 << 20
	mm := []string{"-max-memory", "32MiB"}
	rows := bigGzip(t, "rows.csv.gz", "", "0,1\n1,0\n", 256<<20)
	failsWithin(t, bound, []string{"rows.csv.gz:", "bound of 32 MiB", "-max-memory"},
		append([]string{"train", "-data", rows, "-format", "csv", "-no-header", "-precision", "f32"}, mm...)...)
	line := bigGzip(t, "line.csv.gz", "a,y\n", "0", 1<<30)
	failsWithin(t, bound, []string{"line.csv.gz:2:", "bound of 32 MiB", "-max-memory"},
		append([]string{"train", "-data", line}, mm...)...)
	failsWithin(t, 4<<20, []string{"line.csv.gz:2:", "line longer than the limit of 1 MiB", "-max-line"},
		"train", "-data", line, "-max-line", "1MiB")
	failsWithin(t, 4<<20, []string{"line.csv.gz:2:", "line longer than the limit of 1 MiB", "-max-line"},
		"train", "-data", line, "-stream", "-method", "alg1", "-max-line", "1MiB")
	failsWithin(t, bound, []string{"line.csv.gz:2:", "bound of 32 MiB", "-max-memory"},
		append([]string{"train", "-data", line, "-stream", "-method", "alg1"}, mm...)...)
	svm := bigGzip(t, "rows.svm.gz", "", "1 1:1\n0 2:1\n", 256<<20)
	failsWithin(t, bound, []string{"rows.svm.gz:", "bound of 32 MiB", "-max-memory"},
		append([]string{"train", "-data", svm}, mm...)...)
	svmLine := bigGzip(t, "line.svm.gz", "1 1:1\n", "0", 1<<30)
	failsWithin(t, bound, []string{"line.svm.gz:2:", "bound of 32 MiB", "-max-memory"},
		append([]string{"train", "-data", svmLine, "-stream", "-method", "alg1"}, mm...)...)

	dir := t.TempDir()
	header := func(magic uint32, dims ...uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, magic)
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, d)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		return z.Bytes()
	}
	images := filepath.Join(dir, "huge-images-idx3-ubyte.gz")
	os.WriteFile(images, header(0x803, 1<<30, 28, 28), 0o644)
	os.WriteFile(filepath.Join(dir, "huge-labels-idx1-ubyte.gz"), header(0x801, 1<<30), 0o644)
	failsWithin(t, bound, []string{"huge-images-idx3-ubyte.gz: byte 4: header announces 1073741824 images", "-max-memory"},
		append([]string{"train", "-data", images}, mm...)...)
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-o", model)
	failsWithin(t, bound, []string{"huge-images-idx3-ubyte.gz: byte 4", "-max-memory"},
		append([]string{"eval", "-in", model, "-data", images}, mm...)...)
}

// TestPredictReadsWithinMaxMemory: predict reads a CSV file without the
// target column in one pass, within -max-memory, however long the file or
// its lines; empty lines, however many, cost nothing; and a header that
// begins with "BZh" is text, not bzip2.
func TestPredictReadsWithinMaxMemory(t *testing.T) {
	const bound = 32 << 20
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", write(t, dir, "d.csv", classCSV(300, 1, true)), "-epochs", "1", "-o", model)
	rows := bigGzip(t, "unl.csv.gz", "x1,x2,x3\n", "1,2,3\n", 256<<20)
	failsWithin(t, bound, []string{"unl.csv.gz:", "bound of 32 MiB", "-max-memory"},
		"predict", "-in", model, "-data", rows, "-max-memory", "32MiB")
	line := bigGzip(t, "zeros.csv.gz", "x1,x2,x3\n", "0", 1<<30)
	failsWithin(t, bound, []string{"zeros.csv.gz:2:", "bound of 32 MiB", "-max-memory"},
		"predict", "-in", model, "-data", line, "-max-memory", "32MiB")

	empty := bigGzip(t, "empty.csv.gz", "", "\n", 32<<20)
	f, err := os.OpenFile(empty, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte("x1,x2,x3\n1,2,3\n"))
	zw.Close()
	f.Close()
	var out string
	peak := heapPeak(func() { out = ok(t, "predict", "-in", model, "-data", empty) })
	if recs := readCSV(t, out); len(recs) != 2 || recs[1][0] != "1" {
		t.Errorf("predict after 32 MiB of empty lines: %q", out)
	}
	if peak > 2*dataset.ReadOverhead {
		t.Errorf("32 MiB of empty lines grew the heap by %s", numtext.Bytes(peak))
	}

	bzModel := filepath.Join(dir, "bz.cvar")
	ok(t, "train", "-data", write(t, dir, "bzt.csv", strings.Replace(classCSV(60, 1, true), "x1,", "BZh91AY,", 1)), "-epochs", "1", "-o", bzModel)
	bz := write(t, dir, "bz.csv", "BZh91AY,x2,x3\n1,2,3\n4,5,6\n")
	if recs := readCSV(t, ok(t, "predict", "-in", bzModel, "-data", bz)); len(recs) != 3 {
		t.Errorf("predict on a CSV file whose header begins with BZh: %v", recs)
	}
}

// TestBuiltInDataWithinMaxMemory: eval and predict without -data draw the
// model file's built-in data again only within -max-memory.
func TestBuiltInDataWithinMaxMemory(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.cvar")
	ok(t, "train", "-n", "300", "-d", "20", "-epochs", "1", "-o", model)
	for _, cmd := range []string{"eval", "predict"} {
		fails(t, 1, []string{"built-in data of 300 samples × 20 features", "46.9 KiB", "-max-memory"}, cmd, "-in", model, "-max-memory", "10KiB")
	}
	ok(t, "eval", "-in", model, "-max-memory", "1MiB", "-bootstrap", "10")
}

// TestMaxLineFlag: every command that reads data takes -max-line, says in
// its help what -max-memory and -max-line bound, and refuses a value that
// is not a size.
func TestMaxLineFlag(t *testing.T) {
	for _, cmd := range []string{"train", "eval", "predict", "experiment"} {
		help := ok(t, cmd, "-h")
		for _, want := range []string{"-max-line", "-max-memory", "plus 6 MiB", "(default 64MiB)"} {
			if !strings.Contains(help, want) {
				t.Errorf("cvar %s -h lacks %q", cmd, want)
			}
		}
	}
	fails(t, 2, []string{"-max-line", `"lots"`}, "train", "-max-line", "lots")
	dir := t.TempDir()
	data := write(t, dir, "d.csv", classCSV(300, 1, true))
	fails(t, 1, []string{"d.csv:2:", "line longer than the limit of 16 bytes", "-max-line"}, "train", "-data", data, "-max-line", "16")
	ok(t, "train", "-data", data, "-max-line", "0", "-epochs", "1")
}
