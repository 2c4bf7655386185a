package cvarbeam

import (
	"context"
	"flag"
	"strconv"
	"testing"

	"github.com/cvarlearn/cvar"
)

var atOnce = flag.Int("bundles-at-once", 0, "the bundles the engine under test runs at once (Flink is asked for this --parallelism); 0: not known")

// Evaluation reads its splits in as many bundles at once as the engine
// runs, as the bundles' own spans show, with the metrics of one machine.
// An engine's parallelism is its own: Flink's is the job's --parallelism,
// which the test sets, Spark's its master's (local[2]); Prism splits a
// bundle only when it stalls, so there the bundles are not asserted.
func TestEvaluateReadsSplitsAtOnce(t *testing.T) {
	if *atOnce > 0 {
		old := flag.Lookup("parallelism").Value.String()
		flag.Set("parallelism", strconv.Itoa(*atOnce))
		t.Cleanup(func() { flag.Set("parallelism", old) })
	}
	const d, shards, per = 30, 8, 8000
	m := testModel(t, d, cvar.F64)
	rows := testRows(t, shards*per, d)
	sizes := make([]int, shards)
	for i := range sizes {
		sizes[i] = per
	}
	glob := writeShards(t, t.TempDir(), csvHeader(d), rows, sizes, ".csv")
	var got []Bundle
	r := &Runner{OnBundles: func(_ string, bs []Bundle) { got = bs }}
	alphas := []float64{0.05, 0.1}
	metrics, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}, Alphas: alphas}, r)
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, "8 splits", metrics, reference[float64](t, m, csvHeader(d), rows, alphas))
	items, n := 0, int64(0)
	for _, b := range got {
		items, n = items+b.Items, n+b.Rows
	}
	if items != shards || n != int64(len(rows)) {
		t.Errorf("the bundles took %d splits and %d rows; want %d and %d", items, n, shards, len(rows))
	}
	if at := MostAtOnce(got); at < min(*atOnce, shards) || at < 1 {
		t.Errorf("at most %d bundles at once, want %d: %+v", at, *atOnce, got)
	}
	if len(got) > 0 {
		span := got[len(got)-1].End.Sub(got[0].Start)
		for _, b := range got {
			span = max(span, b.End.Sub(got[0].Start))
		}
		t.Logf("%d bundles, at most %d at once, %.0f rows/s over %v", len(got), MostAtOnce(got), float64(n)/span.Seconds(), span)
	}
}
