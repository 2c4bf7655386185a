package cvar

import (
	"encoding/json"

	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// paramsPlain is Params without its JSON methods.
type paramsPlain Params

// paramsWire is the JSON form of Params: its fields as tagged, the float
// fields (which may be NaN or ±Inf: TauMax, Bound, Tau0, G, …) as
// jsonfloat.Exact pointing into the Params. Being shallower, they take the
// place of paramsPlain's fields of the same names.
type paramsWire struct {
	*paramsPlain
	Alpha  *jsonfloat.Exact `json:"alpha"`
	G      *jsonfloat.Exact `json:"g"`
	Beta   *jsonfloat.Exact `json:"beta"`
	L      *jsonfloat.Exact `json:"loss_bound"`
	D      *jsonfloat.Exact `json:"diameter"`
	GAlpha *jsonfloat.Exact `json:"g_alpha"`
	LR     *jsonfloat.Exact `json:"lr"`
	TauLR  *jsonfloat.Exact `json:"tau_lr"`
	Eps    *jsonfloat.Exact `json:"eps"`
	TauMin *jsonfloat.Exact `json:"tau_min"`
	TauMax *jsonfloat.Exact `json:"tau_max"`
	Bound  *jsonfloat.Exact `json:"bound"`
	Tau0   *jsonfloat.Exact `json:"tau0"`
}

func wireOf(p *Params) *paramsWire {
	x := func(f *float64) *jsonfloat.Exact { return (*jsonfloat.Exact)(f) }
	return &paramsWire{
		paramsPlain: (*paramsPlain)(p),
		Alpha:       x(&p.Alpha), G: x(&p.G), Beta: x(&p.Beta), L: x(&p.L), D: x(&p.D), GAlpha: x(&p.GAlpha),
		LR: x(&p.LR), TauLR: x(&p.TauLR), Eps: x(&p.Eps), TauMin: x(&p.TauMin), TauMax: x(&p.TauMax),
		Bound: x(&p.Bound), Tau0: x(&p.Tau0),
	}
}

// MarshalJSON implements json.Marshaler: the fields as their tags say, NaN
// and ±Inf as the strings "NaN", "+Inf" and "-Inf" (as in the model file
// header), which encoding/json refuses as numbers.
func (p Params) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(&p)) }

// UnmarshalJSON implements json.Unmarshaler: it reads what MarshalJSON
// writes, and numbers for the float fields.
func (p *Params) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, wireOf(p)) }
