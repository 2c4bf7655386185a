package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestCorruptGzip: damage to a gzip stream is reported as such, naming the
// file, by every reader, never as the bad row, header or image size that
// the garbage decompressed before the damage is detected looks like.
func TestCorruptGzip(t *testing.T) {
	t.Parallel()
	var csvText, svmText strings.Builder
	csvText.WriteString("a,b,c,y\n")
	for i := range 3000 {
		csvText.WriteString(strings.Repeat("1.25,", 3) + []string{"cat", "dog"}[i%2] + "\n")
		svmText.WriteString([]string{"1", "-1"}[i%2] + " 1:0.5 3:2.25 7:1\n")
	}
	img := binary.BigEndian.AppendUint32(nil, idxImagesMagic)
	img = binary.BigEndian.AppendUint32(img, 300)
	img = binary.BigEndian.AppendUint32(img, 28)
	img = binary.BigEndian.AppendUint32(img, 28)
	for i := range 300 * 784 {
		img = append(img, byte(i*7%251))
	}
	lbl := binary.BigEndian.AppendUint32(nil, idxLabelsMagic)
	lbl = binary.BigEndian.AppendUint32(lbl, 300)
	for i := range 300 {
		lbl = append(lbl, byte(i%10))
	}
	readers := map[string]struct {
		data []byte
		read func(b []byte) error
	}{
		"csv": {gzipped([]byte(csvText.String())), func(b []byte) error {
			_, err := ReadCSV[float64](bytes.NewReader(b), "d.csv.gz", CSVOptions{})
			return err
		}},
		"csv stream": {gzipped([]byte(csvText.String())), func(b []byte) error {
			s, err := NewCSVStream[float64](bytes.NewReader(b), "d.csv.gz", CSVOptions{Classes: []string{"cat", "dog"}})
			for err == nil {
				_, _, _, err = s.Next()
			}
			if err == io.EOF {
				return nil
			}
			return err
		}},
		"libsvm": {gzipped([]byte(svmText.String())), func(b []byte) error {
			_, err := ReadLIBSVM[float64](bytes.NewReader(b), "d.svm.gz", LIBSVMOptions{})
			return err
		}},
		"idx": {gzipped(img), func(b []byte) error {
			_, err := ReadIDX[float64](bytes.NewReader(b), bytes.NewReader(lbl), "d.idx.gz", "labels", IDXOptions{})
			return err
		}},
	}
	for name, r := range readers {
		failures := 0
		for pos := 10; pos < len(r.data)-8; pos += max(1, len(r.data)/40) {
			bad := bytes.Clone(r.data)
			bad[pos] ^= 0x5a
			err := r.read(bad)
			if err == nil {
				t.Errorf("%s: a flipped byte at %d went unnoticed", name, pos)
				continue
			}
			failures++
			msg := err.Error()
			if !strings.HasPrefix(msg, "d.") || !(strings.Contains(msg, "corrupt gzip data") || strings.Contains(msg, "truncated gzip stream")) {
				t.Errorf("%s, byte %d flipped: %q is not a gzip error naming the file", name, pos, msg)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s: %v is not an *Error", name, err)
			}
		}
		if failures == 0 {
			t.Errorf("%s: no damage detected", name)
		}
	}
}

// TestLIBSVMWithoutFeatures: a file whose lines hold labels only (a CSV
// file read as LIBSVM, say) is rejected at its first line.
func TestLIBSVMWithoutFeatures(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"1\n0\n":              {"x.svm:1: ", "a label and no index:value pairs", "expected lines of the form"},
		"# c\n\n1\n0 # z\n":   {"x.svm:3: "},
		"a,b,y\n1,2,0\n":      {"x.svm:1: ", `"a,b,y"`, "looks like CSV", "expected lines"},
		"a;b;y\n1;2;0\n3;4;1": {"x.svm:1: ", "looks like CSV"},
	} {
		_, err := ReadLIBSVM[float64](strings.NewReader(in), "x.svm", LIBSVMOptions{Task: TaskAuto})
		if err == nil {
			t.Errorf("%q accepted", in)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", in, err, w)
			}
		}
	}
	// With the dimension given, rows of zeros are fine.
	if ds, err := ReadLIBSVM[float64](strings.NewReader("1\n0\n"), "x.svm", LIBSVMOptions{Dim: 3}); err != nil || ds.D != 3 {
		t.Errorf("Dim 3: %v", err)
	}
}
