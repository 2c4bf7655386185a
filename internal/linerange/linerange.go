// Package linerange reads the lines that start in a byte range of a file.
// Ranges that tile a file read each of its lines exactly once, so that
// workers can read parts of one file apart.
package linerange

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Open returns the lines of r whose first byte lies in [start, end); r is
// read from the file's start. The line that holds byte start−1 belongs to
// the range before. With head, a range after the first gets the file's
// first line (a CSV header) in front. Long lines pass through whole.
func Open(r io.Reader, start, end int64, head bool) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var first []byte
	var err error
	if head && start > 0 {
		if first, err = br.ReadBytes('\n'); err != nil && err != io.EOF {
			return nil, err
		}
	}
	pos := int64(len(first))
	if start > 0 && pos < start {
		if _, err := br.Discard(int(start - 1 - pos)); err != nil {
			return nil, err
		}
		n, err := skipLine(br)
		if err != nil && err != io.EOF {
			return nil, err
		}
		pos = start - 1 + n
	}
	lr := &lines{br: br, pos: pos, end: end}
	return io.MultiReader(bytes.NewReader(first), lr), nil
}

// skipLine reads up to and including the next line break.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

// lines passes on whole lines while each starts before end.
type lines struct {
	br      *bufio.Reader
	pos     int64 // bytes of the file taken from br
	end     int64
	rest    []byte // what the last Read could not take of its slice
	midLine bool
	done    bool
}

func (l *lines) Read(p []byte) (int, error) {
	if len(l.rest) > 0 { // br was not read since: the slice is valid
		n := copy(p, l.rest)
		l.rest = l.rest[n:]
		return n, nil
	}
	if l.done || !l.midLine && l.pos >= l.end {
		return 0, io.EOF
	}
	line, err := l.br.ReadSlice('\n')
	l.pos += int64(len(line))
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		l.midLine = true
	case err == io.EOF:
		l.done, l.midLine = true, false
	case err != nil:
		return 0, err
	default:
		l.midLine = false
	}
	n := copy(p, line)
	l.rest = line[n:]
	if n == 0 && l.done {
		return 0, io.EOF
	}
	return n, nil
}

// Before counts the lines of r (read from its start) that start before
// byte off: add it to a line number within the range that starts at off.
func Before(r io.Reader, off int64) (int, error) {
	if off <= 0 {
		return 0, nil
	}
	n := 1 // the line that holds byte off−1
	buf := make([]byte, 1<<16)
	lr := io.LimitReader(r, off-1)
	for {
		k, err := lr.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}
