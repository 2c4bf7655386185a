package cvar

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// A trained model as a value: what a model file holds (modelformat.go reads
// and writes it; the package documentation specifies the format).

// The model file format's version and precisions.
const (
	// ModelFileVersion is the version of the model file format this build
	// writes and reads.
	ModelFileVersion = 1

	// F32 and F64 are the precisions of model files: the element type of
	// the parameters.
	F32 = "f32"
	F64 = "f64"
)

// Provenance is what the program that wrote a model file recorded about
// the model's training data. The cvar command records where it read it.
// Its eval and predict then read new data the same way (the CSV target
// column, a file without a header row), or draw its built-in data again.
// It is metadata, the header's "source" object. The library stores it as
// given and gives the fields no other meaning. It checks only that N is
// not negative, and that Extra holds JSON values under keys of its own.
// Other programs may leave it zero or fill in what applies.
type Provenance struct {
	// Kind is "csv", "libsvm", "idx" or "synthetic".
	Kind string `json:"kind"`
	// Name is the file or directory as given, or the synthetic generator.
	Name string `json:"name,omitempty"`
	// Target is the CSV target column as given; NoHeader says the CSV file
	// had no header row.
	Target   string `json:"target,omitempty"`
	NoHeader bool   `json:"no_header,omitempty"`
	// N is the number of training samples.
	N int `json:"n"`
	// Extra holds the writing program's other keys of the "source" object,
	// each with its JSON value as written. The cvar command records its
	// built-in data there. A key may not be one of the names above.
	Extra map[string]json.RawMessage `json:"-"`
}

// MarshalJSON writes the "source" object as a model file's header holds it
// (see provenanceJSON).
func (s Provenance) MarshalJSON() ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	return json.Marshal(toProvenanceJSON(s))
}

// UnmarshalJSON reads the "source" object: the fields by their exact
// names, every other key into Extra.
func (s *Provenance) UnmarshalJSON(b []byte) error {
	var p provenanceJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = p.provenance()
	return nil
}

// ModelFile is a trained model with what is needed to use it. It is the
// content of a model file (see "Model files" in the package doc).
type ModelFile struct {
	Kind      string // one of batch.Kinds()
	D         int    // number of features
	K         int    // classes: 2 for logistic, ≥ 2 for softmax and mlp, 0 for regression
	Hidden    int    // hidden width of the mlp, else 0
	Precision string // F32 or F64: the element type of Theta on disk and in training
	// Theta holds the parameters, in the layout of the batch model. With
	// precision F32 every value must be a float32 (SaveModel rounds).
	Theta  []float64
	Tau    float64 // τ of the output, losses' units; NaN for the baselines
	Alpha  float64
	Method Method
	// Classes are the texts of classes 0..K−1 as they appear in the data;
	// nil for regression.
	Classes []string
	// Features are the names of the D features (may be nil).
	Features []string
	// Preprocessing maps raw features to model inputs.
	Preprocessing dataset.Preprocessing
	// Params are the constants and step sizes of the training run.
	Params Params
	// Source is what the writing program recorded about the training data.
	Source Provenance
}

// BuildModel rebuilds the batch model of m and its parameters in precision
// T (which need not be m's precision).
func BuildModel[T batch.Float](m *ModelFile) (batch.Model[T], []T, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	model, err := batch.NewModel[T](m.Kind, m.D, m.K, m.Hidden)
	if err != nil {
		return nil, nil, err
	}
	theta := make([]T, len(m.Theta))
	for i, v := range m.Theta {
		theta[i] = T(v)
	}
	return model, theta, nil
}

// Validate reports an inconsistent ModelFile. That is an unknown kind or
// precision, or shapes that do not match the parameters. It is a
// non-finite parameter, or parameters whose norm exceeds the precision's
// bound (1e150 for F64, 1e18 for F32). It is class texts that do not
// match K, bad preprocessing, or α outside (0, 1].
func (m *ModelFile) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrModelInvalid, fmt.Sprintf(format, args...))
	}
	if m == nil {
		return bad("no model (nil *ModelFile)")
	}
	if m.Precision != F32 && m.Precision != F64 {
		return bad("precision %q (want f32 or f64)", m.Precision)
	}
	hidden := m.Hidden
	if m.Kind != batch.KindMLP && hidden != 0 {
		return bad("hidden width %d given for a %s model", hidden, m.Kind)
	}
	p, err := batch.NumParams(m.Kind, m.D, m.K, hidden)
	if err != nil {
		return bad("%s", strings.TrimPrefix(err.Error(), "batch: "))
	}
	if len(m.Theta) != p {
		return bad("%d parameters; a %s model with d = %d, k = %d, hidden = %d has %d", len(m.Theta), m.Kind, m.D, m.K, hidden, p)
	}
	var norm2 float64
	for i, v := range m.Theta {
		if !finite(v) || m.Precision == F32 && math.Abs(v) > math.MaxFloat32 {
			return bad("parameter %d is %v, not a finite %s number", i, v, m.Precision)
		}
		norm2 += v * v
	}
	if limit := maxParamNorm(m.Precision); !(norm2 <= limit*limit) {
		return bad("the parameters' norm %.3g exceeds %g, the bound for %s: scores could overflow", scaledNorm(m.Theta), limit, m.Precision)
	}
	if m.K > 0 {
		if len(m.Classes) != m.K {
			return bad("%d class texts for %d classes", len(m.Classes), m.K)
		}
		seen := make(map[string]bool, len(m.Classes))
		for _, c := range m.Classes {
			if seen[c] || c == "" {
				return bad("class text %q is empty or repeated", c)
			}
			seen[c] = true
		}
	} else if m.Classes != nil {
		return bad("class texts given for a regression model")
	}
	if m.Features != nil && len(m.Features) != m.D {
		return bad("%d feature names for %d features", len(m.Features), m.D)
	}
	if err := m.Preprocessing.Validate(m.D); err != nil {
		return bad("%v", err)
	}
	if !(m.Alpha > 0 && m.Alpha <= 1) {
		return bad("alpha %v outside (0, 1]", m.Alpha)
	}
	if _, ok := methods.name(m.Method); !ok {
		return bad("unknown method %d", int(m.Method))
	}
	if err := m.Source.validate(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// scaledNorm is the Euclidean norm of finite values. It is computed in
// units of the largest magnitude, so a sum of squares past 1.8e308 does
// not overflow. The norm of {1e308} is 1e308, not +Inf.
func scaledNorm(v []float64) float64 {
	var scale float64
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += (x / scale) * (x / scale)
	}
	return scale * math.Sqrt(s)
}

// maxParamNorm is the largest Euclidean norm ‖θ‖ of a model file's
// parameters: 1e150 for F64, 1e18 for F32. With ‖θ‖ ≤ B, Cauchy–Schwarz
// bounds every score on an input of norm ≤ 1. The bound is √2·B for the
// linear models and softmax, and √2·B² + B for the mlp, whose hidden
// activations are at most their inputs. A squared error is about 2B².
// All lie far below the precision's largest number (1.8e308, 3.4e38), so only
// inputs of enormous norm make a score overflow. No training run comes
// near the bound.
func maxParamNorm(precision string) float64 {
	if precision == F32 {
		return 1e18
	}
	return 1e150
}

// validate reports a provenance with a negative count. It reports an Extra
// key that is one of the fields' names or holds no JSON value.
func (s *Provenance) validate() error {
	if s.N < 0 {
		return fmt.Errorf("source: negative count n %d", s.N)
	}
	for k, v := range s.Extra {
		switch k {
		case "kind", "name", "target", "no_header", "n":
			return fmt.Errorf("source: extra key %q is a field of Provenance", k)
		}
		if !json.Valid(v) {
			return fmt.Errorf("source: extra key %q: %q is not a JSON value", k, v)
		}
	}
	return nil
}
