package cvar

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestParamsJSONRoundTrip marshals the Params of real runs, whose TauMax is
// +Inf and Bound NaN, and of a hand-made one with every kind of non-finite
// value, and reads each back to the same Params; the enumerated fields are
// written as names and read from names or numbers.
func TestParamsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 80, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	res, err := Train(model, data, Options{Method: Alg3, Steps: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.Params.TauMax, 1) || !math.IsNaN(res.Params.Bound) {
		t.Fatalf("setup: TauMax %v, Bound %v; want +Inf and NaN", res.Params.TauMax, res.Params.Bound)
	}
	van, err := Train(model, data, Options{Method: Vanilla, Steps: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	made := Params{Method: Alg4, Alpha: 0.2, N: 7, Steps: 7, Batch: 1, G: math.Inf(1), Beta: math.NaN(), L: 1, D: math.Inf(1),
		GAlpha: 3, LR: 1e-3, TauLR: 5e-3, Eps: 0.1, TauMin: math.Inf(-1), TauMax: math.Inf(1), Bound: math.NaN(),
		Estimated: true, TheoremLR: true, Rule: TheoremStep, LRFrom: "given", EpsFrom: "given", Tau0: 0.25, TauFrom: "tau_min",
		EpsFraction: 0.3, Objective: batch.Quadratic, Sampling: batch.InOrder, Output: OutputRandom}
	for name, p := range map[string]Params{"alg3": res.Params, "vanilla": van.Params, "made": made} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.IsInf(p.TauMax, 1) && !strings.Contains(string(b), `"tau_max":"+Inf"`) {
			t.Errorf("%s: %s; want tau_max \"+Inf\"", name, b)
		}
		for _, kv := range []string{`"method":"` + p.Method.String(), `"rule":"` + p.Rule.String(), `"objective":"` + p.Objective.String(),
			`"sampling":"` + p.Sampling.String(), `"output":"` + p.Output.String()} {
			if !strings.Contains(string(b), kv+`"`) {
				t.Errorf("%s: %s; want %s\"", name, b, kv)
			}
		}
		var back Params
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: reading %s: %v", name, b, err)
		}
		if !sameParams(back, p) {
			t.Errorf("%s: read back %+v\nwant %+v\nfrom %s", name, back, p, b)
		}
	}
	var p Params
	if err := json.Unmarshal([]byte(`{"tau_max":"x"}`), &p); err == nil {
		t.Error(`tau_max "x" read without an error`)
	}
	if err := json.Unmarshal([]byte(`{"output":"middle"}`), &p); err == nil {
		t.Error(`output "middle" read without an error`)
	}
	if err := json.Unmarshal([]byte(`{"method":3,"output":2,"sampling":"shuffled"}`), &p); err != nil || p.Method != Alg3 || p.Output != OutputLast || p.Sampling != batch.Shuffled {
		t.Errorf("method 3, output 2, sampling \"shuffled\" read as %v, %v, %v (%v)", p.Method, p.Output, p.Sampling, err)
	}
}

// sameParams compares Params field by field, NaN equal to NaN.
func sameParams(a, b Params) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		x, y := va.Field(i), vb.Field(i)
		if x.Kind() == reflect.Float64 {
			if !sameFloat(x.Float(), y.Float()) {
				return false
			}
		} else if x.Interface() != y.Interface() {
			return false
		}
	}
	return true
}
