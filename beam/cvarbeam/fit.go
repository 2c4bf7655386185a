package cvarbeam

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn4x1[context.Context, split, labelSet, func(moments), error](&fitFn{})
	register.Emitter1[moments]()
	register.Combiner3[[]moments, moments, moments](&mergeMomentsFn{})
	register.DoFn2x1[context.Context, moments, error](&writeMomentsFn{})
}

// moments are the running statistics of the first pass over the training
// rows, mergeable across workers (Chan's update): per feature the number
// of entries read (the non-zeros of sparse rows, every value of dense
// ones), their mean and sum of squared deviations and their extremes; the
// targets' moments; their distinct values while they look like class
// labels. Memory: O(D) per accumulator.
type moments struct {
	N, NNZ     int64
	Width      int // features named by the header, or the largest index seen
	Features   []string
	Cnt        []int64
	Mean, M2   []float64
	Lo, Hi     []float64
	YN         int64
	YMean, YM2 float64
	Distinct   []float64 // at most dataset.MaxAutoClasses + 1, sorted
	Fractional bool
	Classes    []string // the class texts of CSV targets that are not all numbers
	Key        int64    // the split's (split.key), for the order of merges
}

// grow makes room for feature d−1.
func (m *moments) grow(d int) {
	for len(m.Cnt) < d {
		m.Cnt = append(m.Cnt, 0)
		m.Mean, m.M2 = append(m.Mean, 0), append(m.M2, 0)
		m.Lo, m.Hi = append(m.Lo, math.Inf(1)), append(m.Hi, math.Inf(-1))
	}
	m.Width = max(m.Width, d)
}

// add accumulates one row's non-zeros and target.
func (m *moments) add(cols []uint32, vals []float64, y float64) {
	m.N++
	m.NNZ += int64(len(cols))
	for p, c := range cols {
		j := int(c)
		if j >= len(m.Cnt) {
			m.grow(j + 1)
		}
		x := vals[p]
		m.Cnt[j]++
		d := x - m.Mean[j]
		m.Mean[j] += d / float64(m.Cnt[j])
		m.M2[j] += d * (x - m.Mean[j])
		m.Lo[j], m.Hi[j] = min(m.Lo[j], x), max(m.Hi[j], x)
	}
	m.YN++
	d := y - m.YMean
	m.YMean += d / float64(m.YN)
	m.YM2 += d * (y - m.YMean)
	m.label(y)
}

// label records a target value while the targets may be class labels.
func (m *moments) label(y float64) {
	if y != math.Trunc(y) {
		m.Fractional = true
	}
	if m.Fractional || len(m.Distinct) > dataset.MaxAutoClasses {
		return
	}
	if i, found := slices.BinarySearch(m.Distinct, y); !found {
		m.Distinct = slices.Insert(m.Distinct, i, y)
	}
}

// merge adds o's rows to m.
func (m *moments) merge(o *moments) {
	m.grow(o.Width)
	if m.Features == nil {
		m.Features = o.Features
	}
	if m.Classes == nil {
		m.Classes = o.Classes
	}
	for j := range o.Cnt {
		na, nb := float64(m.Cnt[j]), float64(o.Cnt[j])
		if nb == 0 {
			continue
		}
		n := na + nb
		delta := o.Mean[j] - m.Mean[j]
		m.Mean[j] += delta * nb / n
		m.M2[j] += o.M2[j] + delta*delta*na*nb/n
		m.Cnt[j] += o.Cnt[j]
		m.Lo[j], m.Hi[j] = min(m.Lo[j], o.Lo[j]), max(m.Hi[j], o.Hi[j])
	}
	if o.YN > 0 {
		na, nb := float64(m.YN), float64(o.YN)
		n := na + nb
		delta := o.YMean - m.YMean
		m.YMean += delta * nb / n
		m.YM2 += o.YM2 + delta*delta*na*nb/n
		m.YN += o.YN
	}
	m.N += o.N
	m.NNZ += o.NNZ
	m.Fractional = m.Fractional || o.Fractional
	for _, y := range o.Distinct {
		m.label(y)
	}
}

// column returns feature j's mean, standard deviation and extremes over
// all N rows, the zeros that sparse rows leave out included.
func (m *moments) column(j int) (mean, sd, lo, hi float64) {
	n := float64(m.N)
	c := float64(m.Cnt[j])
	lo, hi = m.Lo[j], m.Hi[j]
	if m.Cnt[j] < m.N {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	if m.N == 0 {
		return 0, 0, 0, 0
	}
	mean = c * m.Mean[j] / n
	m2 := m.M2[j] + c*(m.Mean[j]-mean)*(m.Mean[j]-mean) + (n-c)*mean*mean
	return mean, math.Sqrt(m2 / n), lo, hi
}

// zscore is the standardisation of the features: FitStandardizer's mean
// and population deviation (a constant feature: its value and scale 1), or,
// without centring, FitScaler's deviation with a mean of 0.
func (m *moments) zscore(d int, centre bool) dataset.Preprocessing {
	p := dataset.Preprocessing{Mean: make([]float64, d), Scale: make([]float64, d)}
	m.grow(d)
	for j := range d {
		mean, sd, lo, hi := m.column(j)
		p.Scale[j] = 1
		if lo == hi {
			if centre {
				p.Mean[j] = lo
			}
			continue
		}
		if centre {
			p.Mean[j] = mean
		}
		if sd > 0 && !math.IsInf(sd, 0) {
			p.Scale[j] = sd
		}
	}
	return p
}

// maxAbs is FitMaxAbs's scaling: each feature divided by its largest |x|.
func (m *moments) maxAbs(d int) dataset.Preprocessing {
	p := dataset.Preprocessing{Mean: make([]float64, d), Scale: make([]float64, d)}
	m.grow(d)
	for j := range d {
		_, _, lo, hi := m.column(j)
		p.Scale[j] = max(math.Abs(lo), math.Abs(hi))
		if !(p.Scale[j] > 0) || math.IsInf(p.Scale[j], 0) {
			p.Scale[j] = 1
		}
	}
	return p
}

// fitFn emits the moments of each split's rows. The label texts of all
// the CSV rows (a side input) say whether the targets are class texts;
// the rows are then read as classes of those texts.
type fitFn struct {
	Spec rowSpec
	Errs string // the run's folder, for an error's record
}

func (f *fitFn) ProcessElement(ctx context.Context, sp split, labels labelSet, emit func(moments)) error {
	classes, err := labels.classes()
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	acc := &moments{Classes: classes, Key: sp.key()}
	spec := f.Spec
	if classes != nil {
		spec.Task, spec.Classes = dataset.Classification, classes
	}
	if f.Spec.Format == "csv" && sp.Part == 0 {
		st, c, err := openStream[float64](ctx, sp, &spec)
		if err != nil {
			return record(ctx, f.Errs, err)
		}
		c.Close()
		acc.grow(st.D())
		acc.Features = st.Features()
	}
	spec.Sparse = true
	err = eachRow(ctx, sp, &spec, func(_ []float64, cols []uint32, vals []float64, y float64, _ int32) error {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("the target %v is not finite", y)
		}
		acc.add(cols, vals, y)
		return nil
	})
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	emit(*acc)
	return nil
}

// mergeMomentsFn merges the splits' moments in the order of the splits,
// whatever the runner's bundles, so that the preprocessing (and so the
// model) of a seed is the same on every run and runner. Memory: O(D) a
// split until all are in.
type mergeMomentsFn struct{}

func (*mergeMomentsFn) CreateAccumulator() []moments { return nil }

func (*mergeMomentsFn) AddInput(a []moments, m moments) []moments { return append(a, m) }

func (*mergeMomentsFn) MergeAccumulators(a, b []moments) []moments { return append(a, b...) }

func (*mergeMomentsFn) ExtractOutput(a []moments) moments {
	slices.SortFunc(a, func(x, y moments) int { return cmp.Compare(x.Key, y.Key) })
	var all moments
	for i := range a {
		all.merge(&a[i])
	}
	return all
}

type writeMomentsFn struct{ Path string }

func (f *writeMomentsFn) ProcessElement(ctx context.Context, m moments) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, m))
}
