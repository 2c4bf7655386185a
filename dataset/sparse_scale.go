package dataset

import (
	"fmt"
	"math"
)

// FitScaler returns the standardisation of sparse data: scaling without
// centring, as scikit-learn's StandardScaler(with_mean=False). Mean is all
// zero. Scale[j] is the standard deviation of feature j over the N rows,
// zeros included. A constant feature gets 1, as FitStandardizer gives. So
// x_j/Scale[j] keeps every zero zero. Of sparse data it reads the non-zeros
// only. A column should not repeat within a row, as ReadLIBSVM guarantees.
// Of dense data it reads every value. Applied as a Preprocessing (Mean
// zero, Scale), it is what the cvar command uses for -scale zscore on
// sparse data. A nil ds is an error. So is one whose features do not
// match its shape: a negative shape, too few values, or sparse offsets or
// columns out of range.
func FitScaler[T Float](ds *Dataset[T]) (*Standardizer, error) {
	if err := checkFeatures(ds); err != nil {
		return nil, err
	}
	d := ds.D
	s := &Standardizer{Mean: make([]float64, d), Scale: make([]float64, d)}
	n := float64(ds.N)
	sum := make([]float64, d)
	cnt := make([]int, d) // entries read a column: N for dense data
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	each := func(f func(j int, x float64)) {
		if ds.IsSparse() {
			for p, c := range ds.Cols[:ds.Indptr[ds.N]] {
				f(int(c), float64(ds.Vals[p]))
			}
			return
		}
		for i := range ds.N {
			for j, v := range ds.Row(i) {
				f(j, float64(v))
			}
		}
	}
	each(func(j int, x float64) {
		sum[j] += x
		cnt[j]++
		lo[j], hi[j] = min(lo[j], x), max(hi[j], x)
	})
	// Moments in units of 1/inv[j], without overflow (see hugeValue).
	inv, huge := units(lo, hi)
	if huge {
		for j := range d {
			if inv[j] != 1 {
				sum[j] = 0
			}
		}
		each(func(j int, x float64) {
			if inv[j] != 1 {
				sum[j] += x * inv[j]
			}
		})
	}
	mean := make([]float64, d)
	for j := range d {
		if ds.N > 0 {
			mean[j] = sum[j] / n
		}
	}
	sq := make([]float64, d) // Σ (x − mean)² over the entries read
	each(func(j int, x float64) { e := x*inv[j] - mean[j]; sq[j] += e * e })
	for j := range d {
		s.Scale[j] = 1
		if cnt[j] < ds.N { // a zero not read
			lo[j], hi[j] = min(lo[j], 0), max(hi[j], 0)
		}
		if ds.N == 0 || lo[j] == hi[j] { // constant: scale 1
			continue
		}
		// The rows not read hold zeros, each (0 − mean)² from the mean.
		variance := (sq[j] + float64(ds.N-cnt[j])*mean[j]*mean[j]) / n
		if sd := math.Sqrt(variance) / inv[j]; sd > 0 && finite(sd) {
			s.Scale[j] = sd
		}
	}
	return s, nil
}

// FitMaxAbs returns the max-abs scaling of ds, dense or sparse. It is
// scikit-learn's MaxAbsScaler, and LIBSVM's svm-scale to [−1, 1] without a
// shift. Mean is all zero. Scale[j] is the largest |x_j| over the N rows,
// or 1 for a feature that is 0 throughout. So the scaled features lie in
// [−1, 1] and every zero stays zero. It is the cvar command's default for
// sparse data. FitScaler's division by the standard deviation blows a
// feature seen in a few rows up to hundreds: its deviation is about
// x/√(N/count). A model trained on text so scaled fits those rows at the
// held-out tail's expense, CVaR's above all. Of sparse data it reads the
// non-zeros only. Its errors are FitScaler's.
func FitMaxAbs[T Float](ds *Dataset[T]) (*Standardizer, error) {
	if err := checkFeatures(ds); err != nil {
		return nil, err
	}
	s := &Standardizer{Mean: make([]float64, ds.D), Scale: make([]float64, ds.D)}
	if ds.IsSparse() {
		for p, c := range ds.Cols[:ds.Indptr[ds.N]] {
			s.Scale[c] = max(s.Scale[c], math.Abs(float64(ds.Vals[p])))
		}
	} else {
		for i := range ds.N {
			for j, v := range ds.Row(i) {
				s.Scale[j] = max(s.Scale[j], math.Abs(float64(v)))
			}
		}
	}
	unitForZero(s.Scale)
	return s, nil
}

// checkFeatures reports a nil ds, or features that do not match its shape.
// Those are a negative shape, or dense values fewer than N×D. Sparse
// offsets must be N+1 rising ones within the columns and values. A column
// must be below D.
func checkFeatures[T Float](ds *Dataset[T]) error {
	if ds == nil {
		return errNoDataset
	}
	if ds.N < 0 || ds.D < 0 {
		return ds.errorf("negative shape %d×%d", ds.N, ds.D)
	}
	if !ds.IsSparse() {
		if ds.D > 0 && ds.N > math.MaxInt/ds.D || len(ds.X) < ds.N*ds.D {
			return ds.errorf("X has %d values; expected N×D = %d×%d", len(ds.X), ds.N, ds.D)
		}
		return nil
	}
	if len(ds.Indptr) != ds.N+1 || ds.Indptr[0] != 0 || ds.Indptr[ds.N] > int64(min(len(ds.Cols), len(ds.Vals))) {
		return ds.errorf("sparse data has %d offsets, %d columns and %d values; expected N+1 = %d offsets from 0 to one column and value a non-zero",
			len(ds.Indptr), len(ds.Cols), len(ds.Vals), ds.N+1)
	}
	for i := range ds.N {
		if ds.Indptr[i+1] < ds.Indptr[i] {
			return ds.errorf("row %d: offsets %d, %d decrease", i, ds.Indptr[i], ds.Indptr[i+1])
		}
	}
	for _, c := range ds.Cols[:ds.Indptr[ds.N]] {
		if int(c) >= ds.D {
			return ds.errorf("column %d; expected one below D = %d", c, ds.D)
		}
	}
	return nil
}

// unitForZero sets the scale of a feature that is 0 throughout (or not
// finite) to 1.
func unitForZero(scale []float64) {
	for j, v := range scale {
		if !(v > 0) || !finite(v) {
			scale[j] = 1
		}
	}
}

// PreprocessDataset applies p to ds in place, dense or sparse. Of dense
// data it is Preprocess(p, ds.X, ds.D). Of sparse data it divides and
// scales the non-zeros. The arithmetic is the same, so a sparse data set
// and its dense twin come out alike. It fails, changing nothing, when p
// centres (a non-zero Mean): that would fill in every zero. Sparse data is
// scaled without centring (FitScaler). A nil ds is an error.
func PreprocessDataset[T Float](p *Preprocessing, ds *Dataset[T]) error {
	if ds == nil {
		return errNoDataset
	}
	if err := p.Validate(ds.D); err != nil {
		return ds.prepError(p.Mean, p.Scale, err)
	}
	if !ds.IsSparse() {
		return Preprocess(p, ds.X, ds.D)
	}
	if err := ds.validateShape(); err != nil {
		return err
	}
	for j, m := range p.Mean {
		if m != 0 {
			return ds.errorf("the preprocessing centres feature %d (mean %v), which would fill in the zeros of sparse data; sparse data is scaled without centring", j, m)
		}
	}
	for _, c := range ds.Cols {
		if int(c) >= ds.D {
			return ds.errorf("column %d; expected one below D = %d", c, ds.D)
		}
	}
	vals := ds.Vals[:ds.Indptr[ds.N]]
	if p.Divide > 0 {
		inv := 1 / p.Divide
		for i, v := range vals {
			vals[i] = T(float64(v) * inv)
		}
	}
	if p.Scale != nil {
		for i, c := range ds.Cols[:len(vals)] {
			vals[i] = T((float64(vals[i]) - 0) / p.Scale[c])
		}
	}
	return nil
}

// RunningScaler fits the scalings without centring one row at a time, in
// O(D) memory. It fits FitScaler's (Scaler) from Welford's mean and sum of
// squares per column. They run over the entries read, and are combined
// with the zeros of the rows that did not list the column. That agrees
// with FitScaler to rounding. It fits FitMaxAbs's (MaxAbs) from the
// entries' extremes, exactly. Rows come as their non-zeros (AddSparse) or
// whole (Add). Make it with NewRunningScaler.
type RunningScaler[T Float] struct {
	n        int
	cnt      []int
	mean, m2 []float64 // in units of 1/inv (see hugeValue)
	inv      []float64 // nil until a value passes hugeValue
	lo, hi   []float64
	d        int
}

// NewRunningScaler returns a RunningScaler of d features.
func NewRunningScaler[T Float](d int) *RunningScaler[T] {
	s := &RunningScaler[T]{d: d, cnt: make([]int, d), mean: make([]float64, d), m2: make([]float64, d), lo: make([]float64, d), hi: make([]float64, d)}
	for j := range d {
		s.lo[j], s.hi[j] = math.Inf(1), math.Inf(-1)
	}
	return s
}

// AddSparse accumulates one row given by its non-zeros: columns below d,
// none repeated.
func (s *RunningScaler[T]) AddSparse(cols []uint32, vals []T) error {
	if len(cols) != len(vals) {
		return fmt.Errorf("dataset: a sparse row of %d columns and %d values", len(cols), len(vals))
	}
	for _, c := range cols {
		if int(c) >= s.d {
			return fmt.Errorf("dataset: column %d in a row of %d features", c, s.d)
		}
	}
	s.n++
	for p, c := range cols {
		s.add(int(c), float64(vals[p]))
	}
	return nil
}

// add accumulates the entry x of column c.
func (s *RunningScaler[T]) add(c int, x float64) {
	s.cnt[c]++
	s.lo[c], s.hi[c] = min(s.lo[c], x), max(s.hi[c], x)
	if math.Abs(x) > hugeValue {
		s.inv = rescale(s.inv, s.d, c, x, s.mean, s.m2)
	}
	if s.inv != nil {
		x *= s.inv[c]
	}
	d := x - s.mean[c]
	s.mean[c] += d / float64(s.cnt[c])
	s.m2[c] += d * (x - s.mean[c])
}

// rescale makes the units of column c fit x, and returns inv. The units
// are inv[c], of d columns, all 1 when inv is nil. It converts the
// column's running mean and sum of squares.
func rescale(inv []float64, d, c int, x float64, mean, m2 []float64) []float64 {
	if inv == nil {
		inv = make([]float64, d)
		for j := range inv {
			inv[j] = 1
		}
	}
	if u := unitOf(math.Abs(x)); u < inv[c] {
		r := u / inv[c]
		mean[c] *= r
		m2[c] *= r * r
		inv[c] = u
	}
	return inv
}

// unit returns column j's units factor.
func unit(inv []float64, j int) float64 {
	if inv == nil {
		return 1
	}
	return inv[j]
}

// Add accumulates one dense row of d features.
func (s *RunningScaler[T]) Add(x []T) error {
	if len(x) != s.d {
		return fmt.Errorf("dataset: a row of %d features, want %d", len(x), s.d)
	}
	s.n++
	for c, v := range x {
		s.add(c, float64(v))
	}
	return nil
}

// N returns the number of rows added.
func (s *RunningScaler[T]) N() int { return s.n }

// MaxAbs returns the max-abs scaling of the rows added so far, as
// FitMaxAbs gives it. It is exact: the largest |x| is the same whichever
// order the rows came in.
func (s *RunningScaler[T]) MaxAbs() *Standardizer {
	st := &Standardizer{Mean: make([]float64, s.d), Scale: make([]float64, s.d)}
	for j := range s.d {
		if s.cnt[j] > 0 {
			st.Scale[j] = max(math.Abs(s.lo[j]), math.Abs(s.hi[j]))
		}
	}
	unitForZero(st.Scale)
	return st
}

// Scaler returns the scaling of the rows added so far, as FitScaler gives
// it. Mean is all zero. Scale is the standard deviation of each feature
// over the N rows, zeros included (1 for a constant feature).
func (s *RunningScaler[T]) Scaler() *Standardizer {
	st := &Standardizer{Mean: make([]float64, s.d), Scale: make([]float64, s.d)}
	n := float64(s.n)
	for j := range s.d {
		st.Scale[j] = 1
		lo, hi := s.lo[j], s.hi[j]
		if s.cnt[j] < s.n {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		if s.n == 0 || lo == hi {
			continue
		}
		// Chan's combination of the entries read with n − cnt zeros. There
		// are cnt entries, of mean m and sum of squares m2.
		c := float64(s.cnt[j])
		m := s.mean[j]
		mean := c * m / n
		z := n - c
		m2 := s.m2[j] + c*(m-mean)*(m-mean) + z*mean*mean
		if sd := math.Sqrt(m2/n) / unit(s.inv, j); sd > 0 && finite(sd) {
			st.Scale[j] = sd
		}
	}
	return st
}
