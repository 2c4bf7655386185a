package cvar

import (
	"bytes"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// TestNilArguments: the functions that took a nil pointer to a panic
// return an error, or a documented zero result that the next step refuses.
func TestNilArguments(t *testing.T) {
	t.Parallel()
	if err := (*Options)(nil).SettleObjective(); err == nil {
		t.Error("SettleObjective of nil Options: no error")
	}
	m, err := batch.NewLogistic[float64](2)
	if err != nil {
		t.Fatal(err)
	}
	if mf := NewModelFile[float64](m, nil, nil, dataset.Preprocessing{}, Provenance{}); mf != nil {
		t.Errorf("NewModelFile of a nil result: %+v, want nil", mf)
	} else if err := SaveModel(&bytes.Buffer{}, mf); err == nil {
		t.Error("SaveModel of NewModelFile's nil: no error")
	}
}
