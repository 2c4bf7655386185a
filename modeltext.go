package cvar

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// headerText is a text of the model file's header that survives whatever
// its bytes: a class, a feature name, the source's name and target. Valid
// UTF-8 is a JSON string. Other bytes are the object {"base64": "…"} in
// standard base64, since a JSON string cannot hold them. The reason:
// encoding/json would replace each with U+FFFD, and two distinct classes
// could come back as one.
type headerText string

type base64Text struct {
	Base64 *string `json:"base64"`
}

func (t headerText) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(t)) {
		return json.Marshal(string(t))
	}
	b := base64.StdEncoding.EncodeToString([]byte(t))
	return json.Marshal(base64Text{Base64: &b})
}

// UnmarshalJSON reads either form; the object form must hold bytes that are
// not valid UTF-8, so that every text has one encoding.
func (t *headerText) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = headerText(s)
		return nil
	}
	var v base64Text
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("text object: %w", err)
	}
	if v.Base64 == nil {
		return errors.New(`text object without "base64"`)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(*v.Base64)
	if err != nil {
		return fmt.Errorf("text object: base64: %w", err)
	}
	if utf8.Valid(raw) {
		return fmt.Errorf("text object holds valid UTF-8 %q; write it as a string", raw)
	}
	*t = headerText(raw)
	return nil
}

func toHeaderTexts(s []string) []headerText {
	if s == nil {
		return nil
	}
	out := make([]headerText, len(s))
	for i, v := range s {
		out[i] = headerText(v)
	}
	return out
}

func fromHeaderTexts(s []headerText) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = string(v)
	}
	return out
}

// provenanceJSON is Provenance as the header stores it: its texts as
// headerText, then the Extra keys in sorted order.
type provenanceJSON struct {
	provenanceFields
	Extra map[string]json.RawMessage
}

// provenanceFields are the named keys of the "source" object.
type provenanceFields struct {
	Kind     headerText `json:"kind"`
	Name     headerText `json:"name,omitempty"`
	Target   headerText `json:"target,omitempty"`
	NoHeader bool       `json:"no_header,omitempty"`
	N        int        `json:"n"`
}

func toProvenanceJSON(s Provenance) provenanceJSON {
	return provenanceJSON{provenanceFields{
		Kind: headerText(s.Kind), Name: headerText(s.Name), Target: headerText(s.Target), NoHeader: s.NoHeader, N: s.N,
	}, s.Extra}
}

func (s provenanceJSON) provenance() Provenance {
	return Provenance{
		Kind: string(s.Kind), Name: string(s.Name), Target: string(s.Target), NoHeader: s.NoHeader, N: s.N, Extra: s.Extra,
	}
}

// MarshalJSON writes the named keys, then the Extra keys in sorted order.
func (s provenanceJSON) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.provenanceFields)
	if err != nil || len(s.Extra) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, k := range slices.Sorted(maps.Keys(s.Extra)) {
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ','), key...), ':'), s.Extra[k]...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the named keys by their exact names, every other key
// into Extra.
func (s *provenanceJSON) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*s = provenanceJSON{}
	for k, v := range all {
		var err error
		switch k {
		case "kind":
			err = json.Unmarshal(v, &s.Kind)
		case "name":
			err = json.Unmarshal(v, &s.Name)
		case "target":
			err = json.Unmarshal(v, &s.Target)
		case "no_header":
			err = json.Unmarshal(v, &s.NoHeader)
		case "n":
			err = json.Unmarshal(v, &s.N)
		default:
			if s.Extra == nil {
				s.Extra = make(map[string]json.RawMessage)
			}
			s.Extra[k] = v
		}
		if err != nil {
			return fmt.Errorf("source: %q: %v", k, err)
		}
	}
	return nil
}
