package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// CSVOptions configures ReadCSV, LoadCSV and NewCSVStream. The zero value
// reads comma-separated data with a header row, the target in the last
// column, as a classification task (set Task to TaskAuto to infer it).
type CSVOptions struct {
	// Comma is the field delimiter; 0 means ','. Use '\t' for TSV.
	Comma rune
	// Comment, if not 0, starts comment lines, which are skipped.
	Comment rune
	// NoHeader says the first row is data. Features are then named
	// "f1".."fD" and Target must be empty or a column index.
	NoHeader bool
	// Target is the target column: a header name or, if no column has
	// that name, a 0-based column index. Empty means the last column.
	Target string
	// Task is Classification, Regression or TaskAuto. The zero value is
	// Classification. Streams cannot infer the task, so reject TaskAuto.
	Task Task
	// Classes, if not nil, imposes the class mapping (label text of class
	// 0, 1, ...) of an earlier dataset, typically the training set; a label
	// that is not listed is an error. It implies Classification.
	Classes []string
	// Limit, if positive, reads only the first Limit samples; the rest of
	// the input is neither read nor checked. Streams ignore it.
	Limit int
	// MaxBytes bounds the dense feature matrix, N×D values of T: a larger
	// input is an error wrapping ErrTooLarge. 0 means DefaultMaxBytes; a
	// negative value, no bound. Streams ignore it.
	MaxBytes int64
}

// LoadCSV reads a CSV file; see ReadCSV. The file may be gzip- or
// bzip2-compressed (detected from its content, not its name). Error messages
// name the file by path as given.
func LoadCSV[T Float](path string, opt CSVOptions) (*Dataset[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV[T](f, path, opt)
}

// ReadCSV reads a dataset from comma-separated values: one header row of
// column names (unless opt.NoHeader), then one row per sample with the same
// number of fields. Every feature cell must be a finite number; surrounding
// spaces are ignored. The name is used for Dataset.Name and in error
// messages, which give the 1-based line and column of the first bad cell:
//
//	data.csv:17: column 3 ("age"): "abc" is not a number
//
// Gzip- and bzip2-compressed input is decompressed transparently.
func ReadCSV[T Float](r io.Reader, name string, opt CSVOptions) (*Dataset[T], error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("dataset: negative option Limit %d", opt.Limit)
	}
	ts, err := newTargetSpec(opt.Task, opt.Classes)
	if err != nil {
		return nil, err
	}
	src, err := newCSVSource[T](r, name, opt)
	if err != nil {
		return nil, err
	}
	d := len(src.features)
	bound := maxBytes(opt.MaxBytes)
	var (
		x     []T
		texts []string
		row   = make([]T, d)
	)
	for opt.Limit == 0 || len(texts) < opt.Limit {
		target, _, err := src.next(row, ts)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := checkDense[T](name, len(texts)+1, d, bound, true); err != nil {
			return nil, err
		}
		x = append(x, row...)
		texts = append(texts, target)
	}
	if len(texts) == 0 {
		if opt.NoHeader {
			return nil, fileError(name, "no data rows")
		}
		return nil, fileError(name, "no data rows after the header; expected at least one sample")
	}
	task, y, labels, classes := resolve[T](ts, texts)
	return &Dataset[T]{
		Name:     name,
		X:        x,
		N:        len(texts),
		D:        d,
		Task:     task,
		Y:        y,
		Labels:   labels,
		Classes:  classes,
		Features: src.features,
	}, nil
}

// csvSource reads CSV rows one at a time; it serves both ReadCSV and the
// CSV stream, so that both report the same errors.
type csvSource[T Float] struct {
	name     string
	r        *csv.Reader
	columns  []string // names of all columns, for messages
	target   int      // index of the target column
	features []string // names of the feature columns
	first    []string // with NoHeader, the first record, already read
	line     int      // line of the last record read
	noHeader bool
	in       *decompressed
}

// newCSVSource reads the header (or the first record) and locates the target.
func newCSVSource[T Float](r io.Reader, name string, opt CSVOptions) (*csvSource[T], error) {
	in, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	s, err := newCSVSourceOf[T](in, name, opt)
	if err != nil {
		return nil, in.verify(err)
	}
	return s, nil
}

func newCSVSourceOf[T Float](in *decompressed, name string, opt CSVOptions) (*csvSource[T], error) {
	br := in.br
	skipBOM(br)
	cr := csv.NewReader(br)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.Comment = opt.Comment
	cr.ReuseRecord = true
	// FieldsPerRecord 0 makes the first record (the header) fix the count,
	// so csv itself reports ragged rows, with their line.
	cr.FieldsPerRecord = 0
	if cr.Comma == opt.Comment || !validDelim(cr.Comma) || opt.Comment != 0 && !validDelim(opt.Comment) {
		return nil, fmt.Errorf("dataset: invalid CSV delimiter %q or comment character %q", cr.Comma, opt.Comment)
	}
	s := &csvSource[T]{name: name, r: cr, noHeader: opt.NoHeader, in: in}
	rec, err := cr.Read()
	if err == io.EOF {
		if opt.NoHeader {
			return nil, fileError(name, "empty file; expected at least one data row")
		}
		return nil, fileError(name, "empty file; expected a header row")
	}
	if err != nil {
		return nil, s.readError(err, rec)
	}
	if len(rec) < 2 {
		line, _ := cr.FieldPos(0)
		return nil, lineError(name, line, "only %d column; expected at least one feature and the target", len(rec))
	}
	ncol := len(rec)
	s.line, _ = cr.FieldPos(0)
	if opt.NoHeader {
		s.first = cloneRecord(rec)
		s.columns = make([]string, ncol) // unnamed
	} else {
		s.columns = cloneRecord(rec)
	}
	if s.target, err = findTarget(opt.Target, s.columns, opt.NoHeader); err != nil {
		line, _ := cr.FieldPos(0)
		return nil, &Error{File: name, Line: line, Msg: err.Error()}
	}
	if opt.NoHeader {
		s.features = numberedNames("f", 1, ncol-1)
	} else {
		s.features = make([]string, 0, ncol-1)
		for j, c := range s.columns {
			if j != s.target {
				s.features = append(s.features, c)
			}
		}
	}
	return s, nil
}

// findTarget returns the index of the target column (see CSVOptions.Target).
func findTarget(target string, columns []string, noHeader bool) (int, error) {
	ncol := len(columns)
	if target == "" {
		return ncol - 1, nil
	}
	found := -1
	if !noHeader {
		for j, c := range columns {
			if c != target {
				continue
			}
			if found >= 0 {
				return 0, fmt.Errorf("target %q names both column %d and column %d; give a 0-based index", target, found+1, j+1)
			}
			found = j
		}
	}
	if found >= 0 {
		return found, nil
	}
	j, err := strconv.Atoi(strings.TrimSpace(target))
	switch {
	case err != nil && noHeader:
		return 0, fmt.Errorf("target %q is not a column index, and the file has no header; expected 0..%d", clip(target), ncol-1)
	case err != nil:
		return 0, fmt.Errorf("no column named %q in the header %s", clip(target), quoteList(columns))
	case j < 0 || j >= ncol:
		return 0, fmt.Errorf("target column index %d is out of range; the file has %d columns, 0-based indices 0..%d", j, ncol, ncol-1)
	}
	return j, nil
}

// next parses the next record into row (len D) and returns its checked
// target text and line. It returns io.EOF after the last record.
func (s *csvSource[T]) next(row []T, ts *targetSpec) (string, int, error) {
	target, line, err := s.parse(row, ts)
	if err != nil {
		return "", 0, s.in.verify(err)
	}
	return target, line, nil
}

func (s *csvSource[T]) parse(row []T, ts *targetSpec) (string, int, error) {
	rec := s.first
	s.first = nil
	if rec == nil {
		var err error
		rec, err = s.r.Read()
		if err == io.EOF {
			return "", 0, io.EOF
		}
		if err != nil {
			return "", 0, s.readError(err, rec)
		}
	}
	s.line, _ = s.r.FieldPos(0)
	k := 0
	var target string
	for j, cell := range rec {
		if j == s.target {
			t, msg := ts.check(cell)
			if msg != "" {
				return "", 0, s.cellError(j, msg)
			}
			// The cell shares memory with the whole record's text;
			// cloning keeps the batch reader from retaining every line.
			target = strings.Clone(t)
			continue
		}
		v, msg := parseValue[T](cell)
		if msg != "" {
			return "", 0, s.cellError(j, msg)
		}
		row[k] = v
		k++
	}
	return target, s.line, nil
}

// cellError locates a problem with field j of the current record.
func (s *csvSource[T]) cellError(j int, msg string) error {
	line, _ := s.r.FieldPos(j)
	return &Error{File: s.name, Line: line, Column: j + 1, Field: s.columns[j], Msg: msg}
}

// readError turns an error of csv.Reader.Read into an *Error.
func (s *csvSource[T]) readError(err error, rec []string) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return ioError(s.name, s.line, err)
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		first := "the header"
		if s.noHeader {
			first = "the first row"
		}
		return lineError(s.name, pe.StartLine, "%d fields; expected %d like %s", len(rec), len(s.columns), first)
	}
	msg := fmt.Sprintf("malformed CSV near byte %d of the line", pe.Column)
	if pe.StartLine != pe.Line {
		msg = fmt.Sprintf("malformed CSV in the record starting on line %d", pe.StartLine)
	}
	return &Error{File: s.name, Line: pe.Line, Msg: msg, Err: pe.Err}
}

func cloneRecord(rec []string) []string {
	out := make([]string, len(rec))
	for i, c := range rec {
		out[i] = strings.Clone(c)
	}
	return out
}

// validDelim mirrors encoding/csv's rules, so that a bad option is reported
// as such instead of as a parse error on line 1.
func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && r != 0xFFFD && r < 0x110000
}
