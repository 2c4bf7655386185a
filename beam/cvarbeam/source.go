package cvarbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/linerange"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// Input says which files hold the data and how to read them.
type Input struct {
	// Glob names the data files: a local path or one on a filesystem
	// Beam knows, such as gs://bucket/logs/*.libsvm.gz.
	Glob string
	// Format is "csv" or "libsvm". Empty: guessed from the first file's
	// name as cvar guesses it.
	Format string
	// Target is the CSV target column: a header name or 0-based index.
	// Empty: the last column. NoHeader says the files have no header.
	Target   string
	NoHeader bool
	// SplitSize, when positive, cuts an uncompressed file larger than it
	// into parts of about that many bytes, each from a line start. A CSV
	// record must then hold no quoted line break. 0: each file whole.
	SplitSize int64
}

// DefaultSplitSize is the part size of the cvarbeam command's -split-size.
const DefaultSplitSize = 64 << 20

// Part is a work item of the transforms that read files: a data file,
// or the lines that start in its bytes [Start, End) (Input.SplitSize).
// End < 0 means the whole file.
type Part struct {
	Path       string
	File, Part int // the file's index in the sorted glob; the part in it
	Start, End int64
}

// key orders the splits: by file, then part.
func (sp Part) key() int64 { return rounds.Key(sp.File, sp.Part) }

// formatOf is a data file's format: the one given, or the one its name
// says (dataset.FormatOfName). Beam reads CSV and LIBSVM.
func formatOf(name, given string) (string, error) {
	f := cmp.Or(given, dataset.FormatOfName(name))
	switch {
	case f == "csv", f == "libsvm":
		return f, nil
	case given != "":
		return "", fmt.Errorf("format %q: want csv or libsvm", given)
	}
	return "", fmt.Errorf("%s: cannot guess the format from the name; give the format (csv or libsvm)", name)
}

// Parts lists the parts of the files of in.Glob, sorted, and their
// format: "csv" or "libsvm".
func Parts(ctx context.Context, in Input) ([]Part, string, error) {
	fs, err := filesystem.New(ctx, in.Glob)
	if err != nil {
		return nil, "", err
	}
	defer fs.Close()
	files, err := fs.List(ctx, in.Glob)
	if err == nil && len(files) == 0 {
		err = errors.New("no file matches")
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", in.Glob, err)
	}
	slices.Sort(files)
	format, err := formatOf(files[0], in.Format)
	if err != nil {
		return nil, "", err
	}
	var out []Part
	for i, f := range files {
		size, err := fs.Size(ctx, f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", f, err)
		}
		whole := in.SplitSize <= 0 || size <= in.SplitSize
		if !whole {
			if whole, err = isCompressed(ctx, fs, f); err != nil {
				return nil, "", err
			}
		}
		if whole {
			out = append(out, Part{Path: f, File: i, End: -1})
			continue
		}
		for part, start := 0, int64(0); start < size; part, start = part+1, start+in.SplitSize {
			out = append(out, Part{Path: f, File: i, Part: part, Start: start, End: min(start+in.SplitSize, size)})
		}
	}
	return out, format, nil
}

// isCompressed reports whether a file starts with gzip's or bzip2's magic
// bytes (dataset.Compression). Such a file is read from its start only.
func isCompressed(ctx context.Context, fs filesystem.Interface, name string) (bool, error) {
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return false, err
	}
	defer r.Close()
	var b [16]byte
	n, _ := io.ReadFull(r, b[:])
	return dataset.Compression(b[:n]) != "", nil
}

// open opens a file through Beam's filesystems; closing the reader
// closes both.
func open(ctx context.Context, path string) (io.ReadCloser, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	return readCloser{r, func() error { return errors.Join(r.Close(), fs.Close()) }}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// openSplit opens the lines of sp (linerange), with the CSV header in
// front of a part after the file's first when header is set.
func openSplit(ctx context.Context, sp Part, header bool) (io.ReadCloser, error) {
	r, err := open(ctx, sp.Path)
	if err != nil || sp.End < 0 {
		return r, err
	}
	lr, err := linerange.Open(r, sp.Start, sp.End, header)
	if err != nil {
		r.Close()
		return nil, err
	}
	return readCloser{lr, r.Close}, nil
}

// locate turns a reader's error about a line of part sp into one about
// the line of the file. Errors without a line are returned as they are.
func locate(ctx context.Context, sp Part, header bool, err error) error {
	var de *dataset.Error
	if sp.Start == 0 || !errors.As(err, &de) || de.Line == 0 {
		return err
	}
	r, oerr := open(ctx, sp.Path)
	if oerr != nil {
		return err
	}
	defer r.Close()
	before, lerr := linerange.Before(r, sp.Start)
	if lerr != nil {
		return err
	}
	fixed := *de
	fixed.Line += before
	if header {
		fixed.Line-- // the header read in front of the part
	}
	return &fixed
}
