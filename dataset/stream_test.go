package dataset

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// drain reads a stream to the end, copying the rows.
func drain[T Float](t *testing.T, s *Stream[T]) (x, y []T, labels []int32) {
	t.Helper()
	for {
		row, yi, li, err := s.Next()
		if err == io.EOF {
			return x, y, labels
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(row) != s.D() {
			t.Fatalf("row of %d values, want %d", len(row), s.D())
		}
		x = append(x, row...)
		y = append(y, yi)
		labels = append(labels, li)
	}
}

func TestCSVStreamMatchesBatch(t *testing.T) {
	t.Parallel()
	const in = "a,b,label\n1,2,-1\n3,4,1\n5,6,1\n7,8,-1\n"
	opt := CSVOptions{Task: Classification}
	ds, err := ReadCSV[float64](strings.NewReader(in), "s.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewCSVStream[float64](strings.NewReader(in), "s.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.D() != 2 || s.Task() != Classification || !slices.Equal(s.Features(), ds.Features) || s.Name() != "s.csv" {
		t.Errorf("D %d task %v features %q", s.D(), s.Task(), s.Features())
	}
	x, y, labels := drain(t, s)
	if !slices.Equal(x, ds.X) || !slices.Equal(labels, ds.Labels) {
		t.Errorf("stream X %v labels %v; batch X %v labels %v", x, labels, ds.X, ds.Labels)
	}
	if !slices.Equal(y, []float64{0, 1, 1, 0}) {
		t.Errorf("y = %v, want the labels as numbers", y)
	}
	// io.EOF is sticky.
	if _, _, _, err := s.Next(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

func TestLIBSVMStreamMatchesBatch(t *testing.T) {
	t.Parallel()
	const in = "0.5 1:1 3:2\n# c\n-1.25 2:4\n3 qid:1 1:-1 2:1 3:1\n"
	opt := LIBSVMOptions{Dim: 3, Task: Regression}
	ds, err := ReadLIBSVM[float32](strings.NewReader(in), "s.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewLIBSVMStream[float32](strings.NewReader(in), "s.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	x, y, _ := drain(t, s)
	// Rows must be zeroed between sparse samples: row 2 has no feature 3.
	if !slices.Equal(x, ds.X) || !slices.Equal(y, ds.Y) {
		t.Errorf("stream X %v y %v; batch X %v y %v", x, y, ds.X, ds.Y)
	}
}

func TestStreamReusesBuffer(t *testing.T) {
	t.Parallel()
	s, err := NewCSVStream[float64](strings.NewReader("a,y\n1,0\n2,1\n"), "b.csv", CSVOptions{Task: Regression})
	if err != nil {
		t.Fatal(err)
	}
	x1, _, _, _ := s.Next()
	x2, _, _, _ := s.Next()
	if &x1[0] != &x2[0] || x2[0] != 2 || s.Line() != 3 {
		t.Errorf("buffer not reused or wrong row: %v %v line %d", x1, x2, s.Line())
	}
}

func TestStreamLabels(t *testing.T) {
	t.Parallel()
	// With imposed classes, labels map through them.
	s, err := NewLIBSVMStream[float64](strings.NewReader("b 1:1\na 1:1\nc 1:1\n"), "c.svm",
		LIBSVMOptions{Dim: 1, Classes: []string{"b", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, l, _ := s.Next(); l != 0 {
		t.Errorf("label b → %d, want 0", l)
	}
	if _, _, l, _ := s.Next(); l != 1 {
		t.Errorf("label a → %d, want 1", l)
	}
	_, _, _, err = s.Next()
	wantErr(t, err, "c.svm:3:", `label "c"`, `["b" "a"]`)
	// Errors are sticky.
	if _, _, _, err2 := s.Next(); err2 != err {
		t.Errorf("after an error: %v", err2)
	}

	// Without, ±1 become 0/1 and 0..K-1 stay.
	s, _ = NewLIBSVMStream[float64](strings.NewReader("+1\n-1\n1\n"), "pm.svm", LIBSVMOptions{Dim: 1})
	_, _, labels := drain(t, s)
	if !slices.Equal(labels, []int32{1, 0, 1}) {
		t.Errorf("±1 labels → %v", labels)
	}
	s, _ = NewLIBSVMStream[float64](strings.NewReader("1\n-1\n0\n"), "mix.svm", LIBSVMOptions{Dim: 1})
	s.Next()
	s.Next()
	_, _, _, err = s.Next()
	wantErr(t, err, "mix.svm:3:", "-1 and 0")
	s, _ = NewCSVStream[float64](strings.NewReader("a,y\n1,cat\n"), "t.csv", CSVOptions{})
	_, _, _, err = s.Next()
	wantErr(t, err, "t.csv:2:", `"cat"`, "Classes")
}

func TestStreamErrors(t *testing.T) {
	t.Parallel()
	_, err := NewLIBSVMStream[float64](strings.NewReader("1 1:1\n"), "d.svm", LIBSVMOptions{})
	wantErr(t, err, "Dim")
	_, err = NewCSVStream[float64](strings.NewReader("a,y\n1,2\n"), "d.csv", CSVOptions{Task: TaskAuto})
	wantErr(t, err, "cannot infer the task")
	_, err = NewCSVStream[float64](strings.NewReader(""), "d.csv", CSVOptions{Task: Regression})
	wantErr(t, err, "d.csv: empty file")

	// The same messages as the batch readers, at the same place.
	const bad = "a,b,y\n1,2,3\n1,x,3\n"
	s, err := NewCSVStream[float64](strings.NewReader(bad), "d.csv", CSVOptions{Task: Regression})
	if err != nil {
		t.Fatal(err)
	}
	s.Next()
	_, _, _, serr := s.Next()
	_, berr := ReadCSV[float64](strings.NewReader(bad), "d.csv", CSVOptions{Task: Regression})
	if serr == nil || berr == nil || serr.Error() != berr.Error() {
		t.Errorf("stream error %v, batch error %v", serr, berr)
	}
	var e *Error
	if !errors.As(serr, &e) || e.Line != 3 || e.Column != 2 {
		t.Errorf("error %#v: want line 3, column 2", e)
	}
	s2, _ := NewLIBSVMStream[float64](strings.NewReader("1 1:1\n1 4:1\n"), "d.svm", LIBSVMOptions{Dim: 3, Task: Regression})
	s2.Next()
	_, _, _, err = s2.Next()
	wantErr(t, err, "d.svm:2:", "index 4 exceeds the dimension 3")
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func TestStreamDoesNotReadAhead(t *testing.T) {
	t.Parallel()
	// 1 MB of data: the stream must not consume it to return the first row.
	var b strings.Builder
	b.WriteString("a,y\n")
	for b.Len() < 1<<20 {
		b.WriteString("1.5,2\n")
	}
	cr := &countingReader{r: strings.NewReader(b.String())}
	s, err := NewCSVStream[float32](cr, "big.csv", CSVOptions{Task: Regression})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if cr.read > 1<<18 {
		t.Errorf("read %d bytes to return one row", cr.read)
	}
}
