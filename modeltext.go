package cvar

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// headerText is a text of the model file's header (a class, a feature name,
// the source's name and target) that survives whatever its bytes: a JSON
// string when it is valid UTF-8, else the object {"base64": "…"} holding its
// bytes in standard base64, since a JSON string cannot hold other bytes
// (encoding/json would replace each with U+FFFD, and two distinct classes
// could come back as one).
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
// headerText.
type provenanceJSON struct {
	Kind         headerText `json:"kind"`
	Name         headerText `json:"name,omitempty"`
	Target       headerText `json:"target,omitempty"`
	NoHeader     bool       `json:"no_header,omitempty"`
	N            int        `json:"n"`
	SynthN       int        `json:"synth_n,omitempty"`
	SynthD       int        `json:"synth_d,omitempty"`
	SynthClasses int        `json:"synth_classes,omitempty"`
	SynthSeed    uint64     `json:"synth_seed,omitempty"`
}

func toProvenanceJSON(s Provenance) provenanceJSON {
	return provenanceJSON{
		Kind: headerText(s.Kind), Name: headerText(s.Name), Target: headerText(s.Target), NoHeader: s.NoHeader,
		N: s.N, SynthN: s.SynthN, SynthD: s.SynthD, SynthClasses: s.SynthClasses, SynthSeed: s.SynthSeed,
	}
}

func (s provenanceJSON) provenance() Provenance {
	return Provenance{
		Kind: string(s.Kind), Name: string(s.Name), Target: string(s.Target), NoHeader: s.NoHeader,
		N: s.N, SynthN: s.SynthN, SynthD: s.SynthD, SynthClasses: s.SynthClasses, SynthSeed: s.SynthSeed,
	}
}
