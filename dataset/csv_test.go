package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	t.Parallel()
	const in = "age,height,class\n" +
		"30, 1.80,yes\n" +
		"41,1.65,no\n" +
		"25,1.7e0,yes\n"
	ds, err := ReadCSV[float64](strings.NewReader(in), "people.csv", CSVOptions{Task: TaskAuto})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 2 || ds.Task != Classification || ds.Name != "people.csv" {
		t.Fatalf("got N=%d D=%d task=%v name=%q", ds.N, ds.D, ds.Task, ds.Name)
	}
	if want := []float64{30, 1.8, 41, 1.65, 25, 1.7}; !slices.Equal(ds.X, want) {
		t.Errorf("X = %v, want %v", ds.X, want)
	}
	if want := []string{"age", "height"}; !slices.Equal(ds.Features, want) {
		t.Errorf("Features = %q, want %q", ds.Features, want)
	}
	// Non-numeric labels sort lexicographically: "no" < "yes".
	if want := []string{"no", "yes"}; !slices.Equal(ds.Classes, want) {
		t.Errorf("Classes = %q, want %q", ds.Classes, want)
	}
	if want := []int32{1, 0, 1}; !slices.Equal(ds.Labels, want) {
		t.Errorf("Labels = %v, want %v", ds.Labels, want)
	}
	if ds.Y != nil {
		t.Errorf("Y = %v, want nil for classification", ds.Y)
	}
}

func TestReadCSVTarget(t *testing.T) {
	t.Parallel()
	const in = "y,a,b\n1.5,1,2\n-2.25,3,4\n"
	for _, target := range []string{"y", "0"} {
		ds, err := ReadCSV[float32](strings.NewReader(in), "r.csv", CSVOptions{Target: target, Task: Regression})
		if err != nil {
			t.Fatalf("target %q: %v", target, err)
		}
		if ds.Task != Regression || !slices.Equal(ds.Y, []float32{1.5, -2.25}) || ds.Labels != nil || ds.Classes != nil {
			t.Errorf("target %q: task %v Y %v Labels %v Classes %v", target, ds.Task, ds.Y, ds.Labels, ds.Classes)
		}
		if !slices.Equal(ds.X, []float32{1, 2, 3, 4}) || !slices.Equal(ds.Features, []string{"a", "b"}) {
			t.Errorf("target %q: X %v Features %q", target, ds.X, ds.Features)
		}
	}
}

func TestReadCSVNoHeaderDelimiter(t *testing.T) {
	t.Parallel()
	const in = "# comment\n1;2;-1\n3;4;1\n5;6;-1\n"
	ds, err := ReadCSV[float64](strings.NewReader(in), "x.csv", CSVOptions{NoHeader: true, Comma: ';', Comment: '#', Task: TaskAuto})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 2 || !slices.Equal(ds.Features, []string{"f1", "f2"}) {
		t.Fatalf("N=%d D=%d Features=%q", ds.N, ds.D, ds.Features)
	}
	// Numeric labels sort numerically: -1 → 0, 1 → 1.
	if !slices.Equal(ds.Classes, []string{"-1", "1"}) || !slices.Equal(ds.Labels, []int32{0, 1, 0}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
}

func TestClassOrderNumeric(t *testing.T) {
	t.Parallel()
	// Lexicographic order would put "10" before "2"; numeric order must not.
	in := "a,y\n0,10\n0,2\n0,+1\n0,1.0\n0,2\n"
	ds, err := ReadCSV[float64](strings.NewReader(in), "n.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Classes, []string{"1", "2", "10"}) || !slices.Equal(ds.Labels, []int32{2, 1, 0, 0, 1}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
}

func TestImposedClasses(t *testing.T) {
	t.Parallel()
	in := "a,y\n1,1\n2,-1\n3,+1\n"
	// The training set's mapping had "1" first; it must be kept, and "+1"
	// must match "1" numerically.
	ds, err := ReadCSV[float64](strings.NewReader(in), "test.csv", CSVOptions{Classes: []string{"1", "-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Classes, []string{"1", "-1"}) || !slices.Equal(ds.Labels, []int32{0, 1, 0}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
	_, err = ReadCSV[float64](strings.NewReader(in+"4,7\n"), "test.csv", CSVOptions{Classes: []string{"1", "-1"}})
	wantErr(t, err, "test.csv:5:", `column 2 ("y")`, `label "7"`, `["1" "-1"]`)
	_, err = ReadCSV[float64](strings.NewReader(in), "test.csv", CSVOptions{Classes: []string{"1", "1.0"}})
	wantErr(t, err, "Classes", "twice")
}

func TestInferTask(t *testing.T) {
	t.Parallel()
	cases := []struct {
		targets []string
		want    Task
	}{
		{[]string{"1", "2", "3"}, Classification},
		{[]string{"1.5", "2", "3"}, Regression},
		{[]string{"a", "2.5"}, Classification},
		{numberedNames("", 0, MaxAutoClasses), Classification},
		{numberedNames("", 0, MaxAutoClasses+1), Regression},
	}
	for _, c := range cases {
		var b strings.Builder
		b.WriteString("x,y\n")
		for _, y := range c.targets {
			b.WriteString("0," + y + "\n")
		}
		ds, err := ReadCSV[float64](strings.NewReader(b.String()), "t.csv", CSVOptions{Task: TaskAuto})
		if err != nil {
			t.Fatal(err)
		}
		if ds.Task != c.want {
			t.Errorf("targets %q: task %v, want %v", c.targets, ds.Task, c.want)
		}
		if err := ds.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestReadCSVCompressedAndBOM(t *testing.T) {
	t.Parallel()
	const in = "\xef\xbb\xbfa,b,y\n1,2,0\n3,4,1\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(in))
	zw.Close()
	path := filepath.Join(t.TempDir(), "data.csv.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := LoadCSV[float64](path, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Features[0] != "a" || !slices.Equal(ds.X, []float64{1, 2, 3, 4}) || ds.Name != path {
		t.Errorf("Features %q X %v Name %q", ds.Features, ds.X, ds.Name)
	}
	if _, err := LoadCSV[float64](filepath.Join(t.TempDir(), "missing.csv"), CSVOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		opt  CSVOptions
		want []string
	}{
		{"empty", "", CSVOptions{}, []string{"d.csv: empty file", "header"}},
		{"header only", "a,b,y\n", CSVOptions{}, []string{"d.csv: no data rows after the header"}},
		{"one column", "y\n1\n", CSVOptions{}, []string{"d.csv:1:", "only 1 column"}},
		{"ragged", "a,b,y\n1,2,3\n4,5\n", CSVOptions{}, []string{"d.csv:3:", "2 fields; expected 3"}},
		{"ragged long", "a,b,y\n1,2,3\n4,5,6,7\n", CSVOptions{}, []string{"d.csv:3:", "4 fields; expected 3"}},
		{"not a number", "a,age,y\n1,2,0\n1,abc,0\n", CSVOptions{}, []string{"d.csv:3:", `column 2 ("age")`, `"abc" is not a number`}},
		{"empty cell", "a,b,y\n1,,0\n", CSVOptions{}, []string{"d.csv:2:", `column 2 ("b")`, "empty"}},
		{"NaN feature", "a,b,y\n1,NaN,0\n", CSVOptions{}, []string{"d.csv:2:", `column 2 ("b")`, `"NaN" is not a finite number`}},
		{"Inf feature", "a,b,y\n1,2,0\n-inf,2,0\n", CSVOptions{}, []string{"d.csv:3:", `column 1 ("a")`, "not a finite number"}},
		{"overflow", "a,b,y\n1,1e999,0\n", CSVOptions{}, []string{"d.csv:2:", `column 2 ("b")`, "out of the range of float64"}},
		{"NaN target", "a,b,y\n1,2,nan\n", CSVOptions{}, []string{"d.csv:2:", `column 3 ("y")`, "not a finite number"}},
		{"Inf regression target", "a,b,y\n1,2,Inf\n", CSVOptions{Task: Regression}, []string{"d.csv:2:", `column 3 ("y")`, "not a finite number"}},
		{"text regression target", "a,b,y\n1,2,3\n1,2,x\n", CSVOptions{Task: Regression}, []string{"d.csv:3:", `column 3 ("y")`, `"x" is not a number`}},
		{"empty target", "a,b,y\n1,2,\n", CSVOptions{}, []string{"d.csv:2:", `column 3 ("y")`, "missing target"}},
		{"bad quote", "a,b,y\n1,\"2,0\n", CSVOptions{}, []string{"d.csv:2:", "malformed CSV"}},
		{"unknown target", "a,b,y\n1,2,0\n", CSVOptions{Target: "z"}, []string{"d.csv:1:", `no column named "z"`}},
		{"target index", "a,b,y\n1,2,0\n", CSVOptions{Target: "3"}, []string{"d.csv:1:", "index 3 is out of range", "3 columns"}},
		{"ambiguous target", "y,b,y\n1,2,0\n", CSVOptions{Target: "y"}, []string{"d.csv:1:", `"y" names both column 1 and column 3`}},
		{"no header empty", "", CSVOptions{NoHeader: true}, []string{"d.csv: empty file"}},
		{"no header name", "1,2,0\n", CSVOptions{NoHeader: true, Target: "y"}, []string{"d.csv:1:", "not a column index"}},
		{"multi-line quoted", "a,b,y\n1,\"2\n3\",0\n", CSVOptions{}, []string{"d.csv:2:", `column 2 ("b")`, "not a number"}},
		{"underscores", "a,b,y\n1,1_000,0\n", CSVOptions{}, []string{"d.csv:2:", `column 2 ("b")`, `"1_000" is not a number`, "decimal"}},
		{"hexadecimal", "a,b,y\n1,2,0\n 0x1p3 ,2,0\n", CSVOptions{}, []string{"d.csv:3:", `column 1 ("a")`, `"0x1p3" is not a number`}},
		{"hexadecimal target", "a,b,y\n1,2,0X10\n", CSVOptions{Task: Regression}, []string{"d.csv:2:", `column 3 ("y")`, `"0X10" is not a number`}},
		{"float32 overflow", "a,b,y\n1,1e39,0\n", CSVOptions{}, []string{}}, // fine in float64, checked below
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV[float64](strings.NewReader(c.in), "d.csv", c.opt)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			wantErr(t, err, c.want...)
			var e *Error
			if !errors.As(err, &e) || e.File != "d.csv" {
				t.Errorf("error %v is not an *Error naming d.csv", err)
			}
		})
	}
	_, err := ReadCSV[float32](strings.NewReader("a,b,y\n1,1e39,0\n"), "d.csv", CSVOptions{})
	wantErr(t, err, "d.csv:2:", `column 2 ("b")`, "out of the range of float32")
}

func TestReadCSVBadOptions(t *testing.T) {
	t.Parallel()
	for _, opt := range []CSVOptions{
		{Task: Task(7)},
		{Task: Regression, Classes: []string{"a"}},
		{Classes: []string{}},
		{Classes: []string{"a", ""}},
		{Comma: '"'},
		{Comma: ',', Comment: ','},
		{Comment: ','},
		{Comma: '\n'},
	} {
		if _, err := ReadCSV[float64](strings.NewReader("a,y\n1,2\n"), "o.csv", opt); err == nil {
			t.Errorf("options %+v: no error", opt)
		}
	}
}

// wantErr fails unless err is non-nil and its message contains every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// endless serves a header and then rows without end, and fails once more
// than max bytes have been asked of it: a reader that stops early never
// sees the failure.
type endless struct {
	head, row string
	served    int
	max       int
	pending   []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if e.served > e.max {
		return 0, errors.New("read past the limit")
	}
	if len(e.pending) == 0 {
		if e.served == 0 {
			e.pending = []byte(e.head)
		} else {
			e.pending = []byte(e.row)
		}
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	e.served += n
	return n, nil
}

// TestLimitStopsReading: with Limit, CSV and LIBSVM readers stop after
// that many samples instead of reading the whole input.
func TestLimitStopsReading(t *testing.T) {
	t.Parallel()
	csvIn := &endless{head: "a,b,y\n", row: "1.5,2.5,0\n3,4,1\n", max: 1 << 20}
	ds, err := ReadCSV[float64](csvIn, "big.csv", CSVOptions{Limit: 10})
	if err != nil || ds.N != 10 {
		t.Fatalf("CSV with Limit 10: %v, %v", ds, err)
	}
	if csvIn.served > 1<<18 {
		t.Errorf("CSV with Limit 10 read %d bytes", csvIn.served)
	}
	svmIn := &endless{head: "1 1:1\n", row: "0 2:1 3:2\n1 1:1\n", max: 1 << 20}
	ds, err = ReadLIBSVM[float64](svmIn, "big.svm", LIBSVMOptions{Limit: 7})
	if err != nil || ds.N != 7 || ds.D != 3 {
		t.Fatalf("LIBSVM with Limit 7: %v, %v", ds, err)
	}
	if svmIn.served > 1<<18 {
		t.Errorf("LIBSVM with Limit 7 read %d bytes", svmIn.served)
	}
	// Without a limit the whole input is read, and here fails.
	if _, err := ReadCSV[float64](&endless{head: "a,y\n", row: "1,0\n", max: 1 << 16}, "big.csv", CSVOptions{}); err == nil {
		t.Error("the endless reader did not fail")
	}
	if _, err := ReadCSV[float64](strings.NewReader("a,y\n1,0\n"), "x.csv", CSVOptions{Limit: -1}); err == nil {
		t.Error("negative Limit accepted")
	}
}

// TestDecimalLabels: a class label that strconv.ParseFloat would read as
// hexadecimal or with underscores is a text, not a number, so "0x10" is its
// own class beside "16", and numeric labels keep their numeric order.
func TestDecimalLabels(t *testing.T) {
	t.Parallel()
	ds, err := ReadCSV[float64](strings.NewReader("a,y\n1,16\n2,0x10\n3,1_0\n4,16\n"), "l.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0x10", "16", "1_0"}; !slices.Equal(ds.Classes, want) || !slices.Equal(ds.Labels, []int32{1, 0, 2, 1}) {
		t.Errorf("classes %q labels %v; want %q, [1 0 2 1]", ds.Classes, ds.Labels, want)
	}
	ds, err = ReadCSV[float64](strings.NewReader("a,y\n1,10\n2,9\n3,10\n"), "n.csv", CSVOptions{})
	if err != nil || !slices.Equal(ds.Classes, []string{"9", "10"}) {
		t.Errorf("numeric classes %v, %v", ds, err)
	}
}

// TestReadCSVTargetOptional: the first record says whether the target
// column is there: by the target's name in the header, or by the width.
func TestReadCSVTargetOptional(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		opt  CSVOptions
		has  bool
		x, y []float64
	}{
		{"a,b\n1,2\n3,4\n", CSVOptions{}, false, []float64{1, 2, 3, 4}, []float64{0, 0}},
		{"a,b,y\n1,2,5\n3,4,6\n", CSVOptions{Task: Regression}, true, []float64{1, 2, 3, 4}, []float64{5, 6}},
		{"y,a\n5,1\n6,3\n", CSVOptions{Task: Regression, Target: "y"}, true, []float64{1, 3}, []float64{5, 6}},
		{"1,2\n3,4\n", CSVOptions{NoHeader: true, Task: Classification}, false, []float64{1, 2, 3, 4}, []float64{0, 0}},
	}
	for i, c := range cases {
		width := 2
		if c.opt.Target != "" {
			width = 1
		}
		ds, has, err := ReadCSVTargetOptional[float64](strings.NewReader(c.in), "o.csv", width, c.opt)
		if err != nil || has != c.has || !slices.Equal(ds.X, c.x) || !slices.Equal(ds.Y, c.y) || ds.Task != Regression {
			t.Errorf("case %d: %v, target %v, %v", i, ds, has, err)
		}
	}
	_, _, err := ReadCSVTargetOptional[float64](strings.NewReader("a,b,c,d\n1,2,3,4\n"), "w.csv", 2, CSVOptions{})
	wantErr(t, err, "w.csv:1:", "4 columns; expected 2 features, and optionally the target")
	_, _, err = ReadCSVTargetOptional[float64](strings.NewReader("a,b\n1,2\n3\n"), "r.csv", 2, CSVOptions{})
	wantErr(t, err, "r.csv:3:", "1 fields; expected 2")
	if _, _, err := ReadCSVTargetOptional[float64](strings.NewReader("a\n1\n"), "z.csv", 0, CSVOptions{}); err == nil {
		t.Error("0 features accepted")
	}
}
