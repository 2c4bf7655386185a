package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// checkRead asserts the readers' contract on arbitrary input: no panic, and
// either one *Error or a dataset that passes Validate.
func checkRead[T Float](t *testing.T, ds *Dataset[T], err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		if ds != nil {
			t.Fatal("both a dataset and an error")
		}
		return
	}
	if err := ds.Validate(); err != nil {
		t.Fatalf("dataset read without error fails Validate: %v", err)
	}
	if ds.N == 0 {
		t.Fatal("empty dataset read without error")
	}
}

// checkStream asserts that a stream yields the batch reader's rows, or
// fails with the batch reader's error.
func checkStream[T Float](t *testing.T, s *Stream[T], err error, ds *Dataset[T], berr error) {
	t.Helper()
	var x, y []T
	for err == nil {
		var row []T
		var yi T
		row, yi, _, err = s.Next()
		if err == nil {
			x = append(x, row...)
			y = append(y, yi)
		}
	}
	switch {
	case berr != nil:
		// The batch reader may also fail at the end ("no data rows").
		if err != io.EOF && err.Error() != berr.Error() {
			t.Fatalf("stream error %q, batch error %q", err, berr)
		}
	case err != io.EOF:
		t.Fatalf("stream error %v; batch reader succeeded", err)
	case !slices.Equal(x, ds.X) || !slices.Equal(y, ds.Y):
		t.Fatalf("stream rows %v %v, batch %v %v", x, y, ds.X, ds.Y)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,y\n1,2,3\n4,5,6\n",
		"a,b,y\n1,2,x\n4,5,y\n",
		"a,b\n1,\"2\"\n",
		"a,b,y\n1,2\n",
		"a;b\n1;NaN\n",
		"\xef\xbb\xbfa,b\n1e5,-0\n",
		"a,b,y\n1,\"2\n3\",0\n",
		"",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, noHeader bool) {
		opt := CSVOptions{NoHeader: noHeader, Task: TaskAuto}
		ds32, err := ReadCSV[float32](strings.NewReader(in), "fuzz.csv", opt)
		checkRead(t, ds32, err)

		opt.Task = Regression
		ds, berr := ReadCSV[float64](strings.NewReader(in), "fuzz.csv", opt)
		checkRead(t, ds, berr)
		s, err := NewCSVStream[float64](strings.NewReader(in), "fuzz.csv", opt)
		if err != nil {
			if berr == nil || err.Error() != berr.Error() {
				t.Fatalf("stream construction error %v, batch error %v", err, berr)
			}
			return
		}
		checkStream(t, s, nil, ds, berr)
	})
}

func FuzzReadLIBSVM(f *testing.F) {
	for _, s := range []string{
		"+1 1:0.5 3:-2\n-1 2:1\n",
		"0.5 qid:3 1:1 # c\n\n2.5 2:3\n",
		"1 0:1\n",
		"1 2:1 1:1\n",
		"1 3:x\n",
		"a 1:1\nb 2:2\n",
		"1 1:1e40\n",
		"0 1048576:1\n1 1:1\n0 1048576:1\n1 1:1\n",
		"1\n0\n",
		"a,b,y\n1,2,0\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// The default dimension bound (DefaultMaxDim): a small MaxBytes
		// keeps a stray large index from allocating much, as the default
		// one does for real files.
		opt := LIBSVMOptions{MaxBytes: 1 << 22, Task: TaskAuto}
		ds32, err := ReadLIBSVM[float32](strings.NewReader(in), "fuzz.svm", opt)
		checkRead(t, ds32, err)

		opt.Task = Regression
		ds, berr := ReadLIBSVM[float64](strings.NewReader(in), "fuzz.svm", opt)
		checkRead(t, ds, berr)
		if berr != nil {
			return // without the batch's dimension there is no stream to compare
		}
		opt.Dim = max(ds.D, 1)
		s, err := NewLIBSVMStream[float64](strings.NewReader(in), "fuzz.svm", opt)
		if err != nil {
			t.Fatal(err)
		}
		if ds.D == 0 { // all rows empty: the stream has one zero feature
			ds.D, ds.X = 1, make([]float64, ds.N)
		}
		checkStream(t, s, nil, ds, nil)
	})
}

func FuzzReadIDX(f *testing.F) {
	header := func(magic uint32, dims ...uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, magic)
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, d)
		}
		return b
	}
	img := append(header(idxImagesMagic, 3, 2, 2), 0, 50, 100, 150, 200, 250, 1, 2, 3, 4, 5, 6)
	lbl := append(header(idxLabelsMagic, 3), 0, 1, 2)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(img)
	zw.Close()
	f.Add(img, lbl, 0, false)
	f.Add(img, lbl, 2, true)
	f.Add(gz.Bytes(), lbl, 0, false)
	f.Add(img[:10], lbl, 0, false)
	f.Add(lbl, img, 0, false)
	f.Add(header(idxImagesMagic, 1<<31, 28, 28), header(idxLabelsMagic, 1<<31), 0, false)
	f.Add(header(idxImagesMagic, 3, 28, 0), lbl, 0, false)
	f.Fuzz(func(t *testing.T, images, labels []byte, limit int, classes bool) {
		opt := IDXOptions{Limit: max(limit, 0) % 100, MaxBytes: 1 << 22}
		if classes {
			opt.Classes = []string{"0", "1", "2"}
		}
		ds, err := ReadIDX[float32](bytes.NewReader(images), bytes.NewReader(labels), "img", "lbl", opt)
		checkRead(t, ds, err)
		if err == nil && (ds.D < 1 || len(ds.Labels) != ds.N || opt.Limit > 0 && ds.N > opt.Limit) {
			t.Fatalf("%d images of %d pixels, %d labels, limit %d", ds.N, ds.D, len(ds.Labels), opt.Limit)
		}
	})
}

// FuzzCSVScanner: csvScanner splits records as encoding/csv does, with the
// same fields, positions and errors.
func FuzzCSVScanner(f *testing.F) {
	for _, s := range []string{
		"a,b,y\n1,2,3\n4,5,6\n",
		"a,b\n1,\"2\"\n",
		"a,b,y\n1,\"2\n3\",0\n",
		"a,\"b\"\"c\",d\r\n\n# x\n1,2,3",
		"a,b\n1,2\"\n",
		"a,b\n\"1\"x,2\n",
		"a,b\n\"1,2\n",
		"a;b\n1;2\r",
		"a,b\n1,2,3\n",
	} {
		f.Add(s, byte(','), byte('#'))
		f.Add(s, byte(';'), byte(0))
	}
	f.Fuzz(func(t *testing.T, in string, comma, comment byte) {
		c, k := rune(comma), rune(comment)
		if c == k || !validDelim(c) || k != 0 && !validDelim(k) || c >= 0x80 || k >= 0x80 {
			return
		}
		cr := csv.NewReader(strings.NewReader(in))
		cr.Comma, cr.Comment = c, k
		sc := &csvScanner{br: bufio.NewReader(strings.NewReader(in)), comma: c, comment: k, b: newBudget("f", -1), maxLine: math.MaxInt64}
		for {
			rec, werr := cr.Read()
			gerr := sc.read()
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("encoding/csv: %v; csvScanner: %v", werr, gerr)
			}
			if werr != nil {
				return
			}
			if len(rec) != sc.fields {
				t.Fatalf("%d fields, csvScanner %d", len(rec), sc.fields)
			}
			for j, want := range rec {
				line, col := cr.FieldPos(j)
				if got := string(sc.field(j)); got != want || sc.pos[j] != (fieldPos{line, col}) {
					t.Fatalf("field %d: %q at %d:%d, csvScanner %q at %v", j, want, line, col, got, sc.pos[j])
				}
			}
		}
	})
}
