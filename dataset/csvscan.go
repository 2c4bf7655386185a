package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/cvarlearn/cvar/internal/numtext"
)

// csvScanner splits CSV text into records by the rules of encoding/csv. It
// takes FieldsPerRecord 0: every record has as many fields as the first.
// It takes neither LazyQuotes nor TrimLeadingSpace. So it has RFC 4180
// quoting, and reads "\r\n" as "\n". It skips empty lines and comment
// lines. It gives the same *csv.ParseError values. Unlike encoding/csv it
// holds a record within a budget. A line longer than maxLine is an error.
// So is a record whose quoted fields span more than maxLine bytes. Its
// buffers are charged as they grow. Of a record with more fields than the
// first, only the count is kept.
type csvScanner struct {
	br      *bufio.Reader
	name    string
	comma   rune
	comment rune
	b       *budget
	maxLine int64

	numLine int    // lines read
	long    []byte // a line longer than br's buffer
	buf     []byte // the kept fields' text, unquoted, one after another
	ends    []int  // where kept field k ends in buf
	pos     []fieldPos
	fields  int // fields of the record, kept or not
	keep    int // the most fields kept; 0 keeps all
	want    int // fields of the first record; 0 until it is read
	start   int // line the record last read starts on
}

type fieldPos struct{ line, col int }

// field returns kept field k of the record last read, valid until the next
// read.
func (s *csvScanner) field(k int) []byte {
	lo := 0
	if k > 0 {
		lo = s.ends[k-1]
	}
	return s.buf[lo:s.ends[k]]
}

// isLimit reports an error of the budget or of the line limit, which ends
// reading at once.
func isLimit(err error) bool {
	return err != nil && (errors.Is(err, ErrTooLarge) || errors.Is(err, ErrLineTooLong))
}

// readLine returns the next line as encoding/csv's Reader.readLine does.
func (s *csvScanner) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = s.long[:0]
		for err == bufio.ErrBufferFull {
			if err := s.appendLong(line); err != nil {
				return nil, err
			}
			line, err = s.br.ReadSlice('\n')
		}
		if err := s.appendLong(line); err != nil {
			return nil, err
		}
		line = s.long
	}
	if int64(len(line)) > s.maxLine {
		return nil, s.tooLong(s.numLine+1, "line")
	}
	readSize := len(line)
	if readSize > 0 && err == io.EOF {
		err = nil
		if line[readSize-1] == '\r' {
			line = line[:readSize-1]
		}
	}
	s.numLine++
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

func (s *csvScanner) appendLong(chunk []byte) error {
	if int64(len(s.long))+int64(len(chunk)) > s.maxLine {
		return s.tooLong(s.numLine+1, "line")
	}
	var err error
	if s.long, err = growMax(s.b, s.long, len(chunk), s.maxLine, s.numLine+1); err != nil {
		return err
	}
	s.long = append(s.long, chunk...)
	return nil
}

func (s *csvScanner) tooLong(line int, what string) error {
	return &Error{File: s.name, Line: line, Msg: fmt.Sprintf("%s longer than the limit of %s", what, numtext.Bytes(s.maxLine)), Err: ErrLineTooLong}
}

// appendText adds text to the current field, if it is kept.
func (s *csvScanner) appendText(text ...byte) error {
	if s.keep > 0 && s.fields >= s.keep {
		return nil
	}
	if len(s.buf)+len(text) <= cap(s.buf) {
		s.buf = append(s.buf, text...) // within the capacity charged
		return nil
	}
	if int64(len(s.buf))+int64(len(text)) > s.maxLine {
		return s.tooLong(s.numLine, "record with its quoted fields' lines")
	}
	var err error
	if s.buf, err = growMax(s.b, s.buf, len(text), s.maxLine, s.numLine); err != nil {
		return err
	}
	s.buf = append(s.buf, text...)
	return nil
}

// endField ends the current field.
func (s *csvScanner) endField(p fieldPos) error {
	if len(s.ends) < cap(s.ends) && len(s.pos) < cap(s.pos) && (s.keep == 0 || s.fields < s.keep) {
		s.ends, s.pos = append(s.ends, len(s.buf)), append(s.pos, p) // within the capacity charged
	} else if s.keep == 0 || s.fields < s.keep {
		var err error
		if s.ends, err = appendTo(s.b, s.ends, s.numLine, len(s.buf)); err != nil {
			return err
		}
		if s.pos, err = appendTo(s.b, s.pos, s.numLine, p); err != nil {
			return err
		}
	}
	s.fields++
	return nil
}

// read reads the next record: s.fields fields, of which the first
// len(s.ends) are kept. It returns io.EOF after the last record.
func (s *csvScanner) read() error {
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = s.readLine()
		if isLimit(errRead) {
			return errRead
		}
		if s.comment != 0 && nextRune(line) == s.comment {
			line = nil
			continue
		}
		if errRead == nil && len(line) == lengthNL(line) {
			line = nil
			continue
		}
		break
	}
	if errRead == io.EOF {
		return io.EOF
	}
	s.buf, s.ends, s.pos, s.fields = s.buf[:0], s.ends[:0], s.pos[:0], 0
	s.start = s.numLine
	err, errRead := s.parse(line, errRead)
	if isLimit(err) {
		return err
	}
	if err == nil {
		err = errRead
	}
	if s.want == 0 {
		s.want = s.fields
	} else if s.fields != s.want && err == nil {
		return &csv.ParseError{StartLine: s.start, Line: s.start, Column: 1, Err: csv.ErrFieldCount}
	}
	return err
}

// parse splits the record that starts with line into fields. It returns
// the parse error and the read error, as encoding/csv keeps them apart.
func (s *csvScanner) parse(line []byte, errRead error) (error, error) {
	commaLen := utf8.RuneLen(s.comma)
	recLine := s.start
	pos := fieldPos{line: s.numLine, col: 1}
	for {
		if len(line) == 0 || line[0] != '"' {
			i := bytes.IndexRune(line, s.comma)
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				return &csv.ParseError{StartLine: recLine, Line: s.numLine, Column: pos.col + j, Err: csv.ErrBareQuote}, errRead
			}
			if err := s.appendText(field...); err != nil {
				return err, errRead
			}
			if err := s.endField(pos); err != nil {
				return err, errRead
			}
			if i < 0 {
				return nil, errRead
			}
			line = line[i+commaLen:]
			pos.col += i + commaLen
			continue
		}
		// A quoted field, which may span lines.
		fieldPos := pos
		line = line[1:]
		pos.col++
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				if err := s.appendText(line[:i]...); err != nil {
					return err, errRead
				}
				line = line[i+1:]
				pos.col += i + 1
				switch rn := nextRune(line); {
				case rn == '"':
					if err := s.appendText('"'); err != nil {
						return err, errRead
					}
					line = line[1:]
					pos.col++
					continue
				case rn == s.comma:
					line = line[commaLen:]
					pos.col += commaLen
					if err := s.endField(fieldPos); err != nil {
						return err, errRead
					}
				case lengthNL(line) == len(line):
					return s.endField(fieldPos), errRead
				default:
					return &csv.ParseError{StartLine: recLine, Line: s.numLine, Column: pos.col - 1, Err: csv.ErrQuote}, errRead
				}
			case len(line) > 0:
				if err := s.appendText(line...); err != nil {
					return err, errRead
				}
				if errRead != nil {
					return nil, errRead
				}
				pos.col += len(line)
				line, errRead = s.readLine()
				if isLimit(errRead) {
					return errRead, nil
				}
				if len(line) > 0 {
					pos.line++
					pos.col = 1
				}
				if errRead == io.EOF {
					errRead = nil
				}
				continue
			default:
				if errRead == nil {
					return &csv.ParseError{StartLine: recLine, Line: pos.line, Column: pos.col, Err: csv.ErrQuote}, nil
				}
				return s.endField(fieldPos), errRead
			}
			break // the field ended with a comma: the next one
		}
	}
}

func nextRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}

func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}
