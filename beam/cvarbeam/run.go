package cvarbeam

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
)

// Runner says where pipelines run and where their results meet the
// program that launched them.
type Runner struct {
	// Work is a directory both the workers and this program can reach,
	// where each pipeline leaves its result (a few kilobytes): a local
	// directory for Prism and loopback workers, a bucket path such as
	// gs://bucket/tmp for Dataflow. Empty: a new local temporary
	// directory, removed when done.
	Work string
	// Run runs a pipeline; nil: beamx.Run, the runner named by Beam's
	// --runner flag (Prism, in-process, by default).
	Run func(context.Context, *beam.Pipeline) error
}

// workDir returns the work directory and a function that removes it when
// it was made here.
func (r *Runner) workDir() (string, func(), error) {
	if r.Work != "" {
		return strings.TrimSuffix(r.Work, "/"), func() {}, nil
	}
	dir, err := os.MkdirTemp("", "cvarbeam-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// run runs p and returns a one-line error when it fails: the error that a
// transform of this package reported, when there is one.
func (r *Runner) run(ctx context.Context, p *beam.Pipeline) error {
	run := r.Run
	if run == nil {
		run = beamx.Run
	}
	err := run(ctx, p)
	if err == nil {
		return nil
	}
	if m := markedRE.FindStringSubmatch(err.Error()); m != nil {
		return errors.New(unescape(m[1]))
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Errorf("the pipeline failed: %s", line)
}

// A transform's error crosses the runner as text inside the runner's own
// report of the failed bundle; it is marked so that it can be found there
// and handed to the user as it was written.
const markOpen, markClose = "«cvarbeam: ", "»"

var markedRE = regexp.MustCompile(`«cvarbeam: ([^»]*)»`)

// marked marks err for run.
func marked(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s%s%s", markOpen, escape(err.Error()), markClose)
}

func escape(s string) string   { return strings.ReplaceAll(s, "»", "\u00bb\u200b") }
func unescape(s string) string { return strings.ReplaceAll(s, "\u00bb\u200b", "»") }

// writeResult stores v (gob) at path through Beam's filesystems.
func writeResult(ctx context.Context, path string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// readResult loads what writeResult stored at path into v; found is false
// when there is no such file (a pipeline over no rows writes none).
func readResult(ctx context.Context, path string, v any) (found bool, err error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return false, err
	}
	defer fs.Close()
	list, err := fs.List(ctx, path)
	if err != nil || len(list) == 0 {
		return false, err
	}
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return false, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return false, err
	}
	return true, gob.NewDecoder(bytes.NewReader(b)).Decode(v)
}

// The coders of the elements that are not loss chunks: gob.
func encUpdate(v update) ([]byte, error)         { return gobEncode(v) }
func decUpdate(b []byte) (update, error)         { return gobDecode[update](b) }
func encRoundState(v roundState) ([]byte, error) { return gobEncode(v) }
func decRoundState(b []byte) (roundState, error) { return gobDecode[roundState](b) }
func encMoments(v moments) ([]byte, error)       { return gobEncode(v) }
func decMoments(b []byte) (moments, error)       { return gobDecode[moments](b) }
func encSummary(v summary) ([]byte, error)       { return gobEncode(v) }
func decSummary(b []byte) (summary, error)       { return gobDecode[summary](b) }
func encTopList(v topList) ([]byte, error)       { return gobEncode(v) }
func decTopList(b []byte) (topList, error)       { return gobDecode[topList](b) }

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
