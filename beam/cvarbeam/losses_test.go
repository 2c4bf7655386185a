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
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
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
		{"wider", model, Row{X: []float64{1, 2, 3}}, "a row of 3 features; the model takes 2"},
		{"sparse past the width", model, Row{Cols: []uint32{5}, Vals: []float64{1}}, "a row with feature 6; the model takes 2"},
		{"columns without values", model, Row{Cols: []uint32{0, 1}, Vals: []float64{1}}, "2 columns and 1 values"},
		{"no such class", model, Row{X: []float64{1, 2}, Label: 2}, "a row of class 2; the model has 2 classes"},
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
