package cvar

import (
	"encoding/json"
	"fmt"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// paramsPlain is Params without its JSON methods.
type paramsPlain Params

// paramsWire is the JSON form of Params: its fields as tagged, the float
// fields (which may be NaN or ±Inf: TauMax, Bound, Tau0, G, …) as
// jsonfloat.Exact and the enumerated fields as names, pointing into the
// Params. Being shallower, they take the place of paramsPlain's fields of
// the same names.
type paramsWire struct {
	*paramsPlain
	Method      named[Method]          `json:"method"`
	Alpha       *jsonfloat.Exact       `json:"alpha"`
	G           *jsonfloat.Exact       `json:"g"`
	Beta        *jsonfloat.Exact       `json:"beta"`
	L           *jsonfloat.Exact       `json:"loss_bound"`
	D           *jsonfloat.Exact       `json:"diameter"`
	GAlpha      *jsonfloat.Exact       `json:"g_alpha"`
	LR          *jsonfloat.Exact       `json:"lr"`
	TauLR       *jsonfloat.Exact       `json:"tau_lr"`
	Eps         *jsonfloat.Exact       `json:"eps"`
	TauMin      *jsonfloat.Exact       `json:"tau_min"`
	TauMax      *jsonfloat.Exact       `json:"tau_max"`
	Bound       *jsonfloat.Exact       `json:"bound"`
	Rule        named[StepRule]        `json:"rule"`
	Tau0        *jsonfloat.Exact       `json:"tau0"`
	EpsFraction *jsonfloat.Exact       `json:"eps_fraction"`
	Objective   named[batch.Objective] `json:"objective"`
	Risk        named[Objective]       `json:"risk"`
	Sampling    named[batch.Sampling]  `json:"sampling"`
	Output      named[Output]          `json:"output"`
}

func wireOf(p *Params) *paramsWire {
	x := func(f *float64) *jsonfloat.Exact { return (*jsonfloat.Exact)(f) }
	return &paramsWire{
		paramsPlain: (*paramsPlain)(p),
		Method:      named[Method]{&p.Method, MinibatchCVaR},
		Alpha:       x(&p.Alpha), G: x(&p.G), Beta: x(&p.Beta), L: x(&p.L), D: x(&p.D), GAlpha: x(&p.GAlpha),
		LR: x(&p.LR), TauLR: x(&p.TauLR), Eps: x(&p.Eps), TauMin: x(&p.TauMin), TauMax: x(&p.TauMax),
		Bound: x(&p.Bound), Rule: named[StepRule]{&p.Rule, TheoremStep}, Tau0: x(&p.Tau0), EpsFraction: x(&p.EpsFraction),
		Objective: named[batch.Objective]{&p.Objective, batch.Custom},
		Risk:      named[Objective]{&p.Risk, ObjectiveGroup},
		Sampling:  named[batch.Sampling]{&p.Sampling, batch.InOrder},
		Output:    named[Output]{&p.Output, OutputRandom},
	}
}

// named is an enumerated field of Params in JSON: the name its String
// method gives, read back from that name or from the number. The values
// 0 … last have names.
type named[E interface {
	~int
	String() string
}] struct {
	v    *E
	last E
}

func (e named[E]) MarshalJSON() ([]byte, error) { return json.Marshal((*e.v).String()) }

func (e *named[E]) UnmarshalJSON(b []byte) error {
	var n int
	if json.Unmarshal(b, &n) == nil {
		*e.v = E(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for v := E(0); v <= e.last; v++ {
		if v.String() == s {
			*e.v = v
			return nil
		}
	}
	return fmt.Errorf("cvar: unknown name %q", s)
}

// MarshalJSON implements json.Marshaler. It writes the fields as their
// tags say. NaN and ±Inf are the strings "NaN", "+Inf" and "-Inf", as in
// the model file header; encoding/json refuses them as numbers. Method,
// Rule, Objective, Sampling and Output are their names: "alg3",
// "practical", "softplus", "with-replacement", "last".
func (p Params) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(&p)) }

// UnmarshalJSON implements json.Unmarshaler: it reads what MarshalJSON
// writes, numbers for the float fields, and names or numbers for the
// enumerated ones.
func (p *Params) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, wireOf(p)) }
