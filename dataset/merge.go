package dataset

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Merging the running fits, for data read in parts by several workers.
// Each part is fitted on its own and the fits are merged. The moments
// merge by Chan's update, which agrees with one pass over all the rows to
// rounding. The same parts merged in the same order give the same bits.
// Extremes and the distinct target values merge exactly, whatever the
// order. Merging an empty fit changes nothing, bit for bit.

// chanMerge merges the moments (nb values, mean mb, sum of squared
// deviations m2b) into (na values, *ma, *m2a), all in one unit. The weight
// na/n·nb is at most n/4. So the update cannot overflow for values below
// hugeValue in magnitude (see hugeValue).
func chanMerge(na, nb float64, ma, m2a *float64, mb, m2b float64) {
	switch {
	case nb == 0:
	case na == 0:
		*ma, *m2a = mb, m2b
	default:
		n := na + nb
		delta := mb - *ma
		*ma += delta * (nb / n)
		*m2a += m2b + delta*delta*(na/n*nb)
	}
}

// alignUnit brings column c of (mean, m2), kept in units of 1/inv[c], to
// the unit u when u is smaller. It does so as rescale does, and returns
// inv.
func alignUnit(inv []float64, d, c int, u float64, mean, m2 []float64) []float64 {
	if u == 1 && inv == nil {
		return inv
	}
	if inv == nil {
		inv = make([]float64, d)
		for j := range inv {
			inv[j] = 1
		}
	}
	if u < inv[c] {
		r := u / inv[c]
		mean[c] *= r
		m2[c] *= r * r
		inv[c] = u
	}
	return inv
}

// inUnit returns column c's moments (mean, m2, in units of 1/from) in the
// unit u ≤ from.
func inUnit(mean, m2, from, u float64) (float64, float64) {
	if u == from {
		return mean, m2
	}
	r := u / from
	return mean * r, m2 * r * r
}

// Merge adds the rows of o to s. o's rows must have the width of s's, or
// either has none.
func (s *RunningStandardizer[T]) Merge(o *RunningStandardizer[T]) error {
	if o.n == 0 {
		return nil
	}
	if s.n == 0 {
		*s = RunningStandardizer[T]{n: o.n, mean: slices.Clone(o.mean), m2: slices.Clone(o.m2), inv: slices.Clone(o.inv)}
		return nil
	}
	if len(o.mean) != len(s.mean) {
		return fmt.Errorf("dataset: merging rows of %d features into rows of %d", len(o.mean), len(s.mean))
	}
	for j := range s.mean {
		u := min(unit(s.inv, j), unit(o.inv, j))
		s.inv = alignUnit(s.inv, len(s.mean), j, u, s.mean, s.m2)
		mb, m2b := inUnit(o.mean[j], o.m2[j], unit(o.inv, j), u)
		chanMerge(float64(s.n), float64(o.n), &s.mean[j], &s.m2[j], mb, m2b)
	}
	s.n += o.n
	return nil
}

// Merge adds the targets of o to s.
func (s *RunningTargetScaler) Merge(o *RunningTargetScaler) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		*s = RunningTargetScaler{n: o.n, mean: o.mean, m2: o.m2, inv: slices.Clone(o.inv)}
		return
	}
	u := min(unit(s.inv, 0), unit(o.inv, 0))
	mean, m2 := []float64{s.mean}, []float64{s.m2}
	s.inv = alignUnit(s.inv, 1, 0, u, mean, m2)
	mb, m2b := inUnit(o.mean, o.m2, unit(o.inv, 0), u)
	chanMerge(float64(s.n), float64(o.n), &mean[0], &m2[0], mb, m2b)
	s.mean, s.m2 = mean[0], m2[0]
	s.n += o.n
}

// Widen makes s a scaler of d features, if it has fewer. The rows added so
// far listed none of the new ones. The zero RunningScaler, of no features,
// is widened as rows of unknown width come.
func (s *RunningScaler[T]) Widen(d int) {
	for s.d < d {
		s.cnt = append(s.cnt, 0)
		s.mean, s.m2 = append(s.mean, 0), append(s.m2, 0)
		s.lo, s.hi = append(s.lo, math.Inf(1)), append(s.hi, math.Inf(-1))
		if s.inv != nil {
			s.inv = append(s.inv, 1)
		}
		s.d++
	}
}

// D returns the number of features.
func (s *RunningScaler[T]) D() int { return s.d }

// Merge adds the rows of o to s. The features of o are the first of s's;
// s is widened to o's width when narrower. o's rows listed none of the
// others.
func (s *RunningScaler[T]) Merge(o *RunningScaler[T]) {
	s.Widen(o.d)
	for j := range o.d {
		if o.cnt[j] == 0 {
			continue
		}
		u := min(unit(s.inv, j), unit(o.inv, j))
		s.inv = alignUnit(s.inv, s.d, j, u, s.mean, s.m2)
		mb, m2b := inUnit(o.mean[j], o.m2[j], unit(o.inv, j), u)
		chanMerge(float64(s.cnt[j]), float64(o.cnt[j]), &s.mean[j], &s.m2[j], mb, m2b)
		s.cnt[j] += o.cnt[j]
		s.lo[j], s.hi[j] = min(s.lo[j], o.lo[j]), max(s.hi[j], o.hi[j])
	}
	s.n += o.n
}

// Standardizer returns the z-score of the rows added so far. It is what
// RunningStandardizer gives of the same dense rows, bit for bit. It holds
// the means and population deviations of the features over the N rows.
// The zeros that rows added sparse left out are included. A constant
// feature gets Scale 1.
func (s *RunningScaler[T]) Standardizer() *Standardizer {
	st := &Standardizer{Mean: make([]float64, s.d), Scale: make([]float64, s.d)}
	if s.n == 0 {
		return st
	}
	n := float64(s.n)
	for j := range s.d {
		u := unit(s.inv, j)
		mean, m2 := s.mean[j], s.m2[j]
		if c := float64(s.cnt[j]); s.cnt[j] < s.n {
			// Chan's combination of the entries read with n − c zeros.
			mean = c * s.mean[j] / n
			m2 = s.m2[j] + c*(s.mean[j]-mean)*(s.mean[j]-mean) + (n-c)*mean*mean
		}
		st.Mean[j] = mean / u
		st.Scale[j] = 1
		if sd := math.Sqrt(m2/n) / u; sd > 1e-12*math.Max(1, math.Abs(st.Mean[j])) && finite(sd) {
			st.Scale[j] = sd
		}
	}
	return st
}

// Merge adds the targets of o to ti.
func (ti *TaskInference) Merge(o *TaskInference) {
	ti.fractional = ti.fractional || o.fractional
	for _, v := range sortedKeys(o.distinct) {
		ti.Add(v)
	}
}

// sortedKeys returns the distinct values in increasing order. So a merge
// that stops at the bound keeps the same ones whatever the map's order.
func sortedKeys(m map[float64]struct{}) []float64 {
	vs := make([]float64, 0, len(m))
	for v := range m {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}

// The running fits cross process boundaries (a distributed runner's
// workers) as bytes: MarshalBinary and UnmarshalBinary, exact.

// scalerWire is a RunningScaler's state on the wire.
type scalerWire struct {
	N, D                  int
	Cnt                   []int
	Mean, M2, Inv, Lo, Hi []float64
}

// MarshalBinary encodes s exactly.
func (s *RunningScaler[T]) MarshalBinary() ([]byte, error) {
	return gobBytes(scalerWire{N: s.n, D: s.d, Cnt: s.cnt, Mean: s.mean, M2: s.m2, Inv: s.inv, Lo: s.lo, Hi: s.hi})
}

// UnmarshalBinary sets s to the scaler MarshalBinary encoded, with an error
// for bytes it did not write.
func (s *RunningScaler[T]) UnmarshalBinary(b []byte) error {
	var w scalerWire
	if err := gobValue(b, &w); err != nil {
		return err
	}
	d := w.D
	if w.N < 0 || d < 0 || len(w.Cnt) != d || len(w.Mean) != d || len(w.M2) != d || len(w.Lo) != d || len(w.Hi) != d || w.Inv != nil && len(w.Inv) != d {
		return errors.New("dataset: a running scaler's encoding has columns of different lengths")
	}
	for _, c := range w.Cnt {
		if c < 0 || c > w.N {
			return errors.New("dataset: a running scaler's encoding counts more entries than rows")
		}
	}
	*s = RunningScaler[T]{n: w.N, d: d, cnt: w.Cnt, mean: w.Mean, m2: w.M2, inv: w.Inv, lo: w.Lo, hi: w.Hi}
	return nil
}

// targetWire is a RunningTargetScaler's state on the wire.
type targetWire struct {
	N        int
	Mean, M2 float64
	Inv      []float64
}

// MarshalBinary encodes s exactly.
func (s *RunningTargetScaler) MarshalBinary() ([]byte, error) {
	return gobBytes(targetWire{N: s.n, Mean: s.mean, M2: s.m2, Inv: s.inv})
}

// UnmarshalBinary sets s to the scaler MarshalBinary encoded.
func (s *RunningTargetScaler) UnmarshalBinary(b []byte) error {
	var w targetWire
	if err := gobValue(b, &w); err != nil {
		return err
	}
	if w.N < 0 || w.Inv != nil && len(w.Inv) != 1 {
		return errors.New("dataset: a running target scaler's encoding is not one")
	}
	*s = RunningTargetScaler{n: w.N, mean: w.Mean, m2: w.M2, inv: w.Inv}
	return nil
}

// inferenceWire is a TaskInference's state on the wire.
type inferenceWire struct {
	Distinct   []float64 // increasing
	Fractional bool
}

// MarshalBinary encodes ti exactly.
func (ti *TaskInference) MarshalBinary() ([]byte, error) {
	return gobBytes(inferenceWire{Distinct: sortedKeys(ti.distinct), Fractional: ti.fractional})
}

// UnmarshalBinary sets ti to the inference MarshalBinary encoded.
func (ti *TaskInference) UnmarshalBinary(b []byte) error {
	var w inferenceWire
	if err := gobValue(b, &w); err != nil {
		return err
	}
	if len(w.Distinct) > MaxAutoClasses+1 {
		return fmt.Errorf("dataset: a task inference's encoding holds %d values, more than %d", len(w.Distinct), MaxAutoClasses+1)
	}
	*ti = TaskInference{fractional: w.Fractional}
	for _, v := range w.Distinct {
		if v != math.Trunc(v) {
			return errors.New("dataset: a task inference's encoding holds a value that is not an integer")
		}
		ti.Add(v)
	}
	return nil
}

func gobBytes(v any) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(v)
	return b.Bytes(), err
}

func gobValue(b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("dataset: not a running fit's encoding: %w", err)
	}
	return nil
}
