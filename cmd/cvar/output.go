package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// checkNew fails when path cannot be written at the end of a run (see
// checkTarget), so that a long run does not end by refusing to write its
// result.
func checkNew(path string, force bool, inputs []input) error {
	if path == "" {
		return nil
	}
	return checkTarget(path, force, inputs)
}

// writeNew writes a file through write: into a temporary file in the same
// directory, which then takes the final name. Without force the final name
// is taken with a hard link, which fails if a file of that name appeared in
// the meantime; with force a rename replaces the file, which must be a
// regular file that is none of the inputs (see checkTarget). A failed
// write leaves neither a partial file nor a temporary one, and errors name
// path, never the temporary file.
func writeNew(path string, force bool, inputs []input, write func(w io.Writer) error) (err error) {
	if err := checkTarget(path, force, inputs); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return pathError("write", path, err)
	}
	name := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return pathError("write", path, err)
	}
	if err = bw.Flush(); err != nil {
		return pathError("write", path, err)
	}
	if err = f.Close(); err != nil {
		return pathError("write", path, err)
	}
	if err = os.Chmod(name, 0o644); err != nil {
		return pathError("write", path, err)
	}
	if force {
		if err = os.Rename(name, path); err != nil {
			return pathError("replace", path, err)
		}
		return nil
	}
	if err = os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
		}
		// A file system without hard links: rename, having checked
		// that the name is still free.
		if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
		}
		if err = os.Rename(name, path); err != nil {
			return pathError("write", path, err)
		}
		return nil
	}
	os.Remove(name)
	return nil
}

// writeJSON prints v indented, with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// paramsJSON is Params for -json output: non-finite values are null.
func paramsJSON(p cvar.Params) map[string]any {
	return map[string]any{
		"method": p.Method.String(), "alpha": jsonfloat.Lossy(p.Alpha), "n": p.N, "steps": p.Steps, "batch": p.Batch,
		"g": jsonfloat.Lossy(p.G), "beta": jsonfloat.Lossy(p.Beta), "loss_bound": jsonfloat.Lossy(p.L), "diameter": jsonfloat.Lossy(p.D),
		"g_alpha": jsonfloat.Lossy(p.GAlpha), "lr": jsonfloat.Lossy(p.LR), "eps": jsonfloat.Lossy(p.Eps),
		"tau_min": jsonfloat.Lossy(p.TauMin), "tau_max": jsonfloat.Lossy(p.TauMax), "bound": jsonfloat.Lossy(p.Bound),
		"estimated": p.Estimated, "theorem_lr": p.TheoremLR, "theorem_eps": p.TheoremEps,
		"rule": p.Rule.String(), "lr_from": p.LRFrom, "eps_from": p.EpsFrom, "tau0": jsonfloat.Lossy(p.Tau0), "tau_from": p.TauFrom,
		"bound_from": p.BoundFrom,
	}
}

// fmtNum formats a number for text tables: 4 significant digits, "-" for
// NaN.
func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
