package cvarbeam

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// Rows that do not fit the model fail Losses with an error that says
// how, never a panic; a missing model file is named.
func TestLossesRefusesBadRows(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	var buf bytes.Buffer
	mf := &cvar.ModelFile{Kind: batch.KindLogistic, D: 2, K: 2, Precision: cvar.F64, Classes: []string{"a", "b"},
		Theta: []float64{1, 1, 0}, Tau: math.NaN(), Alpha: 0.1, Method: cvar.Alg3}
	if err := cvar.SaveModel(&buf, mf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, model string
		row         Row
		want        string
	}{
		{"wider", model, Row{X: []float64{1, 2, 3}}, "a row: 3 features; expected D = 2"},
		{"sparse past the width", model, Row{Cols: []uint32{5}, Vals: []float64{1}}, "a row: column 5; expected rising columns below D = 2"},
		{"columns without values", model, Row{Cols: []uint32{0, 1}, Vals: []float64{1}}, "a row: 2 columns and 1 values"},
		{"no such class", model, Row{X: []float64{1, 2}, Label: 2}, "a row: label 2; expected a class in 0..1"},
		{"not a number", model, Row{X: []float64{1, math.NaN()}}, "a row: feature 1: NaN; expected a finite number"},
		{"no model file", filepath.Join(dir, "none.cvar"), Row{X: []float64{1, 2}}, "none.cvar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			TailMetrics(s, []float64{0.1}, Losses(s, LossOptions{Model: c.model}, beam.Create(s, c.row)))
			err := beamx.Run(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want an error saying %q", err, c.want)
			}
		})
	}
}

// Under a model that centres, a sparse row has the loss of the same row
// given dense.
func TestLossesOfSparseRowsUnderCentring(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.cvar")
	var buf bytes.Buffer
	mf := &cvar.ModelFile{Kind: batch.KindLogistic, D: 2, K: 2, Precision: cvar.F64, Classes: []string{"a", "b"},
		Theta: []float64{1, -2, 0.5}, Tau: math.NaN(), Alpha: 0.1, Method: cvar.Alg3,
		Preprocessing: dataset.Preprocessing{Mean: []float64{1, 0.5}, Scale: []float64{2, 1}}}
	if err := cvar.SaveModel(&buf, mf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	sparse := Losses(s, LossOptions{Model: model}, beam.Create(s, Row{Cols: []uint32{0}, Vals: []float64{3}, Label: 1}))
	dense := Losses(s, LossOptions{Model: model}, beam.Create(s, Row{X: []float64{3, 0}, Label: 1}))
	passert.Equals(s, sparse, dense)
	passert.Count(s, sparse, "sparse", 1)
	if err := beamx.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}
