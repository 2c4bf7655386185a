package dataset

import (
	"fmt"
	"math"
	"slices"
)

// Fitting the preprocessing and inferring the task one row at a time. They
// serve data read as a Stream, which is not held in memory. They are the
// counterparts of FitStandardizer, FitTargetScaler and TaskAuto for data
// that is.

// RunningStandardizer fits a Standardizer one row at a time with Welford's
// algorithm. It serves rows that are not kept, such as a Stream's. It does
// not overflow for values up to float64's limit (see FitStandardizer). The
// zero value is ready to use.
//
// Its results differ from FitStandardizer's on the same rows in the last
// bits: FitStandardizer makes two passes. It tells a constant column by a
// deviation of at most 10⁻¹² of max(1, |mean|), not by exact equality.
// Such a column gets Scale 1.
type RunningStandardizer[T Float] struct {
	n        int
	mean, m2 []float64 // in units of 1/inv (see hugeValue)
	inv      []float64 // nil until a value passes hugeValue
}

// Add accumulates one row. Every row must have the width of the first.
func (s *RunningStandardizer[T]) Add(x []T) error {
	if s.mean == nil {
		s.mean, s.m2 = make([]float64, len(x)), make([]float64, len(x))
	}
	if len(x) != len(s.mean) {
		return fmt.Errorf("dataset: a row of %d features after rows of %d", len(x), len(s.mean))
	}
	s.n++
	n := float64(s.n)
	for j, v := range x {
		y := float64(v)
		if math.Abs(y) > hugeValue {
			s.inv = rescale(s.inv, len(x), j, y, s.mean, s.m2)
		}
		if s.inv != nil {
			y *= s.inv[j]
		}
		d := y - s.mean[j]
		s.mean[j] += d / n
		s.m2[j] += d * (y - s.mean[j])
	}
	return nil
}

// N returns the number of rows added.
func (s *RunningStandardizer[T]) N() int { return s.n }

// Standardizer returns the z-score of the rows added so far: their means and
// population standard deviations (divisor N). With no rows it is empty.
func (s *RunningStandardizer[T]) Standardizer() *Standardizer {
	st := &Standardizer{Mean: slices.Clone(s.mean), Scale: make([]float64, len(s.mean))}
	for j := range st.Scale {
		u := unit(s.inv, j)
		st.Mean[j] /= u
		st.Scale[j] = 1
		if sd := math.Sqrt(s.m2[j]/float64(s.n)) / u; sd > 1e-12*math.Max(1, math.Abs(st.Mean[j])) && finite(sd) {
			st.Scale[j] = sd
		}
	}
	return st
}

// RunningTargetScaler fits a TargetScaler one target at a time with
// Welford's algorithm. The zero value is ready to use.
type RunningTargetScaler struct {
	n        int
	mean, m2 float64   // in units of 1/inv[0] (see hugeValue)
	inv      []float64 // nil until a target passes hugeValue
}

// Add accumulates one target.
func (s *RunningTargetScaler) Add(y float64) {
	s.n++
	if math.Abs(y) > hugeValue {
		mean, m2 := []float64{s.mean}, []float64{s.m2}
		s.inv = rescale(s.inv, 1, 0, y, mean, m2)
		s.mean, s.m2 = mean[0], m2[0]
	}
	if s.inv != nil {
		y *= s.inv[0]
	}
	d := y - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (y - s.mean)
}

// TargetScaler returns the mean and the population standard deviation of
// the targets added so far. Constant targets (or none) get Scale 1.
func (s *RunningTargetScaler) TargetScaler() TargetScaler {
	u := unit(s.inv, 0)
	ts := TargetScaler{Mean: s.mean / u, Scale: 1}
	if sd := math.Sqrt(s.m2/float64(s.n)) / u; sd > 0 && finite(sd) {
		ts.Scale = sd
	}
	return ts
}

// TaskInference infers the task of numeric targets seen one at a time. It
// infers as TaskAuto does for numeric targets (see the package
// documentation). Integers with at most MaxAutoClasses distinct values are
// class labels. Anything else is a regression target. It keeps at most
// MaxAutoClasses + 1 distinct values. The zero value is ready to use.
type TaskInference struct {
	distinct   map[float64]struct{} // -0 and 0 are one key
	fractional bool
}

// Add accumulates one target value.
func (ti *TaskInference) Add(y float64) {
	if y != math.Trunc(y) {
		ti.fractional = true
		return
	}
	if ti.distinct == nil {
		ti.distinct = make(map[float64]struct{})
	}
	if len(ti.distinct) <= MaxAutoClasses {
		ti.distinct[y] = struct{}{}
	}
}

// Task returns Classification when every value added was an integer and at
// most MaxAutoClasses distinct ones were, else Regression.
func (ti *TaskInference) Task() Task {
	if !ti.fractional && len(ti.distinct) <= MaxAutoClasses {
		return Classification
	}
	return Regression
}

// Classes returns the class texts of the values added, in increasing
// numeric order. The texts are as the readers name numeric classes: "-1",
// "1", and "0" for -0. It returns nil when Task is Regression. A row's
// class is the index of its value's text.
func (ti *TaskInference) Classes() []string {
	if ti.Task() != Classification {
		return nil
	}
	values := make([]float64, 0, len(ti.distinct))
	for v := range ti.distinct {
		values = append(values, v)
	}
	return classTexts(values)
}

// classTexts sorts distinct numeric labels in place and returns their class
// texts.
func classTexts(distinct []float64) []string {
	slices.Sort(distinct)
	classes := make([]string, len(distinct))
	for k, v := range distinct {
		classes[k] = canonNumber(v)
	}
	return classes
}
