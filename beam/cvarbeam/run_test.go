package cvarbeam

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// The reading step's bundles, as OnBundles receives them, took every
// split once and read every row once.
func TestEvaluateReportsBundles(t *testing.T) {
	const d = 5
	m := testModel(t, d, cvar.F64)
	sizes := []int{40, 35, 50, 20, 45, 30, 25, 55}
	rows := testRows(t, 300, d)
	glob := writeShards(t, t.TempDir(), csvHeader(d), rows, sizes, ".csv")
	var got []Bundle
	calls := 0
	r := &Runner{OnBundles: func(step string, bs []Bundle) {
		calls++
		if step != "eval" {
			t.Errorf("step %q, want eval", step)
		}
		got = bs
	}}
	if _, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}}, r); err != nil {
		t.Fatal(err)
	}
	items, n := 0, int64(0)
	for _, b := range got {
		items, n = items+b.Items, n+b.Rows
		if b.End.Before(b.Start) {
			t.Errorf("a bundle ends before it starts: %+v", b)
		}
	}
	if calls != 1 || items != len(sizes) || n != 300 || MostAtOnce(got) < 1 {
		t.Errorf("%d calls; bundles %+v took %d splits and %d rows; want 1 call, 8 splits, 300 rows", calls, got, items, n)
	}
}

func TestMostAtOnce(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(100, 0).Add(time.Duration(s) * time.Second) }
	bs := []Bundle{{Start: at(0), End: at(4)}, {Start: at(1), End: at(2)}, {Start: at(2), End: at(3)}, {Start: at(3), End: at(5)}}
	if got := MostAtOnce(bs); got != 2 {
		t.Errorf("MostAtOnce = %d, want 2 (a bundle that ends as another starts does not overlap it)", got)
	}
	if got := MostAtOnce(nil); got != 0 {
		t.Errorf("MostAtOnce(nil) = %d", got)
	}
}

// Two runs in one work folder never read each other's results: an
// evaluation of a file without rows after one with rows fails, and every
// run's folder is removed.
func TestSharedWorkFolder(t *testing.T) {
	const d = 5
	m := testModel(t, d, cvar.F64)
	dir, work := t.TempDir(), t.TempDir()
	glob := writeShards(t, dir, csvHeader(d), testRows(t, 60, d), []int{30, 30}, ".csv")
	r := &Runner{Work: work}
	if _, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}}, r); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(empty, []byte(csvHeader(d)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: empty}}, r)
	if err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("a file without rows after a run in the same work folder: %v; want an error", err)
	}
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("the work folder keeps %d entries", len(left))
	}
}

// A runner's report of a failed job gives its innermost cause, not a
// stack frame or the job's name.
func TestCauseOf(t *testing.T) {
	report := "job go0job-root failed:\njava.lang.RuntimeException: Error received from SDK harness\n\tcaused by:\n" +
		"DoFn[UID:6] failed:\n\tgot 0 values, want one value for Singleton side input\n\tat org.apache.beam.Foo(Foo.java:1)\n\t... 3 more\n"
	if got := causeOf(report); got != "got 0 values, want one value for Singleton side input" {
		t.Errorf("causeOf = %q", got)
	}
	if got := causeOf("one line"); got != "one line" {
		t.Errorf("causeOf = %q", got)
	}
}

// The round's sum and the fit pass's merge take the splits in their
// order, whatever order the runner hands them over in: the same bits.
func TestMergesInSplitOrder(t *testing.T) {
	ups := []rounds.Update{
		{N: 1, W: 1, Theta: []float64{1e16, 0.1}, Key: 2},
		{N: 1, W: 1, Theta: []float64{1, 0.2}, Key: 0},
		{N: 1, W: 1, Theta: []float64{-1e16, 0.3}, Key: 1},
	}
	var fn sumUpdatesFn
	first := fn.ExtractOutput(fn.MergeAccumulators(fn.AddInput(nil, ups[0]), fn.AddInput(fn.AddInput(nil, ups[1]), ups[2])))
	second := fn.ExtractOutput(fn.AddInput(fn.AddInput(fn.AddInput(nil, ups[2]), ups[0]), ups[1]))
	x, y, z := ups[1].Theta[0], ups[2].Theta[0], ups[0].Theta[0]
	want := (x + y) + z // 0 in floating point, where another order gives 1
	if first.Theta[0] != want || second.Theta[0] != want || first.Theta[1] != second.Theta[1] {
		t.Errorf("sums %v and %v; want θ_0 = %v both, in the splits' order", first.Theta, second.Theta, want)
	}
}

// A runner whose workers are elsewhere is refused without a work folder,
// before any pipeline runs; with one, or with loopback workers, it is not.
func TestRemoteWorkersNeedWork(t *testing.T) {
	for _, name := range []string{"runner", "environment_type"} {
		old := flag.Lookup(name).Value.String()
		t.Cleanup(func() { flag.Set(name, old) })
	}
	flag.Set("runner", "flink")
	flag.Set("environment_type", "DOCKER")
	err := (&Runner{}).checkWork()
	if err == nil || !strings.Contains(err.Error(), "give a work folder") {
		t.Errorf("flink with docker workers and no work folder: %v", err)
	}
	if err := (&Runner{Work: "gs://bucket/tmp"}).checkWork(); err != nil {
		t.Errorf("with a work folder: %v", err)
	}
	flag.Set("environment_type", "LOOPBACK")
	if err := (&Runner{}).checkWork(); err != nil {
		t.Errorf("loopback workers: %v", err)
	}
}

// A transform's error reaches the launcher as the transform wrote it,
// through the run's record, whatever the runner reports.
func TestRecordedError(t *testing.T) {
	ctx := context.Background()
	var j *job
	r := &Runner{Work: t.TempDir(), Run: func(ctx context.Context, _ *beam.Pipeline) error {
		record(ctx, j.dir, errors.New("part-3.csv:7: a bad cell"))
		return errors.New("job 42 failed:\njava.lang.RuntimeException: Error received from SDK harness\n\tat Foo.bar(Foo.java:1)")
	}}
	j, err := r.newJob(ctx, "eval")
	if err != nil {
		t.Fatal(err)
	}
	defer j.done()
	p, _ := beam.NewPipelineWithRoot()
	if err := j.run(ctx, p); err == nil || err.Error() != "part-3.csv:7: a bad cell" {
		t.Errorf("got %v; want the recorded error", err)
	}
}
