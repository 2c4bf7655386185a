package cvarbeam

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
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
)

// Runner says where pipelines run and where their results meet the
// program that launched them.
type Runner struct {
	// Work is a directory both the workers and this program can reach,
	// where each pipeline leaves its result (a few kilobytes) in a folder
	// of its own, named at random and removed when read, so that no run
	// reads another's result: a local directory for Prism and loopback
	// workers, a bucket path such as gs://bucket/tmp for Dataflow. Empty:
	// a new local temporary directory.
	Work string
	// Run runs a pipeline; nil: beamx.Run, the runner named by Beam's
	// --runner flag (Prism, in-process, by default).
	Run func(context.Context, *beam.Pipeline) error
	// OnBundles, when not nil, is called after each pipeline with the
	// name of its reading step and the bundles that step ran, as the
	// workers timed them (see Bundle).
	OnBundles func(step string, bundles []Bundle)
}

// job is one pipeline run: the folder its results go to.
type job struct {
	r    *Runner
	name string
	dir  string
	done func()
}

// newJob makes the folder of a run: under Work, a name of its own.
func (r *Runner) newJob(ctx context.Context, name string) (*job, error) {
	if err := r.checkWork(); err != nil {
		return nil, err
	}
	j := &job{r: r, name: name}
	if r.Work == "" || !strings.Contains(r.Work, "://") {
		dir, err := os.MkdirTemp(r.Work, "cvarbeam-run-")
		if err != nil {
			return nil, err
		}
		j.dir, j.done = dir, func() { os.RemoveAll(dir) }
		return j, nil
	}
	var key [12]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	j.dir = strings.TrimSuffix(r.Work, "/") + "/cvarbeam-run-" + hex.EncodeToString(key[:])
	j.done = func() { removeAll(context.WithoutCancel(ctx), j.dir) }
	return j, nil
}

// checkWork refuses, before any pipeline runs, a runner whose workers are
// not this process (Beam's --runner other than Prism or the direct
// runner, and --environment_type other than LOOPBACK) without a Work
// folder: they would leave the results in a temporary folder of their
// own machine, which this program cannot read.
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

// removeAll removes the files under dir on a filesystem that can remove
// them; others keep them (a bucket's lifecycle rule clears them).
func removeAll(ctx context.Context, dir string) {
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return
	}
	files, _ := fs.List(ctx, dir+"/*")
	for _, f := range files {
		rm.Remove(ctx, f)
	}
}

// run runs p and then hands the bundles of its reading step to OnBundles.
func (j *job) run(ctx context.Context, p *beam.Pipeline) error {
	if err := j.r.run(ctx, p); err != nil {
		if rec := j.recorded(ctx); rec != nil {
			return rec
		}
		return err
	}
	if j.r.OnBundles == nil {
		return nil
	}
	var spans []bundleSpan
	found, err := readResult(ctx, j.path("bundles"), &spans)
	if found && err == nil {
		j.r.OnBundles(j.name, bundlesOf(spans))
	}
	return err
}

// run runs p and returns a one-line error when it fails: the runner's
// innermost cause.
func (r *Runner) run(ctx context.Context, p *beam.Pipeline) error {
	run := r.Run
	if run == nil {
		run = beamx.Run
	}
	err := run(ctx, p)
	if err == nil {
		return nil
	}
	return fmt.Errorf("the pipeline failed: %s", causeOf(err.Error()))
}

// causeOf picks the innermost cause out of a runner's report of a failed
// job: its last line that is not part of a stack trace.
func causeOf(report string) string {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "...") || strings.HasSuffix(l, "caused by:") {
			continue
		}
		return l
	}
	return lines[0]
}

// A transform's error reaches the launcher as a record in the run's
// folder, written where it fails (record), so that the user gets the
// error as the transform wrote it, whatever the runner's report of the
// failed job makes of it.

// record stores err in the run folder dir and returns it.
func record(ctx context.Context, dir string, err error) error {
	if err == nil || dir == "" {
		return err
	}
	var key [8]byte
	rand.Read(key[:])
	writeResult(ctx, dir+"/error-"+hex.EncodeToString(key[:]), err.Error())
	return err
}

// dirOf is the folder of a result's path (gs://… kept whole).
func dirOf(p string) string { return p[:strings.LastIndex(p, "/")] }

// recorded returns an error that a transform of the run recorded, the
// first by name; nil when there is none.
func (j *job) recorded(ctx context.Context) error {
	fs, err := filesystem.New(ctx, j.dir)
	if err != nil {
		return nil
	}
	defer fs.Close()
	files, err := fs.List(ctx, j.dir+"/error-*")
	if err != nil || len(files) == 0 {
		return nil
	}
	slices.Sort(files)
	var text string
	if found, err := readResult(ctx, files[0], &text); err != nil || !found {
		return nil
	}
	return errors.New(text)
}

// writeResult stores v (gob) at path through Beam's filesystems.
func writeResult(ctx context.Context, path string, v any) error {
	b, err := gobEncode(v)
	if err != nil {
		return err
	}
	return writeFile(ctx, path, b)
}

// writeFile stores b at path through Beam's filesystems.
func writeFile(ctx context.Context, path string, b []byte) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// readResult loads what writeResult stored at path into v; found is false
// when there is no such file (a pipeline over no rows writes none).
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

// readFile reads the file at path through Beam's filesystems; an error
// that wraps fs.ErrNotExist when there is none.
func readFile(ctx context.Context, path string) ([]byte, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	list, err := fsys.List(ctx, path)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	r, err := fsys.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// The elements that cross the runner are gob-coded (Flink refused some
// of Beam's row codings); each coder's functions are registered by name,
// one plain function a type, since the instances of a generic function
// share their name.
func gobCoder[V any](enc func(V) ([]byte, error), dec func([]byte) (V, error)) {
	beam.RegisterCoder(reflect.TypeFor[V](), enc, dec)
	register.Function1x2(enc)
	register.Function1x2(dec)
}

func encUpdate(v update) ([]byte, error)        { return gobEncode(v) }
func decUpdate(b []byte) (update, error)        { return gobDecode[update](b) }
func encMoments(v moments) ([]byte, error)      { return gobEncode(v) }
func decMoments(b []byte) (moments, error)      { return gobDecode[moments](b) }
func encSummary(v summary) ([]byte, error)      { return gobEncode(v) }
func decSummary(b []byte) (summary, error)      { return gobDecode[summary](b) }
func encTopList(v topList) ([]byte, error)      { return gobEncode(v) }
func decTopList(b []byte) (topList, error)      { return gobDecode[topList](b) }
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
