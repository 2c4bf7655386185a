package cvarbeam

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

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
