package cvar

import (
	"encoding"
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

// TestTextRoundTrip checks that every constant of the named types marshals
// to its name and reads back, in any case.
func TestTextRoundTrip(t *testing.T) {
	t.Parallel()
	type named interface {
		encoding.TextMarshaler
		String() string
	}
	check := func(v named, into encoding.TextUnmarshaler, back func() named) {
		t.Helper()
		b, err := v.MarshalText()
		if err != nil || string(b) != v.String() {
			t.Fatalf("%v.MarshalText() = %q, %v", v, b, err)
		}
		if err := into.UnmarshalText([]byte(strings.ToUpper(string(b)))); err != nil || back() != v {
			t.Fatalf("UnmarshalText(%q) = %v, %v", b, back(), err)
		}
	}
	var m Method
	for _, v := range []Method{Alg1, Alg2, Alg3, Alg4, Vanilla, MinibatchCVaR} {
		check(v, &m, func() named { return m })
	}
	var o Objective
	for v := ObjectiveDefault; v <= ObjectiveGroup; v++ {
		check(v, &o, func() named { return o })
	}
	var sc Scaling
	for v := ScaleAuto; v <= ScaleNone; v++ {
		check(v, &sc, func() named { return sc })
	}
	var sm Smoothing
	for _, v := range []Smoothing{Softplus, Quadratic} {
		check(v, &sm, func() named { return sm })
	}
}

// TestTextErrors checks that unknown names and values are errors that list
// the valid names.
func TestTextErrors(t *testing.T) {
	t.Parallel()
	var m Method
	var o Objective
	var sc Scaling
	var sm Smoothing
	for _, c := range []struct {
		u    encoding.TextUnmarshaler
		want string
	}{{&m, "alg1, alg2"}, {&o, "cvar, blend"}, {&sc, "auto, zscore"}, {&sm, "softplus or quadratic"}} {
		err := c.u.UnmarshalText([]byte("nope"))
		if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T.UnmarshalText(nope) = %v", c.u, err)
		}
	}
	if err := o.UnmarshalText(nil); err != nil || o != ObjectiveDefault {
		t.Errorf("Objective.UnmarshalText(empty) = %v, %v", o, err)
	}
	for _, v := range []encoding.TextMarshaler{Method(0), Objective(-1), Scaling(9), Smoothing(2)} {
		if b, err := v.MarshalText(); err == nil {
			t.Errorf("%T(%v).MarshalText() = %q, want an error", v, v, b)
		}
	}
}

// TestTextFlagJSON checks the types as flag.TextVar values and JSON fields.
func TestTextFlagJSON(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var m Method
	fs.TextVar(&m, "method", Alg3, "")
	if err := fs.Parse([]string{"-method", "vanilla"}); err != nil || m != Vanilla {
		t.Fatalf("-method vanilla: %v, %v", m, err)
	}
	type cfg struct {
		Method    Method
		Objective Objective
		Scaling   Scaling
		Smoothing Smoothing
	}
	in := cfg{Alg4, ObjectiveChi2, ScaleMaxAbs, Quadratic}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"Method":"alg4","Objective":"chi2","Scaling":"maxabs","Smoothing":"quadratic"}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	var out cfg
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("json.Unmarshal = %+v, %v", out, err)
	}
}
