// Package errtext words the library's errors for the programs: one line,
// without the prefixes of the library's packages, since the program's own
// prefix ("cvar train: ") says where a message comes from.
package errtext

import "strings"

// prefixes are the library packages' prefixes of their messages.
var prefixes = [...]string{"cvar: ", "dataset: ", "batch: ", "kernel: "}

// Plain is err's message on one line without the prefixes of the
// library's packages ("cvar: ", "dataset: ", "batch: ", "kernel: "), at
// its start or where one message wraps another (": dataset: ").
func Plain(err error) string {
	msg := oneLine(err.Error())
	for trimmed := true; trimmed; {
		trimmed = false
		for _, p := range prefixes {
			if strings.HasPrefix(msg, p) {
				msg, trimmed = msg[len(p):], true
			}
		}
	}
	for _, p := range prefixes {
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
	}
	return msg
}

// oneLine folds a message onto one line: its lines, trimmed, joined by
// "; ".
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return strings.Join(fields, "; ")
}
