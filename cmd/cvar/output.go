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
)

// checkNew fails when path exists and force is false, so that a long run
// does not end by refusing to write its result.
func checkNew(path string, force bool) error {
	if path == "" || force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeNew writes a file through write. Without force it refuses to replace
// an existing file; with force it replaces it atomically (a temporary file
// in the same directory, then a rename). A failed write leaves no file.
func writeNew(path string, force bool, write func(w io.Writer) error) (err error) {
	var f *os.File
	if force {
		f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	} else {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
		}
	}
	if err != nil {
		return err
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
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if force {
		if err = os.Chmod(name, 0o644); err != nil {
			return err
		}
		if err = os.Rename(name, path); err != nil {
			return err
		}
	}
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
		"method": p.Method.String(), "alpha": jnum(p.Alpha), "n": p.N, "steps": p.Steps, "batch": p.Batch,
		"g": jnum(p.G), "beta": jnum(p.Beta), "loss_bound": jnum(p.L), "diameter": jnum(p.D),
		"g_alpha": jnum(p.GAlpha), "lr": jnum(p.LR), "eps": jnum(p.Eps),
		"tau_min": jnum(p.TauMin), "tau_max": jnum(p.TauMax), "bound": jnum(p.Bound),
		"estimated": p.Estimated, "theorem_lr": p.TheoremLR, "theorem_eps": p.TheoremEps,
		"rule": p.Rule.String(), "lr_from": p.LRFrom, "eps_from": p.EpsFrom, "tau0": jnum(p.Tau0), "tau_from": p.TauFrom,
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
