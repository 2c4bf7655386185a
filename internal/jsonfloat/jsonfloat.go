package jsonfloat

import (
	"encoding/json"
	"math"
	"strconv"
)

// Lossy is a float64 whose JSON form is null when it is NaN or infinite.
type Lossy float64

// MarshalJSON implements json.Marshaler.
func (v Lossy) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return appendFinite(nil, f), nil
}

// Exact is a float64 whose JSON form holds NaN and ±Inf as the strings
// "NaN", "+Inf" and "-Inf".
type Exact float64

// MarshalJSON implements json.Marshaler.
func (v Exact) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return appendFinite(nil, f), nil
}

// UnmarshalJSON implements json.Unmarshaler: a JSON number, or one of the
// strings "NaN", "+Inf" (also "Inf") and "-Inf".
func (v *Exact) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*v = Exact(math.NaN())
		return nil
	case `"+Inf"`, `"Inf"`:
		*v = Exact(math.Inf(1))
		return nil
	case `"-Inf"`:
		*v = Exact(math.Inf(-1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = Exact(f)
	return nil
}

func appendFinite(b []byte, f float64) []byte { return strconv.AppendFloat(b, f, 'g', -1, 64) }
