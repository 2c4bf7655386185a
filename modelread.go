package cvar

import "github.com/cvarlearn/cvar/dataset"

// FileOptions are the options of reading new data for m from a file of
// the format (dataset.LoadFile). They are opt, the caller's limits and CSV
// columns, with m's task and classes. A LIBSVM file gets m's width. Rows
// are dense where m's preprocessing centres, which would fill in a sparse
// row's zeros. A CSV file gets m's target column unless opt names one,
// when m was trained on a CSV file. It has no header when m's file had
// none.
func (m *ModelFile) FileOptions(format string, opt dataset.FileOptions) dataset.FileOptions {
	opt.Format, opt.Task, opt.Classes = format, dataset.Regression, nil
	if m.K > 0 {
		opt.Task, opt.Classes = dataset.Classification, m.Classes
	}
	if format == "libsvm" {
		opt.Dim = m.D
	}
	if m.Preprocessing.Centres() {
		opt.SparseBelow = 0
	}
	if format == "csv" && m.Source.Kind == "csv" {
		if opt.Target == "" {
			opt.Target = m.Source.Target
		}
		opt.NoHeader = opt.NoHeader || m.Source.NoHeader
	}
	return opt
}
