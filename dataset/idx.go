package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/cvarlearn/cvar/internal/numtext"
)

// Magic numbers of the IDX files used by MNIST and its look-alikes. They
// hold unsigned bytes (type 0x08) with 3 dimensions (images) or 1 (labels).
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// IDXOptions configures LoadIDX and ReadIDX.
type IDXOptions struct {
	// Raw keeps pixel values 0..255; by default they are scaled to [0,1].
	Raw bool
	// Limit, if positive, reads only the first Limit samples, for quick
	// experiments. The rest of the files is then not checked.
	Limit int
	// Classes, if not nil, imposes the class texts. By default classes are
	// "0".."9" (MNIST digits), extended to the largest label if it is
	// above 9. A label whose decimal text is not listed is an error.
	Classes []string
	// MaxBytes bounds the memory the reader holds, as CSVOptions.MaxBytes
	// does. It counts the pixels as read, a byte each. It counts the
	// feature matrix, N×D values of T: 8 times the image file's size for
	// float64. It counts the labels. The counts the headers announce are
	// checked against it before anything is read. So a corrupt header
	// asking for more is an error naming the file. 0 means
	// DefaultMaxBytes; a negative value, no bound.
	MaxBytes int64
}

// LoadMNIST loads the "train" or "test" split of MNIST from dir, with
// pixels scaled to [0,1]. Fashion-MNIST uses the same file names and loads
// too. See FindMNIST for the files it looks for. Features are named
// "pixel0".."pixel783", row-major, and classes are "0".."9". For other
// options, pass FindMNIST's paths to LoadIDX.
func LoadMNIST[T Float](dir, split string) (*Dataset[T], error) {
	images, labels, err := FindMNIST(dir, split)
	if err != nil {
		return nil, err
	}
	ds, err := LoadIDX[T](images, labels, IDXOptions{})
	if err != nil {
		return nil, err
	}
	ds.Name = "mnist-" + split
	return ds, nil
}

// FindMNIST returns the paths of the image and label files of the "train"
// or "test" split in dir. They are train-images-idx3-ubyte and
// train-labels-idx1-ubyte (resp. t10k-...). Each may have a .gz suffix.
// Each may have a '.' in place of the last '-', as some mirrors name them.
func FindMNIST(dir, split string) (images, labels string, err error) {
	var prefix string
	switch split {
	case "train":
		prefix = "train"
	case "test":
		prefix = "t10k"
	default:
		return "", "", fmt.Errorf("dataset: MNIST split %q; expected \"train\" or \"test\"", split)
	}
	if images, err = findFile(dir, prefix+"-images-idx3-ubyte", prefix+"-images.idx3-ubyte"); err != nil {
		return "", "", err
	}
	if labels, err = findFile(dir, prefix+"-labels-idx1-ubyte", prefix+"-labels.idx1-ubyte"); err != nil {
		return "", "", err
	}
	return images, labels, nil
}

// findFile returns the first of the names, with or without ".gz", that
// exists in dir.
func findFile(dir string, names ...string) (string, error) {
	for _, n := range names {
		for _, suffix := range []string{".gz", ""} {
			p := filepath.Join(dir, n+suffix)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("dataset: no %s or %s.gz in %s", names[0], names[0], dir)
}

// LoadIDX reads an IDX image file and the matching label file; see
// ReadIDX. Each may be raw or gzip-compressed, detected from the content,
// not the name.
func LoadIDX[T Float](imagesPath, labelsPath string, opt IDXOptions) (*Dataset[T], error) {
	fi, err := os.Open(imagesPath)
	if err != nil {
		return nil, err
	}
	defer fi.Close()
	fl, err := os.Open(labelsPath)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	return ReadIDX[T](fi, fl, imagesPath, labelsPath, opt)
}

// ReadIDX reads MNIST-style IDX data: an image file and a label file. The
// image file holds magic 0x00000803, then the count, rows and columns as
// big-endian uint32. Then comes one unsigned byte per pixel. The label
// file holds magic 0x00000801, the count, and one byte per label. The
// counts must agree. The files must hold exactly the bytes their headers
// announce. Errors give the byte offset or record at fault. Each image
// becomes one row of rows×columns features. The reader holds at most
// opt.MaxBytes + ReadOverhead bytes; see IDXOptions.MaxBytes.
func ReadIDX[T Float](images, labels io.Reader, imagesName, labelsName string, opt IDXOptions) (*Dataset[T], error) {
	if images == nil {
		return nil, nilReader(imagesName)
	}
	if labels == nil {
		return nil, nilReader(labelsName)
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("dataset: negative option Limit %d", opt.Limit)
	}
	var index *classIndex
	if opt.Classes != nil {
		var err error
		if index, err = newClassIndex(opt.Classes); err != nil {
			return nil, err
		}
	}
	b := newBudget(imagesName, opt.MaxBytes)
	imgDims, pixels, err := readIDXFile(images, imagesName, idxImagesMagic, "image", opt.Limit, b, sizeOf[T](), "their "+typeName[T]()+" matrix")
	if err != nil {
		return nil, err
	}
	b.name = labelsName
	lblDims, lbl, err := readIDXFile(labels, labelsName, idxLabelsMagic, "label", opt.Limit, b, 4, "their classes")
	if err != nil {
		return nil, err
	}
	b.name = imagesName
	if imgDims[0] != lblDims[0] {
		return nil, fileError(labelsName, "%d labels, but %s has %d images; expected one label per image",
			lblDims[0], imagesName, imgDims[0])
	}
	n := len(lbl)
	if n == 0 {
		return nil, fileError(imagesName, "no images; expected at least one")
	}
	d := imgDims[1] * imgDims[2]
	if err := checkDense[T](imagesName, n, d, b.bound, false); err != nil {
		return nil, err
	}
	ds := &Dataset[T]{Name: imagesName, N: n, D: d, Task: Classification}
	if ds.X, err = makeCounted[T](b, n*d, 0); err != nil {
		return nil, err
	}
	if ds.Labels, err = makeCounted[int32](b, n, 0); err != nil {
		return nil, err
	}
	if err := b.take(32*int64(d), 0); err != nil { // the names
		return nil, err
	}
	ds.Features = numberedNames("pixel", 0, d)
	// A table gives the correctly rounded p/255 in T at the cost of a load.
	var table [256]T
	for p := range table {
		table[p] = T(float64(p) / 255)
		if opt.Raw {
			table[p] = T(p)
		}
	}
	for i, p := range pixels {
		ds.X[i] = table[p]
	}
	if ds.Classes, err = idxLabels(ds.Labels, lbl, labelsName, index); err != nil {
		return nil, err
	}
	return ds, nil
}

// idxLabels maps label bytes to classes, through the imposed classes if
// any. Otherwise class k is "k" for k = 0..max(9, largest label).
func idxLabels(out []int32, lbl []byte, name string, index *classIndex) ([]string, error) {
	if index == nil {
		k := 10
		for _, l := range lbl {
			k = max(k, int(l)+1)
		}
		for i, l := range lbl {
			out[i] = int32(l)
		}
		return numberedNames("", 0, k), nil
	}
	for i, l := range lbl {
		c, ok := index.lookup(strconv.Itoa(int(l)))
		if !ok {
			return nil, fileError(name, "byte %d (label %d): label %d is not one of the %d expected classes %s",
				idxHeaderLen(1)+i, i, l, len(index.classes), quoteList(index.classes))
		}
		out[i] = c
	}
	return slices.Clone(index.classes), nil
}

func idxHeaderLen(ndims int) int { return 4 + 4*ndims }

// readIDXFile reads one IDX file of unsigned bytes. It checks the magic
// number. It returns the dimensions, count first; images always get three.
// It returns the data of the first limit records (all if limit is 0),
// within the budget. The budget must also leave room for perByte bytes a
// byte of data: what the caller makes of them, conv in messages.
func readIDXFile(r io.Reader, name string, magic uint32, what string, limit int, b *budget, perByte int64, conv string) ([3]int, []byte, error) {
	br, kind, err := decompressKind(r, name)
	if err != nil {
		return [3]int{}, nil, err
	}
	h := idxRead{name: name, kind: kind, magic: magic, what: what, limit: limit, b: b, perByte: perByte, conv: conv}
	dims, data, err := h.content(br)
	if err != nil {
		return dims, nil, verifyStream(br, kind, name, err)
	}
	return dims, data, nil
}

// idxRead is what readIDXFile reads, and how.
type idxRead struct {
	name, kind, what, conv string
	magic                  uint32
	limit                  int
	b                      *budget
	perByte                int64
}

// tooLarge reports a header whose records would take more than the budget
// leaves.
func (h *idxRead) tooLarge(announced, count, recLen, need int64) error {
	them := "them"
	if count < announced {
		them = fmt.Sprintf("the first %d", count)
	}
	return &Error{
		File: h.name,
		Msg: fmt.Sprintf("byte 4: header announces %d %ss of %d bytes; holding %s and %s needs %s, more than the bound of %s",
			announced, h.what, recLen, them, h.conv, numtext.Bytes(need), numtext.Bytes(h.b.bound)),
		Err: ErrTooLarge,
	}
}

func (h *idxRead) content(br *bufio.Reader) ([3]int, []byte, error) {
	name, kind, magic, what, limit := h.name, h.kind, h.magic, h.what, h.limit
	var dims [3]int
	after := ""
	if kind != "" {
		after = " after " + kind + " decompression"
	}
	ndims := int(magic & 0xff)
	hdr := make([]byte, idxHeaderLen(ndims))
	// Check the magic number before the sizes. So a wrong file is reported
	// as such even when it is shorter than the header.
	n, err := io.ReadFull(br, hdr[:4])
	if err == nil {
		if got := binary.BigEndian.Uint32(hdr); got != magic {
			return dims, nil, badMagic(name, got, magic, what)
		}
		var m int
		m, err = io.ReadFull(br, hdr[4:])
		n += m
	}
	if err != nil {
		return dims, nil, truncated(name, err, int64(len(hdr)), int64(n), fmt.Sprintf("the %d-byte header", len(hdr)), after)
	}
	// Sizes are uint32. Do the arithmetic in int64, so a corrupt header is
	// reported rather than overflowing (int may be 32 bits).
	size := [3]int64{0, 1, 1}
	for k := range ndims {
		size[k] = int64(binary.BigEndian.Uint32(hdr[4+4*k:]))
	}
	if size[1] == 0 || size[2] == 0 {
		return dims, nil, fileError(name, "byte 8: images of %d×%d pixels; expected both sizes positive", size[1], size[2])
	}
	count := size[0]
	if limit > 0 && int64(limit) < count {
		count = int64(limit)
	}
	recLen := size[1] * size[2] // < 2^64 but may exceed MaxInt64
	if size[1] > math.MaxInt64/size[2] || count > 0 && recLen > (math.MaxInt-int64(len(hdr))-1)/count {
		return dims, nil, fileError(name, "byte 4: header announces %d %ss of %d×%d bytes, too large to hold in memory",
			size[0], what, size[1], size[2])
	}
	want := count * recLen
	if need := satMul(want, 1+h.perByte); need > h.b.limit-h.b.held {
		return dims, nil, h.tooLarge(size[0], count, recLen, need)
	}
	layout := fmt.Sprintf("the %d-byte header and %d %ss of %d bytes", len(hdr), count, what, recLen)
	data, more, err := readBounded(br, want, h.b)
	got := int64(len(data))
	switch {
	case isLimit(err):
		return dims, nil, err
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return dims, nil, &Error{File: name, Msg: fmt.Sprintf("byte %d%s: read failed", int64(len(hdr))+got, after), Err: err}
	case err != nil || got < want:
		return dims, nil, truncated(name, err, int64(len(hdr))+want, int64(len(hdr))+got, layout, after)
	case more && count == size[0]:
		return dims, nil, fileError(name, "byte %d%s: data continues after %s; expected the file to end there",
			int64(len(hdr))+want, after, layout)
	}
	dims = [3]int{int(size[0]), int(size[1]), int(size[2])}
	return dims, data[:want], nil
}

// readBounded reads want bytes, or fewer if the input ends first. It
// reports whether more follow. It allocates what the header claims only up
// to 1 MiB. From there it doubles as data actually arrives. So a corrupt
// header cannot make it allocate more than twice the data the input holds.
// MNIST's 47 MB take six doublings. The budget is charged for each array.
func readBounded(r io.Reader, want int64, b *budget) (data []byte, more bool, err error) {
	if data, err = realloc(b, data, min(want, 1<<20), 0); err != nil {
		return nil, false, err
	}
	for int64(len(data)) < want {
		if len(data) == cap(data) {
			if data, err = realloc(b, data, min(want, 2*int64(cap(data))), 0); err != nil {
				return nil, false, err
			}
		}
		end := int(min(int64(cap(data)), want))
		n, err := r.Read(data[len(data):end])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, false, nil
		}
		if err != nil {
			return data, false, err
		}
	}
	var probe [1]byte
	n, err := io.ReadFull(r, probe[:])
	if err != nil && err != io.EOF {
		return data, false, err
	}
	return data, n > 0, nil
}

// satMul is a×b for a, b ≥ 0, or math.MaxInt64 when that overflows.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// truncated reports a file that ended early, with the sizes involved.
func truncated(name string, err error, want, got int64, layout, after string) error {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &Error{
		File: name,
		Msg:  fmt.Sprintf("truncated: expected %d bytes (%s), found %d%s", want, layout, got, after),
		Err:  err,
	}
}

// badMagic explains a wrong magic number, recognising the common mistake of
// swapping the image and label files.
func badMagic(name string, got, want uint32, what string) error {
	msg := fmt.Sprintf("byte 0: magic number 0x%08x; expected 0x%08x (an IDX %s file)", got, want, what)
	switch {
	case got == idxImagesMagic || got == idxLabelsMagic:
		msg += "; are the image and label files swapped?"
	case got>>16 == 0x1f8b:
		msg += "; the file looks like a corrupt gzip stream"
	case got>>8 == 0x08 && got&0xff != want&0xff:
		msg += fmt.Sprintf("; the file has %d dimensions", got&0xff)
	case got>>8&0xff != 0x08 && got>>16 == 0:
		msg += fmt.Sprintf("; element type 0x%02x is not supported (only unsigned bytes, 0x08)", got>>8&0xff)
	}
	return fileError(name, "%s", msg)
}
