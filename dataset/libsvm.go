package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar/internal/numtext"
)

// DefaultMaxDim is the largest feature index LIBSVM readers accept when the
// dimension is inferred. LIBSVMOptions.MaxDim may say otherwise. A stray
// huge index would otherwise demand N×index floats of dense rows. Held
// sparse (LIBSVMOptions.SparseBelow), it would demand a model of at least
// index parameters.
const DefaultMaxDim = 1 << 20

// LIBSVMOptions configures ReadLIBSVM, LoadLIBSVM and NewLIBSVMStream.
type LIBSVMOptions struct {
	// Dim is the number of features. 0 infers it as the largest index in
	// the input (streams require it). An index above a given Dim is an
	// error. Giving Dim makes a test set match its training set's width.
	Dim int
	// MaxDim bounds an inferred dimension; 0 means DefaultMaxDim. It does
	// not apply when Dim is given. An index above the width is an error
	// whose cause is a *WidthError.
	MaxDim int
	// Task is Classification, Regression or TaskAuto. The zero value is
	// Classification. Streams cannot infer the task, so reject TaskAuto.
	Task Task
	// Classes, if not nil, imposes the class mapping of an earlier dataset
	// (label text of class 0, 1, ...). See CSVOptions.Classes.
	Classes []string
	// Limit, if positive, reads only the first Limit samples. The rest of
	// the input is neither read nor checked. Streams ignore it.
	Limit int
	// MaxBytes bounds the memory the reader holds, as CSVOptions.MaxBytes
	// does. It counts the samples read so far and their targets. Samples
	// are held in CSR form until the dimension is known: an offset, and a
	// column and a value a non-zero. It counts the line being read. At the
	// end it counts the result: a dense N×D matrix of T while the CSR
	// arrays are still held. If sparse (see SparseBelow), the result is
	// those arrays. 0 means DefaultMaxBytes; a negative value, no bound. A
	// stream applies it to its line and row.
	MaxBytes int64
	// MaxLine bounds a line in bytes, as CSVOptions.MaxLine does.
	MaxLine int64
	// SparseBelow, if positive, is a density (non-zeros / (N·D)). Below
	// it the result is held sparse, in CSR form (Dataset.IsSparse). Its
	// memory is then proportional to the non-zeros. At or above it the
	// rows are dense. 0 (the zero value) keeps every result dense.
	// DefaultSparseBelow is the threshold to give. A value above 1 makes
	// every result sparse. Streams ignore it: Stream.NextSparse reads any
	// stream's non-zeros.
	SparseBelow float64
}

// DefaultSparseBelow is the suggested LIBSVMOptions.SparseBelow: data with
// fewer than 10 % non-zeros is held in CSR form.
const DefaultSparseBelow = 0.1

// LoadLIBSVM reads a LIBSVM / svmlight file; see ReadLIBSVM. The file may
// be gzip- or bzip2-compressed, as many published LIBSVM data sets are.
func LoadLIBSVM[T Float](path string, opt LIBSVMOptions) (*Dataset[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLIBSVM[T](f, path, opt)
}

// ReadLIBSVM reads the sparse LIBSVM / svmlight text format, one sample per
// line:
//
//	label index:value index:value ... # optional comment
//
// Indices are 1-based and strictly increasing. Omitted features are zero.
// Feature j (0-based) of the dataset is index j+1, named "f<j+1>". Blank
// lines and comments are skipped, as are qid:n tokens (ranking queries).
// Labels may be ±1, 0..K-1 or other texts (classification). They may be
// real numbers (regression). Rows are stored densely by default.
// opt.SparseBelow may ask for sparse data; below that density the rows are
// held in CSR form (Dataset.IsSparse). Sparse data has no feature names
// (Features nil) and memory in the non-zeros only. The dimension inferred
// from the largest index must not exceed opt.MaxDim. The reader holds at
// most opt.MaxBytes + ReadOverhead bytes; see LIBSVMOptions.MaxBytes and
// MaxLine.
func ReadLIBSVM[T Float](r io.Reader, name string, opt LIBSVMOptions) (*Dataset[T], error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("dataset: negative option Limit %d", opt.Limit)
	}
	ts, err := newTargetSpec(opt.Task, opt.Classes)
	if err != nil {
		return nil, err
	}
	b := newBudget(name, opt.MaxBytes)
	p, err := newLIBSVMParser[T](r, name, opt, b)
	if err != nil {
		return nil, err
	}
	// Rows are held sparsely (CSR) until the dimension is known.
	rows := &csrRows[T]{b: b, targets: &targetList[T]{ts: ts, b: b}}
	if rows.indptr, err = makeCounted[int64](b, 1, 0); err != nil {
		return nil, err
	}
	for opt.Limit == 0 || rows.targets.n < opt.Limit {
		label, line, err := p.next(ts)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := rows.add(p, label, line); err != nil {
			return nil, err
		}
	}
	return rows.dataset(name, opt)
}

// csrRows collects LIBSVM samples in CSR form within a budget.
type csrRows[T Float] struct {
	b                   *budget
	indptr              []int64
	cols                []uint32
	vals                []T
	targets             *targetList[T]
	maxIdx              int
	firstLine, lastLine int
	firstLabel          string
}

// add appends the sample p parsed last.
func (c *csrRows[T]) add(p *libsvmParser[T], label string, line int) error {
	var err error
	if c.cols, err = grow(c.b, c.cols, len(p.idx), line); err != nil {
		return err
	}
	for _, j := range p.idx {
		c.cols = append(c.cols, uint32(j-1))
	}
	if c.vals, err = appendTo(c.b, c.vals, line, p.val...); err != nil {
		return err
	}
	if c.indptr, err = appendTo(c.b, c.indptr, line, int64(len(c.cols))); err != nil {
		return err
	}
	if err := c.targets.add(label, line); err != nil {
		return err
	}
	if c.firstLine == 0 {
		c.firstLine, c.firstLabel = line, label
	}
	c.lastLine = line
	if n := len(p.idx); n > 0 {
		c.maxIdx = max(c.maxIdx, int(p.idx[n-1]))
	}
	return nil
}

// dataset returns the samples collected, sparse or dense as opt says.
func (c *csrRows[T]) dataset(name string, opt LIBSVMOptions) (*Dataset[T], error) {
	n := c.targets.n
	if n == 0 {
		return nil, fileError(name, "no samples; expected lines of the form \"label index:value ...\"")
	}
	d := opt.Dim
	if d == 0 {
		d = c.maxIdx
	}
	if d == 0 {
		msg := "a label and no index:value pairs, and no other line has any either"
		if strings.ContainsAny(c.firstLabel, ",;\t") {
			msg = fmt.Sprintf("%q has no index:value pairs; the file looks like CSV, not LIBSVM", clip(c.firstLabel))
		}
		return nil, lineError(name, c.firstLine, "%s; expected lines of the form \"label index:value ...\"", msg)
	}
	task, y, labels, classes, err := c.targets.resolve(c.lastLine)
	if err != nil {
		return nil, err
	}
	ds := &Dataset[T]{Name: name, N: n, D: d, Task: task, Y: y, Labels: labels, Classes: classes}
	if isSparse(opt.SparseBelow, len(c.cols), n, d) {
		if err := checkSparse[T](name, n, len(c.cols), c.b.bound); err != nil {
			return nil, err
		}
		// No feature names: d of them would cost memory in d, not in the
		// non-zeros. Feature j is "f<j+1>" as in a dense result.
		ds.Indptr, ds.Cols, ds.Vals = c.indptr, c.cols, c.vals
		return ds, nil
	}
	if err := checkDense[T](name, n, d, c.b.bound, false); err != nil {
		return nil, err
	}
	if d > 0 && n > math.MaxInt/d {
		return nil, fileError(name, "%d samples × %d features do not fit in memory as a dense matrix", n, d)
	}
	if ds.X, err = makeCounted[T](c.b, n*d, c.lastLine); err != nil {
		return nil, err
	}
	if err := c.b.take(24*int64(d), c.lastLine); err != nil { // the names
		return nil, err
	}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		for k := c.indptr[i]; k < c.indptr[i+1]; k++ {
			row[c.cols[k]] = c.vals[k]
		}
	}
	ds.Features = numberedNames("f", 1, d)
	return ds, nil
}

// libsvmParser parses LIBSVM lines one at a time into idx/val, which are
// reused. It serves both ReadLIBSVM and the LIBSVM stream.
type libsvmParser[T Float] struct {
	name   string
	lines  lineReader
	dim    int // given dimension, or 0
	maxDim int // bound on indices when dim is 0 (not applied otherwise)
	idx    []int32
	val    []T
	in     *decompressed
	b      *budget
}

func newLIBSVMParser[T Float](r io.Reader, name string, opt LIBSVMOptions, b *budget) (*libsvmParser[T], error) {
	if opt.Dim < 0 || opt.MaxDim < 0 {
		return nil, fmt.Errorf("dataset: negative option Dim (%d) or MaxDim (%d)", opt.Dim, opt.MaxDim)
	}
	if opt.Dim > math.MaxInt32 {
		return nil, fmt.Errorf("dataset: option Dim %d exceeds the largest LIBSVM index %d", opt.Dim, math.MaxInt32)
	}
	in, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	maxDim := opt.MaxDim
	if maxDim == 0 {
		maxDim = DefaultMaxDim
	}
	lines := lineReader{br: in.br, name: name, b: b, maxLine: maxLine(opt.MaxLine)}
	return &libsvmParser[T]{name: name, lines: lines, in: in, b: b, dim: opt.Dim, maxDim: min(maxDim, math.MaxInt32)}, nil
}

// next parses the next sample into p.idx and p.val. It returns its checked,
// trimmed label and its line, or io.EOF after the last sample.
func (p *libsvmParser[T]) next(ts *targetSpec) (string, int, error) {
	label, line, err := p.parse(ts)
	if err != nil {
		return "", 0, p.in.verify(err)
	}
	return label, line, nil
}

func (p *libsvmParser[T]) parse(ts *targetSpec) (string, int, error) {
	for {
		line, err := p.lines.next()
		if err == io.EOF {
			return "", 0, io.EOF
		}
		if isLimit(err) {
			return "", 0, err
		}
		if err != nil {
			return "", 0, ioError(p.name, p.lines.line, err)
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		label, rest := nextToken(line)
		if label == nil {
			continue // blank or comment-only line
		}
		lineNo := p.lines.line
		if bytes.IndexByte(label, ':') >= 0 {
			return "", 0, lineError(p.name, lineNo, "line starts with %q; expected a label before the index:value pairs", clip(string(label)))
		}
		text, msg := ts.check(string(label))
		if msg != "" {
			return "", 0, lineError(p.name, lineNo, "%s", msg)
		}
		if err := p.parseFeatures(rest, lineNo); err != nil {
			return "", 0, err
		}
		return text, lineNo, nil
	}
}

// parseFeatures parses the index:value pairs of one line.
func (p *libsvmParser[T]) parseFeatures(rest []byte, lineNo int) error {
	p.idx, p.val = p.idx[:0], p.val[:0]
	prev := 0
	for {
		var tok []byte
		tok, rest = nextToken(rest)
		if tok == nil {
			return nil
		}
		if bytes.HasPrefix(tok, []byte("qid:")) {
			continue
		}
		bad := func(format string, args ...any) error {
			return lineError(p.name, lineNo, "token %q: %s", clip(string(tok)), fmt.Sprintf(format, args...))
		}
		colon := bytes.IndexByte(tok, ':')
		if colon < 0 {
			return bad("expected index:value")
		}
		j, ok := parseIndex(tok[:colon])
		switch {
		case !ok:
			if _, err := strconv.Atoi(string(tok[:colon])); errors.Is(err, strconv.ErrRange) {
				return bad("index is out of range; expected 1..%d", p.limit())
			}
			return bad("index %q is not an integer; expected index:value", clip(string(tok[:colon])))
		case j < 1:
			return bad("index %d; indices are 1-based", j)
		case j == prev:
			return bad("duplicate index %d", j)
		case j < prev:
			return bad("index %d after index %d; indices must be strictly increasing", j, prev)
		case p.dim > 0 && j > p.dim || p.dim == 0 && j > p.maxDim:
			return &Error{File: p.name, Line: lineNo, Msg: fmt.Sprintf("token %q", clip(string(tok))), Err: &WidthError{Index: j, Width: p.limit(), Given: p.dim > 0}}
		}
		v, ok := fastValue[T](tok[colon+1:])
		if !ok {
			var msg string
			if v, msg = parseValue[T](string(tok[colon+1:])); msg != "" {
				return bad("%s", msg)
			}
		}
		prev = j
		if len(p.idx) == cap(p.idx) {
			if err := p.grow(lineNo); err != nil {
				return err
			}
		}
		p.idx = append(p.idx, int32(j))
		p.val = append(p.val, v)
	}
}

// grow makes room for more pairs on a line, within the budget.
func (p *libsvmParser[T]) grow(line int) error {
	var err error
	if p.idx, err = grow(p.b, p.idx, 1, line); err != nil {
		return err
	}
	p.val, err = grow(p.b, p.val, cap(p.idx)-len(p.val), line)
	return err
}

// parseIndex parses a decimal integer, with an optional sign, without
// allocating. ok is false for anything else or on overflow.
func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := b[0] == '-'
	if b[0] == '-' || b[0] == '+' {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n > (math.MaxInt-9)/10 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// fastValue parses a feature value on the common path, without building
// an error message. On failure parseValue explains the problem.
func fastValue[T Float](b []byte) (T, bool) {
	for _, c := range b {
		if c == '_' || c|0x20 == 'x' {
			return 0, false // not decimal: see decimal
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !finite(v) {
		return 0, false
	}
	x := T(v)
	return x, !math.IsInf(float64(x), 0)
}

func (p *libsvmParser[T]) limit() int {
	if p.dim > 0 {
		return p.dim
	}
	return p.maxDim
}

// nextToken splits off the first whitespace-separated token of b. It
// returns a nil token when b holds only whitespace.
func nextToken(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// lineReader returns lines of up to maxLine bytes without allocating per
// line. It holds a line longer than br's buffer within the budget. The
// returned slice is valid until the next call.
type lineReader struct {
	br      *bufio.Reader
	line    int // number of the line last returned
	long    []byte
	name    string
	b       *budget
	maxLine int64
}

func (lr *lineReader) next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: accumulate it.
			if err := lr.keep(chunk); err != nil {
				return nil, err
			}
			continue
		}
		if len(lr.long) > 0 {
			if err := lr.keep(chunk); err != nil {
				return nil, err
			}
			chunk = lr.long
		}
		if int64(len(chunk)) > lr.maxLine {
			return nil, lr.tooLong()
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(chunk) == 0 {
			return nil, io.EOF
		}
		lr.line++
		return chunk, nil
	}
}

func (lr *lineReader) keep(chunk []byte) error {
	if int64(len(lr.long))+int64(len(chunk)) > lr.maxLine {
		return lr.tooLong()
	}
	var err error
	if lr.long, err = growMax(lr.b, lr.long, len(chunk), lr.maxLine, lr.line+1); err != nil {
		return err
	}
	lr.long = append(lr.long, chunk...)
	return nil
}

func (lr *lineReader) tooLong() error {
	return &Error{File: lr.name, Line: lr.line + 1, Msg: fmt.Sprintf("line longer than the limit of %s", numtext.Bytes(lr.maxLine)), Err: ErrLineTooLong}
}

// LIBSVMDim returns the number of features of LIBSVM data: its largest
// index. NewLIBSVMStream needs it as option Dim. It reads only the last
// index:value token of each line. It passes over indices above opt.MaxDim
// (DefaultMaxDim if 0) and malformed lines; a stream of the data then
// reports them. opt.MaxLine bounds lines and opt.MaxBytes the memory held,
// as in ReadLIBSVM. Compressed input is read as there.
func LIBSVMDim(r io.Reader, name string, opt LIBSVMOptions) (int, error) {
	if r == nil {
		return 0, nilReader(name)
	}
	in, err := decompress(r, name)
	if err != nil {
		return 0, err
	}
	maxDim := opt.MaxDim
	if maxDim <= 0 {
		maxDim = DefaultMaxDim
	}
	lines := lineReader{br: in.br, name: name, b: newBudget(name, opt.MaxBytes), maxLine: maxLine(opt.MaxLine)}
	width := 0
	for {
		line, err := lines.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, in.verify(readFailed(name, lines.line, err))
		}
		if j := lastIndex(line); j > width && j <= maxDim {
			width = j
		}
	}
	if width == 0 {
		return 0, fileError(name, "no line has index:value pairs; expected lines of the form \"label index:value ...\"")
	}
	return width, nil
}

// lastIndex returns the index of a line's last index:value token. It
// returns 0 when the line has no such token after its label.
func lastIndex(line []byte) int {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	end := len(line)
	for end > 0 && isSpace(line[end-1]) {
		end--
	}
	start := end
	for start > 0 && !isSpace(line[start-1]) {
		start--
	}
	if start == 0 || len(bytes.TrimLeft(line[:start], " \t\n\r\v\f")) == 0 {
		return 0 // a label alone, or nothing
	}
	last := line[start:end]
	c := bytes.IndexByte(last, ':')
	if c <= 0 {
		return 0
	}
	j, ok := parseIndex(last[:c])
	if !ok {
		return 0
	}
	return j
}
