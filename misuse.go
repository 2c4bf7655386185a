package cvar

import (
	"errors"
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// Argument checks shared by the entry points: a library call with bad
// arguments returns an error, never panics.

var (
	errNoModel = errors.New("cvar: no model (nil batch.Model)")
	errNoData  = errors.New("cvar: no data (nil *batch.Data)")
)

// checkModelData reports a nil model or data, invalid data (shapes or
// labels; see batch.Data.Validate) and data the model does not fit.
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

// checkApply is checkModelData for applying θ on threads workers.
func checkApply[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int) error {
	if err := checkModelData(model, data); err != nil {
		return err
	}
	if p := model.NumParams(); len(theta) != p {
		return fmt.Errorf("cvar: θ has %d parameters, the %s model has %d", len(theta), model.Name(), p)
	}
	return checkThreads(threads)
}

func checkThreads(threads int) error {
	if threads < 0 {
		return fmt.Errorf("cvar: %d threads; want ≥ 0 (0: GOMAXPROCS)", threads)
	}
	return nil
}
