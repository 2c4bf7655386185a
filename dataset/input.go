package dataset

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io"
)

// decompress returns a buffered reader of r's content, transparently
// decompressing gzip and bzip2 input. The format is recognised by its magic
// bytes, not a file name, since readers are often handed plain io.Readers.
func decompress(r io.Reader, name string) (*bufio.Reader, error) {
	br, _, err := decompressKind(r, name)
	return br, err
}

// decompressKind is decompress that also says which compression it found:
// "gzip", "bzip2" or "" for none.
func decompressKind(r io.Reader, name string) (*bufio.Reader, string, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(10) // short input simply matches nothing
	switch {
	case isGzip(magic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", &Error{File: name, Msg: "corrupt gzip header", Err: err}
		}
		return bufio.NewReaderSize(zr, 1<<16), "gzip", nil
	case isBzip2(magic):
		return bufio.NewReaderSize(bzip2.NewReader(br), 1<<16), "bzip2", nil
	}
	return br, "", nil
}

// isGzip recognises the gzip magic 1f 8b followed by the deflate method.
func isGzip(b []byte) bool { return len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 }

// isBzip2 recognises "BZh", a block size digit and the magic of the first
// block or of the end of an empty stream; checking ten bytes keeps a text
// file that happens to begin with "BZh" from being mistaken for bzip2.
func isBzip2(b []byte) bool {
	if len(b) < 10 || string(b[:3]) != "BZh" || b[3] < '1' || b[3] > '9' {
		return false
	}
	return bytes.Equal(b[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(b[4:10], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// skipBOM drops a UTF-8 byte-order mark, which spreadsheet programs put at
// the start of exported CSV files and which would otherwise become part of
// the first column's name.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
}
