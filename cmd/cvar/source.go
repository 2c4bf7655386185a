package main

import (
	"encoding/json"
	"fmt"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// maxSynthValues bounds the built-in data a model file may ask eval and
// predict to draw again: n·d values, 2³⁰ (4 GiB of float32). So a model
// file cannot make them allocate without limit.
const maxSynthValues = 1 << 30

// synthSource is the command's record of the built-in data a model was
// trained on. The model file keeps it in its "source" object beside the
// library's fields (cvar.Provenance.Extra). Its keys are synth_n, synth_d,
// synth_classes (classification only) and synth_seed.
type synthSource struct {
	N, D, Classes int
	Seed          uint64
}

// put records s in p's Extra; zero values are left out.
func (s synthSource) put(p *cvar.Provenance) {
	if p.Extra == nil {
		p.Extra = make(map[string]json.RawMessage)
	}
	for _, f := range s.fields() {
		b, _ := json.Marshal(f.v) // an int or a uint64: never an error
		if string(b) != "0" {
			p.Extra[f.key] = b
		}
	}
}

// synthField is one key of a synthSource and its value.
type synthField struct {
	key string
	v   any // a pointer to the field
}

func (s *synthSource) fields() []synthField {
	return []synthField{{"synth_n", &s.N}, {"synth_d", &s.D}, {"synth_classes", &s.Classes}, {"synth_seed", &s.Seed}}
}

// synthOf reads the built-in data p records. A value that is not a count
// is an error, and so is a negative count. So is data of more than
// maxSynthValues values or batch.MaxDim classes.
func synthOf(p cvar.Provenance) (synthSource, error) {
	var s synthSource
	for _, f := range s.fields() {
		if v, ok := p.Extra[f.key]; ok {
			if err := json.Unmarshal(v, f.v); err != nil {
				return s, fmt.Errorf("source: %s is %s, not a count", f.key, v)
			}
		}
	}
	if s.N < 0 || s.D < 0 || s.Classes < 0 {
		return s, fmt.Errorf("source: negative count (synth_n %d, synth_d %d, synth_classes %d)", s.N, s.D, s.Classes)
	}
	if s.Classes > batch.MaxDim || s.D > 0 && s.N > maxSynthValues/s.D || s.N > maxSynthValues || s.D > maxSynthValues {
		return s, fmt.Errorf("source: built-in data of %d rows of %d features and %d classes exceeds %d values", s.N, s.D, s.Classes, maxSynthValues)
	}
	return s, nil
}
