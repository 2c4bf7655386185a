package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Causes wrapped by a reader's *Error (its Err); test with errors.Is.
var (
	// ErrTooLarge is wrapped by the *Error of a reader that would hold more
	// memory than its MaxBytes option allows.
	ErrTooLarge = errors.New("over the memory bound; raise the option MaxBytes to allow it")

	// ErrLineTooLong is wrapped by the *Error of a reader that meets a line
	// longer than its MaxLine option allows.
	ErrLineTooLong = errors.New("over the line limit; raise the option MaxLine to allow it")
)

// errNoDataset is the error of a function given a nil *Dataset.
var errNoDataset = errors.New("dataset: no data set (nil *Dataset)")

// WidthError is the cause (Error.Err) of a LIBSVM index above the width.
// The width is the option Dim when given. Else it is MaxDim, the bound on
// an inferred width.
type WidthError struct {
	Index int  // the index found (1-based)
	Width int  // Dim, or MaxDim
	Given bool // Width is the option Dim
}

func (e *WidthError) Error() string {
	if e.Given {
		return fmt.Sprintf("index %d exceeds the dimension %d given in the options", e.Index, e.Width)
	}
	return fmt.Sprintf("index %d exceeds MaxDim %d; give Dim or raise MaxDim if the data really is that wide", e.Index, e.Width)
}

// Error is a problem with an input, located as precisely as the format
// allows. Its message reads
//
//	file:line: column c ("name"): what was wrong; what was expected
//
// with the parts that do not apply left out. Callers that need the position
// can retrieve the *Error with errors.As.
type Error struct {
	File   string // name of the input as given by the caller
	Line   int    // 1-based line number; 0 when not applicable
	Column int    // 1-based column (CSV field) number; 0 when not applicable
	Field  string // name of the column, if known
	Msg    string // what was wrong and what was expected
	Err    error  // underlying cause such as an I/O error; may be nil
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File == "" {
		b.WriteString("<input>")
	} else {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column > 0 {
		fmt.Fprintf(&b, "column %d", e.Column)
		if e.Field != "" {
			fmt.Fprintf(&b, " (%q)", e.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause, so that errors.Is(err, io.ErrUnexpectedEOF)
// and similar tests work.
func (e *Error) Unwrap() error { return e.Err }

// lineError returns an *Error for a whole line.
func lineError(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// fileError returns an *Error that concerns a whole input.
func fileError(file string, format string, args ...any) *Error {
	return &Error{File: file, Msg: fmt.Sprintf(format, args...)}
}

// ioError wraps a failure of the underlying reader, with the line reached.
func ioError(file string, line int, err error) *Error {
	return &Error{File: file, Line: line, Msg: "read failed", Err: err}
}

// nilReader reports a nil io.Reader handed to a reader.
func nilReader(file string) *Error {
	return &Error{File: file, Msg: "nil io.Reader; expected the data to read"}
}

// readFailed is ioError, except for the errors of the memory bound and the
// line limit, which are returned as they are.
func readFailed(file string, line int, err error) error {
	if isLimit(err) {
		return err
	}
	return ioError(file, line, err)
}

// quoteList formats names as ["a" "b" "c"], eliding the middle of long lists
// so that messages stay readable.
func quoteList(names []string) string {
	const head = 10
	parts := make([]string, 0, head+2)
	if len(names) <= head+2 {
		for _, s := range names {
			parts = append(parts, strconv.Quote(s))
		}
	} else {
		for _, s := range names[:head] {
			parts = append(parts, strconv.Quote(s))
		}
		parts = append(parts, fmt.Sprintf("… %d more …", len(names)-head-1))
		parts = append(parts, strconv.Quote(names[len(names)-1]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// clip shortens s, at a rune boundary, for quoting in a message. A corrupt
// input can hold megabytes where a number was expected.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
