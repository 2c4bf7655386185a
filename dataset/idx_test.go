package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// idxImages encodes n images of rows×cols pixels, pixel p of image i being
// byte(i*31 + p*7).
func idxImages(n, rows, cols int) []byte {
	b := binary.BigEndian.AppendUint32(nil, idxImagesMagic)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, uint32(rows))
	b = binary.BigEndian.AppendUint32(b, uint32(cols))
	for i := range n {
		for p := range rows * cols {
			b = append(b, byte(i*31+p*7))
		}
	}
	return b
}

func idxLabelFile(labels ...byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, idxLabelsMagic)
	b = binary.BigEndian.AppendUint32(b, uint32(len(labels)))
	return append(b, labels...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func readIDXBytes(images, labels []byte, opt IDXOptions) (*Dataset[float64], error) {
	return ReadIDX[float64](bytes.NewReader(images), bytes.NewReader(labels), "img.idx", "lbl.idx", opt)
}

func TestReadIDX(t *testing.T) {
	t.Parallel()
	images, labels := idxImages(3, 2, 3), idxLabelFile(4, 0, 9)
	ds, err := readIDXBytes(images, labels, IDXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 6 || ds.K() != 10 || ds.Task != Classification {
		t.Fatalf("N=%d D=%d K=%d task %v", ds.N, ds.D, ds.K(), ds.Task)
	}
	for i := range 3 {
		for p := range 6 {
			if got, want := ds.Row(i)[p], float64(byte(i*31+p*7))/255; got != want {
				t.Fatalf("pixel %d of image %d = %v, want %v", p, i, got, want)
			}
		}
	}
	if !slices.Equal(ds.Labels, []int32{4, 0, 9}) || ds.Classes[9] != "9" {
		t.Errorf("Labels %v Classes %q", ds.Labels, ds.Classes)
	}
	if ds.Features[0] != "pixel0" || ds.Features[5] != "pixel5" {
		t.Errorf("Features %q", ds.Features)
	}

	raw, err := readIDXBytes(images, labels, IDXOptions{Raw: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if raw.N != 2 || raw.X[1] != 7 || raw.X[6] != 31 {
		t.Errorf("raw, limit 2: N=%d X=%v", raw.N, raw.X)
	}
}

func TestLoadIDXGzipMatchesRaw(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images, labels := idxImages(5, 4, 4), idxLabelFile(1, 2, 3, 4, 5)
	files := map[string][]byte{
		"img": images, "lbl": labels,
		// Names that do not say gz: detection must use the content.
		"img-z": gz(images), "lbl-z": gz(labels),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := LoadIDX[float32](filepath.Join(dir, "img"), filepath.Join(dir, "lbl"), IDXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zipped, err := LoadIDX[float32](filepath.Join(dir, "img-z"), filepath.Join(dir, "lbl-z"), IDXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.X, zipped.X) || !slices.Equal(plain.Labels, zipped.Labels) || plain.N != 5 {
		t.Error("gzip and raw IDX files differ")
	}
}

func TestReadIDXErrors(t *testing.T) {
	t.Parallel()
	images, labels := idxImages(3, 2, 2), idxLabelFile(1, 2, 3)
	wrongMagic := slices.Clone(images)
	wrongMagic[2] = 0x0d // float data
	zeroSize := idxImages(3, 0, 2)
	cases := []struct {
		name           string
		images, labels []byte
		opt            IDXOptions
		want           []string
	}{
		{"truncated images", images[:len(images)-3], labels, IDXOptions{}, []string{"img.idx: truncated", "expected 28 bytes", "found 25"}},
		{"truncated gz images", gz(images[:len(images)-3]), labels, IDXOptions{}, []string{"img.idx: truncated", "expected 28 bytes", "found 25 after gzip decompression"}},
		{"cut gzip stream", gz(images)[:30], labels, IDXOptions{}, []string{"img.idx", "unexpected EOF"}},
		{"truncated labels", images, labels[:len(labels)-1], IDXOptions{}, []string{"lbl.idx: truncated", "expected 11 bytes", "found 10"}},
		{"truncated header", images[:10], labels, IDXOptions{}, []string{"img.idx: truncated", "expected 16 bytes", "found 10"}},
		{"empty images", nil, labels, IDXOptions{}, []string{"img.idx: truncated", "found 0"}},
		{"swapped", labels, images, IDXOptions{}, []string{"img.idx: byte 0: magic number 0x00000801", "expected 0x00000803", "swapped"}},
		{"wrong labels magic", images, images, IDXOptions{}, []string{"lbl.idx: byte 0: magic number 0x00000803", "expected 0x00000801"}},
		{"unsupported type", wrongMagic, labels, IDXOptions{}, []string{"img.idx: byte 0", "0x00000d03", "type 0x0d"}},
		{"text file", []byte("hello, world, this is not IDX"), labels, IDXOptions{}, []string{"img.idx: byte 0: magic number"}},
		{"count mismatch", images, idxLabelFile(1, 2), IDXOptions{}, []string{"lbl.idx: 2 labels", "img.idx has 3 images"}},
		{"extra bytes", append(slices.Clone(images), 0), labels, IDXOptions{}, []string{"img.idx: byte 28", "data continues"}},
		{"zero size", zeroSize, labels, IDXOptions{}, []string{"img.idx: byte 8", "0×2 pixels"}},
		{"no images", idxImages(0, 2, 2), idxLabelFile(), IDXOptions{}, []string{"img.idx: no images"}},
		{"label not in classes", images, labels, IDXOptions{Classes: []string{"1", "2"}}, []string{"lbl.idx: byte 10 (label 2)", "label 3", `["1" "2"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readIDXBytes(c.images, c.labels, c.opt)
			wantErr(t, err, c.want...)
		})
	}
	_, err := readIDXBytes(images[:20], labels, IDXOptions{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncation error %v does not wrap io.ErrUnexpectedEOF", err)
	}
	// A huge announced size must be reported, not allocated.
	huge := idxImages(0, 0, 0)
	binary.BigEndian.PutUint32(huge[4:], 0xffffffff)
	binary.BigEndian.PutUint32(huge[8:], 0xffffffff)
	binary.BigEndian.PutUint32(huge[12:], 0xffffffff)
	_, err = readIDXBytes(huge, labels, IDXOptions{})
	wantErr(t, err, "img.idx", "too large")
	binary.BigEndian.PutUint32(huge[8:], 1000)
	binary.BigEndian.PutUint32(huge[12:], 1000)
	_, err = readIDXBytes(huge, labels, IDXOptions{})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("4294967295 images of 10⁶ bytes under the default bound: %v; want ErrTooLarge", err)
	}
	wantErr(t, err, "img.idx: byte 4", "4294967295 images of 1000000 bytes", "float64 matrix", "bound of 4 GiB")
	// Without a bound the header is believed only as far as data arrives.
	_, err = readIDXBytes(huge, labels, IDXOptions{MaxBytes: -1})
	if strconv.IntSize == 64 {
		wantErr(t, err, "img.idx: truncated", "found 16")
	} else {
		wantErr(t, err, "img.idx", "too large") // 4.3e15 bytes do not fit in an int
	}
}

// mnistDir is where CI keeps MNIST: shared/ beside the repository.
const mnistDir = "../../shared/data/mnist"

func TestLoadMNIST(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(mnistDir); err != nil {
		t.Skipf("MNIST not available: %v", err)
	}
	train, err := LoadMNIST[float32](mnistDir, "train")
	if err != nil {
		t.Fatal(err)
	}
	test, err := LoadMNIST[float64](mnistDir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 60000 || test.N != 10000 || train.D != 784 || test.D != 784 {
		t.Fatalf("train %d×%d, test %d×%d", train.N, train.D, test.N, test.D)
	}
	if train.Labels[0] != 5 || train.Classes[5] != "5" || train.K() != 10 || train.Name != "mnist-train" {
		t.Errorf("first label %d, classes %q, name %q", train.Labels[0], train.Classes, train.Name)
	}
	lo, hi := slices.Min(train.X), slices.Max(train.X)
	if lo != 0 || hi != 1 {
		t.Errorf("pixel range [%v, %v], want [0, 1]", lo, hi)
	}
	if err := test.Validate(); err != nil {
		t.Error(err)
	}
	counts := make([]int, 10)
	for _, l := range test.Labels {
		counts[l]++
	}
	for k, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("test class %d has %d samples", k, c)
		}
	}
	if _, err := LoadMNIST[float32](mnistDir, "validation"); err == nil || !strings.Contains(err.Error(), `"validation"`) {
		t.Errorf("bad split: %v", err)
	}
	if _, err := LoadMNIST[float32](t.TempDir(), "train"); err == nil || !strings.Contains(err.Error(), "train-images-idx3-ubyte") {
		t.Errorf("missing files: %v", err)
	}
	images, labels, err := FindMNIST(mnistDir, "test")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := LoadIDX[float32](images, labels, IDXOptions{Raw: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if raw.N != 100 || slices.Max(raw.X) != 255 || !slices.Equal(raw.Labels, test.Labels[:100]) {
		t.Errorf("raw, limit 100: N=%d max %v", raw.N, slices.Max(raw.X))
	}
}
