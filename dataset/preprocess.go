package dataset

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Standardizer maps each feature to a z-score, (x - Mean[j]) / Scale[j].
// Its fields are exported, with JSON tags. So it can be saved with a model
// and applied again to new data.
type Standardizer struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
}

// FitStandardizer computes the mean and the population standard deviation
// of every column of ds. The divisor is N, as in scikit-learn's
// StandardScaler. It computes in float64 whatever T is. A constant column
// gets Scale 1 rather than 0, so it maps to 0 instead of NaN. That holds
// on the training data and on new data alike. A column is constant when
// all values are equal, as in a dataset with a single row. An empty
// dataset gives Mean 0 and Scale 1. Sparse data is an error: centring
// would fill every zero in. See Dense, or FitScaler to scale without
// centring. An X of fewer than N×D values is an error, and so is a nil ds.
//
// Each column is computed with the corrected two-pass algorithm: the mean,
// then the mean's rounding error and the sum of squared deviations. It is
// accurate even when the mean is large compared with the spread. It does
// not overflow for values up to float64's limit (see hugeValue).
func FitStandardizer[T Float](ds *Dataset[T]) (*Standardizer, error) {
	if ds == nil {
		return nil, errNoDataset
	}
	if ds.IsSparse() {
		return nil, ds.errorf("standardizing sparse data is not supported (centring would fill in every zero); see Dense, or FitScaler")
	}
	if ds.N < 0 || ds.D < 0 || len(ds.X) < ds.N*ds.D {
		return nil, ds.errorf("%d values for %d rows of %d features", len(ds.X), ds.N, ds.D)
	}
	d := ds.D
	s := &Standardizer{Mean: make([]float64, d), Scale: make([]float64, d)}
	n := float64(ds.N)
	sum := make([]float64, d)
	lo := make([]float64, d)
	hi := make([]float64, d)
	for j := range d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	// Row-major passes keep memory access sequential, which matters more
	// than the extra column buffers.
	for i := range ds.N {
		for j, v := range ds.Row(i) {
			x := float64(v)
			sum[j] += x
			lo[j] = min(lo[j], x)
			hi[j] = max(hi[j], x)
		}
	}
	inv, huge := units(lo, hi)
	if huge {
		sumInUnits(ds, sum, inv)
	}
	mean := make([]float64, d) // in units of 1/inv
	for j := range d {
		if ds.N > 0 {
			mean[j] = sum[j] / n
		}
	}
	dev := make([]float64, d) // Σ (x - mean)
	sq := make([]float64, d)  // Σ (x - mean)²
	for i := range ds.N {
		for j, v := range ds.Row(i) {
			e := float64(v)*inv[j] - mean[j]
			dev[j] += e
			sq[j] += e * e
		}
	}
	for j := range d {
		s.Scale[j] = 1
		if ds.N == 0 || lo[j] == hi[j] {
			if ds.N > 0 {
				s.Mean[j] = lo[j] // exact, so that the column maps to 0
			}
			continue
		}
		// Corrected two-pass: dev[j]/n is the rounding error of the mean.
		variance := (sq[j] - dev[j]*dev[j]/n) / n
		s.Mean[j] = (mean[j] + dev[j]/n) / inv[j]
		if sd := math.Sqrt(variance) / inv[j]; sd > 0 && finite(sd) {
			s.Scale[j] = sd
		}
	}
	return s, nil
}

// sumInUnits sums again, in units of 1/inv[j], the columns whose inv is
// not 1.
func sumInUnits[T Float](ds *Dataset[T], sum, inv []float64) {
	for j := range sum {
		if inv[j] != 1 {
			sum[j] = 0
		}
	}
	for i := range ds.N {
		for j, v := range ds.Row(i) {
			if inv[j] != 1 {
				sum[j] += float64(v) * inv[j]
			}
		}
	}
}

// check verifies that s is usable on d features.
func (s *Standardizer) check(d int) error {
	if s == nil {
		return fmt.Errorf("dataset: nil Standardizer")
	}
	if len(s.Mean) != len(s.Scale) {
		return fmt.Errorf("dataset: Standardizer has %d means but %d scales", len(s.Mean), len(s.Scale))
	}
	if len(s.Mean) != d {
		return fmt.Errorf("dataset: Standardizer fitted on %d features cannot be applied to %d", len(s.Mean), d)
	}
	for j := range s.Scale {
		if !finite(s.Mean[j]) || !finite(s.Scale[j]) || s.Scale[j] <= 0 {
			return fmt.Errorf("dataset: Standardizer feature %d has mean %v and scale %v; expected finite values and a positive scale",
				j, s.Mean[j], s.Scale[j])
		}
	}
	return nil
}

// StandardizeInPlace replaces every row x of ds by (x - s.Mean) / s.Scale.
// It fails, changing nothing, if s was fitted on a different number of
// features or holds invalid values. It fails too if ds is nil or of a bad
// shape.
func StandardizeInPlace[T Float](s *Standardizer, ds *Dataset[T]) error {
	if ds == nil {
		return errNoDataset
	}
	if ds.IsSparse() {
		return ds.errorf("standardizing sparse data is not supported (centring would fill in every zero); see Dense")
	}
	if err := s.check(ds.D); err != nil {
		return ds.prepError(s.Mean, s.Scale, err)
	}
	if ds.N < 0 || ds.D > 0 && ds.N > len(ds.X)/ds.D {
		return ds.errorf("X has %d values; expected N×D = %d×%d", len(ds.X), ds.N, ds.D)
	}
	for i := range ds.N {
		standardize(s, ds.Row(i))
	}
	return nil
}

// prepError restates err, a problem of the preprocessing (mean, scale) of
// ds, as an *Error. The error names ds and the feature at fault, if one is.
func (ds *Dataset[T]) prepError(mean, scale []float64, err error) error {
	for j := range mean {
		if len(mean) == ds.D && len(scale) == ds.D && (!finite(mean[j]) || !finite(scale[j]) || scale[j] <= 0) {
			return ds.errorf("feature %d%s: mean %v and scale %v; expected finite values and a positive scale", j, ds.featureSuffix(j), mean[j], scale[j])
		}
	}
	return ds.errorf("%s", strings.TrimPrefix(err.Error(), "dataset: "))
}

// StandardizeRow standardizes one sample in place, e.g. a row from a
// Stream. It fails, changing nothing, if len(x) differs from the number of
// features s was fitted on.
func StandardizeRow[T Float](s *Standardizer, x []T) error {
	if err := s.check(len(x)); err != nil {
		return err
	}
	standardize(s, x)
	return nil
}

func standardize[T Float](s *Standardizer, x []T) {
	for j, v := range x {
		x[j] = T(zscore(float64(v), s.Mean[j], s.Scale[j]))
	}
}

// ScaleUnit brings 8-bit pixel intensities to [0,1]. If every value already
// lies in [0,1] it does nothing. So it is safe to call on MNIST loaded with
// the default options. If every value lies in [0,255] it divides by 255.
// Otherwise the data are not pixel intensities, and it fails, changing
// nothing. It reports whether it scaled. A nil ds is an error.
func ScaleUnit[T Float](ds *Dataset[T]) (scaled bool, err error) {
	if ds == nil {
		return false, errNoDataset
	}
	if ds.IsSparse() {
		return false, ds.errorf("ScaleUnit of sparse data is not supported; see Dense")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range ds.X {
		lo = min(lo, float64(v))
		hi = max(hi, float64(v))
	}
	switch {
	case len(ds.X) == 0 || lo >= 0 && hi <= 1:
		return false, nil
	case lo >= 0 && hi <= 255:
		for i, v := range ds.X {
			ds.X[i] = v / 255
		}
		return true, nil
	}
	return false, fileError(ds.Name, "values range over [%v, %v]; expected pixel intensities in [0,255] or [0,1]", lo, hi)
}

// TargetScaler maps regression targets to z-scores, (y − Mean)/Scale. So
// step sizes mean the same whatever the target's units.
type TargetScaler struct {
	Mean  float64 `json:"mean"`
	Scale float64 `json:"scale"`
}

// FitTargetScaler computes the mean and the population standard deviation
// of ds's regression targets, in float64. It uses the corrected two-pass
// algorithm, without overflow (see FitStandardizer). Constant (or absent)
// targets get Scale 1. A nil ds is an error. So is a target that is not
// finite; the error names its row, 0-based.
func FitTargetScaler[T Float](ds *Dataset[T]) (TargetScaler, error) {
	s := TargetScaler{Scale: 1}
	if ds == nil {
		return s, errNoDataset
	}
	for i, y := range ds.Y {
		if !finite(float64(y)) {
			return s, ds.errorf("row %d: target %v; expected a finite number", i, float64(y))
		}
	}
	if len(ds.Y) == 0 {
		return s, nil
	}
	n := float64(len(ds.Y))
	var most float64
	for _, y := range ds.Y {
		most = max(most, math.Abs(float64(y)))
	}
	inv := unitOf(most)
	for _, y := range ds.Y {
		s.Mean += float64(y) * inv
	}
	s.Mean /= n
	var dev, sq float64
	for _, y := range ds.Y {
		e := float64(y)*inv - s.Mean
		dev += e
		sq += e * e
	}
	s.Mean = (s.Mean + dev/n) / inv
	if sd := math.Sqrt((sq-dev*dev/n)/n) / inv; sd > 0 && finite(sd) {
		s.Scale = sd
	}
	return s, nil
}

// ScaleTargets returns the standardised copy of targets y, (y − s.Mean)/
// s.Scale; y is not modified.
func ScaleTargets[T Float](s TargetScaler, y []T) []T {
	out := make([]T, len(y))
	for i, v := range y {
		out[i] = T(zscore(float64(v), s.Mean, s.Scale))
	}
	return out
}

// Preprocessing says how raw feature values, as read from a data file,
// become a model's inputs. First x ← x/Divide, when Divide > 0 (e.g. 255
// for 8-bit pixels). Then x_j ← (x_j − Mean[j])/Scale[j] when Mean is not
// nil: the z-score of a Standardizer. A model file stores it, so new data
// is prepared as the training data was. Its JSON fields are the header's
// "preprocessing" object. Preprocess applies it.
//
// TargetScale > 0 records that a regression model was trained on
// standardised targets, (y − TargetMean)/TargetScale (a TargetScaler). Its
// parameters were then mapped back to the target's own units. So the model
// predicts y itself, and its losses, τ, CVaR and VaR are in y's units.
// Nothing is applied to new targets.
type Preprocessing struct {
	Divide      float64   `json:"divide,omitempty"`
	Mean        []float64 `json:"mean,omitempty"`
	Scale       []float64 `json:"scale,omitempty"`
	TargetMean  float64   `json:"target_mean,omitempty"`
	TargetScale float64   `json:"target_scale,omitempty"`
}

// Validate reports preprocessing that cannot be applied to d features.
func (p *Preprocessing) Validate(d int) error {
	if p == nil {
		return errors.New("no preprocessing (nil *Preprocessing)")
	}
	if p.Divide < 0 || !finite(p.Divide) {
		return fmt.Errorf("preprocessing divisor %v must be finite and ≥ 0", p.Divide)
	}
	if p.TargetScale < 0 || !finite(p.TargetScale) || !finite(p.TargetMean) {
		return fmt.Errorf("target standardisation: mean %v, scale %v; want finite values and a scale ≥ 0", p.TargetMean, p.TargetScale)
	}
	if p.Mean == nil && p.Scale == nil {
		return nil
	}
	if len(p.Mean) != d || len(p.Scale) != d {
		return fmt.Errorf("preprocessing has %d means and %d scales for %d features", len(p.Mean), len(p.Scale), d)
	}
	for j := range p.Mean {
		if !finite(p.Mean[j]) || !finite(p.Scale[j]) || p.Scale[j] <= 0 {
			return fmt.Errorf("preprocessing of feature %d: mean %v, scale %v; want finite values and a positive scale", j, p.Mean[j], p.Scale[j])
		}
	}
	return nil
}

// Standardizer returns the z-score step of p, or nil when it has none.
func (p *Preprocessing) Standardizer() *Standardizer {
	if p.Mean == nil {
		return nil
	}
	return &Standardizer{Mean: p.Mean, Scale: p.Scale}
}

// TargetScaler returns the target standardisation p records, and whether it
// records one.
func (p *Preprocessing) TargetScaler() (TargetScaler, bool) {
	return TargetScaler{Mean: p.TargetMean, Scale: p.TargetScale}, p.TargetScale > 0
}

// Preprocess applies p in place to x, rows of d features, row-major. It
// divides first, multiplying by 1/Divide in float64. Then it applies the
// z-score of p.Standardizer() as StandardizeRow does. It fails, changing
// nothing, when len(x) is not a multiple of d or p is invalid for d
// features.
func Preprocess[T Float](p *Preprocessing, x []T, d int) error {
	if d <= 0 || len(x)%d != 0 {
		return fmt.Errorf("dataset: %d values are not rows of %d features", len(x), d)
	}
	if err := p.Validate(d); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if p.Divide > 0 {
		inv := 1 / p.Divide
		for i, v := range x {
			x[i] = T(float64(v) * inv)
		}
	}
	if s := p.Standardizer(); s != nil {
		for i := 0; i < len(x); i += d {
			standardize(s, x[i:i+d])
		}
	}
	return nil
}
