package cvarbeam

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// TrainRound in a pipeline of one's own gives the state that Train's
// round gives from the same start: the average of the parts' local runs.
func TestTrainRoundInOwnPipeline(t *testing.T) {
	ctx := context.Background()
	glob := writeSynthetic(t, t.TempDir(), 300, 6, 3)
	parts, format, err := Parts(ctx, Input{Glob: glob})
	if err != nil {
		t.Fatal(err)
	}
	cfg := RoundOptions{
		Model:   &cvar.ModelFile{Kind: batch.KindLogistic, D: 6, K: 2, Precision: cvar.F64, Classes: []string{"0", "1"}},
		Input:   Input{Format: format},
		Options: cvar.Options{Method: cvar.Alg3, Alpha: 0.1, LR: 0.05, Batch: 30, Seed: 2, Steps: 4},
		Rows:    200, Hold: 1.0 / 3,
		State: filepath.Join(t.TempDir(), "state"),
	}
	start := RoundState{Round: 1, Theta: []float64{0.1, -0.2, 0.3, 0, 0.05, 0, -0.1}, Tau: math.NaN()}
	if err := SaveState(ctx, cfg.State, start); err != nil {
		t.Fatal(err)
	}
	u, err := runRound(ctx, &Runner{}, parts, localFnOf(&cfg), start)
	if err != nil {
		t.Fatal(err)
	}
	want := RoundState(u.Next(rounds.State(start)))
	want.Round = 2
	if math.IsNaN(want.Tau) || want.Theta[0] == start.Theta[0] {
		t.Fatalf("the round did not move: %+v", want)
	}
	p, s := beam.NewPipelineWithRoot()
	next := TrainRound(s, cfg, beam.Reshuffle(s, beam.CreateList(s, parts)))
	passert.Equals(s, next, want)
	if err := beamx.Run(ctx, p); err != nil {
		t.Fatalf("TrainRound's state is not the round's %+v: %v", want, err)
	}
}

// TailMetrics takes plain float64 losses as well as Losses' batches.
func TestTailMetricsOfFloats(t *testing.T) {
	losses := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	want, err := cvar.Tails(losses, 0.25, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	m := TailMetrics(s, []float64{0.25, 0.3, 1}, beam.CreateList(s, losses))
	passert.Equals(s, m, cvar.Metrics{N: 8, MeanLoss: 31.0 / 8, Accuracy: math.NaN(), Tails: want})
	if err := beamx.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}
