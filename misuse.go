package cvar

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// Argument checks shared by the entry points: a library call with bad
// arguments returns an error, never panics.

// checkModelData reports a nil model or data, invalid data (see
// batch.Data.Validate, a pass over the data) and data the model does not
// fit.
func checkModelData[T batch.Float](model batch.Model[T], data *batch.Data[T]) error {
	if model == nil {
		return errNoModel
	}
	if data == nil {
		return errNoData
	}
	if err := data.Validate(); err != nil {
		return err
	}
	return model.Check(data)
}

// resultRows returns data.N: the rows of a result that an evaluation
// allocates. It allocates them before the Engine's whole-data pass checks
// the data in full. That pass (batch.Engine.Losses and Scores) checks each
// value once, in parallel, as it is read. The allocation is safe when N is
// at most the number of values the data holds, as in every valid Data.
// Otherwise the data is invalid and resultRows returns why.
func resultRows[T batch.Float](data *batch.Data[T]) (int, error) {
	if data == nil {
		return 0, errNoData
	}
	if n := data.N; n > 0 && (n <= max(len(data.X), len(data.Indptr)-1) || data.IsCompact() && int64(n) <= data.FeatureBytes()) {
		return n, nil
	}
	if err := data.ValidateFeatures(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("cvar: data of %d rows holds fewer values", data.N)
}

func checkThreads(threads int) error {
	if threads < 0 {
		return fmt.Errorf("cvar: %d threads; want ≥ 0 (0: GOMAXPROCS)", threads)
	}
	return nil
}
