package cvarbeam

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn3x1[context.Context, split, func(labelSet), error](&labelsFn{})
	register.Emitter1[labelSet]()
	register.Combiner3[labelSet, labelSet, labelSet](&mergeLabelsFn{})
	beam.RegisterCoder(reflect.TypeOf(labelSet{}), encLabels, decLabels)
	register.Function1x2(encLabels)
	register.Function1x2(decLabels)
}

// MaxClasses is the largest number of distinct class texts that training
// on CSV files with text labels takes.
const MaxClasses = 1 << 16

// labelSet is the distinct target texts of CSV rows, trimmed and sorted,
// and whether one is not a number: then the targets are class texts, as
// the library's readers take them (classes in byte-wise order of their
// texts). Memory: the texts, MaxClasses at most (more is an error).
type labelSet struct {
	Texts   []string
	Textual bool
	Over    bool // more than MaxClasses distinct texts
}

func encLabels(v labelSet) ([]byte, error) { return gobEncode(v) }
func decLabels(b []byte) (labelSet, error) { return gobDecode[labelSet](b) }

// add records one target text.
func (l *labelSet) add(t string) {
	if !l.Textual && !isNumber(t) {
		l.Textual = true
	}
	if i, found := slices.BinarySearch(l.Texts, t); !found {
		if len(l.Texts) == MaxClasses {
			l.Over = true
			return
		}
		l.Texts = slices.Insert(l.Texts, i, t)
	}
}

func (l *labelSet) merge(o *labelSet) {
	l.Textual = l.Textual || o.Textual
	l.Over = l.Over || o.Over
	for _, t := range o.Texts {
		l.add(t)
	}
}

// classes returns the class texts when the targets are class texts, nil
// when they are all numbers.
func (l *labelSet) classes() ([]string, error) {
	switch {
	case !l.Textual:
		return nil, nil
	case l.Over:
		return nil, fmt.Errorf("cvarbeam: the targets are class texts of more than %d classes", MaxClasses)
	}
	return l.Texts, nil
}

// isNumber reports whether a target text is a finite decimal number, as
// the library's readers take one (no underscores, no hexadecimal).
func isNumber(s string) bool {
	if strings.ContainsAny(s, "_xX") {
		return false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}

// labelsFn gathers the target texts of the CSV rows of a split; it emits
// a set for every split, empty for LIBSVM, so that the combine has an
// input and the side input a value. A record it cannot read ends its
// scan: the read of the rows that follows reports it, naming the file and
// the line.
type labelsFn struct {
	Spec rowSpec
	Errs string // the run's folder, for an error's record
}

func (f *labelsFn) ProcessElement(ctx context.Context, sp split, emit func(labelSet)) error {
	var set labelSet
	defer func() { emit(set) }()
	if f.Spec.Format != "csv" {
		return nil
	}
	r, c, err := openText(ctx, sp, f.Spec.header())
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	defer c.Close()
	bound := &boundedRecords{r: r, max: dataset.DefaultMaxLine + 1<<16}
	cr := csv.NewReader(bound)
	cr.FieldsPerRecord, cr.ReuseRecord = -1, true
	cr.Comma = dataset.CommaOfName(sp.Path)
	col := -1
	for first := true; ; first = false {
		bound.n = 0
		rec, err := cr.Read()
		if err != nil { // io.EOF, or a record the read of the rows reports
			break
		}
		if col < 0 {
			if col = targetColumn(rec, f.Spec.Target, f.Spec.NoHeader); col < 0 {
				break
			}
			if first && f.Spec.header() {
				continue
			}
		}
		if col < len(rec) {
			set.add(strings.TrimSpace(rec[col]))
		}
	}
	return nil
}

// openText opens the text of sp: a part of an uncompressed file, or a
// whole file, decompressed when it is gzip or bzip2 (dataset.Compression).
func openText(ctx context.Context, sp split, header bool) (io.Reader, io.Closer, error) {
	r, c, err := openSplit(ctx, sp, header)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sp.Path, err)
	}
	if sp.End >= 0 {
		return r, c, nil
	}
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(10)
	switch dataset.Compression(magic) {
	case "gzip":
		zr, err := gzip.NewReader(br)
		if err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("%s: corrupt gzip header: %w", sp.Path, err)
		}
		return zr, c, nil
	case "bzip2":
		return bzip2.NewReader(br), c, nil
	}
	return br, c, nil
}

// boundedRecords fails a read once more than max bytes have been read
// since n was last set to 0 (before each record): the label scan then
// stops, and the read of the rows names the line that is too long.
type boundedRecords struct {
	r      io.Reader
	n, max int64
}

var errRecordTooLong = errors.New("a record longer than the line bound")

func (b *boundedRecords) Read(p []byte) (int, error) {
	if b.n >= b.max {
		return 0, errRecordTooLong
	}
	if int64(len(p)) > b.max-b.n {
		p = p[:b.max-b.n]
	}
	k, err := b.r.Read(p)
	b.n += int64(k)
	return k, err
}

// targetColumn finds the target column as the library's CSV readers do: a
// header name, else a 0-based index; the last column when target is
// empty. -1: none (the read of the rows reports why).
func targetColumn(header []string, target string, noHeader bool) int {
	if target == "" {
		return len(header) - 1
	}
	if !noHeader {
		for j, c := range header {
			if strings.TrimSpace(c) == target {
				return j
			}
		}
	}
	j, err := strconv.Atoi(strings.TrimSpace(target))
	if err != nil || j < 0 || j >= len(header) {
		return -1
	}
	return j
}

// mergeLabelsFn merges the splits' label sets.
type mergeLabelsFn struct{}

func (*mergeLabelsFn) CreateAccumulator() labelSet { return labelSet{} }

func (*mergeLabelsFn) AddInput(a, b labelSet) labelSet { a.merge(&b); return a }

func (*mergeLabelsFn) MergeAccumulators(a, b labelSet) labelSet { a.merge(&b); return a }
