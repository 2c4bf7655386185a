package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// CSVOptions configures ReadCSV, LoadCSV and NewCSVStream. The zero value
// reads comma-separated data with a header row and the target in the last
// column. It reads a classification task; set Task to TaskAuto to infer it.
type CSVOptions struct {
	// Comma is the field delimiter; 0 means ','. Use '\t' for TSV.
	Comma rune
	// Comment, if not 0, starts comment lines, which are skipped.
	Comment rune
	// NoHeader says the first row is data. Features are then named
	// "f1".."fD" and Target must be empty or a column index.
	NoHeader bool
	// Target is the target column: a header name, or a 0-based column
	// index if no column has that name. Empty means the last column other
	// than the group column.
	Target string
	// Group, if not empty, is the column that holds each row's group
	// (Dataset.Groups). It is named as Target is, and is not a feature.
	// Its cells are labels such as 0, 1 or "urban" (see ReadGroups for
	// their ids). Streams reject it.
	Group string
	// Task is Classification, Regression or TaskAuto. The zero value is
	// Classification. Streams cannot infer the task, so reject TaskAuto.
	Task Task
	// Classes, if not nil, imposes the class mapping (label text of class
	// 0, 1, ...) of an earlier dataset, typically the training set. A
	// label that is not listed is an error. It implies Classification.
	Classes []string
	// Limit, if positive, reads only the first Limit samples. The rest of
	// the input is neither read nor checked. Streams ignore it.
	Limit int
	// MaxBytes bounds the memory the reader holds. It counts the samples
	// read so far: their features, N×D values of T, and their targets. It
	// counts the record being read and the header. Buffers count by their
	// capacity, with both arrays while one grows. So a matrix read from
	// input of unknown length can take about half of it. The reader stops
	// as soon as the bound would be passed. Its error wraps ErrTooLarge and
	// names the line reached. It holds at most MaxBytes + ReadOverhead. 0
	// means DefaultMaxBytes; a negative value, no bound. A stream applies
	// it to its record and row.
	MaxBytes int64
	// MaxLine bounds a line in bytes, and a record with the lines of its
	// quoted fields. A longer one is an error wrapping ErrLineTooLong that
	// names its line. 0 means DefaultMaxLine; a negative value, no limit
	// (MaxBytes still applies).
	MaxLine int64
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

// ReadCSV reads a dataset from comma-separated values. One header row of
// column names comes first (unless opt.NoHeader). Then comes one row per
// sample, each with the same number of fields. Every feature cell must be
// a finite decimal number; surrounding spaces are ignored. The name is
// used for Dataset.Name and in error messages. They give the 1-based line
// and column of the first bad cell:
//
//	data.csv:17: column 3 ("age"): "abc" is not a number
//
// Gzip- and bzip2-compressed input is decompressed transparently. The
// reader holds at most opt.MaxBytes + ReadOverhead bytes; see
// CSVOptions.MaxBytes and CSVOptions.MaxLine.
func ReadCSV[T Float](r io.Reader, name string, opt CSVOptions) (*Dataset[T], error) {
	ds, _, err := readCSV[T](r, name, opt, 0)
	return ds, err
}

// ReadCSVTargetOptional is ReadCSV for data that may lack the target
// column, such as the rows a model is to be applied to. features (≥ 1) is
// the number of feature columns. The first record decides. The target
// column is present when the header names opt.Target, or when the record
// has features+1 columns. It is absent when the record has features
// columns. Any other width is an error. Without the target column every
// column is a feature. The dataset is then a regression set whose targets
// are all 0. hasTarget says which case held.
func ReadCSVTargetOptional[T Float](r io.Reader, name string, features int, opt CSVOptions) (ds *Dataset[T], hasTarget bool, err error) {
	if features < 1 {
		return nil, false, fmt.Errorf("dataset: %d features; expected at least 1", features)
	}
	return readCSV[T](r, name, opt, features)
}

// readCSV is ReadCSV; with features > 0, ReadCSVTargetOptional.
func readCSV[T Float](r io.Reader, name string, opt CSVOptions, features int) (*Dataset[T], bool, error) {
	if opt.Limit < 0 {
		return nil, false, fmt.Errorf("dataset: negative option Limit %d", opt.Limit)
	}
	ts, err := newTargetSpec(opt.Task, opt.Classes)
	if err != nil {
		return nil, false, err
	}
	b := newBudget(name, opt.MaxBytes)
	src, err := newCSVSource[T](r, name, opt, b, features)
	if err != nil {
		return nil, false, err
	}
	if src.target < 0 {
		ts = &targetSpec{task: Regression} // every target "", read as 0
	}
	d := len(src.features)
	row, err := makeCounted[T](b, d, src.line)
	if err != nil {
		return nil, false, err
	}
	var x []T
	targets := &targetList[T]{ts: ts, b: b}
	var groups *groupList
	if src.group >= 0 {
		groups = newGroupList(name)
	}
	for opt.Limit == 0 || targets.n < opt.Limit {
		target, line, err := src.next(row, ts)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if err := checkDense[T](name, targets.n+1, d, b.bound, true); err != nil {
			return nil, false, err
		}
		if x, err = appendTo(b, x, line, row...); err != nil {
			return nil, false, err
		}
		if err := targets.add(target, line); err != nil {
			return nil, false, err
		}
		if groups != nil {
			if err := b.take(4, line); err != nil {
				return nil, false, err
			}
			if err := groups.add(src.groupText, line); err != nil {
				return nil, false, err
			}
		}
	}
	if targets.n == 0 {
		if opt.NoHeader {
			return nil, false, fileError(name, "no data rows")
		}
		return nil, false, fileError(name, "no data rows after the header; expected at least one sample")
	}
	task, y, labels, classes, err := targets.resolve(src.line)
	if err != nil {
		return nil, false, err
	}
	ds := &Dataset[T]{
		Name:     name,
		X:        x,
		N:        targets.n,
		D:        d,
		Task:     task,
		Y:        y,
		Labels:   labels,
		Classes:  classes,
		Features: src.features,
	}
	if groups != nil {
		ds.Groups, ds.GroupNames = groups.resolve()
	}
	return ds, src.target >= 0, nil
}

// csvSource reads CSV rows one at a time. It serves both ReadCSV and the
// CSV stream, so both report the same errors.
type csvSource[T Float] struct {
	name    string
	sc      *csvScanner
	columns []string // names of all columns, for messages
	target  int      // index of the target column; -1 when there is none
	group   int      // index of the group column; -1 when there is none
	// groupText is the group cell of the last record read.
	groupText string
	features  []string // names of the feature columns
	first     bool     // with NoHeader, the first record is read but not returned
	line      int      // line of the last record read
	noHeader  bool
	in        *decompressed
}

// newCSVSource reads the header (or the first record) and locates the
// target. With optional > 0 the target column may be absent (see
// ReadCSVTargetOptional).
func newCSVSource[T Float](r io.Reader, name string, opt CSVOptions, b *budget, optional int) (*csvSource[T], error) {
	in, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	s, err := newCSVSourceOf[T](in, name, opt, b, optional)
	if err != nil {
		return nil, in.verify(err)
	}
	return s, nil
}

func newCSVSourceOf[T Float](in *decompressed, name string, opt CSVOptions, b *budget, optional int) (*csvSource[T], error) {
	br := in.br
	skipBOM(br)
	sc := &csvScanner{br: br, name: name, comma: opt.Comma, comment: opt.Comment, b: b, maxLine: maxLine(opt.MaxLine)}
	if sc.comma == 0 {
		sc.comma = ','
	}
	if sc.comma == opt.Comment || !validDelim(sc.comma) || opt.Comment != 0 && !validDelim(opt.Comment) {
		return nil, fmt.Errorf("dataset: invalid CSV delimiter %q or comment character %q", sc.comma, opt.Comment)
	}
	s := &csvSource[T]{name: name, sc: sc, noHeader: opt.NoHeader, in: in}
	err := sc.read()
	if err == io.EOF {
		if opt.NoHeader {
			return nil, fileError(name, "empty file; expected at least one data row")
		}
		return nil, fileError(name, "empty file; expected a header row")
	}
	if err != nil {
		return nil, s.readError(err)
	}
	ncol := sc.fields
	s.line = sc.start
	onlyOne := func() error {
		return lineError(name, s.line, "only %d column; expected at least one feature and the target", ncol)
	}
	if optional == 0 && ncol < 2 {
		return nil, onlyOne()
	}
	if err := s.nameColumns(opt.NoHeader); err != nil {
		return nil, err
	}
	if s.group, err = locateGroup(opt, s.columns); err != nil {
		return nil, &Error{File: name, Line: s.line, Msg: err.Error()}
	}
	if s.target, err = locateTarget(opt, s.columns, optional, s.group); err != nil {
		return nil, &Error{File: name, Line: s.line, Msg: err.Error()}
	}
	if s.target >= 0 && ncol < 2 {
		return nil, onlyOne()
	}
	s.first = opt.NoHeader
	sc.keep = ncol
	return s, s.nameFeatures(opt.NoHeader)
}

// nameColumns keeps the header's names, charged to the budget; without a
// header the columns are unnamed.
func (s *csvSource[T]) nameColumns(noHeader bool) error {
	ncol := s.sc.fields
	size := 16 * int64(ncol)
	if !noHeader {
		size += int64(len(s.sc.buf))
	}
	if err := s.sc.b.take(size, s.line); err != nil {
		return err
	}
	s.columns = make([]string, ncol)
	if !noHeader {
		text := string(s.sc.buf) // one allocation for every name
		lo := 0
		for j, end := range s.sc.ends {
			s.columns[j] = strings.TrimSpace(text[lo:end]) // as cells and labels are
			lo = end
		}
	}
	return nil
}

// nameFeatures names the feature columns, charged to the budget.
func (s *csvSource[T]) nameFeatures(noHeader bool) error {
	d := len(s.columns)
	if s.target >= 0 {
		d--
	}
	if s.group >= 0 {
		d--
	}
	size := 16 * int64(d)
	if noHeader {
		size += 8 * int64(d) // "f1".."fD"
	}
	if err := s.sc.b.take(size, s.line); err != nil {
		return err
	}
	if noHeader {
		s.features = numberedNames("f", 1, d)
		return nil
	}
	s.features = make([]string, 0, d)
	for j, c := range s.columns {
		if j != s.target && j != s.group {
			s.features = append(s.features, c)
		}
	}
	return nil
}

// locateGroup returns the index of the group column, -1 when there is
// none.
func locateGroup(opt CSVOptions, columns []string) (int, error) {
	if opt.Group == "" {
		return -1, nil
	}
	return findColumn("group", opt.Group, columns, opt.NoHeader)
}

// locateTarget returns the index of the target column. It returns -1 when
// optional features are given and the columns hold only them and the group
// column. group is -1 when there is none; it cannot be the target.
func locateTarget(opt CSVOptions, columns []string, optional, group int) (int, error) {
	ncol := len(columns)
	if group >= 0 {
		ncol--
		if optional == 0 && ncol < 2 {
			return 0, fmt.Errorf("%d columns; expected at least one feature and the target besides the group column", len(columns))
		}
	}
	if optional > 0 {
		named := !opt.NoHeader && opt.Target != "" && slices.Contains(columns, opt.Target)
		switch {
		case named || ncol == optional+1:
		case ncol == optional:
			return -1, nil
		default:
			return 0, fmt.Errorf("%d columns; expected %d features, and optionally the target", ncol, optional)
		}
	}
	if opt.Target == "" { // the last column other than the group column
		if group == len(columns)-1 {
			return len(columns) - 2, nil
		}
		return len(columns) - 1, nil
	}
	t, err := findColumn("target", opt.Target, columns, opt.NoHeader)
	if err == nil && t == group {
		return 0, fmt.Errorf("the group column %q is also the target column", clip(opt.Group))
	}
	return t, err
}

// findColumn returns the index of the target or group column (what) named
// by target (see CSVOptions.Target).
func findColumn(what, target string, columns []string, noHeader bool) (int, error) {
	ncol := len(columns)
	found := -1
	if !noHeader {
		for j, c := range columns {
			if c != target {
				continue
			}
			if found >= 0 {
				return 0, fmt.Errorf("%s %q names both column %d and column %d; give a 0-based index", what, target, found+1, j+1)
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
		return 0, fmt.Errorf("%s %q is not a column index, and the file has no header; expected 0..%d", what, clip(target), ncol-1)
	case err != nil:
		return 0, fmt.Errorf("no column named %q in the header %s", clip(target), quoteList(columns))
	case j < 0 || j >= ncol:
		return 0, fmt.Errorf("%s column index %d is out of range; the file has %d columns, 0-based indices 0..%d", what, j, ncol, ncol-1)
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
	if s.first {
		s.first = false
	} else if err := s.sc.read(); err == io.EOF {
		return "", 0, io.EOF
	} else if err != nil {
		return "", 0, s.readError(err)
	}
	s.line = s.sc.start
	k := 0
	var target string
	for j := range s.sc.fields {
		cell := s.sc.field(j)
		if j == s.group {
			s.groupText = string(bytes.TrimSpace(cell))
			continue
		}
		if j == s.target {
			t, msg := ts.check(string(cell))
			if msg != "" {
				return "", 0, s.cellError(j, msg)
			}
			target = t
			continue
		}
		v, ok := fastValue[T](bytes.TrimSpace(cell))
		if !ok {
			var msg string
			if v, msg = parseValue[T](string(cell)); msg != "" {
				return "", 0, s.cellError(j, msg)
			}
		}
		row[k] = v
		k++
	}
	return target, s.line, nil
}

// cellError locates a problem with field j of the current record.
func (s *csvSource[T]) cellError(j int, msg string) error {
	p := s.sc.pos[j]
	return &Error{File: s.name, Line: p.line, Column: j + 1, Field: s.columns[j], Msg: msg}
}

// readError turns an error of csvScanner.read into an *Error.
func (s *csvSource[T]) readError(err error) error {
	if isLimit(err) {
		return err
	}
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return ioError(s.name, s.line, err)
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		first := "the header"
		if s.noHeader {
			first = "the first row"
		}
		return lineError(s.name, pe.StartLine, "%d fields; expected %d like %s", s.sc.fields, len(s.columns), first)
	}
	msg := fmt.Sprintf("malformed CSV near byte %d of the line", pe.Column)
	if pe.StartLine != pe.Line {
		msg = fmt.Sprintf("malformed CSV in the record starting on line %d", pe.StartLine)
	}
	return &Error{File: s.name, Line: pe.Line, Msg: msg, Err: pe.Err}
}

// validDelim mirrors encoding/csv's rules. So a bad option is reported as
// such, not as a parse error on line 1.
func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && r != 0xFFFD && r < 0x110000
}
