package cvarbeam

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn4x1[context.Context, split, labelSet, func(moments), error](&fitFn{})
	register.Emitter1[moments]()
	register.Combiner3[[]moments, moments, moments](&mergeMomentsFn{})
	register.DoFn2x1[context.Context, moments, error](&writeMomentsFn{})
}

// moments are the fitting pass's result for some splits: the library's
// cvar.Fit of their training rows, as bytes, with what it does not hold
// (the CSV header's feature names and the class texts of text labels).
// Memory: O(D) (see cvar.Fit).
type moments struct {
	N        int64 // training rows
	Features []string
	Classes  []string // the class texts of CSV targets that are not all numbers
	Fit      []byte   // a cvar.Fit[float64], MarshalBinary's
	Key      int64    // the first split's (split.key), for the order of merges
}

// fitOf decodes m's fit; an empty one for none.
func (m *moments) fitOf() (*cvar.Fit[float64], error) {
	f := &cvar.Fit[float64]{}
	if m.Fit == nil {
		return f, nil
	}
	return f, f.UnmarshalBinary(m.Fit)
}

// fitFn emits the moments of each split's training rows. The label texts
// of all the CSV rows (a side input) say whether the targets are class
// texts; the rows are then read as classes of those texts.
type fitFn struct {
	Spec rowSpec
	Errs string // the run's folder, for an error's record
}

func (f *fitFn) ProcessElement(ctx context.Context, sp split, labels labelSet, emit func(moments)) error {
	m, err := f.fit(ctx, sp, labels)
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	emit(m)
	return nil
}

// fit reads the training rows of sp into a cvar.Fit.
func (f *fitFn) fit(ctx context.Context, sp split, labels labelSet) (moments, error) {
	classes, err := labels.classes()
	if err != nil {
		return moments{}, err
	}
	m := moments{Classes: classes, Key: sp.key()}
	spec := f.Spec
	if classes != nil {
		spec.Task, spec.Classes = dataset.Classification, classes
	}
	acc := &cvar.Fit[float64]{} // LIBSVM: as wide as the largest index
	if f.Spec.Format == "csv" {
		st, c, err := openStream[float64](ctx, sp, &spec)
		if err != nil {
			return m, err
		}
		c.Close()
		acc = cvar.NewFit[float64](st.D())
		m.Features = st.Features()
	}
	spec.Sparse = true
	err = eachRow(ctx, sp, &spec, func(_ []float64, cols []uint32, vals []float64, y float64, label int32) error {
		if classes != nil {
			y = float64(label)
		}
		m.N++
		return acc.AddSparse(cols, vals, y)
	})
	if err == nil {
		m.Fit, err = acc.MarshalBinary()
	}
	return m, err
}

// mergeMomentsFn merges the splits' fits in the order of the splits,
// whatever the runner's bundles, so that the preprocessing (and so the
// model) of a seed is the same on every run and runner. Memory: O(D) a
// split until all are in.
type mergeMomentsFn struct{}

func (*mergeMomentsFn) CreateAccumulator() []moments { return nil }

func (*mergeMomentsFn) AddInput(a []moments, m moments) []moments { return append(a, m) }

func (*mergeMomentsFn) MergeAccumulators(a, b []moments) []moments { return append(a, b...) }

// ExtractOutput merges the fits; a fit that does not decode (it cannot,
// from fitFn) leaves the result without one, which resolve reports.
func (*mergeMomentsFn) ExtractOutput(a []moments) moments {
	slices.SortFunc(a, func(x, y moments) int { return cmp.Compare(x.Key, y.Key) })
	var all moments
	acc := &cvar.Fit[float64]{}
	for i := range a {
		f, err := a[i].fitOf()
		if err != nil || acc.Merge(f) != nil {
			return moments{}
		}
		all.N += a[i].N
		if all.Features == nil {
			all.Features = a[i].Features
		}
		if all.Classes == nil {
			all.Classes = a[i].Classes
		}
	}
	all.Fit, _ = acc.MarshalBinary() // of a fit just decoded: no error
	return all
}

type writeMomentsFn struct{ Path string }

func (f *writeMomentsFn) ProcessElement(ctx context.Context, m moments) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, m))
}

// resolve turns the merged fit into the run's data description, as
// cvar.Fit.Resolve decides it.
func resolve(cfg *TrainOptions, splits []split, rs rowSpec, m *moments) (*prepared, error) {
	f, err := m.fitOf()
	if err == nil && cfg.Dim > 0 {
		wide := cvar.NewFit[float64](cfg.Dim)
		err, f = wide.Merge(f), wide
	}
	if err != nil {
		return nil, fmt.Errorf("cvarbeam: %s: %w", cfg.Input.Glob, err)
	}
	if f.D() < 1 {
		return nil, fmt.Errorf("cvarbeam: %s: the rows have no features", cfg.Input.Glob)
	}
	scaling, err := cvar.ParseScaling(cmp.Or(cfg.Scale, "auto"))
	if err != nil || scaling == cvar.ScaleUnit {
		return nil, fmt.Errorf("cvarbeam: unknown scaling %q (want auto, zscore, maxabs or none)", cfg.Scale)
	}
	if rs.Format == "libsvm" {
		rs.Dim = f.D()
		rs.Sparse = f.Density() < cmp.Or(cfg.SparseBelow, dataset.DefaultSparseBelow)
	}
	info, prep, err := f.Resolve(cvar.FitOptions{Kind: cfg.Kind, Scaling: scaling, ScaleTarget: cfg.ScaleTarget, Sparse: rs.Sparse, Classes: m.Classes})
	if err == nil {
		_, err = batch.NewModel[float64](info.Kind, info.D, len(info.Classes), hiddenOf(info.Kind, cfg.Hidden))
	}
	if err != nil {
		return nil, fmt.Errorf("cvarbeam: %s: %s", cfg.Input.Glob, strings.TrimPrefix(err.Error(), "cvar: "))
	}
	if info.Classes != nil {
		rs.Task, rs.Classes = dataset.Classification, info.Classes
	}
	pr := &prepared{splits: splits, spec: rs, kind: info.Kind, d: info.D, k: len(info.Classes), prep: prep, n: m.N, feats: m.Features}
	pr.source = cvar.Provenance{Kind: rs.Format, Name: cfg.Input.Glob, N: int(m.N)}
	if rs.Format == "csv" {
		pr.source.Target, pr.source.NoHeader = cfg.Input.Target, cfg.Input.NoHeader
	}
	return pr, nil
}
