package cvarbeam

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// Runner says where pipelines run and where their results meet the
// program that launched them.
type Runner struct {
	// Work is a directory that the workers and this program both reach.
	// For Prism and loopback workers it is local; for Dataflow a bucket
	// path such as gs://bucket/tmp. Each pipeline leaves its results in
	// a folder of its own, named at random and removed when read. So no
	// run reads another's. Empty: a new local temporary directory.
	Work string
	// Run runs a pipeline. Nil: beamx.Run, the runner of Beam's --runner
	// flag (Prism, in-process, by default).
	Run func(context.Context, *beam.Pipeline) error
	// OnBundles, when not nil, gets each pipeline's reading step and the
	// bundles that step ran, as the workers timed them.
	OnBundles func(step string, bundles []Bundle)
}

// job is one pipeline run and the folder of its results.
type job struct {
	r    *Runner
	name string
	dir  string
	done func()
}

// newJob makes the folder of a run under Work.
func (r *Runner) newJob(ctx context.Context, name string) (*job, error) {
	if err := r.checkWork(); err != nil {
		return nil, err
	}
	j := &job{r: r, name: name}
	if !strings.Contains(r.Work, "://") {
		dir, err := os.MkdirTemp(r.Work, "cvarbeam-run-")
		j.dir, j.done = dir, func() { os.RemoveAll(dir) }
		return j, err
	}
	j.dir = strings.TrimSuffix(r.Work, "/") + "/cvarbeam-run-" + rand.Text()
	j.done = func() { removeAll(context.WithoutCancel(ctx), j.dir) }
	return j, nil
}

// checkWork refuses a runner whose workers are not this process without
// a Work folder, before any pipeline runs. Such workers would leave the
// results on their own machine. This process runs the workers of Prism,
// the direct runner and --environment_type=LOOPBACK.
func (r *Runner) checkWork() error {
	if r.Work != "" || r.Run != nil {
		return nil
	}
	switch strings.ToLower(flagValue("runner")) {
	case "", "prism", "direct":
		return nil
	}
	if strings.EqualFold(flagValue("environment_type"), "loopback") {
		return nil
	}
	return fmt.Errorf("cvarbeam: the %s runner's workers are not this process: give a work folder (Runner.Work, -work) that they and this program both reach", flagValue("runner"))
}

// flagValue is the value of one of Beam's flags, "" when it has none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// path is where the run's result called name goes.
func (j *job) path(name string) string { return j.dir + "/" + name }

// removeAll removes the files under dir where the filesystem can. A
// bucket's lifecycle rule clears the others.
func removeAll(ctx context.Context, dir string) {
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return
	}
	defer fs.Close()
	if rm, ok := fs.(filesystem.Remover); ok {
		files, _ := fs.List(ctx, dir+"/*")
		for _, f := range files {
			rm.Remove(ctx, f)
		}
	}
}

// write adds a step that stores the one element of col as the run's
// result called name.
func (j *job) write(s beam.Scope, name string, col beam.PCollection) {
	beam.ParDo0(s, &writeFn{Path: j.path(name)}, col)
}

type writeFn struct{ Path string }

func (f *writeFn) ProcessElement(ctx context.Context, v beam.T) error {
	return record(ctx, f.Path[:strings.LastIndex(f.Path, "/")], writeResult(ctx, f.Path, v))
}

// run runs p, then hands the bundles of its reading step to OnBundles.
// A failed run returns the first error a transform recorded, by name,
// else the runner's innermost cause.
func (j *job) run(ctx context.Context, p *beam.Pipeline) error {
	run := j.r.Run
	if run == nil {
		run = beamx.Run
	}
	if err := run(ctx, p); err != nil {
		if errs, _ := readAll[string](ctx, j, "error-"); len(errs) > 0 {
			return errors.New(errs[0])
		}
		return fmt.Errorf("the pipeline failed: %s", causeOf(err.Error()))
	}
	if j.r.OnBundles == nil {
		return nil
	}
	bs, err := readAll[Bundle](ctx, j, "bundle-")
	if err == nil && len(bs) > 0 {
		slices.SortFunc(bs, func(a, b Bundle) int { return a.Start.Compare(b.Start) })
		j.r.OnBundles(j.name, bs)
	}
	return err
}

// causeOf is a runner's report of a failed job cut to its innermost
// cause: the last line that is not part of a stack trace.
func causeOf(report string) string {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "at ") && !strings.HasPrefix(l, "...") && !strings.HasSuffix(l, "caused by:") {
			return l
		}
	}
	return lines[0]
}

// record stores a transform's error in the run folder dir and returns
// it. The launcher reports it as the transform wrote it, whatever the
// runner's report of the failed job makes of it.
func record(ctx context.Context, dir string, err error) error {
	if err != nil && dir != "" {
		writeResult(ctx, dir+"/error-"+rand.Text(), err.Error())
	}
	return err
}

// readAll loads the run's results whose names start with prefix, in the
// order of their names.
func readAll[V any](ctx context.Context, j *job, prefix string) ([]V, error) {
	fs, err := filesystem.New(ctx, j.dir)
	if err != nil {
		return nil, err
	}
	files, err := fs.List(ctx, j.path(prefix+"*"))
	fs.Close()
	slices.Sort(files)
	out := make([]V, len(files))
	for i := 0; i < len(files) && err == nil; i++ {
		_, err = readResult(ctx, files[i], &out[i])
	}
	return out, err
}

// writeResult stores v, gob-coded, at path through Beam's filesystems.
func writeResult(ctx context.Context, path string, v any) error {
	b, err := gobEncode(v)
	if err == nil {
		err = writeFile(ctx, path, b)
	}
	return err
}

// writeFile stores b at path through Beam's filesystems.
func writeFile(ctx context.Context, path string, b []byte) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	return filesystem.Write(ctx, fs, path, b)
}

// readResult loads what writeResult stored at path into v. found is
// false when there is no such file: a pipeline over no rows writes none.
func readResult(ctx context.Context, path string, v any) (found bool, err error) {
	b, err := readFile(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, gob.NewDecoder(bytes.NewReader(b)).Decode(v)
}

// readFile reads the file at path through Beam's filesystems. A missing
// file gives an error that wraps fs.ErrNotExist.
func readFile(ctx context.Context, path string) ([]byte, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	list, err := fsys.List(ctx, path)
	if err == nil && len(list) == 0 {
		err = fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return filesystem.Read(ctx, fsys, path)
}

// The package's functions are registered for the runners' workers. The
// elements that cross the runner are gob-coded: Flink refused some of
// Beam's row codings. Each coder's functions are registered by name, one
// plain function a type, since a generic function's instances share
// their name.
func init() {
	register.DoFn4x1[context.Context, Part, func(Row), func(Row), error](&readFn{})
	register.Emitter1[Row]()
	register.DoFn2x1[context.Context, Part, error](&fitFn{})
	register.DoFn3x1[context.Context, Row, func(LossBatch), error](&lossFn{})
	register.Emitter1[LossBatch]()
	register.DoFn3x1[context.Context, Part, func(rounds.Update), error](&localFn{})
	register.Emitter1[rounds.Update]()
	register.Combiner3[[]rounds.Update, rounds.Update, rounds.Update](&sumUpdatesFn{})
	register.DoFn3x1[context.Context, rounds.Update, func(RoundState), error](&nextStateFn{})
	register.Emitter1[RoundState]()
	register.Function1x1(lossBatchOf)
	register.Combiner3[summary, LossBatch, summary](&summaryFn{})
	register.DoFn3x0[LossBatch, summary, func(summary)](&topFn{})
	register.Emitter1[summary]()
	register.Combiner1[summary](&mergeTopFn{})
	register.DoFn4x1[context.Context, summary, func(*summary) bool, func(cvar.Metrics), error](&metricsFn{})
	register.Iter1[summary]()
	register.Emitter1[cvar.Metrics]()
	register.DoFn2x1[context.Context, int, error](&tuneFn{})
	register.DoFn2x1[context.Context, beam.T, error](&writeFn{})
	gobCoder(encRow, decRow)
	gobCoder(encLossBatch, decLossBatch)
	gobCoder(encUpdate, decUpdate)
	gobCoder(encState, decState)
	gobCoder(encSummary, decSummary)
	gobCoder(encMetrics, decMetrics)
}

func gobCoder[V any](enc func(V) ([]byte, error), dec func([]byte) (V, error)) {
	beam.RegisterCoder(reflect.TypeFor[V](), enc, dec)
	register.Function1x2(enc)
	register.Function1x2(dec)
}

func encUpdate(v rounds.Update) ([]byte, error) { return gobEncode(v) }
func encState(v RoundState) ([]byte, error)     { return gobEncode(v) }
func decState(b []byte) (RoundState, error)     { return gobDecode[RoundState](b) }
func decUpdate(b []byte) (rounds.Update, error) { return gobDecode[rounds.Update](b) }
func encSummary(v summary) ([]byte, error)      { return gobEncode(v) }
func decSummary(b []byte) (summary, error)      { return gobDecode[summary](b) }
func encMetrics(v cvar.Metrics) ([]byte, error) { return gobEncode(v) }
func decMetrics(b []byte) (cvar.Metrics, error) { return gobDecode[cvar.Metrics](b) }
func encRow(v Row) ([]byte, error)              { return gobEncode(v) }
func decRow(b []byte) (Row, error)              { return gobDecode[Row](b) }
func encLossBatch(v LossBatch) ([]byte, error)  { return gobEncode(v) }
func decLossBatch(b []byte) (LossBatch, error)  { return gobDecode[LossBatch](b) }

func gobEncode[V any](v V) ([]byte, error) {
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(v)
	return buf.Bytes(), err
}

func gobDecode[V any](b []byte) (V, error) {
	var v V
	err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v)
	return v, err
}
