package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cvarlearn/cvar/internal/plots"
)

// The figures of experiment: the curves per epoch and the sorted tails.

// plotNames are the figure files of one data set.
func plotNames(cfg *expConfig, label string) []string {
	base := filepath.Join(cfg.plotDir, sanitize(label))
	return []string{base + "-curves." + cfg.plotFormat, base + "-tails." + cfg.plotFormat}
}

// checkPlots checks, ahead of any run, that the figures of every data set
// can be written: no two data sets make figures of the same name, and
// none replaces a file without -force. The -plot directory is created
// only when the figures are written; until then it must be a directory or
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
		if cerr := checkCreatable(cfg.plotDir); cerr != nil {
			return cerr
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

// checkCreatable reports whether MkdirAll could create dir: its nearest
// existing ancestor must be a directory.
func checkCreatable(dir string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("cannot create -plot %s: %s is not a directory", dir, p)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("cannot create -plot %s: %w", dir, err)
		case p == filepath.Dir(p):
			return nil
		}
	}
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// writePlots draws the figures of one data set: the selected runs' curves,
// averaged over the seeds, and the first seed's validation tails.
func writePlots(cfg *expConfig, r *dsResult) error {
	nm := len(cfg.arms)
	titles := []string{"CVaR_0.1", "accuracy", "mean loss"}
	var panels []plots.Panel
	for k, title := range titles {
		pn := plots.Panel{Title: title}
		for m, a := range cfg.arms {
			c := plots.Curve{Method: a.title(len(cfg.alphas) > 1)}
			c.Train = meanCurve(r.runs, nm, m, k, 0)
			c.Val = meanCurve(r.runs, nm, m, k, 1)
			pn.Curves = append(pn.Curves, c)
		}
		if k == 1 && allNaN(pn.Curves) {
			continue // regression: no accuracy
		}
		panels = append(panels, pn)
	}
	names := plotNames(cfg, r.name)
	over := "seed 1"
	if cfg.seeds > 1 {
		over = fmt.Sprintf("mean over %d seeds", cfg.seeds)
	}
	title := fmt.Sprintf("%s: the selected runs per epoch (%s)", r.name, over)
	if err := writeNew(names[0], cfg.force, cfg.inputs(), func(w io.Writer) error {
		return plots.Curves(w, cfg.plotFormat, title, panels)
	}); err != nil {
		return err
	}
	var tails []plots.Tail
	for m, a := range cfg.arms {
		if run := r.runs[m]; run != nil {
			tails = append(tails, plots.Tail{Method: a.title(len(cfg.alphas) > 1), Losses: run.losses})
		}
	}
	return writeNew(names[1], cfg.force, cfg.inputs(), func(w io.Writer) error {
		return plots.Tails(w, cfg.plotFormat, r.name+": sorted top-α validation losses (seed 1)", []float64{0.05, 0.1}, tails)
	})
}

// meanCurve averages metric k on split s (0 training, 1 validation) of
// method m's selected runs over the seeds, epoch by epoch.
func meanCurve(runs []*runResult, nm, m, k, s int) []float64 {
	var out []float64
	count := []int{}
	for i := m; i < len(runs); i += nm {
		run := runs[i]
		if run == nil {
			continue
		}
		for e, v := range run.curves[k][s] {
			if e >= len(out) {
				out = append(out, 0)
				count = append(count, 0)
			}
			if !math.IsNaN(v) {
				out[e] += v
				count[e]++
			}
		}
	}
	for e := range out {
		if count[e] == 0 {
			out[e] = math.NaN()
		} else {
			out[e] /= float64(count[e])
		}
	}
	return out
}

func allNaN(cs []plots.Curve) bool {
	for _, c := range cs {
		for _, v := range slices.Concat(c.Train, c.Val) {
			if !math.IsNaN(v) {
				return false
			}
		}
	}
	return true
}
