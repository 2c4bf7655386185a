package cvar

import (
	"fmt"
	"strings"
)

// enum names the values of an integer type: names[i] is value first+i.
// Method, Objective, Scaling and Smoothing read and write their names
// through it, so that every one follows the same rules.
type enum[E ~int] struct {
	kind   string // the type's word in messages, such as "method"
	typ    string // the type's Go name, for String of an unnamed value
	first  E      // the value of names[0]
	names  []string
	hidden int // how many leading names are read but not offered
}

// name is v's name; false for a value outside the constants.
func (e *enum[E]) name(v E) (string, bool) {
	i := int(v - e.first)
	if i < 0 || i >= len(e.names) {
		return "", false
	}
	return e.names[i], true
}

// str is v's name, or the type and number of a value outside the constants.
func (e *enum[E]) str(v E) string {
	if s, ok := e.name(v); ok {
		return s
	}
	return fmt.Sprintf("%s(%d)", e.typ, int(v))
}

// marshal is v's name, with an error for a value outside the constants.
func (e *enum[E]) marshal(v E) ([]byte, error) {
	if s, ok := e.name(v); ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("cvar: unknown %s %d", e.kind, int(v))
}

// unmarshal sets *v from its name, in any case. The error offers the names.
func (e *enum[E]) unmarshal(v *E, b []byte) error {
	for i, s := range e.names {
		if strings.EqualFold(string(b), s) {
			*v = e.first + E(i)
			return nil
		}
	}
	offer := e.names[e.hidden:]
	want := strings.Join(offer[:len(offer)-1], ", ") + " or " + offer[len(offer)-1]
	return fmt.Errorf("cvar: unknown %s %q (want %s)", e.kind, b, want)
}
