package dataset

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// Batch returns ds as the training data of package batch (for cvar.Train,
// cvar.Evaluate and the batch engine): its features and, for
// classification, its labels over K() classes, or, for regression, its
// targets. The values are shared, not copied, so ds must not change while
// the result is in use. Errors name the data set: those of batch.NewData
// (no rows, shapes that do not match, labels out of range).
func (ds *Dataset[T]) Batch() (*batch.Data[T], error) {
	var (
		d   *batch.Data[T]
		err error
	)
	if ds.Task == Classification {
		d, err = batch.NewData(ds.X, ds.N, ds.D, nil, ds.Labels, ds.K())
	} else {
		d, err = batch.NewData(ds.X, ds.N, ds.D, ds.Y, nil, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return d, nil
}
