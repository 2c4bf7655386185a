package cvarbeam

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/cvarlearn/cvar/dataset"
)

// Input says which files hold the data and how to read them.
type Input struct {
	// Glob names the data files (a local path or a filesystem Beam knows,
	// such as gs://bucket/logs/*.libsvm.gz).
	Glob string
	// Format is "csv" or "libsvm"; empty guesses it from the first file's
	// name as cvar does (.csv, .tsv; .svm, .libsvm, .svmlight, .scale;
	// .gz and .bz2 stripped first).
	Format string
	// Target is the CSV target column (a header name or 0-based index;
	// empty: the last column); NoHeader says the CSV files have no header.
	Target   string
	NoHeader bool
	// SplitSize, when positive, reads an uncompressed file larger than it
	// in parts of about that many bytes, each from a line start (a CSV
	// record must then not hold a quoted line break). 0 reads each file
	// whole, as one element.
	SplitSize int64
}

// DefaultSplitSize is the part size of the cvarbeam command's -split-size.
const DefaultSplitSize = 64 << 20

// split is one element of the read: a file, or the bytes [Start, End) of
// one, the lines that start in that range. End < 0 means the whole file.
type split struct {
	Path       string
	File, Part int // index of the file in the glob's sorted list; part in it
	Start, End int64
}

// key orders the splits: by file, then part.
func (sp split) key() int64 { return int64(sp.File)<<20 | int64(sp.Part) }

// formatOf is a data file's format: the one given, or the one its name
// says (dataset.FormatOfName); Beam reads CSV and LIBSVM.
func formatOf(name, given string) (string, error) {
	if given != "" {
		if given != "csv" && given != "libsvm" {
			return "", fmt.Errorf("format %q: want csv or libsvm", given)
		}
		return given, nil
	}
	switch f := dataset.FormatOfName(name); f {
	case "csv", "libsvm":
		return f, nil
	}
	return "", fmt.Errorf("%s: cannot guess the format from the name; give the format (csv or libsvm)", name)
}

// expand lists the files of in.Glob, sorted, and cuts them into splits.
func expand(ctx context.Context, in Input) ([]split, string, error) {
	fs, err := filesystem.New(ctx, in.Glob)
	if err != nil {
		return nil, "", err
	}
	defer fs.Close()
	files, err := fs.List(ctx, in.Glob)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", in.Glob, err)
	}
	if len(files) == 0 {
		return nil, "", fmt.Errorf("%s: no file matches", in.Glob)
	}
	slices.Sort(files)
	format, err := formatOf(files[0], in.Format)
	if err != nil {
		return nil, "", err
	}
	var out []split
	for i, f := range files {
		size, err := fs.Size(ctx, f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", f, err)
		}
		if in.SplitSize <= 0 || size <= in.SplitSize {
			out = append(out, split{Path: f, File: i, End: -1})
			continue
		}
		compressed, err := isCompressed(ctx, fs, f)
		if err != nil {
			return nil, "", err
		}
		if compressed {
			out = append(out, split{Path: f, File: i, End: -1})
			continue
		}
		part := 0
		for start := int64(0); start < size; start += in.SplitSize {
			out = append(out, split{Path: f, File: i, Part: part, Start: start, End: min(start+in.SplitSize, size)})
			part++
		}
	}
	return out, format, nil
}

// isCompressed reports whether a file starts with the gzip or bzip2 magic
// bytes (dataset.Compression): such a file can only be read from its start.
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

// openSplit opens the lines of sp, with the CSV header in front of a part
// that is not the file's first when the files have one. It returns the
// reader and a closer.
func openSplit(ctx context.Context, sp split, header bool) (io.Reader, io.Closer, error) {
	fs, err := filesystem.New(ctx, sp.Path)
	if err != nil {
		return nil, nil, err
	}
	r, err := fs.OpenRead(ctx, sp.Path)
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	closer := closers{r, fs}
	if sp.End < 0 {
		return r, closer, nil
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var head []byte
	if header && sp.Start > 0 {
		if head, err = br.ReadBytes('\n'); err != nil && err != io.EOF {
			closer.Close()
			return nil, nil, err
		}
	}
	pos := int64(len(head))
	if sp.Start > 0 && pos < sp.Start { // the line that holds byte Start−1 belongs to the part before
		if _, err := br.Discard(int(sp.Start - 1 - pos)); err != nil {
			closer.Close()
			return nil, nil, err
		}
		pos = sp.Start - 1
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			pos += int64(len(line))
			line, err = br.ReadSlice('\n')
		}
		pos += int64(len(line))
		if err != nil && err != io.EOF {
			closer.Close()
			return nil, nil, err
		}
	}
	lr := &lineRange{br: br, pos: pos, end: sp.End}
	if len(head) > 0 {
		return io.MultiReader(bytes.NewReader(head), lr), closer, nil
	}
	return lr, closer, nil
}

// lineRange passes on whole lines from a reader at a line start as long
// as each starts before end.
type lineRange struct {
	br      *bufio.Reader
	pos     int64 // bytes of the file taken from br
	end     int64
	rest    []byte // what p could not take of the slice last read
	midLine bool
	done    bool
}

func (l *lineRange) Read(p []byte) (int, error) {
	if len(l.rest) > 0 { // no read of br in between: the slice is valid
		n := copy(p, l.rest)
		l.rest = l.rest[n:]
		return n, nil
	}
	if l.done || !l.midLine && l.pos >= l.end {
		return 0, io.EOF
	}
	line, err := l.br.ReadSlice('\n')
	l.pos += int64(len(line))
	switch {
	case errors.Is(err, bufio.ErrBufferFull): // a long line: the rest comes next
		l.midLine = true
	case err == io.EOF:
		l.done, l.midLine = true, false
	case err != nil:
		return 0, err
	default:
		l.midLine = false
	}
	n := copy(p, line)
	l.rest = line[n:]
	if n == 0 && l.done {
		return 0, io.EOF
	}
	return n, nil
}

// closers closes several things, returning the first error.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// linesBefore counts the lines that end before byte off of a file: the
// number to add to a line number within a part that starts there.
func linesBefore(ctx context.Context, name string, off int64) (int, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return 0, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(io.LimitReader(r, max(off-1, 0)), 1<<16)
	n := 0
	buf := make([]byte, 1<<16)
	for {
		k, err := br.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if off > 0 {
		n++ // the line that holds byte off−1 ends in the part before
	}
	return n, nil
}

// locate rewrites a reader's error about a line of part sp to name the
// line of the file; errors without a line are returned as they are.
func locate(ctx context.Context, sp split, header bool, err error) error {
	var de *dataset.Error
	if sp.Start == 0 || !errors.As(err, &de) || de.Line == 0 {
		return err
	}
	before, lerr := linesBefore(ctx, sp.Path, sp.Start)
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
