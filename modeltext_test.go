package cvar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// withRawHeader returns the model file good with its header replaced by js
// and a valid checksum.
func withRawHeader(good, js []byte) []byte {
	hlen := binary.LittleEndian.Uint32(good[12:])
	out := append([]byte(nil), good[:16]...)
	binary.LittleEndian.PutUint32(out[12:], uint32(len(js)))
	out = append(out, js...)
	out = append(out, good[16+hlen:len(good)-4]...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// header returns the JSON header of a model file.
func headerOf(b []byte) []byte {
	return b[16 : 16+binary.LittleEndian.Uint32(b[12:])]
}

// TestModelTextsAnyBytes: class texts, feature names and the source's name
// and target that are not valid UTF-8 (Latin-1 labels) come back byte for
// byte, distinct classes stay distinct, and texts that are valid UTF-8 are
// written as plain JSON strings.
func TestModelTextsAnyBytes(t *testing.T) {
	t.Parallel()
	for _, prec := range []string{F32, F64} {
		m := testModelFile(t, batch.KindSoftmax, prec)
		m.Classes = []string{"\xff", "\xfe", "caf\xe9"}
		m.Features = []string{"x1", "\xb5m", "x3"}
		m.Source.Name, m.Source.Target = "d\xe9j\xe0.csv", "\xe9tiquette"
		b := saved(t, m)
		back, err := LoadModel(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: Latin-1 texts do not load back: %v", prec, err)
		}
		for i, c := range m.Classes {
			if back.Classes[i] != c {
				t.Errorf("%s: class %d is %q, saved %q", prec, i, back.Classes[i], c)
			}
		}
		for i, f := range m.Features {
			if back.Features[i] != f {
				t.Errorf("%s: feature %d is %q, saved %q", prec, i, back.Features[i], f)
			}
		}
		if !reflect.DeepEqual(back.Source, m.Source) {
			t.Errorf("%s: source %+v, saved %+v", prec, back.Source, m.Source)
		}
		h := string(headerOf(b))
		if !strings.Contains(h, `"classes":[{"base64":"/w=="},{"base64":"/g=="},{"base64":"Y2Fm6Q=="}]`) ||
			!strings.Contains(h, `"features":["x1",{"base64":"tW0="},"x3"]`) {
			t.Errorf("%s: header %s lacks the base64 texts", prec, h)
		}
	}
	plain := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	if h := string(headerOf(plain)); !strings.Contains(h, `"classes":["cat","dog","emu"]`) || !strings.Contains(h, `"target":"y"`) || strings.Contains(h, "base64") {
		t.Errorf("valid UTF-8 texts are not plain strings: %s", h)
	}
}

// TestModelTextObjectsChecked: a text object must hold base64 of bytes
// that are not valid UTF-8, and nothing else.
func TestModelTextObjectsChecked(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	h := string(headerOf(good))
	for _, c := range []struct{ obj, want string }{
		{`{"base64":"Y2F0"}`, "valid UTF-8"},
		{`{"base64":"/w="}`, "base64"},
		{`{"base64":"/w==","x":1}`, "unknown field"},
		{`{}`, `without "base64"`},
		{`{"base64":3}`, "text object"},
	} {
		b := withRawHeader(good, []byte(strings.Replace(h, `"cat"`, c.obj, 1)))
		_, err := LoadModel(bytes.NewReader(b))
		if !errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("class %s: got %v, want ErrModelInvalid naming %q", c.obj, err, c.want)
		}
	}
}

// TestModelHeaderTrailingBytes: the header is one JSON object; bytes after
// it other than JSON whitespace are refused.
func TestModelHeaderTrailingBytes(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindLogistic, F64))
	h := headerOf(good)
	for _, tail := range []string{"x", "{}", `{"format":"cvar-model"}`, " 1", "\x00"} {
		b := withRawHeader(good, append(append([]byte(nil), h...), tail...))
		_, err := LoadModel(bytes.NewReader(b))
		if !errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), "after its JSON object") {
			t.Errorf("header followed by %q: got %v, want ErrModelInvalid naming the bytes after the object", tail, err)
		}
	}
	b := withRawHeader(good, append(append([]byte(nil), h...), " \n"...))
	if _, err := LoadModel(bytes.NewReader(b)); err != nil {
		t.Errorf("header followed by JSON whitespace: %v", err)
	}
}

// TestModelParamNormBound: parameters whose norm exceeds maxParamNorm (θ
// = 1e308 with a valid checksum, the largest f32 values) are refused by
// LoadModel and SaveModel, naming the bound; parameters just inside it load.
func TestModelParamNormBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prec string
		v    float64
		ok   bool
	}{
		{F64, 1e308, false}, {F64, 2e150, false}, {F64, 5e149, true},
		{F32, math.MaxFloat32, false}, {F32, 2e18, false}, {F32, 5e17, true},
	} {
		m := testModelFile(t, batch.KindLogistic, c.prec)
		good := saved(t, m)
		b := append([]byte(nil), good...)
		at := 16 + len(headerOf(good))
		if c.prec == F32 {
			binary.LittleEndian.PutUint32(b[at:], math.Float32bits(float32(c.v)))
		} else {
			binary.LittleEndian.PutUint64(b[at:], math.Float64bits(c.v))
		}
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		_, err := LoadModel(bytes.NewReader(b))
		m.Theta[0] = float64(float32(c.v))
		if c.prec == F64 {
			m.Theta[0] = c.v
		}
		serr := SaveModel(&bytes.Buffer{}, m)
		switch {
		case c.ok && (err != nil || serr != nil):
			t.Errorf("%s θ₀ = %g: load %v, save %v; want both to pass", c.prec, c.v, err, serr)
		case !c.ok && (!errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), ", the bound for "+c.prec+":")):
			t.Errorf("%s θ₀ = %g: load %v; want ErrModelInvalid naming the bound", c.prec, c.v, err)
		case !c.ok && (!errors.Is(serr, ErrModelInvalid) || !strings.Contains(serr.Error(), ", the bound for "+c.prec+":")):
			t.Errorf("%s θ₀ = %g: save %v; want ErrModelInvalid naming the bound", c.prec, c.v, serr)
		}
	}
}
