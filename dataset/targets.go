package dataset

import (
	"math"
	"slices"
)

// mapEntryBytes is what a reader charges for an entry of a map it builds,
// such as a distinct label. It counts the slot, the map's spare room, and
// its growth.
const mapEntryBytes = 64

// targetList holds the targets of the samples read so far within the
// reader's budget. It holds their classes when the classes are imposed,
// and their values for a regression. Otherwise it holds their texts, one
// after another. resolve turns those into classes or values once every
// sample is read.
type targetList[T Float] struct {
	ts     *targetSpec
	b      *budget
	n      int
	labels []int32 // imposed classes
	y      []T     // regression
	text   []byte  // otherwise, the texts
	ends   []int   // where the text of sample i ends
}

// add appends a target that targetSpec.check accepted, read on line.
func (l *targetList[T]) add(t string, line int) error {
	var err error
	switch {
	case l.ts.index != nil:
		k, _ := l.ts.index.lookup(t) // checked
		l.labels, err = appendTo(l.b, l.labels, line, k)
	case l.ts.task == Regression:
		v, _ := parseValue[T](t) // checked
		l.y, err = appendTo(l.b, l.y, line, v)
	default:
		if l.text, err = grow(l.b, l.text, len(t), line); err == nil {
			l.text = append(l.text, t...)
			l.ends, err = appendTo(l.b, l.ends, line, len(l.text))
		}
	}
	if err == nil {
		l.n++
	}
	return err
}

// textOf returns the text of sample i, sharing l's memory.
func (l *targetList[T]) textOf(i int) []byte {
	lo := 0
	if i > 0 {
		lo = l.ends[i-1]
	}
	return l.text[lo:l.ends[i]]
}

// drop frees the texts, once resolved.
func (l *targetList[T]) drop() {
	l.b.free(int64(cap(l.text)) + int64(cap(l.ends))*8)
	l.text, l.ends = nil, nil
}

// resolve returns the task of the samples read and their targets: Y for a
// regression, Labels and Classes for a classification. line is the last
// line read, for messages.
func (l *targetList[T]) resolve(line int) (Task, []T, []int32, []string, error) {
	switch {
	case l.ts.index != nil:
		return Classification, nil, l.labels, slices.Clone(l.ts.index.classes), nil
	case l.ts.task == Regression:
		return Regression, l.y, nil, nil, nil
	}
	defer l.drop()
	task := l.ts.task
	if task == TaskAuto {
		task = l.inferTask()
	}
	if task == Regression {
		y, err := makeCounted[T](l.b, l.n, line)
		if err != nil {
			return 0, nil, nil, nil, err
		}
		for i := range y {
			y[i], _ = parseValue[T](string(l.textOf(i))) // checked
		}
		return Regression, y, nil, nil, nil
	}
	labels, classes, err := l.classes(line)
	return Classification, nil, labels, classes, err
}

// inferTask implements TaskAuto (see the package documentation).
func (l *targetList[T]) inferTask() Task {
	distinct := make(map[float64]struct{})
	integers := true
	for i := range l.n {
		v, ok := labelNumber(string(l.textOf(i)))
		if !ok {
			return Classification
		}
		if v != math.Trunc(v) {
			integers = false
		} else if len(distinct) <= MaxAutoClasses {
			distinct[v] = struct{}{}
		}
	}
	if integers && len(distinct) <= MaxAutoClasses {
		return Classification
	}
	return Regression
}

// classes maps the label texts to 0..K-1: numerically when every label is
// a number, lexicographically otherwise.
func (l *targetList[T]) classes(line int) ([]int32, []string, error) {
	labels, err := makeCounted[int32](l.b, l.n, line)
	if err != nil {
		return nil, nil, err
	}
	numeric := true
	for i := range l.n {
		if _, ok := labelNumber(string(l.textOf(i))); !ok {
			numeric = false
			break
		}
	}
	if numeric {
		classes, err := l.numericClasses(labels, line)
		return labels, classes, err
	}
	seen := make(map[string]int32)
	for i := range l.n {
		t := l.textOf(i)
		if _, ok := seen[string(t)]; !ok {
			if err := l.b.take(mapEntryBytes+int64(len(t)), line); err != nil {
				return nil, nil, err
			}
			seen[string(t)] = 0
		}
	}
	classes := make([]string, 0, len(seen))
	for t := range seen {
		classes = append(classes, t)
	}
	slices.Sort(classes)
	for k, t := range classes {
		seen[t] = int32(k)
	}
	for i := range labels {
		labels[i] = seen[string(l.textOf(i))]
	}
	return labels, classes, nil
}

// numericClasses maps the texts, all numbers, to classes in increasing
// numeric order, writing each sample's class to labels.
func (l *targetList[T]) numericClasses(labels []int32, line int) ([]string, error) {
	seen := make(map[float64]int32)
	for i := range l.n {
		v, _ := labelNumber(string(l.textOf(i)))
		if _, ok := seen[v]; !ok {
			if err := l.b.take(mapEntryBytes, line); err != nil {
				return nil, err
			}
			seen[v] = 0 // -0 and 0 are one key
		}
	}
	distinct := make([]float64, 0, len(seen))
	for v := range seen {
		distinct = append(distinct, v)
	}
	classes := classTexts(distinct) // sorts distinct
	for k, v := range distinct {
		seen[v] = int32(k)
	}
	for i := range labels {
		v, _ := labelNumber(string(l.textOf(i)))
		labels[i] = seen[v]
	}
	return classes, nil
}
