package batch

import "errors"

// ErrConcurrentUse is the error of an Engine call made while another call
// on the same Engine is running (see Engine).
var ErrConcurrentUse = errors.New("batch: Engine called while another call on it is running (an Engine serves one goroutine at a time)")

// Errors of the argument checks and of a closed Engine.
var (
	errNoModel     = errors.New("batch: no model (nil Model)")
	errNoData      = errors.New("batch: no data (nil *Data)")
	errNoWeighting = errors.New("batch: no weighting (nil *Weighting)")
	errClosed      = errors.New("batch: the engine is closed")
)
