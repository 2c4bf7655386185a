package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileData is a directory of bad data files, each with the failure it
// must give, and models trained on good data of each format, for eval and
// predict to read the bad files with.
type hostileData struct {
	t      *testing.T
	dir    string
	models map[string]string // by format: csv, libsvm, idx
	files  []badFile
}

// badFile is a bad data file and what reading it must give.
type badFile struct {
	path   string
	format string   // csv, libsvm or idx: which model reads it
	want   []string // substrings of the error line
	at     string   // a regular expression the error line must match
	only   []string // the commands that read it (all when empty)
	extra  []string // further flags
	code   int      // exit status; 0 means 1
	big    bool     // reads hundreds of MiB (see hostileRow)
}

// csvRows is a CSV file of columns a, b, y with n good rows (labels 0 and
// 1) and then the lines of tail.
func csvRows(n int, tail ...string) string {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n {
		a, c := rng.NormFloat64(), rng.NormFloat64()
		fmt.Fprintf(&b, "%.3f,%.3f,%d\n", a, c, i%2)
	}
	for _, l := range tail {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// newHostileData writes the bad files into a new directory and trains a
// model on good data of each format.
func newHostileData(t *testing.T) *hostileData {
	t.Helper()
	h := &hostileData{t: t, dir: t.TempDir(), models: map[string]string{}}
	good := filepath.Join(t.TempDir(), "good")
	os.Mkdir(good, 0o755)
	h.models["csv"] = filepath.Join(h.dir, "csv.cvar")
	ok(t, "train", "-data", write(t, good, "d.csv", csvRows(60)), "-epochs", "1", "-o", h.models["csv"])
	h.models["libsvm"] = filepath.Join(h.dir, "svm.cvar")
	ok(t, "train", "-data", write(t, good, "d.svm", svmFile(60, 1, false)), "-epochs", "1", "-o", h.models["libsvm"])
	h.models["idx"] = filepath.Join(h.dir, "idx.cvar")
	idxPair(t, good, 30, false)
	ok(t, "train", "-data", good, "-epochs", "1", "-o", h.models["idx"])
	h.csvFiles()
	h.svmFiles()
	h.idxFiles()
	h.endlessFiles()
	return h
}

func (h *hostileData) add(format, name, content string, want ...string) *badFile {
	h.files = append(h.files, badFile{path: write(h.t, h.dir, name, content), format: format, want: want})
	return &h.files[len(h.files)-1]
}

func (h *hostileData) csvFiles() {
	h.add("csv", "ragged.csv", csvRows(2, "3,4", "5,6,1"), "ragged.csv:4: 2 fields; expected 3 like the header")
	h.add("csv", "quote.csv", csvRows(2, `3,"4,1`), "quote.csv:4: malformed CSV", `extraneous or missing "`)
	h.add("csv", "bare.csv", csvRows(2, `3,4"x,1`), "bare.csv:4: malformed CSV", `bare "`)
	h.add("csv", "nan.csv", csvRows(2, "1,NaN,0"), `nan.csv:4: column 2 ("b"): "NaN" is not a finite number`)
	h.add("csv", "inf.csv", csvRows(2, "-Inf,1,0"), `inf.csv:4: column 1 ("a"): "-Inf" is not a finite number`)
	h.add("csv", "e400.csv", csvRows(2, "1,1e400,0"), `e400.csv:4: column 2 ("b"): "1e400" is out of the range of float64`)
	h.add("csv", "underscore.csv", csvRows(2, "1_000,1,0"), `underscore.csv:4: column 1 ("a"): "1_000" is not a number; expected a decimal one`)
	h.add("csv", "hexfloat.csv", csvRows(2, "1,0x1p3,1"), `hexfloat.csv:4: column 2 ("b"): "0x1p3" is not a number; expected a decimal one`)
	h.add("csv", "latin1-cell.csv", csvRows(2, "1\xe9,2,0"), `latin1-cell.csv:4: column 1 ("a"): "1\xe9" is not a number`)
	h.add("csv", "nul.csv", csvRows(2, "1,\x00,0"), `nul.csv:4: column 2 ("b"): "\x00" is not a number`)
	h.add("csv", "emptycell.csv", csvRows(2, "1,,0"), `emptycell.csv:4: column 2 ("b"): missing value (empty)`)
	h.add("csv", "empty.csv", "", "empty.csv: empty file; expected a header row")
	h.add("csv", "blank.csv", "\n\n\n", "blank.csv: empty file; expected a header row")
	h.add("csv", "header.csv", "a,b,y\n", "header.csv: no data rows after the header")
	rnd := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	h.add("csv", "random.csv", string(rnd), "random.csv:", "malformed CSV")
	f := h.add("csv", "one-class.csv", strings.ReplaceAll(csvRows(10), ",1\n", ",0\n"), `one-class.csv: every label is "0"`)
	f.only = []string{"train", "experiment"}
	f = h.add("csv", "one-row.csv", csvRows(1), "one-row.csv: 1 samples cannot be split")
	f.only, f.extra = []string{"train", "experiment"}, []string{"-model", "linear"}
	f = h.add("csv", "latin1-label.csv", csvRows(2, "1,2,\xff"), `latin1-label.csv:4: column 3 ("y"): label "\xff" is not one of the 2 expected classes`)
	f.only = []string{"eval", "predict"}
	f = h.add("csv", "unknown-label.csv", csvRows(2, "1,2,7"), `unknown-label.csv:4: column 3 ("y"): label "7" is not one of the 2 expected classes ["0" "1"]`)
	f.only = []string{"eval", "predict"}
	h.files = append(h.files, badFile{path: "/dev/null", format: "csv", want: []string{"/dev/null: empty file"}, extra: []string{"-format", "csv"}})
	dir := filepath.Join(h.dir, "dir.csv")
	os.Mkdir(dir, 0o755)
	h.files = append(h.files, badFile{path: dir, format: "csv", want: []string{dir + " is a directory; only -format idx"}, extra: []string{"-format", "csv"}, code: 2})
	h.files = append(h.files, badFile{path: filepath.Join(h.dir, "missing.csv"), format: "csv", want: []string{"missing.csv: no such file or directory"}})
	h.files = append(h.files, badFile{path: filepath.Join(h.dir, "nan.csv"), format: "csv", want: []string{`nan.csv:1: no column named "nope"`}, extra: []string{"-target", "nope"}, only: []string{"train", "experiment"}})
}

func (h *hostileData) svmFiles() {
	h.add("libsvm", "index0.svm", "1 1:1\n-1 0:1\n", `index0.svm:2: token "0:1": index 0; indices are 1-based`)
	h.add("libsvm", "negative.svm", "1 1:1\n-1 -3:1\n", `negative.svm:2: token "-3:1": index -3; indices are 1-based`)
	h.add("libsvm", "order.svm", "1 1:1\n-1 2:1 1:3\n", `order.svm:2: token "1:3": index 1 after index 2`)
	h.add("libsvm", "duplicate.svm", "1 1:1\n-1 2:1 2:3\n", `duplicate.svm:2: token "2:3": duplicate index 2`)
	h.add("libsvm", "overflow.svm", "1 1:1\n-1 99999999999999999999:1\n", `overflow.svm:2: token "99999999999999999999:1": index is out of range`)
	h.add("libsvm", "letters.svm", "1 1:1\n-1 a:1\n", `letters.svm:2: token "a:1": index "a" is not an integer`)
	h.add("libsvm", "nan.svm", "1 1:1\n-1 2:nan\n", `nan.svm:2: token "2:nan": "nan" is not a finite number`)
	h.add("libsvm", "e400.svm", "1 1:1\n-1 2:1e400\n", `e400.svm:2: token "2:1e400": "1e400" is out of the range of float64`)
	h.add("libsvm", "underscore.svm", "1 1:1\n-1 2:1_000\n", `underscore.svm:2: token "2:1_000": "1_000" is not a number; expected a decimal one`)
	h.add("libsvm", "hexfloat.svm", "1 1:1\n-1 2:0x1p3\n", `hexfloat.svm:2: token "2:0x1p3": "0x1p3" is not a number; expected a decimal one`)
	h.add("libsvm", "nocolon.svm", "1 1:1\n-1 2\n", `nocolon.svm:2: token "2": expected index:value`)
	h.add("libsvm", "labelpair.svm", "1:2 3:4\n", `labelpair.svm:1: line starts with "1:2"`)
	f := h.add("libsvm", "csvlike.svm", "a,b,y\n1,2,0\n", `csvlike.svm:1: "a,b,y" has no index:value pairs; the file looks like CSV`)
	f.only = []string{"train", "experiment"}
	// Read with a model's classes, the label is checked first.
	f = h.add("libsvm", "csvlike-labelled.svm", "a,b,y\n1,2,0\n", `csvlike-labelled.svm:1: label "a,b,y" is not one of the 2 expected classes ["-1" "1"]`)
	f.only = []string{"eval", "predict"}
	h.add("libsvm", "empty.svm", "", "empty.svm: no samples")
	f = h.add("libsvm", "wide.svm", "1 1:1\n-1 2000000:1\n", `wide.svm:2: token "2000000:1": index 2000000 exceeds -max-dim 1048576`)
	f.only = []string{"train", "experiment"}
	f = h.add("libsvm", "wider.svm", "1 1:1\n-1 9:1\n", `wider.svm:2: token "9:1": index 9 exceeds the 4 features of the model`)
	f.only = []string{"eval", "predict"}
}

// idxFiles writes IDX image files (each with a label file) whose headers
// are wrong or absurd, plain, gzipped and bzip2-compressed.
func (h *hostileData) idxFiles() {
	t := h.t
	swapped := append(idxImagesHeader(0x801, 2, 2, 2), make([]byte, 8)...)
	huge := idxImagesHeader(0x803, 1<<30, 28, 28)
	for _, c := range []struct {
		ext           string
		swapped, huge []byte
	}{
		{"", swapped, huge},
		{".gz", gzipped(swapped), gzipped(huge)},
		{".bz2", unhex(t, bzSwapHex), unhex(t, bzHugeIDXHx)},
	} {
		p := badIDX(t, h.dir, "swapped"+strings.TrimPrefix(c.ext, "."), c.ext, c.swapped)
		h.files = append(h.files, badFile{path: p, format: "idx", want: []string{filepath.Base(p) + ": byte 0: magic number 0x00000801; expected 0x00000803", "swapped?"}})
		p = badIDX(t, h.dir, "huge"+strings.TrimPrefix(c.ext, "."), c.ext, c.huge)
		h.files = append(h.files, badFile{path: p, format: "idx", want: []string{filepath.Base(p) + ": byte 4: header announces 1073741824 images of 784 bytes", "more than the bound of 16 MiB", "(-max-memory)"}})
	}
	for _, c := range []struct {
		name   string
		images []byte
		want   string
	}{
		{"dims", idxImagesHeader(0x803, 2, 1<<32-1, 1<<32-1), "byte 4: header announces 2 images of 4294967295×4294967295 bytes, too large"},
		{"zero", idxImagesHeader(0x803, 2, 0, 5), "byte 8: images of 0×5 pixels; expected both sizes positive"},
		{"short", append(idxImagesHeader(0x803, 2, 2, 2), 1, 2, 3), "truncated: expected 24 bytes (the 16-byte header and 2 images of 4 bytes), found 19"},
		{"long", append(idxImagesHeader(0x803, 2, 2, 2), make([]byte, 9)...), "byte 24: data continues after"},
		{"fourdims", append(idxImagesHeader(0x804, 2, 2, 2, 2), make([]byte, 16)...), "byte 0: magic number 0x00000804; expected 0x00000803 (an IDX image file); the file has 4 dimensions"},
		{"float", idxImagesHeader(0x0d03, 2, 2, 2), "byte 0: magic number 0x00000d03; expected 0x00000803 (an IDX image file); element type 0x0d is not supported"},
		{"stub", []byte{0, 0, 8}, "truncated"},
	} {
		p := badIDX(t, h.dir, c.name, "", c.images)
		h.files = append(h.files, badFile{path: p, format: "idx", want: []string{filepath.Base(p) + ": " + c.want}})
	}
	// Good images, a label file announcing 2³¹ labels.
	images := append(idxImagesHeader(0x803, 2, 2, 2), make([]byte, 8)...)
	p := writeBytes(t, h.dir, "labels-images-idx3-ubyte", images)
	writeBytes(t, h.dir, "labels-labels-idx1-ubyte", idxImagesHeader(0x801, 1<<31))
	h.files = append(h.files, badFile{path: p, format: "idx", want: []string{"labels-labels-idx1-ubyte: byte 4: header announces 2147483648 labels", "(-max-memory)"}})
	p = writeBytes(t, h.dir, "nolabels-images-idx3-ubyte", images)
	h.files = append(h.files, badFile{path: p, format: "idx", want: []string{"nolabels-labels-idx1-ubyte: no such file or directory"}})
	p = writeBytes(t, h.dir, "plain.idx", images)
	h.files = append(h.files, badFile{path: p, format: "idx", want: []string{"plain.idx: cannot find the label file"}})
}

// endlessMiB is the -max-memory, in MiB, of the rows whose input has no
// end: 8, or 2 under emulation or the race detector, which slow reading
// tenfold or more. The property asserted is the same.
func endlessMiB() int {
	if emulated() || raceDetector {
		return 2
	}
	return 8
}

// endlessFiles writes compressed files of a few hundred kilobytes that
// hold hundreds of megabytes: rows without end, a line without end, and
// empty lines before a bad row.
func (h *hostileData) endlessFiles() {
	t := h.t
	mib := endlessMiB()
	mm := []string{"-max-memory", fmt.Sprintf("%dMiB", mib)}
	bound := []string{fmt.Sprintf("more than the bound of %d MiB", mib), "(-max-memory)"}
	add := func(p, format string, want []string, at string, only []string, extra ...string) {
		h.files = append(h.files, badFile{path: p, format: format, want: want, at: at, only: only, extra: append(slices.Clone(mm), extra...)})
	}
	move := func(p string) string { // bigGzip writes into a directory of its own
		q := filepath.Join(h.dir, filepath.Base(p))
		if err := os.Rename(p, q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	add(move(bigGzip(t, "rows.csv.gz", "a,b,y\n", "0,1,0\n1,0,1\n", 256<<20)), "csv", bound, `rows\.csv\.gz:\d+: `, nil)
	line := move(bigGzip(t, "line.csv.gz", "a,b,y\n", "0", 1<<30))
	add(line, "csv", bound, `line\.csv\.gz:2: `, nil)
	add(line, "csv", []string{"line.csv.gz:2: line longer than the limit of 1 MiB", "(-max-line)"}, "", nil, "-max-line", "1MiB")
	add(line, "csv", bound, `line\.csv\.gz:2: `, []string{"train"}, "-stream", "-method", "alg1")
	add(move(bigGzip(t, "rows.svm.gz", "", "1 1:1\n-1 2:1\n", 256<<20)), "libsvm", bound, `rows\.svm\.gz:\d+: `, nil)
	svmLine := move(bigGzip(t, "line.svm.gz", "1 1:1\n", "0", 1<<30))
	add(svmLine, "libsvm", bound, `line\.svm\.gz:2: `, nil)
	add(svmLine, "libsvm", bound, `line\.svm\.gz:2: `, []string{"train"}, "-stream", "-method", "alg4")
	rowsBz := bigBzip2(t, h.dir, "rows.csv.bz2", nil, unhex(t, bzRowsHex), 256)
	add(rowsBz, "csv", bound, `rows\.csv\.bz2:\d+: `, []string{"train"}, "-no-header")
	lineBz := bigBzip2(t, h.dir, "line.csv.bz2", unhex(t, bzHeadHex), unhex(t, bzZerosHex), 1024)
	add(lineBz, "csv", bound, `line\.csv\.bz2:2: `, []string{"train"})
	unl := move(bigGzip(t, "unlabelled.csv.gz", "a,b\n", "0,1\n", 256<<20))
	add(unl, "csv", bound, `unlabelled\.csv\.gz:\d+: `, []string{"predict"})
	// Empty lines cost nothing: the error is the bad row's, at its line.
	// The big file holds 64 MiB of them (read by train alone, as every
	// command reads alike), its twin half the bound.
	for _, c := range []struct {
		name string
		mib  int
		big  bool
	}{{"blank-lines.csv.gz", mib / 2, false}, {"many-blank-lines.csv.gz", 64, true}} {
		p := move(bigGzip(t, c.name, "a,b,y\n", "\n", c.mib<<20))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(gzipped([]byte("1,NaN,0\n")))
		f.Close()
		h.files = append(h.files, badFile{path: p, format: "csv", want: []string{fmt.Sprintf("%s:%d: column 2 (\"b\"): \"NaN\" is not a finite number", c.name, c.mib<<20+2)}, extra: slices.Clone(mm), big: c.big})
		if c.big {
			h.files[len(h.files)-1].only = []string{"train"}
		}
	}
}

// readRows are the rows of cmd that read each bad file.
func (h *hostileData) readRows(cmd string) []hostileRow {
	var rows []hostileRow
	for _, f := range h.files {
		if len(f.only) > 0 && !slices.Contains(f.only, cmd) {
			continue
		}
		args := []string{cmd, "-data", f.path}
		switch cmd {
		case "eval", "predict":
			args = append(args, "-in", h.models[f.format])
		case "experiment":
			args = append(args, "-seeds", "1", "-epochs", "1", "-lrs", "0.01", "-wds", "0")
		default:
			args = append(args, "-epochs", "1")
		}
		code := f.code
		if code == 0 {
			code = 1
		}
		name := filepath.Base(f.path)
		if len(f.extra) > 0 {
			name += " " + strings.Join(f.extra, " ")
		}
		rows = append(rows, hostileRow{name: name, args: append(args, f.extra...), code: code, want: f.want, at: f.at, big: f.big})
	}
	return rows
}
