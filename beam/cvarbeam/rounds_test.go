package cvarbeam

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
	"github.com/cvarlearn/cvar"
)

// A seed gives the same model file on every run and runner: a run on the
// runner under test, one on Prism in this process and one whose workers
// keep no rows between rounds write the same bytes. Workers that are this
// process keep each split's rows from the first round on, and drop them
// when the run ends.
func TestTrainSameModelFile(t *testing.T) {
	const shards = 8
	glob := writeSynthetic(t, t.TempDir(), 2400, 10, shards)
	ctx := context.Background()
	train := func(r *Runner, seed uint64, onRound func(int, int)) []byte {
		t.Helper()
		tr, err := Train(ctx, TrainOptions{Input: Input{Glob: glob}, RoundsPerEpoch: 3, OnRound: onRound, Options: cvar.Options{Epochs: 1, Batch: 64, Seed: seed}}, r)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := cvar.SaveModel(&b, tr.Model); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	kept := func(round, _ int) {
		rowCache.mu.Lock()
		defer rowCache.mu.Unlock()
		if len(rowCache.entries) != shards {
			t.Errorf("after round %d the workers keep %d splits' rows, want %d", round, len(rowCache.entries), shards)
		}
	}
	here := &Runner{Run: prismHere(t)}
	first := train(here, 5, kept)
	if len(rowCache.entries) != 0 {
		t.Errorf("%d splits' rows kept after the run", len(rowCache.entries))
	}
	runs := map[string][]byte{"the runner under test": train(&Runner{}, 5, nil)}
	rowCache.mu.Lock()
	limit := rowCache.limit
	rowCache.limit = 0
	rowCache.mu.Unlock()
	runs["a run that keeps no rows"] = train(here, 5, nil)
	rowCache.mu.Lock()
	rowCache.limit = limit
	rowCache.mu.Unlock()
	for what, b := range runs {
		if !bytes.Equal(b, first) {
			t.Errorf("%s wrote another model file than Prism (%d bytes, Prism's %d)", what, len(b), len(first))
		}
	}
	if bytes.Equal(train(here, 6, nil), first) {
		t.Error("another seed wrote the same model file")
	}
}

// prismHere runs pipelines on a Prism job server in this process with
// loopback workers, whatever runner Beam's flags name.
func prismHere(t *testing.T) func(context.Context, *beam.Pipeline) error {
	t.Helper()
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if _, err := prism.CreateJobServer(context.Background(), prism.Options{Port: port}); err != nil {
		t.Fatal(err)
	}
	endpoint := fmt.Sprintf("localhost:%d", port)
	return func(ctx context.Context, p *beam.Pipeline) error {
		oldEnd, oldEnv := *jobopts.Endpoint, *jobopts.EnvironmentType
		*jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, "LOOPBACK"
		defer func() { *jobopts.Endpoint, *jobopts.EnvironmentType = oldEnd, oldEnv }()
		_, err := universal.Execute(ctx, p)
		return err
	}
}
