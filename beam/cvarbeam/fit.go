package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// fitFn stores the fit of each split's rows (rounds.Fit), read once.
type fitFn struct {
	Spec rowSpec
	Dir  string // the run's folder: errors, spans, results
}

// ProcessElement reads the rows of sp (rounds.ReadFit) and stores their
// fit as a result of the run. A CSV target is read as text: the texts
// become the classes (modelOf).
func (f *fitFn) ProcessElement(ctx context.Context, sp Part) error {
	spec := f.Spec
	if spec.Format == "csv" {
		spec.Task = dataset.Classification // targets as texts
	}
	st, c, err := openStream[float64](ctx, sp, &spec)
	if err == nil {
		defer c.Close()
		var m rounds.Fit
		m, err = rounds.ReadFit(st, spec.Format == "csv", sp.key(), func(line int) bool { return spec.held(sp, line) })
		if err = locate(ctx, sp, spec.header(), err); err == nil {
			err = writeResult(ctx, fmt.Sprintf("%s/fit-%d", f.Dir, sp.key()), &m)
		}
	}
	return record(ctx, f.Dir, err)
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
	parts, err := readAll[rounds.Fit](ctx, j, "fit-")
	if err != nil {
		return nil, err
	}
	m := rounds.MergeFits(parts)
	if m.N < 2 {
		return nil, fmt.Errorf("cvarbeam: %s holds %d training rows; training needs at least 2", cfg.Input.Glob, m.N)
	}
	return modelOf(cfg, splits, rs, &m)
}

// modelOf settles the model from the merged fit: the kind, the classes
// and the preprocessing, as cvar.Fit.Resolve decides them.
func modelOf(cfg *TrainOptions, splits []Part, rs rowSpec, m *rounds.Fit) (*prepared, error) {
	f, err := m.Fit, error(nil)
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
