package dataset

import (
	"fmt"
	"slices"
)

// MaxClassTexts is the most distinct target texts a ClassTexts keeps.
const MaxClassTexts = 1 << 16

// ClassTexts gathers the distinct target texts of rows seen one at a
// time, for a caller that settles the classes after the last row. It
// decides as TaskAuto decides for a file: when any text is not a number,
// the targets are class texts, in byte-wise order. Sets of parts merge in
// any order to the same set. The zero value is ready to use.
type ClassTexts struct {
	texts   []string // sorted
	textual bool
	over    bool // more than MaxClassTexts distinct texts
}

// Add accumulates one target text, trimmed as the readers trim it.
func (c *ClassTexts) Add(text string) {
	if _, ok := labelNumber(text); !ok {
		c.textual = true
	}
	i, found := slices.BinarySearch(c.texts, text)
	switch {
	case found:
	case len(c.texts) == MaxClassTexts:
		c.over = true
	default:
		c.texts = slices.Insert(c.texts, i, text)
	}
}

// Merge adds the texts of o.
func (c *ClassTexts) Merge(o *ClassTexts) {
	c.textual, c.over = c.textual || o.textual, c.over || o.over
	for _, t := range o.texts {
		c.Add(t)
	}
}

// Classes returns the class texts, or nil when every text is a number:
// then the numbers decide (TaskInference). More than MaxClassTexts
// distinct texts are an error.
func (c *ClassTexts) Classes() ([]string, error) {
	switch {
	case !c.textual:
		return nil, nil
	case c.over:
		return nil, fmt.Errorf("dataset: the targets are class texts of more than %d classes", MaxClassTexts)
	}
	return slices.Clone(c.texts), nil
}

type classTextsWire struct {
	Texts         []string
	Textual, Over bool
}

// MarshalBinary encodes c, for another process to merge.
func (c *ClassTexts) MarshalBinary() ([]byte, error) {
	return gobBytes(classTextsWire{c.texts, c.textual, c.over})
}

// UnmarshalBinary sets c to the set MarshalBinary encoded.
func (c *ClassTexts) UnmarshalBinary(b []byte) error {
	var w classTextsWire
	if err := gobValue(b, &w); err != nil {
		return err
	}
	if len(w.Texts) > MaxClassTexts {
		return fmt.Errorf("dataset: a class texts' encoding holds %d texts, more than %d", len(w.Texts), MaxClassTexts)
	}
	*c = ClassTexts{textual: w.Textual, over: w.Over}
	for _, t := range w.Texts {
		c.Add(t)
	}
	c.textual = w.Textual
	return nil
}
