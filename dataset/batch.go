package dataset

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// Batch returns ds as the training data of package batch. cvar.Train,
// cvar.Evaluate and the batch engine take it. It holds the features, and
// the labels over K() classes or the regression targets. Sparse data gives
// sparse batch data (batch.NewSparseData). Every model trains and is
// evaluated on it, the MLP included. The values are shared, not copied, so
// ds must not change while the result is in use. Errors name the data set.
// They are those of batch.NewData and batch.NewSparseData: no rows, shapes
// that do not match, labels out of range. A nil ds is an error too.
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
