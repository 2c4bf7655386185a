package dataset

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"io"
)

// decompressed is the content of an input, decompressed if it was gzip or
// bzip2. It keeps what is needed to blame a corrupt compressed stream.
type decompressed struct {
	br   *bufio.Reader
	kind string // "gzip", "bzip2" or "" for none
	name string
}

// decompress returns a buffered reader of r's content, transparently
// decompressing gzip and bzip2 input. The format is recognised by its magic
// bytes, not a file name, since readers are often handed plain io.Readers.
// It is the one place where every reader's input is sniffed.
func decompress(r io.Reader, name string) (*decompressed, error) {
	br, kind, err := decompressKind(r, name)
	if err != nil {
		return nil, err
	}
	return &decompressed{br: br, kind: kind, name: name}, nil
}

// verifyStream returns err, a problem found in the decompressed content,
// unless the compressed stream turns out to be corrupt. A decompressor
// hands out garbage before it detects the damage; gzip checks its CRC only
// at the end. That garbage would otherwise be reported as a bad row or
// header. So verifyStream reads on, on this error path only. It reads up
// to verifyReach bytes of content: input that never ends (a pipe) has no
// end to reach.
//
// The errors of the memory bound and the line limit are returned as they
// are: they stop reading input that may never end.
func verifyStream(br *bufio.Reader, kind, name string, err error) error {
	if kind == "" || err == nil || err == io.EOF || isLimit(err) {
		return err
	}
	var de *decodeError
	if errors.As(err, &de) {
		return err
	}
	if _, derr := io.CopyN(io.Discard, br, verifyReach); errors.As(derr, &de) {
		return de.fileError(name)
	}
	return err
}

// verifyReach is how far verifyStream reads past an error: 64 MiB, a
// fraction of a second of gzip, some seconds of bzip2.
const verifyReach = 64 << 20

func (d *decompressed) verify(err error) error { return verifyStream(d.br, d.kind, d.name, err) }

// decodeError is a failure of a decompressor: corrupt or truncated
// compressed data.
type decodeError struct {
	kind string
	err  error
}

func (e *decodeError) Error() string {
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return "truncated " + e.kind + " stream: " + e.err.Error()
	}
	return "corrupt " + e.kind + " data: " + e.err.Error()
}

func (e *decodeError) Unwrap() error { return e.err }

func (e *decodeError) fileError(name string) *Error {
	msg := "corrupt " + e.kind + " data"
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		msg = "truncated " + e.kind + " stream"
	}
	return &Error{File: name, Msg: msg, Err: e.err}
}

// decodeReader marks the errors of a decompressor as decodeErrors.
type decodeReader struct {
	r    io.Reader
	kind string
}

func (d *decodeReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = &decodeError{kind: d.kind, err: err}
	}
	return n, err
}

// decompressKind is decompress that also says which compression it found:
// "gzip", "bzip2" or "" for none.
func decompressKind(r io.Reader, name string) (*bufio.Reader, string, error) {
	if r == nil {
		return nil, "", nilReader(name)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(10) // short input simply matches nothing
	switch Compression(magic) {
	case "gzip":
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", &Error{File: name, Msg: "corrupt gzip header", Err: err}
		}
		return bufio.NewReaderSize(&decodeReader{r: zr, kind: "gzip"}, 1<<16), "gzip", nil
	case "bzip2":
		return bufio.NewReaderSize(&decodeReader{r: bzip2.NewReader(br), kind: "bzip2"}, 1<<16), "bzip2", nil
	}
	return br, "", nil
}

// Compression names the compression whose magic bytes b starts with:
// "gzip", "bzip2", or "" for none (or too few bytes to tell). It needs 10
// bytes to recognise bzip2 (see isBzip2), 3 for gzip. It is the one test
// of compression that the module's readers of data and of model files use.
func Compression(b []byte) string {
	switch {
	case isGzip(b):
		return "gzip"
	case isBzip2(b):
		return "bzip2"
	}
	return ""
}

// isGzip recognises the gzip magic 1f 8b followed by the deflate method.
func isGzip(b []byte) bool { return len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 }

// isBzip2 recognises "BZh", a block size digit and the magic of the first
// block or of the end of an empty stream. Checking ten bytes keeps a text
// file that happens to begin with "BZh" from being mistaken for bzip2.
func isBzip2(b []byte) bool {
	if len(b) < 10 || string(b[:3]) != "BZh" || b[3] < '1' || b[3] > '9' {
		return false
	}
	return bytes.Equal(b[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(b[4:10], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// skipBOM drops a UTF-8 byte-order mark. Spreadsheet programs put one at
// the start of exported CSV files. It would otherwise become part of the
// first column's name.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
}
