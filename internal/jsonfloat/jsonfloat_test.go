package jsonfloat

import (
	"encoding/json"
	"math"
	"testing"
)

func TestForms(t *testing.T) {
	for _, c := range []struct {
		v            float64
		lossy, exact string
	}{
		{1.5, "1.5", "1.5"},
		{0.1, "0.1", "0.1"},
		{-2e-300, "-2e-300", "-2e-300"},
		{math.NaN(), "null", `"NaN"`},
		{math.Inf(1), "null", `"+Inf"`},
		{math.Inf(-1), "null", `"-Inf"`},
	} {
		l, err := json.Marshal(Lossy(c.v))
		if err != nil || string(l) != c.lossy {
			t.Errorf("Lossy(%v) = %s, %v; want %s", c.v, l, err, c.lossy)
		}
		e, err := json.Marshal(Exact(c.v))
		if err != nil || string(e) != c.exact {
			t.Errorf("Exact(%v) = %s, %v; want %s", c.v, e, err, c.exact)
		}
		var back Exact
		if err := json.Unmarshal(e, &back); err != nil {
			t.Fatal(err)
		}
		if got := float64(back); got != c.v && !(math.IsNaN(got) && math.IsNaN(c.v)) {
			t.Errorf("Exact(%v) read back as %v", c.v, got)
		}
	}
	var v Exact
	if err := json.Unmarshal([]byte(`"Inf"`), &v); err != nil || !math.IsInf(float64(v), 1) {
		t.Errorf(`"Inf" read as %v, %v`, v, err)
	}
	if err := json.Unmarshal([]byte(`"x"`), &v); err == nil {
		t.Error(`"x" read without an error`)
	}
}
