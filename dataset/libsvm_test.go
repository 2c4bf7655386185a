package dataset

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadLIBSVM(t *testing.T) {
	t.Parallel()
	const in = "# a comment line\n" +
		"+1 1:0.5 3:-2\n" +
		"\n" +
		"-1 qid:7 2:1.5e1\t4:3 # trailing comment\r\n" +
		"+1\n" // no features: an all-zero row
	ds, err := ReadLIBSVM[float64](strings.NewReader(in), "a.svm", LIBSVMOptions{Task: TaskAuto})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 4 || ds.Task != Classification {
		t.Fatalf("N=%d D=%d task %v", ds.N, ds.D, ds.Task)
	}
	want := []float64{
		0.5, 0, -2, 0,
		0, 15, 0, 3,
		0, 0, 0, 0,
	}
	if !slices.Equal(ds.X, want) {
		t.Errorf("X = %v, want %v", ds.X, want)
	}
	if !slices.Equal(ds.Classes, []string{"-1", "1"}) || !slices.Equal(ds.Labels, []int32{1, 0, 1}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
	if !slices.Equal(ds.Features, []string{"f1", "f2", "f3", "f4"}) {
		t.Errorf("Features %q", ds.Features)
	}
}

func TestReadLIBSVMRegressionDim(t *testing.T) {
	t.Parallel()
	const in = "0.25 2:1\n-3.5 1:2\n"
	ds, err := ReadLIBSVM[float32](strings.NewReader(in), "r.svm", LIBSVMOptions{Dim: 5, Task: TaskAuto})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Task != Regression || ds.D != 5 || !slices.Equal(ds.Y, []float32{0.25, -3.5}) {
		t.Errorf("task %v D %d Y %v", ds.Task, ds.D, ds.Y)
	}
	if !slices.Equal(ds.X, []float32{0, 1, 0, 0, 0, 2, 0, 0, 0, 0}) {
		t.Errorf("X = %v", ds.X)
	}
}

func TestReadLIBSVMMulticlass(t *testing.T) {
	t.Parallel()
	const in = "2 1:1\n0 1:2\n1 1:3\n10 1:4\n"
	ds, err := ReadLIBSVM[float64](strings.NewReader(in), "m.svm", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Classes, []string{"0", "1", "2", "10"}) || !slices.Equal(ds.Labels, []int32{2, 0, 1, 3}) {
		t.Errorf("Classes %q Labels %v", ds.Classes, ds.Labels)
	}
}

func TestReadLIBSVMLongLine(t *testing.T) {
	t.Parallel()
	// One line far longer than the reader's buffer.
	const d = 30000
	var b strings.Builder
	b.WriteString("1")
	for j := 1; j <= d; j++ {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(j))
		b.WriteString(":1.000000000001")
	}
	b.WriteString("\n-1 7:2\n")
	if b.Len() < 1<<18 {
		t.Fatalf("test line too short: %d bytes", b.Len())
	}
	ds, err := ReadLIBSVM[float64](strings.NewReader(b.String()), "long.svm", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 2 || ds.D != d || ds.X[d-1] != 1.000000000001 || ds.Row(1)[6] != 2 {
		t.Errorf("N=%d D=%d last=%v row1[6]=%v", ds.N, ds.D, ds.X[d-1], ds.Row(1)[6])
	}
}

func TestLoadLIBSVMBzip2(t *testing.T) {
	t.Parallel()
	// compress/bzip2 cannot write; this is "1 1:2\n-1 2:3\n" compressed
	// with bzip2 -9.
	data := []byte("\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\xb6\xc3\x9e\xae\x00\x00\x02\xd8\x00\x00\x10\x40\x02\x38\x10\x20\x00\x21\xa6\x8d\xa4\x21\x80\x80\xb9\x05\x6e\x5f\x17\x72\x45\x38\x50\x90\xb6\xc3\x9e\xae")
	if raw, err := readAllBzip2(data); err != nil || raw != "1 1:2\n-1 2:3\n" {
		t.Fatalf("embedded bzip2 sample reads as %q, %v", raw, err)
	}
	path := filepath.Join(t.TempDir(), "x.bz2")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := LoadLIBSVM[float64](path, LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, []float64{2, 0, 0, 3}) || !slices.Equal(ds.Labels, []int32{1, 0}) {
		t.Errorf("X %v Labels %v", ds.X, ds.Labels)
	}
}

func readAllBzip2(data []byte) (string, error) {
	var out bytes.Buffer
	_, err := out.ReadFrom(bzip2.NewReader(bytes.NewReader(data)))
	return out.String(), err
}

func TestReadLIBSVMErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		opt  LIBSVMOptions
		want []string
	}{
		{"empty", "", LIBSVMOptions{}, []string{"s.svm: no samples"}},
		{"comments only", "# x\n\n   \n", LIBSVMOptions{}, []string{"s.svm: no samples"}},
		{"index 0", "1 1:1\n1 0:2\n", LIBSVMOptions{}, []string{"s.svm:2:", `"0:2"`, "index 0", "1-based"}},
		{"negative index", "1 -3:2\n", LIBSVMOptions{}, []string{"s.svm:1:", "index -3", "1-based"}},
		{"out of order", "1 3:1 2:2\n", LIBSVMOptions{}, []string{"s.svm:1:", "index 2 after index 3", "strictly increasing"}},
		{"duplicate", "1 1:1\n\n1 2:1 2:2\n", LIBSVMOptions{}, []string{"s.svm:3:", "duplicate index 2"}},
		{"above dim", "1 1:1\n1 6:1\n", LIBSVMOptions{Dim: 5}, []string{"s.svm:2:", "index 6 exceeds the dimension 5"}},
		{"above max dim", "1 101:1\n", LIBSVMOptions{MaxDim: 100}, []string{"s.svm:1:", "index 101 exceeds MaxDim 100"}},
		{"huge index", "1 99999999999999999999:1\n", LIBSVMOptions{}, []string{"s.svm:1:", "out of range"}},
		{"no colon", "1 3\n", LIBSVMOptions{}, []string{"s.svm:1:", `token "3"`, "expected index:value"}},
		{"bad index", "1 a:3\n", LIBSVMOptions{}, []string{"s.svm:1:", `index "a" is not an integer`}},
		{"bad value", "1 2:x\n", LIBSVMOptions{}, []string{"s.svm:1:", `token "2:x"`, `"x" is not a number`}},
		{"empty value", "1 2:\n", LIBSVMOptions{}, []string{"s.svm:1:", `token "2:"`, "empty"}},
		{"underscores", "1 2:1_0\n", LIBSVMOptions{}, []string{"s.svm:1:", `token "2:1_0"`, `"1_0" is not a number`}},
		{"hexadecimal", "1 1:1\n0 2:0x1p-2\n", LIBSVMOptions{}, []string{"s.svm:2:", `"0x1p-2" is not a number`}},
		{"hexadecimal target", "1 1:2\n0x1 1:2\n", LIBSVMOptions{Task: Regression}, []string{"s.svm:2:", `"0x1" is not a number`}},
		{"NaN value", "1 2:NaN\n", LIBSVMOptions{}, []string{"s.svm:1:", "not a finite number"}},
		{"Inf value", "1 2:1\n1 2:-Inf\n", LIBSVMOptions{}, []string{"s.svm:2:", "not a finite number"}},
		{"missing label", "1:2 3:4\n", LIBSVMOptions{}, []string{"s.svm:1:", `"1:2"`, "expected a label"}},
		{"NaN label", "nan 1:2\n", LIBSVMOptions{}, []string{"s.svm:1:", "not a finite number"}},
		{"text regression label", "1 1:2\nx 1:2\n", LIBSVMOptions{Task: Regression}, []string{"s.svm:2:", `"x" is not a number`}},
		{"label not in classes", "1 1:1\n2 1:1\n", LIBSVMOptions{Classes: []string{"-1", "1"}}, []string{"s.svm:2:", `label "2"`, `["-1" "1"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadLIBSVM[float64](strings.NewReader(c.in), "s.svm", c.opt)
			wantErr(t, err, c.want...)
		})
	}
	for _, opt := range []LIBSVMOptions{{Dim: -1}, {MaxDim: -1}, {Task: Task(9)}} {
		if _, err := ReadLIBSVM[float64](strings.NewReader("1 1:1\n"), "s.svm", opt); err == nil {
			t.Errorf("options %+v: no error", opt)
		}
	}
}

func TestReadValueUnderflow(t *testing.T) {
	t.Parallel()
	// Values too small for the type are zero, not errors.
	ds, err := ReadLIBSVM[float32](strings.NewReader("1 1:1e-400 2:1e-50\n"), "u.svm", LIBSVMOptions{Task: Regression})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, []float32{0, 0}) {
		t.Errorf("X = %v", ds.X)
	}
	cs, err := ReadCSV[float64](strings.NewReader("a,y\n1e-400,1\n"), "u.csv", CSVOptions{Task: Regression})
	if err != nil || cs.X[0] != 0 {
		t.Errorf("CSV underflow: %v, %v", cs, err)
	}
}

// TestLIBSVMMemoryBound: a 13 KB file whose rows densify to 12 GB is
// rejected, naming the file, n, d and the bytes, after allocating memory
// proportional to the file only; an explicit MaxBytes lowers or lifts the
// bound.
func TestLIBSVMMemoryBound(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		if i%2 == 0 {
			b.WriteString("0 1048576:1\n")
		} else {
			b.WriteString("1 1:1\n")
		}
	}
	in := b.String()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadLIBSVM[float64](strings.NewReader(in), "wide.svm", LIBSVMOptions{})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading a %d-byte file allocated %d bytes", len(in), got)
	}
	var e *Error
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) {
		t.Fatalf("error %v; want an *Error wrapping ErrTooLarge", err)
	}
	for _, want := range []string{"wide.svm: ", "1500 samples × 1048576 features", "float64", "11.7 GiB (12582912000 bytes)", "4 GiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// A bound of a few bytes rejects a tiny file; float32 halves the need.
	small := "1 1:1 2:2\n0 2:1\n"
	if _, err := ReadLIBSVM[float32](strings.NewReader(small), "s.svm", LIBSVMOptions{MaxBytes: 15}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("16 bytes under a bound of 15: %v", err)
	}
	if ds, err := ReadLIBSVM[float32](strings.NewReader(small), "s.svm", LIBSVMOptions{MaxBytes: 16}); err != nil || ds.N != 2 {
		t.Errorf("16 bytes under a bound of 16: %v", err)
	}
	// CSV and IDX readers honour the bound too.
	if _, err := ReadCSV[float64](strings.NewReader("a,b,y\n1,2,0\n3,4,1\n5,6,0\n"), "c.csv", CSVOptions{MaxBytes: 40}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at least 3 samples × 2 features") {
		t.Errorf("CSV over the bound: %v", err)
	}
	if ds, err := ReadCSV[float64](strings.NewReader("a,b,y\n1,2,0\n3,4,1\n5,6,0\n"), "c.csv", CSVOptions{MaxBytes: 48}); err != nil || ds.N != 3 {
		t.Errorf("CSV at the bound: %v", err)
	}
}
