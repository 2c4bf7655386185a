package cvarbeam

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

func init() {
	register.DoFn3x1[context.Context, split, func(moments), error](&fitFn{})
	register.Emitter1[moments]()
	register.Combiner3[[]moments, moments, moments](&mergeMomentsFn{})
	register.DoFn2x1[context.Context, moments, error](&writeMomentsFn{})
}

// moments are the fitting pass's result for some splits: the library's
// cvar.Fit of their training rows, as bytes, with what it does not hold
// (the CSV header's feature names and the target texts of all the CSV
// rows, which say whether they are class texts). Memory: O(D) and the
// texts (see cvar.Fit and labelSet).
type moments struct {
	N        int64 // training rows
	Features []string
	Labels   labelSet
	Fit      []byte // a cvar.Fit[float64], MarshalBinary's
	Key      int64  // the first split's (split.key), for the order of merges
}

// fitOf decodes m's fit; an empty one for none.
func (m *moments) fitOf() (*cvar.Fit[float64], error) {
	f := &cvar.Fit[float64]{}
	if m.Fit == nil {
		return f, nil
	}
	return f, f.UnmarshalBinary(m.Fit)
}

// fitFn emits the moments of each split's rows, read once: the training
// rows into a cvar.Fit, every CSV row's target text into a labelSet.
type fitFn struct {
	Spec rowSpec
	Errs string // the run's folder, for an error's record
}

func (f *fitFn) ProcessElement(ctx context.Context, sp split, emit func(moments)) error {
	m, err := f.fit(ctx, sp)
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	emit(m)
	return nil
}

// fit reads the rows of sp. A CSV target is read as text: when every
// text is a number it is the Fit's target, else the texts are the
// classes (resolve), which Resolve takes in place of the Fit's targets.
func (f *fitFn) fit(ctx context.Context, sp split) (moments, error) {
	m := moments{Key: sp.key()}
	spec := f.Spec
	spec.Sparse = true
	if spec.Format != "csv" {
		acc := &cvar.Fit[float64]{} // as wide as the largest index
		err := eachRow(ctx, sp, &spec, func(_ []float64, cols []uint32, vals []float64, y float64, _ int32) error {
			m.N++
			return acc.AddSparse(cols, vals, y)
		})
		if err == nil {
			m.Fit, err = acc.MarshalBinary()
		}
		return m, err
	}
	spec.Task = dataset.Classification // targets as texts (NextText)
	st, c, err := openStream[float64](ctx, sp, &spec)
	if err != nil {
		return m, err
	}
	defer c.Close()
	acc := cvar.NewFit[float64](st.D())
	m.Features = st.Features()
	var cols []uint32
	var vals []float64
	for {
		x, text, err := st.NextText()
		if err == io.EOF {
			break
		}
		if err == nil {
			m.Labels.add(text)
			if spec.held(sp, st.Line()) {
				continue
			}
			y, _ := strconv.ParseFloat(text, 64) // a class text's counts for nothing
			cols, vals = nonZeros(x, cols[:0], vals[:0])
			m.N++
			if err = acc.AddSparse(cols, vals, y); err != nil {
				err = &dataset.Error{File: sp.Path, Line: st.Line(), Msg: err.Error()}
			}
		}
		if err != nil {
			return m, locate(ctx, sp, spec.header(), err)
		}
	}
	m.Fit, err = acc.MarshalBinary()
	return m, err
}

// nonZeros appends the columns and values of the non-zeros of x.
func nonZeros(x []float64, cols []uint32, vals []float64) ([]uint32, []float64) {
	for j, v := range x {
		if v != 0 {
			cols, vals = append(cols, uint32(j)), append(vals, v)
		}
	}
	return cols, vals
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
		all.Labels.merge(&a[i].Labels)
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
	classes, err := m.Labels.classes()
	if err != nil {
		return nil, err
	}
	info, prep, err := f.Resolve(cvar.FitOptions{Kind: cfg.Kind, Scaling: scaling, ScaleTarget: cfg.ScaleTarget, Sparse: rs.Sparse, Classes: classes})
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
