package trainflag

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar"
)

// The flag values the training flags take.

// Choice is a string flag restricted to a set of values, matched without
// regard to case.
type Choice struct {
	Value   string
	Choices []string
}

// NewChoice returns a Choice of the choices, set to def.
func NewChoice(def string, choices ...string) *Choice { return &Choice{Value: def, Choices: choices} }

func (c *Choice) String() string {
	if c == nil {
		return ""
	}
	return c.Value
}

// Set sets the choice s names.
func (c *Choice) Set(s string) error {
	for _, v := range c.Choices {
		if strings.EqualFold(s, v) {
			c.Value = v
			return nil
		}
	}
	return fmt.Errorf("unknown value %q (want %s)", s, strings.Join(c.Choices, ", "))
}

// Alpha is a tail fraction in (0, 1].
type Alpha float64

func (a *Alpha) String() string { return strconv.FormatFloat(float64(*a), 'g', -1, 64) }

// Set parses a tail fraction.
func (a *Alpha) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if !(v > 0 && v <= 1) {
		return fmt.Errorf("alpha %v is outside (0, 1]: it is the tail fraction, e.g. 0.05 for the worst 5 %%", v)
	}
	*a = Alpha(v)
	return nil
}

// FloatList is a comma-separated list of numbers, each checked by OK; What
// names a value OK refuses.
type FloatList struct {
	Values []float64
	What   string
	OK     func(float64) bool
}

func (l *FloatList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(l.Values))
	for i, v := range l.Values {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Set parses the list; empty items are skipped, an empty list refused.
func (l *FloatList) Set(s string) error {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := strconv.ParseFloat(part, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", part)
		}
		if !l.OK(v) {
			return fmt.Errorf("%s %v", l.What, v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return errors.New("empty list")
	}
	l.Values = out
	return nil
}

// AlphaList is a list of tail fractions.
func AlphaList(def ...float64) *FloatList {
	return &FloatList{Values: def, What: "alpha outside (0, 1]:", OK: func(v float64) bool { return v > 0 && v <= 1 }}
}

// NonNegList is a list of finite values ≥ 0, what they are named what.
func NonNegList(what string, def ...float64) *FloatList {
	return &FloatList{Values: def, What: what + " must be finite and ≥ 0:", OK: func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }}
}

// Step is -lr: a positive step size, or "theorem" for the step size and
// smoothing of the method's theorem.
type Step struct {
	Value   float64
	Theorem bool
}

func (f *Step) String() string {
	switch {
	case f == nil:
		return ""
	case f.Theorem:
		return "theorem"
	case f.Value == 0:
		return ""
	}
	return strconv.FormatFloat(f.Value, 'g', -1, 64)
}

// Set parses a step size or theorem.
func (f *Step) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "theorem") {
		*f = Step{Theorem: true}
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%q: want a positive step size or theorem", s)
	}
	*f = Step{Value: v}
	return nil
}

// Rule is the library's step rule the flag selects.
func (f *Step) Rule() cvar.StepRule {
	if f.Theorem {
		return cvar.TheoremStep
	}
	return cvar.PracticalStep
}
