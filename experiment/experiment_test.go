package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// splits returns Run's data function on the built-in data of the task:
// each seed splits it 2/3–1/3, without preprocessing.
func splits(t *testing.T, regression bool, n int) func(uint64) (*Data[float64], error) {
	t.Helper()
	var ds *dataset.Dataset[float64]
	var err error
	if regression {
		ds, err = dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: n, D: 5, Seed: 1})
	} else {
		ds, err = dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: n, D: 5, Seed: 1})
	}
	if err != nil {
		t.Fatal(err)
	}
	return func(seed uint64) (*Data[float64], error) {
		train, val, err := dataset.Split(ds, 0, seed)
		if err != nil {
			return nil, err
		}
		d := &Data[float64]{}
		if d.Train, err = train.Batch(); err != nil {
			return nil, err
		}
		if d.Val, err = val.Batch(); err != nil {
			return nil, err
		}
		d.Fit = d.Train
		kind := batch.KindLogistic
		if regression {
			kind = batch.KindLinear
		}
		d.Model, err = batch.NewModel[float64](kind, d.Train.D, d.Train.K, 0)
		return d, err
	}
}

func quick() Options {
	return Options{Alphas: []float64{0.1}, LRs: []float64{0.01, 0.05}, WeightDecays: []float64{0, 1e-3}, Seeds: 2, Epochs: 3, Batch: 64}
}

// TestRun: a row per method, each seed's setting selected from the grid,
// Vanilla-SGD's relative metrics 1 and accuracy as is, the same rows on one
// thread or three, and every epoch reported.
func TestRun(t *testing.T) {
	cfg := quick()
	epochs := 0
	cfg.Progress = func(n int) { epochs += n }
	cfg.Threads = 1
	res, err := Run("data", cfg, splits(t, false, 600))
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 3 * 4; res.Runs != want || epochs != want*cfg.Epochs {
		t.Errorf("%d runs and %d epochs, want %d and %d", res.Runs, epochs, want, want*cfg.Epochs)
	}
	if len(res.Rows) != cfg.Rows() || cfg.Rows() != 3 {
		t.Fatalf("%d rows, Rows() %d, want 3", len(res.Rows), cfg.Rows())
	}
	var methods []string
	for _, r := range res.Rows {
		methods = append(methods, r.Method)
		if len(r.Selected) != 2 || r.Selected[1].Seed != 2 || r.Failed != 0 || r.Dataset != "data" {
			t.Errorf("%s: selected %v, failed %d, data set %q", r.Method, r.Selected, r.Failed, r.Dataset)
		}
		for _, s := range r.Selected {
			if s.LR != 0.01 && s.LR != 0.05 || s.WD != 0 && s.WD != 1e-3 {
				t.Errorf("%s: selected %v, off the grid", r.Method, s)
			}
		}
		if acc := r.Metrics["accuracy"]; acc != r.Raw["accuracy"] || !(acc.Mean > 0.5 && acc.Mean <= 1) {
			t.Errorf("%s: accuracy %v, raw %v", r.Method, acc, r.Raw["accuracy"])
		}
	}
	if !reflect.DeepEqual(methods, []string{"vanilla", "minibatch", "alg3"}) {
		t.Errorf("methods %v", methods)
	}
	for _, k := range []string{"cvar_0.05", "cvar_0.1", "mean_loss"} {
		if m := res.Rows[0].Metrics[k]; math.Abs(m.Mean-1) > 1e-12 || m.Std > 1e-12 {
			t.Errorf("Vanilla-SGD's relative %s is %v, want 1 ± 0", k, m)
		}
	}
	if b := res.Rows[2].Below; b == nil || res.Rows[0].Below != nil {
		t.Errorf("Below: CVaR-SGD %v, Vanilla-SGD %v", b, res.Rows[0].Below)
	}
	cfg.Threads, cfg.Progress = 3, nil
	again, err := Run("data", cfg, splits(t, false, 600))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Rows, res.Rows) {
		t.Error("the rows depend on the number of threads")
	}
}

// TestRunDiverged: runs that diverge are listed and left out; when every
// run of a seed diverges its metrics are NaN, in JSON null.
func TestRunDiverged(t *testing.T) {
	cfg := quick()
	cfg.LRs, cfg.WeightDecays, cfg.Seeds = []float64{0.01, 1e9}, []float64{0}, 1
	res, err := Run("reg", cfg, splits(t, true, 300))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diverged) != 3 || res.Runs != 6 {
		t.Fatalf("%d of %d runs diverged, want 3 of 6", len(res.Diverged), res.Runs)
	}
	for i, r := range res.Rows {
		if r.Failed != 1 || len(r.Diverged) != 1 || r.Diverged[0].LR != 1e9 || r.Diverged[0].Method != r.Method || r.Selected[0].LR != 0.01 {
			t.Errorf("row %d: failed %d, diverged %v, selected %v", i, r.Failed, r.Diverged, r.Selected)
		}
	}
	b, err := json.Marshal(res.Rows[1])
	if err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	if err := json.Unmarshal(b, &row); err != nil {
		t.Fatal(err)
	}
	d := row["diverged"].([]any)[0].(map[string]any)
	if msg := d["error"].(string); !strings.HasPrefix(msg, "CVaR-on-Minibatch (α = 0.1) with lr 1e+09, wd 0: training diverged") {
		t.Errorf("error %q", msg)
	}
	if row["normalised_to"] != "vanilla" || row["failed_runs"] != 1.0 || row["accuracy"].(map[string]any)["mean"] != nil {
		t.Errorf("row %s", b)
	}
	cfg.LRs = []float64{1e9}
	all, err := Run("reg", cfg, splits(t, true, 300))
	if err != nil {
		t.Fatal(err)
	}
	if m := all.Rows[2].Raw["mean_loss"]; !math.IsNaN(m.Mean) || len(all.Rows[2].Selected) != 0 {
		t.Errorf("every run diverged: mean loss %v, selected %v", m, all.Rows[2].Selected)
	}
}

func TestConfigCheck(t *testing.T) {
	for name, bend := range map[string]func(*Options){
		"no α":        func(c *Options) { c.Alphas = nil },
		"α 0":         func(c *Options) { c.Alphas = []float64{0} },
		"α 1.5":       func(c *Options) { c.Alphas = []float64{1.5} },
		"lr 0":        func(c *Options) { c.LRs = []float64{0} },
		"lr +Inf":     func(c *Options) { c.LRs = []float64{math.Inf(1)} },
		"wd NaN":      func(c *Options) { c.WeightDecays = []float64{math.NaN()} },
		"no seeds":    func(c *Options) { c.Seeds = 0 },
		"no epochs":   func(c *Options) { c.Epochs = 0 },
		"batch 0":     func(c *Options) { c.Batch = 0 },
		"ε −1":        func(c *Options) { c.Eps = -1 },
		"threads −1":  func(c *Options) { c.Threads = -1 },
		"no decays":   func(c *Options) { c.WeightDecays = []float64{} },
		"no settings": func(c *Options) { c.LRs = nil },
	} {
		cfg := quick()
		bend(&cfg)
		called := false
		_, err := Run("x", cfg, func(uint64) (*Data[float64], error) { called = true; return nil, errors.New("called") })
		if err == nil || called || !strings.HasPrefix(err.Error(), "experiment: ") {
			t.Errorf("%s: %v (data called: %v)", name, err, called)
		}
	}
}

// TestDataError: an error of the data function stops Run with it.
func TestDataError(t *testing.T) {
	want := errors.New("no data")
	if _, err := Run("x", quick(), func(uint64) (*Data[float64], error) { return nil, want }); err != want {
		t.Errorf("Run: %v, want %v", err, want)
	}
}

func TestSummarise(t *testing.T) {
	for _, c := range []struct {
		in        []float64
		mean, std float64
	}{
		{[]float64{1, 2, 3}, 2, 1},
		{[]float64{4}, 4, 0},
		{[]float64{math.NaN(), 2, 4}, 3, math.Sqrt2},
	} {
		if got := summarise(c.in); math.Abs(got.Mean-c.mean) > 1e-15 || math.Abs(got.Std-c.std) > 1e-15 {
			t.Errorf("summarise(%v) = %v, want %v ± %v", c.in, got, c.mean, c.std)
		}
	}
	if got := summarise([]float64{math.NaN()}); !math.IsNaN(got.Mean) || !math.IsNaN(got.Std) {
		t.Errorf("summarise(NaN) = %v", got)
	}
}

// TestTables: the three layouts hold every method and metric; several α
// name the CVaR methods' rows by it.
func TestTables(t *testing.T) {
	cfg := quick()
	cfg.Alphas, cfg.Seeds = []float64{0.1, 0.2}, 1
	res, err := Run("a,b", cfg, splits(t, false, 300))
	if err != nil {
		t.Fatal(err)
	}
	var text, md, csv bytes.Buffer
	if err := WriteText(&text, cfg, res.Rows, 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, cfg, res.Rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, cfg, res.Rows); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"CVaR-SGD (α = 0.2)", "CVaR_0.2", "accuracy", "mean loss", "Raw values", "a,b, α = 0.1: CVaR-SGD's CVaRs are", "20 training runs"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
	if !strings.Contains(md.String(), "| a,b | CVaR-on-Minibatch (α = 0.1) |") || !strings.Contains(md.String(), "- a,b, α = 0.2:") {
		t.Errorf("markdown:\n%s", md.String())
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "dataset,method,alpha,cvar_0.05_mean,cvar_0.05_std,") || !strings.HasPrefix(lines[5], `"a,b",alg3,0.2,`) {
		t.Errorf("csv:\n%s", csv.String())
	}
}

// TestFigures: the figures need Curves; with it both are drawn.
func TestFigures(t *testing.T) {
	cfg := quick()
	cfg.Seeds = 1
	res, err := Run("x", cfg, splits(t, false, 300))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Curves(&b, "svg"); err != errNoCurves {
		t.Errorf("Curves without Options.Curves: %v", err)
	}
	cfg.Curves = true
	if res, err = Run("x", cfg, splits(t, false, 300)); err != nil {
		t.Fatal(err)
	}
	for name, draw := range map[string]func() error{
		"curves": func() error { return res.Curves(&b, "svg") }, "tails": func() error { return res.Tails(&b, "svg") },
	} {
		b.Reset()
		if err := draw(); err != nil || !strings.Contains(b.String(), "<svg") {
			t.Errorf("%s: %v, %d bytes", name, err, b.Len())
		}
	}
	if got := len(res.best[0].curves[2][1]); got != cfg.Epochs {
		t.Errorf("%d points a curve, want %d", got, cfg.Epochs)
	}
}

// TestObjectivesAndFlip: each of Objectives adds a CVaR-SGD row that
// minimises it; Flip trains on noisy labels (the rows change, the
// validation split's size stays), reproducibly; and bad settings are
// refused.
func TestObjectivesAndFlip(t *testing.T) {
	cfg := quick()
	cfg.Objectives = []cvar.Objective{cvar.ObjectiveBlend, cvar.ObjectiveTrimmed, cvar.ObjectiveChi2}
	clean, err := Run("data", cfg, splits(t, false, 600))
	if err != nil {
		t.Fatal(err)
	}
	if len(clean.Rows) != 6 || cfg.Rows() != 6 {
		t.Fatalf("%d rows, Rows() %d, want 6", len(clean.Rows), cfg.Rows())
	}
	for i, o := range []string{"blend", "trimmed", "chi2"} {
		r := clean.Rows[3+i]
		if r.Method != "alg3" || r.Objective != o || r.Title != "CVaR-SGD "+o || r.Below == nil {
			t.Errorf("row %d: %s %q %q, below %v", 3+i, r.Method, r.Objective, r.Title, r.Below)
		}
	}
	if reflect.DeepEqual(clean.Rows[2].Raw, clean.Rows[3].Raw) {
		t.Error("the blend's row equals CVaR-SGD's")
	}
	cfg.Flip = 0.3
	noisy, err := Run("data", cfg, splits(t, false, 600))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run("data", cfg, splits(t, false, 600))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(noisy.Rows, again.Rows) {
		t.Error("Flip is not reproducible")
	}
	if reflect.DeepEqual(noisy.Rows[0].Raw, clean.Rows[0].Raw) {
		t.Error("Vanilla-SGD's rows are the same with 30 % flipped labels")
	}
	d, err := splits(t, false, 3000)(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := flipped(d, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, y := range f.Fit.Labels {
		if y != d.Fit.Labels[i] {
			changed++
		}
		if f.Fit.Y[i] != float64(2*y-1) {
			t.Fatalf("row %d: label %d, target %v", i, y, f.Fit.Y[i])
		}
	}
	if share := float64(changed) / float64(d.Fit.N); math.Abs(share-0.3) > 0.04 || f.Val != d.Val {
		t.Errorf("%.3f of the labels flipped, want 0.3; validation split replaced: %v", share, f.Val != d.Val)
	}
	for _, bad := range []Options{{Flip: 1}, {Flip: -0.1}, {Objectives: []cvar.Objective{cvar.ObjectiveGroup}}} {
		c := quick()
		c.Flip, c.Objectives = bad.Flip, bad.Objectives
		if _, err := Run("data", c, splits(t, false, 600)); err == nil {
			t.Errorf("Flip %v, Objectives %v: no error", bad.Flip, bad.Objectives)
		}
	}
	c := quick()
	c.Flip = 0.1
	if _, err := Run("data", c, splits(t, true, 300)); err == nil || !strings.Contains(err.Error(), "classification") {
		t.Errorf("Flip on regression: %v", err)
	}
}
