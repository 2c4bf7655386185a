package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/cvarlearn/cvar/internal/plots"
)

// The figures of the comparison, as PNG or SVG (format "png" or "svg").

// errNoCurves is the error of a figure of a Result run without Curves.
var errNoCurves = errors.New("experiment: the figures need a Result of Options.Curves")

// Curves writes the paper's Figure 2 for the data set. It plots CVaR_0.1,
// accuracy (classification only) and mean loss per epoch. They are of
// each method's selected runs, averaged over the seeds. Both the training
// and the validation split are shown.
func (res *Result) Curves(w io.Writer, format string) error {
	if !res.cfg.Curves {
		return errNoCurves
	}
	var panels []plots.Panel
	for k, title := range []string{"CVaR_0.1", "accuracy", "mean loss"} {
		pn := plots.Panel{Title: title}
		for m, a := range res.arms {
			c := plots.Curve{Method: a.title(len(res.cfg.Alphas) > 1)}
			c.Train = res.meanCurve(m, k, 0)
			c.Val = res.meanCurve(m, k, 1)
			pn.Curves = append(pn.Curves, c)
		}
		if k == 1 && allNaN(pn.Curves) {
			continue // regression: no accuracy
		}
		panels = append(panels, pn)
	}
	over := "seed 1"
	if res.cfg.Seeds > 1 {
		over = fmt.Sprintf("mean over %d seeds", res.cfg.Seeds)
	}
	return plots.Curves(w, format, fmt.Sprintf("%s: the selected runs per epoch (%s)", res.Name, over), panels)
}

// Tails writes the paper's Figure 3 for the data set. It plots the sorted
// top-α validation losses (α = 0.05 and 0.1). They are of each method's
// run selected on the first seed.
func (res *Result) Tails(w io.Writer, format string) error {
	if !res.cfg.Curves {
		return errNoCurves
	}
	var tails []plots.Tail
	for m, a := range res.arms {
		if run := res.best[m]; run != nil {
			tails = append(tails, plots.Tail{Method: a.title(len(res.cfg.Alphas) > 1), Losses: run.losses})
		}
	}
	return plots.Tails(w, format, res.Name+": sorted top-α validation losses (seed 1)", []float64{0.05, 0.1}, tails)
}

// meanCurve averages metric k of arm m's selected runs over the seeds,
// epoch by epoch. The split s is 0 for training, 1 for validation.
func (res *Result) meanCurve(m, k, s int) []float64 {
	var out []float64
	var count []int
	for i := m; i < len(res.best); i += len(res.arms) {
		run := res.best[i]
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
