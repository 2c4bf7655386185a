package main

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
)

// The command-path fuzz targets write the fuzzed bytes to a data file and
// run train on it, and eval and predict with a model trained on good data
// of the format: whatever the bytes, each command must succeed (exit 0,
// nothing on stderr) or fail with exit 1 and one line on stderr naming the
// file, without a panic. Data are never a usage error (exit 2): the flags
// are fixed and valid.

// fuzzFlags are the flags every fuzzed command runs with: one epoch, one
// thread, a bound small enough for fuzzing's many processes.
var fuzzFlags = []string{"-max-memory", "64MiB", "-threads", "1"}

// fuzzModel trains a model on good data of the format for eval and
// predict to read the fuzzed files with.
func fuzzModel(f *testing.F, data, format string) string {
	f.Helper()
	model := filepath.Join(f.TempDir(), "m.cvar")
	var o, e bytes.Buffer
	if code := run([]string{"train", "-data", data, "-format", format, "-epochs", "1", "-o", model}, &o, &e); code != 0 {
		f.Fatalf("training the fuzz targets' model: exit %d, %s", code, e.String())
	}
	return model
}

// fuzzCommands runs train, eval and predict on the data file and checks
// each outcome.
func fuzzCommands(t *testing.T, data, format, model string) {
	for _, args := range [][]string{
		{"train", "-data", data, "-format", format, "-epochs", "1"},
		{"eval", "-in", model, "-data", data, "-format", format, "-bootstrap", "10"},
		{"predict", "-in", model, "-data", data, "-format", format},
	} {
		args = append(args, fuzzFlags...)
		var o, e bytes.Buffer
		code := run(args, &o, &e)
		stderr := e.String()
		cmd := "cvar " + strings.Join(args, " ")
		for _, trace := range []string{"panic:", "goroutine ", "runtime error"} {
			if strings.Contains(stderr, trace) {
				t.Fatalf("%s: stderr holds %q: %q", cmd, trace, stderr)
			}
		}
		switch code {
		case 0:
			if stderr != "" {
				t.Fatalf("%s: stderr %q on success", cmd, stderr)
			}
		case 1:
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(stderr, "cvar "+args[0]+": ") {
				t.Fatalf("%s: stderr is not one line of the command: %q", cmd, stderr)
			}
			if !strings.Contains(stderr, filepath.Dir(data)) && !strings.Contains(stderr, "training diverged") {
				t.Fatalf("%s: the error names neither the file nor a divergence: %q", cmd, stderr)
			}
			if o.Len() != 0 {
				t.Fatalf("%s: stdout %q on failure", cmd, o.String())
			}
		default:
			t.Fatalf("%s: exit %d, want 0 or 1 (stderr %q)", cmd, code, stderr)
		}
	}
}

// FuzzCmdCSV: the commands on a fuzzed CSV file.
func FuzzCmdCSV(f *testing.F) {
	model := fuzzModel(f, writeBytes(f, f.TempDir(), "good.csv", []byte(csvRows(60))), "csv")
	for _, s := range []string{
		csvRows(6),
		csvRows(2, "3,4", "5,6,1"),
		csvRows(2, `3,"4,1`),
		csvRows(2, `3,4"x,1`),
		csvRows(2, "1,NaN,0"),
		csvRows(2, "-Inf,1,0"),
		csvRows(2, "1,1e400,0"),
		csvRows(2, "1e39,1,0"),
		csvRows(2, "1_000,1,0"),
		csvRows(2, "1,0x1p3,1"),
		csvRows(2, "1\xe9,2,0"),
		csvRows(2, "1,2,\xff"),
		csvRows(2, "1,2,7"),
		csvRows(2, "1,,0"),
		csvRows(2, "1,2,"),
		"", "\n\n\n", "a,b,y\n", "y\n1\n0\n", "a,b\n1,2\n3,4\n",
		"\xef\xbb\xbfa,b,y\r\n1,2,0\r\n3,4,1\r\n",
		`"a","b","y"` + "\n\"1\",\"2\",\"x\ny\"\n3,4,z\n",
		"BZh91AY,b,y\n1,2,0\n3,4,1\n",
		string(gzipped([]byte(csvRows(6)))),
		string(unhex(f, bzHeadHex)) + string(unhex(f, bzZerosHex)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data := writeBytes(t, t.TempDir(), "f.csv", b)
		fuzzCommands(t, data, "csv", model)
	})
}

// FuzzCmdLIBSVM: the commands on a fuzzed LIBSVM file.
func FuzzCmdLIBSVM(f *testing.F) {
	model := fuzzModel(f, writeBytes(f, f.TempDir(), "good.svm", []byte(svmFile(60, 1, false))), "libsvm")
	for _, s := range []string{
		svmFile(6, 2, false),
		svmFile(6, 3, true),
		"1 1:1\n-1 0:1\n", "1 1:1\n-1 -3:1\n", "1 1:1\n-1 2:1 1:3\n", "1 1:1\n-1 2:1 2:3\n",
		"1 1:1\n-1 99999999999999999999:1\n", "1 1:1\n-1 2000000:1\n", "1 1:1\n-1 1000000:1\n", "1 1:1\n-1 9:1\n",
		"1 1:1\n-1 a:1\n", "1 1:1\n-1 2:nan\n", "1 1:1\n-1 2:1e400\n", "1 1:1\n-1 2:1_000\n",
		"1 1:1\n-1 2:0x1p3\n", "1 1:1\n-1 2\n", "1:2 3:4\n", "a,b,y\n1,2,0\n", "",
		"1 qid:3 1:1 # comment\n\n# only a comment\n-1 2:1\t4:2\n",
		"\xff 1:1\n\xfe 2:1\n",
		"1\n-1\n",
		string(gzipped([]byte(svmFile(6, 4, false)))),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data := writeBytes(t, t.TempDir(), "f.svm", b)
		fuzzCommands(t, data, "libsvm", model)
	})
}

// FuzzCmdIDX: the commands on a fuzzed pair of IDX files, images and
// labels.
func FuzzCmdIDX(f *testing.F) {
	dir := f.TempDir()
	img, lbl := idxImagesHeader(0x803, 30, 4, 4), idxImagesHeader(0x801, 30)
	for i := range 30 {
		for p := range 16 {
			img = append(img, byte(60*(p/4)+50*(i%3)+p%4))
		}
		lbl = append(lbl, byte(i%3))
	}
	writeBytes(f, dir, "good-labels-idx1-ubyte", lbl)
	model := fuzzModel(f, writeBytes(f, dir, "good-images-idx3-ubyte", img), "idx")
	labels := append(idxImagesHeader(0x801, 2), 0, 1)
	images := append(idxImagesHeader(0x803, 2, 2, 2), 0, 255, 3, 4, 5, 6, 7, 8)
	for _, c := range [][2][]byte{
		{images, labels},
		{gzipped(images), gzipped(labels)},
		{labels, images},
		{append(idxImagesHeader(0x801, 2, 2, 2), make([]byte, 8)...), labels},
		{unhex(f, bzSwapHex), labels},
		{idxImagesHeader(0x803, 1<<30, 28, 28), labels},
		{gzipped(idxImagesHeader(0x803, 1<<30, 28, 28)), labels},
		{unhex(f, bzHugeIDXHx), labels},
		{idxImagesHeader(0x803, 2, 1<<32-1, 1<<32-1), labels},
		{idxImagesHeader(0x803, 2, 0, 5), labels},
		{images[:19], labels},
		{append(bytes.Clone(images), 0), labels},
		{images, idxImagesHeader(0x801, 1<<31)},
		{images, append(idxImagesHeader(0x801, 3), 0, 1, 2)},
		{images, append(idxImagesHeader(0x801, 2), 0, 200)},
		{append(idxImagesHeader(0x804, 2, 2, 2, 2), make([]byte, 16)...), labels},
		{binary.BigEndian.AppendUint32(nil, 0x0d03), labels},
		{nil, nil},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		dir := t.TempDir()
		writeBytes(t, dir, "f-labels-idx1-ubyte", labels)
		data := writeBytes(t, dir, "f-images-idx3-ubyte", images)
		fuzzCommands(t, data, "idx", model)
	})
}
