package dataset

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// Batch returns ds as the training data of package batch (for cvar.Train,
// cvar.Evaluate and the batch engine): its features and, for
// classification, its labels over K() classes, or, for regression, its
// targets. Sparse data gives sparse batch data (batch.NewSparseData), which
// every model trains on and is evaluated on, the MLP included. The values are shared, not copied, so ds must not change while
// the result is in use. Errors name the data set: those of batch.NewData
// and batch.NewSparseData (no rows, shapes that do not match, labels out of range),
// and a nil ds.
func (ds *Dataset[T]) Batch() (*batch.Data[T], error) {
	if ds == nil {
		return nil, errNoDataset
	}
	var (
		d   *batch.Data[T]
		err error
	)
	switch {
	case ds.IsSparse() && ds.Task == Classification:
		d, err = batch.NewSparseData(ds.Indptr, ds.Cols, ds.Vals, ds.N, ds.D, nil, ds.Labels, ds.K())
	case ds.IsSparse():
		d, err = batch.NewSparseData(ds.Indptr, ds.Cols, ds.Vals, ds.N, ds.D, ds.Y, nil, 0)
	case ds.Task == Classification:
		d, err = batch.NewData(ds.X, ds.N, ds.D, nil, ds.Labels, ds.K())
	default:
		d, err = batch.NewData(ds.X, ds.N, ds.D, ds.Y, nil, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return d, nil
}
