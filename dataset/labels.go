package dataset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseValue parses one feature or target value as a finite T. It returns
// the value, or a description of the problem. Callers place it after the
// position, e.g. `"abc" is not a number`.
func parseValue[T Float](s string) (T, string) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, "missing value (empty); expected a number"
	}
	if !decimal(t) {
		// The hint only where Go would read a number: 1_000, 0x1p3, 0x10.
		_, ferr := strconv.ParseFloat(t, 64)
		_, ierr := strconv.ParseInt(strings.TrimPrefix(t, "+"), 0, 64)
		if ferr == nil || errors.Is(ferr, strconv.ErrRange) || ierr == nil || errors.Is(ierr, strconv.ErrRange) {
			return 0, fmt.Sprintf("%q is not a number; expected a decimal one, without underscores or hexadecimal", clip(t))
		}
		return 0, fmt.Sprintf("%q is not a number", clip(t))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		// ParseFloat reports ErrRange for overflow (±Inf) and for underflow
		// (a tiny or zero value). Only the former is a problem.
		if !errors.Is(err, strconv.ErrRange) || math.IsInf(v, 0) {
			if errors.Is(err, strconv.ErrRange) {
				return 0, fmt.Sprintf("%q is out of the range of float64", clip(t))
			}
			return 0, fmt.Sprintf("%q is not a number", clip(t))
		}
	}
	if !finite(v) {
		return 0, fmt.Sprintf("%q is not a finite number", clip(t))
	}
	x := T(v)
	if math.IsInf(float64(x), 0) {
		return 0, fmt.Sprintf("%q is out of the range of float32", clip(t))
	}
	return x, ""
}

// decimal reports whether s, a number for strconv.ParseFloat, is also one
// for a data file: ParseFloat also accepts Go's underscores between digits
// (1_000) and hexadecimal (0x1p3), which no data format means.
func decimal(s string) bool {
	for i := range len(s) {
		if c := s[i]; c == '_' || c|0x20 == 'x' {
			return false
		}
	}
	return true
}

// labelNumber reports whether a label text is a finite decimal number, and
// its value.
func labelNumber(s string) (float64, bool) {
	if !decimal(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0)) {
		return 0, false
	}
	return v, finite(v)
}

// canonNumber is the class text of a numeric label: the shortest decimal
// form, with -0 folded into 0. So "+1", "1" and "1.0" are one class.
func canonNumber(v float64) string {
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// classIndex maps label texts to the classes a caller imposed.
type classIndex struct {
	classes []string
	text    map[string]int32
	num     map[float64]int32 // classes whose text is a number
}

// newClassIndex checks that the imposed classes are distinct, both as
// texts and as numbers. So "1" and "1.0" cannot be two classes.
func newClassIndex(classes []string) (*classIndex, error) {
	if len(classes) > math.MaxInt32 {
		return nil, errors.New("too many classes")
	}
	c := &classIndex{
		classes: classes,
		text:    make(map[string]int32, len(classes)),
		num:     make(map[float64]int32),
	}
	for i, s := range classes {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("dataset: option Classes[%d] is empty; expected a label text", i)
		}
		if j, dup := c.text[s]; dup {
			return nil, fmt.Errorf("dataset: option Classes lists %q twice (at %d and %d)", s, j, i)
		}
		c.text[s] = int32(i)
		if v, ok := labelNumber(s); ok {
			if v == 0 {
				v = 0
			}
			if j, dup := c.num[v]; dup {
				return nil, fmt.Errorf("dataset: option Classes lists the number %v twice (%q at %d and %q at %d)",
					v, classes[j], j, s, i)
			}
			c.num[v] = int32(i)
		}
	}
	return c, nil
}

// lookup finds the class of a label by exact text first. For numeric
// labels it then looks by value, so "+1" matches a class "1".
func (c *classIndex) lookup(label string) (int32, bool) {
	if k, ok := c.text[label]; ok {
		return k, true
	}
	if v, ok := labelNumber(label); ok {
		if v == 0 {
			v = 0
		}
		k, ok := c.num[v]
		return k, ok
	}
	return 0, false
}

// targetSpec checks target values as they are read, so the first bad line
// is reported. It turns them into Y or Labels at the end.
type targetSpec struct {
	task  Task        // as requested; may be TaskAuto
	index *classIndex // non-nil when the caller imposed Classes
}

// newTargetSpec validates the task and class options shared by all readers.
func newTargetSpec(task Task, classes []string) (*targetSpec, error) {
	switch task {
	case Classification, Regression, TaskAuto:
	default:
		return nil, fmt.Errorf("dataset: option Task is %v; expected Classification, Regression or TaskAuto", task)
	}
	ts := &targetSpec{task: task}
	if classes != nil {
		if task == Regression {
			return nil, errors.New("dataset: option Classes given for a regression task")
		}
		if len(classes) == 0 {
			return nil, errors.New("dataset: option Classes is empty; expected at least one class or nil")
		}
		idx, err := newClassIndex(classes)
		if err != nil {
			return nil, err
		}
		ts.index = idx
		ts.task = Classification
	}
	return ts, nil
}

// check returns the trimmed target text and "" if it is acceptable, or a
// description of the problem.
func (ts *targetSpec) check(text string) (string, string) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", "missing target (empty); expected a label or number"
	}
	switch {
	case ts.index != nil:
		if _, ok := ts.index.lookup(t); !ok {
			return "", fmt.Sprintf("label %q is not one of the %d expected classes %s",
				clip(t), len(ts.index.classes), quoteList(ts.index.classes))
		}
	case ts.task == Regression:
		if _, msg := parseValue[float64](t); msg != "" {
			return "", "target " + msg
		}
		return t, ""
	}
	// A label that reads as NaN or Inf is almost certainly a missing or
	// corrupt value, not a class name.
	if v, err := strconv.ParseFloat(t, 64); err == nil && !finite(v) {
		return "", fmt.Sprintf("target %q is not a finite number", clip(t))
	}
	return t, ""
}

// inferTaskValues implements TaskAuto (see the package documentation) for
// numeric targets.
func inferTaskValues(y []float64) Task {
	var ti TaskInference
	for _, v := range y {
		ti.Add(v)
	}
	return ti.Task()
}

// numericClasses maps finite numeric labels to 0..K-1 in increasing order.
func numericClasses(values []float64) ([]int32, []string) {
	seen := make(map[float64]int32)
	for _, v := range values {
		seen[v] = 0 // -0 and 0 are one key
	}
	distinct := make([]float64, 0, len(seen))
	for v := range seen {
		distinct = append(distinct, v)
	}
	classes := classTexts(distinct) // sorts distinct
	for k, v := range distinct {
		seen[v] = int32(k)
	}
	labels := make([]int32, len(values))
	for i, v := range values {
		labels[i] = seen[v]
	}
	return labels, classes
}

// streamLabeler maps labels one at a time, for streams. A stream cannot
// see all labels before the first row. With imposed classes it uses them.
// Otherwise a label must be an integer ≥ -1 and is used as is. The
// exception is -1 (the ±1 convention), which becomes class 0.
type streamLabeler struct {
	index              *classIndex
	sawMinus1, sawZero bool
}

// label returns the class of a checked, trimmed label text, or a problem.
func (s *streamLabeler) label(t string) (int32, string) {
	if s.index != nil {
		k, _ := s.index.lookup(t) // checked by targetSpec.check
		return k, ""
	}
	v, ok := labelNumber(t)
	if !ok || v != math.Trunc(v) || v < -1 || v >= math.MaxInt32 {
		return 0, fmt.Sprintf("label %q is not an integer ≥ -1; a stream without the Classes option needs ±1 or 0..K-1 labels", clip(t))
	}
	switch v {
	case -1:
		s.sawMinus1 = true
		v = 0
	case 0:
		s.sawZero = true
	}
	if s.sawMinus1 && s.sawZero {
		return 0, "labels -1 and 0 both occur, but without the Classes option a stream maps -1 to class 0; give Classes"
	}
	return int32(v), ""
}
