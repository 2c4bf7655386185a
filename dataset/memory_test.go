package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/heappeak"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// repeatReader reads pattern over and over, forever, without allocating:
// input that never ends, as a pipe from yes or /dev/zero.
type repeatReader struct {
	pattern []byte
	off     int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.pattern[r.off:])
		n += k
		r.off = (r.off + k) % len(r.pattern)
	}
	return n, nil
}

// forever returns head followed by pattern, without end.
func forever(head, pattern string) io.Reader {
	return io.MultiReader(strings.NewReader(head), &repeatReader{pattern: []byte(pattern)})
}

// endlessGzip returns a gzip stream that never ends: gzip members of head
// (the first) and of 1 MiB of pattern (then forever), which gzip.Reader
// reads as one stream, at little cost to compress.
func endlessGzip(t testing.TB, head, pattern string) io.Reader {
	member := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := io.WriteString(zw, s); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	body := strings.Repeat(pattern, (1<<20)/len(pattern))
	return io.MultiReader(bytes.NewReader(member(head)), &repeatReader{pattern: member(body)})
}

// heapPeak is heappeak.Of: the heap's peak growth while fn runs.
func heapPeak(fn func()) int64 { return heappeak.Of(fn) }

// testBound is the MaxBytes of the endless-input tests: 64 MiB, or 16 MiB
// with -short, where the same properties are asserted on less input.
func testBound() int64 {
	if testing.Short() {
		return 16 << 20
	}
	return 64 << 20
}

// withinBound asserts that err stops reading at a line, for the bound,
// and that the heap grew by no more than the bound, ReadOverhead and a
// quarter of the bound for garbage that the collector (run at GOGC 25 in
// these tests) has not yet reclaimed.
func withinBound(t *testing.T, err error, peak, bound int64, sentinel error) {
	t.Helper()
	var e *Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) {
		t.Fatalf("error %v; want an *Error wrapping %v", err, sentinel)
	}
	if e.Line < 1 {
		t.Errorf("error %q names no line", err)
	}
	if sentinel == ErrTooLarge && !strings.Contains(err.Error(), "bound of "+numtext.Bytes(bound)) {
		t.Errorf("error %q does not name the bound %s", err, numtext.Bytes(bound))
	}
	limit := bound + ReadOverhead + bound/4
	t.Logf("peak heap growth %s under a bound of %s (limit %s): %v", numtext.Bytes(peak), numtext.Bytes(bound), numtext.Bytes(limit), err)
	if peak > limit {
		t.Errorf("the heap grew by %s, more than %s", numtext.Bytes(peak), numtext.Bytes(limit))
	}
}

// lowGC runs the test's collector at GOGC 25, so that the heap measured is
// close to what is live. A soft memory limit at withinBound's limit makes
// the collector catch up before garbage alone crosses it, which on a busy
// machine it may not: a reader holding more than the limit still fails.
func lowGC(t *testing.T) {
	old := debug.SetGCPercent(25)
	bound := testBound()
	oldLimit := debug.SetMemoryLimit(bound + ReadOverhead + bound/4)
	t.Cleanup(func() {
		debug.SetGCPercent(old)
		debug.SetMemoryLimit(oldLimit)
	})
}

// TestEndlessInputWithinBound: each reader, given input that never ends
// (rows forever, or one line forever, plain or gzipped), stops with an
// error that names the line reached and the bound, having held no more
// than the bound and ReadOverhead.
func TestEndlessInputWithinBound(t *testing.T) {
	lowGC(t)
	bound := testBound()
	csvRead := func(r io.Reader) error {
		_, err := ReadCSV[float32](r, "in.csv", CSVOptions{MaxBytes: bound})
		return err
	}
	svmRead := func(r io.Reader) error {
		_, err := ReadLIBSVM[float32](r, "in.svm", LIBSVMOptions{MaxBytes: bound, SparseBelow: DefaultSparseBelow})
		return err
	}
	cases := []struct {
		name string
		in   func() io.Reader
		read func(io.Reader) error
	}{
		{"CSV rows", func() io.Reader { return forever("a,y\n", "0,1\n1,0\n") }, csvRead},
		{"CSV line", func() io.Reader { return forever("a,y\n", "0") }, csvRead},
		{"CSV header", func() io.Reader { return forever("", "a,") }, csvRead},
		{"CSV quoted field", func() io.Reader { return forever("a,y\n\"", "1\n") }, csvRead},
		{"gzip CSV rows", func() io.Reader { return endlessGzip(t, "a,y\n", "0,1\n1,0\n") }, csvRead},
		{"gzip CSV line", func() io.Reader { return endlessGzip(t, "a,y\n", "0") }, csvRead},
		{"LIBSVM rows", func() io.Reader { return forever("", "1 1:1\n0 2:1\n") }, svmRead},
		{"LIBSVM line", func() io.Reader { return forever("1 1:1\n", "0") }, svmRead},
		{"LIBSVM pairs", func() io.Reader { return forever("1", " 1:1") }, svmRead},
		{"gzip LIBSVM line", func() io.Reader { return endlessGzip(t, "", "0") }, svmRead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			peak := heapPeak(func() { err = c.read(c.in()) })
			withinBound(t, err, peak, bound, ErrTooLarge)
		})
	}
}

// TestEndlessStreamWithinBound: a stream, which holds one row, stops on a
// line that never ends, within its bound.
func TestEndlessStreamWithinBound(t *testing.T) {
	lowGC(t)
	bound := testBound()
	var err error
	peak := heapPeak(func() {
		s, serr := NewCSVStream[float64](forever("a,y\n1,0\n", "0"), "in.csv", CSVOptions{MaxBytes: bound, Task: Classification})
		if serr != nil {
			err = serr
			return
		}
		if _, _, _, err = s.Next(); err != nil {
			t.Fatalf("first row: %v", err)
		}
		_, _, _, err = s.Next()
	})
	withinBound(t, err, peak, bound, ErrTooLarge)
	err = nil
	peak = heapPeak(func() {
		s, serr := NewLIBSVMStream[float64](endlessGzip(t, "1 1:1\n", "0"), "in.svm", LIBSVMOptions{Dim: 3, MaxBytes: bound, Task: Classification})
		if serr != nil {
			t.Fatal(serr)
		}
		for rows := 0; err == nil; rows++ {
			_, _, _, _, err = s.NextSparse()
		}
	})
	withinBound(t, err, peak, bound, ErrTooLarge)
}

// TestMaxLine: a line longer than MaxLine is an error naming its line, in
// every text reader, before the memory bound is reached.
func TestMaxLine(t *testing.T) {
	t.Parallel()
	long := "1 1:1\n0 2:1\n1 3:1 #" + strings.Repeat("x", 2000) + "\n"
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"CSV", func() error {
			_, err := ReadCSV[float64](forever("a,y\n1,0\n", "0"), "in.csv", CSVOptions{MaxLine: 1000})
			return err
		}},
		{"CSV quoted", func() error {
			_, err := ReadCSV[float64](forever("a,y\n1,0\n\"", "1\n"), "in.csv", CSVOptions{MaxLine: 1000})
			return err
		}},
		{"CSV stream", func() error {
			_, err := NewCSVStream[float64](forever("", "a,"), "in.csv", CSVOptions{MaxLine: 1000, Task: Regression})
			return err
		}},
		{"LIBSVM", func() error {
			_, err := ReadLIBSVM[float64](strings.NewReader(long), "in.csv", LIBSVMOptions{MaxLine: 1000})
			return err
		}},
		{"LIBSVMDim", func() error {
			_, err := LIBSVMDim(strings.NewReader(long), "in.csv", LIBSVMOptions{MaxLine: 1000})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.read()
			var e *Error
			if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &e) || e.Line < 1 || !strings.Contains(err.Error(), "1000 bytes") {
				t.Fatalf("error %v; want an *Error wrapping ErrLineTooLong with a line and the limit", err)
			}
			if c.name == "LIBSVM" && e.Line != 3 {
				t.Errorf("error %q; want line 3", err)
			}
		})
	}
	// The limit allows lines up to it, and a negative one none.
	if ds, err := ReadLIBSVM[float64](strings.NewReader(long), "in.svm", LIBSVMOptions{MaxLine: int64(len(long))}); err != nil || ds.N != 3 {
		t.Errorf("lines within the limit: %v", err)
	}
	if _, err := ReadCSV[float64](strings.NewReader("a,y\n"+strings.Repeat("0", 2000)+"1,0\n"), "in.csv", CSVOptions{MaxLine: -1}); err != nil {
		t.Errorf("no line limit: %v", err)
	}
}

// idxHeader is the header of an IDX image file announcing n images of
// rows×cols pixels, and nothing after it.
func idxHeader(n, rows, cols uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, idxImagesMagic)
	for _, v := range []uint32{n, rows, cols} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// TestIDXHeaderWithinBound: an IDX header announcing 2^30 images of 28×28
// pixels (a file of 842 GB), plain, gzipped or bzip2-compressed, is refused
// against the bound before anything is read or allocated, naming the file;
// and so is a label file announcing more labels than the bound allows.
func TestIDXHeaderWithinBound(t *testing.T) {
	lowGC(t)
	bound := testBound()
	header := idxHeader(1<<30, 28, 28)
	// bzip2 -9 of header, which compress/bzip2 cannot write.
	bz, err := hex.DecodeString("425a6839314159265359c36861430000026400584000044000200030c0087a47a2206e278d177245385090c3686143")
	if err != nil {
		t.Fatal(err)
	}
	labels := idxLabelFile(1, 2)
	for name, images := range map[string][]byte{"plain": header, "gzip": gz(header), "bzip2": bz} {
		t.Run(name, func(t *testing.T) {
			var err error
			peak := heapPeak(func() {
				_, err = ReadIDX[float32](bytes.NewReader(images), bytes.NewReader(labels), "img.idx", "lbl.idx", IDXOptions{MaxBytes: bound})
			})
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "img.idx: byte 4: header announces 1073741824 images of 784 bytes") ||
				!strings.Contains(err.Error(), "bound of "+numtext.Bytes(bound)) {
				t.Fatalf("error %v; want the header's claim against the bound", err)
			}
			if peak > ReadOverhead {
				t.Errorf("the heap grew by %s, more than %s", numtext.Bytes(peak), numtext.Bytes(ReadOverhead))
			}
		})
	}
	// Images that fit, and a label file announcing 2^30 labels.
	lbl := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, idxLabelsMagic), 1<<30)
	_, err = ReadIDX[float32](bytes.NewReader(idxImages(2, 2, 2)), bytes.NewReader(lbl), "img.idx", "lbl.idx", IDXOptions{MaxBytes: bound})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "lbl.idx: byte 4: header announces 1073741824 labels") {
		t.Errorf("label file: %v", err)
	}
}

// TestNilReaders: a nil io.Reader is an error naming the input, not a panic.
func TestNilReaders(t *testing.T) {
	t.Parallel()
	var r io.Reader
	_, e1 := ReadCSV[float64](r, "a.csv", CSVOptions{})
	_, _, e2 := ReadCSVTargetOptional[float64](r, "a.csv", 2, CSVOptions{})
	_, e3 := ReadLIBSVM[float64](r, "a.svm", LIBSVMOptions{})
	_, e4 := ReadIDX[float64](r, strings.NewReader(""), "i.idx", "l.idx", IDXOptions{})
	_, e5 := ReadIDX[float64](strings.NewReader(""), r, "i.idx", "l.idx", IDXOptions{})
	_, e6 := NewCSVStream[float64](r, "a.csv", CSVOptions{Task: Regression})
	_, e7 := NewLIBSVMStream[float64](r, "a.svm", LIBSVMOptions{Dim: 2, Task: Regression})
	_, e8 := LIBSVMDim(r, "a.svm", LIBSVMOptions{})
	for i, c := range []struct {
		err  error
		name string
	}{{e1, "a.csv"}, {e2, "a.csv"}, {e3, "a.svm"}, {e4, "i.idx"}, {e5, "l.idx"}, {e6, "a.csv"}, {e7, "a.svm"}, {e8, "a.svm"}} {
		var e *Error
		if !errors.As(c.err, &e) || e.File != c.name || !strings.Contains(c.err.Error(), "nil io.Reader") {
			t.Errorf("reader %d: error %v; want an *Error naming %s", i+1, c.err, c.name)
		}
	}
}

// TestEmptyLinesHoldNothing: empty lines, which a CSV reader skips, cost no
// memory however many there are: 12 MiB of them before the header and
// between rows leave the heap as it was, give or take ReadOverhead.
func TestEmptyLinesHoldNothing(t *testing.T) {
	lowGC(t)
	blank := func() io.Reader { return io.LimitReader(&repeatReader{pattern: []byte("\n")}, 4<<20) }
	var ds *Dataset[float64]
	var has bool
	var err error
	peak := heapPeak(func() {
		in := io.MultiReader(blank(), strings.NewReader("a,b\n1,2\n"), blank(), strings.NewReader("3,4\n"), blank())
		ds, has, err = ReadCSVTargetOptional[float64](in, "e.csv", 2, CSVOptions{})
	})
	if err != nil || has || ds.N != 2 || ds.X[3] != 4 {
		t.Fatalf("%v, target %v, %v", ds, has, err)
	}
	if peak > ReadOverhead {
		t.Errorf("12 MiB of empty lines grew the heap by %s, more than %s", numtext.Bytes(peak), numtext.Bytes(ReadOverhead))
	}
}
