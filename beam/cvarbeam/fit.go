package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// moments are the fitting pass's result for some splits: a cvar.Fit of
// their rows, the CSV header's feature names and every CSV target text,
// which say whether the targets are class texts.
type moments struct {
	N        int64 // training rows
	Features []string
	Labels   dataset.ClassTexts
	Fit      *cvar.Fit[float64]
	Key      int64 // the first split's key, for the order of merges
}

// fitFn stores the moments of each split, read once. Training rows go to
// the Fit whole. Held-out rows go by their target only (Fit.AddHeld):
// cvar train counts them for the task and the classes.
type fitFn struct {
	Spec rowSpec
	Dir  string // the run's folder: errors, spans, results
}

// ProcessElement stores the split's moments as a result of the run.
func (f *fitFn) ProcessElement(ctx context.Context, sp Part) error {
	m, err := f.fit(ctx, sp)
	if err == nil {
		err = writeResult(ctx, fmt.Sprintf("%s/moments-%d", f.Dir, sp.key()), &m)
	}
	return record(ctx, f.Dir, err)
}

// fit reads the rows of sp. A CSV target is read as text: a class text
// counts as 0 in the Fit, and the texts become the classes (resolve).
func (f *fitFn) fit(ctx context.Context, sp Part) (moments, error) {
	m := moments{Key: sp.key()}
	spec := f.Spec
	csv := spec.Format == "csv"
	if spec.Sparse = true; csv {
		spec.Task = dataset.Classification // targets as texts
	}
	st, c, err := openStream[float64](ctx, sp, &spec)
	if err != nil {
		return m, err
	}
	defer c.Close()
	acc := &cvar.Fit[float64]{} // as wide as the largest index
	if csv {
		acc, m.Features = cvar.NewFit[float64](st.D()), st.Features()
	}
	var (
		x, vals []float64
		cols    []uint32
		y       float64
		text    string
	)
	for {
		if csv {
			if x, text, err = st.NextText(); err == nil {
				m.Labels.Add(text)
				y, _ = strconv.ParseFloat(text, 64)
				cols, vals = nonZeros(x, cols[:0], vals[:0])
			}
		} else {
			cols, vals, y, _, err = st.NextSparse()
		}
		if err == io.EOF {
			m.Fit = acc
			return m, nil
		}
		if err != nil {
			return m, locate(ctx, sp, spec.header(), err)
		}
		if spec.held(sp, st.Line()) {
			err = acc.AddHeld(y)
		} else {
			m.N++
			err = acc.AddSparse(cols, vals, y)
		}
		if err != nil {
			return m, locate(ctx, sp, spec.header(), &dataset.Error{File: sp.Path, Line: st.Line(), Msg: err.Error()})
		}
	}
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

// mergeMoments merges the splits' fits in the splits' order, so that a
// seed gives the same model on every runner. Fits that do not merge leave
// the result empty.
func mergeMoments(a []moments) moments {
	slices.SortFunc(a, func(x, y moments) int { return cmp.Compare(x.Key, y.Key) })
	all := moments{Fit: &cvar.Fit[float64]{}}
	for i := range a {
		if a[i].Fit == nil || all.Fit.Merge(a[i].Fit) != nil {
			return moments{}
		}
		all.N += a[i].N
		if all.Features == nil {
			all.Features = a[i].Features
		}
		all.Labels.Merge(&a[i].Labels)
	}
	return all
}

// prepared is what the fitting pass settles: the splits, how to read the
// training rows, the model file but its parameters, and the rows.
type prepared struct {
	splits []Part
	spec   rowSpec
	model  *cvar.ModelFile
	n      int64 // training rows
}

// localFn is the transform of local runs on the prepared data with o.
func (pr *prepared) localFn(o cvar.Options) *localFn {
	in := Input{Format: pr.spec.Format, Target: pr.spec.Target, NoHeader: pr.spec.NoHeader}
	return localFnOf(&RoundOptions{Model: pr.model, Input: in, Sparse: pr.spec.Sparse, Rows: pr.n, Hold: pr.spec.Hold, Options: o})
}

// prepare runs the fitting pass over every row and resolves the model.
func prepare(ctx context.Context, r *Runner, cfg *TrainOptions) (*prepared, error) {
	splits, format, err := Parts(ctx, cfg.Input)
	if err != nil {
		return nil, err
	}
	rs := rowSpec{Format: format, Target: cfg.Input.Target, NoHeader: cfg.Input.NoHeader, Dim: cfg.Dim, Task: dataset.Regression, Hold: cfg.Hold, Seed: cfg.Seed}
	if format == "libsvm" && rs.Dim == 0 {
		rs.Dim = dataset.DefaultMaxDim
	}
	j, err := r.newJob(ctx, "fit")
	if err != nil {
		return nil, err
	}
	defer j.done()
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("cvarbeam.Fit")
	beam.ParDo0(s, &fitFn{Spec: rs, Dir: j.dir}, beam.Reshuffle(s, beam.CreateList(s, splits)))
	if err := j.run(ctx, p); err != nil {
		return nil, err
	}
	parts, err := readAll[moments](ctx, j, "moments-")
	if err != nil {
		return nil, err
	}
	m := mergeMoments(parts)
	if m.N < 2 {
		return nil, fmt.Errorf("cvarbeam: %s holds %d training rows; training needs at least 2", cfg.Input.Glob, m.N)
	}
	return resolve(cfg, splits, rs, &m)
}

// resolve settles the model from the merged fit: the kind, the classes
// and the preprocessing, as cvar.Fit.Resolve decides them.
func resolve(cfg *TrainOptions, splits []Part, rs rowSpec, m *moments) (*prepared, error) {
	f := cmp.Or(m.Fit, &cvar.Fit[float64]{})
	var err error
	if cfg.Dim > 0 {
		wide := cvar.NewFit[float64](cfg.Dim)
		err, f = wide.Merge(f), wide
	}
	if err == nil && f.D() < 1 {
		err = errors.New("the rows have no features")
	}
	if err != nil {
		return nil, fmt.Errorf("cvarbeam: %s: %w", cfg.Input.Glob, err)
	}
	if rs.Format == "libsvm" {
		rs.Dim = f.D()
		rs.Sparse = f.Density() < cmp.Or(cfg.SparseBelow, dataset.DefaultSparseBelow)
	}
	classes, err := m.Labels.Classes()
	if err != nil {
		return nil, err
	}
	info, prep, err := f.Resolve(cvar.FitOptions{Kind: cfg.Kind, Scaling: cfg.Scale, ScaleTarget: cfg.ScaleTarget, Sparse: rs.Sparse, Classes: classes})
	hidden := 0
	if info.Kind == batch.KindMLP {
		hidden = cfg.Hidden
	}
	if err == nil {
		_, err = batch.NewModel[float64](info.Kind, info.D, len(info.Classes), hidden)
	}
	if err != nil {
		return nil, fmt.Errorf("cvarbeam: %s: %s", cfg.Input.Glob, strings.TrimPrefix(err.Error(), "cvar: "))
	}
	if info.Classes != nil {
		rs.Task, rs.Classes = dataset.Classification, info.Classes
	}
	mf := &cvar.ModelFile{Kind: info.Kind, D: info.D, K: len(info.Classes), Hidden: hidden, Precision: cfg.Precision,
		Alpha: cfg.Alpha, Method: cfg.Method, Classes: info.Classes, Preprocessing: prep,
		Source: cvar.Provenance{Kind: rs.Format, Name: cfg.Input.Glob, N: int(m.N)}}
	if rs.Format == "csv" {
		mf.Source.Target, mf.Source.NoHeader = cfg.Input.Target, cfg.Input.NoHeader
	}
	if len(m.Features) == mf.D {
		mf.Features = m.Features
	}
	return &prepared{splits: splits, spec: rs, model: mf, n: m.N}, nil
}
