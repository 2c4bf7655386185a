package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cvarlearn/cvar/experiment"
	"github.com/cvarlearn/cvar/internal/outfile"
)

// The figures of experiment: the curves per epoch and the sorted tails.

// plotNames are the figure files of one data set.
func plotNames(cfg *expConfig, label string) []string {
	base := filepath.Join(cfg.plotDir, sanitize(label))
	return []string{base + "-curves." + cfg.plotFormat, base + "-tails." + cfg.plotFormat}
}

// checkPlots checks, ahead of any run, that the figures of every data set
// can be written. No two data sets may make figures of the same name. None
// may replace a file without -force. The -plot directory is created only
// when the figures are written. Until then it must be a directory or
// creatable under one.
func (cfg *expConfig) checkPlots() error {
	if cfg.plotDir == "" {
		return nil
	}
	st, err := os.Stat(cfg.plotDir)
	if err == nil && !st.IsDir() {
		return fmt.Errorf("-plot %s is not a directory", cfg.plotDir)
	}
	if err != nil {
		if cerr := outfile.Creatable(cfg.plotDir); cerr != nil {
			return fmt.Errorf("cannot create -plot %s: %w", cfg.plotDir, cerr)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	exists := err == nil
	from := map[string]string{} // figure → the -data entry that makes it
	for _, file := range cfg.files {
		df, kind := cfg.dataSet(file)
		label := datasetLabel(&df, kind)
		for _, name := range plotNames(cfg, label) {
			if prev, clash := from[name]; clash {
				return usagef("-data %s and %s both make the figure %s: give the files different base names", entryName(prev), entryName(file), name)
			}
			from[name] = file
			if exists {
				if err := checkNew(name, cfg.force, cfg.inputs()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// entryName is a -data entry as the user wrote it; builtin for none.
func entryName(file string) string {
	if file == "" {
		return builtinClass
	}
	return file
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// writePlots writes the figures of every data set into -plot, which it
// creates. They are the selected runs' curves and the first seed's
// validation tails.
func (cfg *expConfig) writePlots(results []*experiment.Result) error {
	if cfg.plotDir == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.plotDir, 0o755); err != nil {
		return err
	}
	for _, r := range results {
		names := plotNames(cfg, r.Name)
		if err := writeNew(names[0], cfg.force, cfg.inputs(), func(w io.Writer) error { return r.Curves(w, cfg.plotFormat) }); err != nil {
			return err
		}
		if err := writeNew(names[1], cfg.force, cfg.inputs(), func(w io.Writer) error { return r.Tails(w, cfg.plotFormat) }); err != nil {
			return err
		}
	}
	return nil
}
