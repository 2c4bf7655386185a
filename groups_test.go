package cvar

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// bruteCVaR is min over τ of τ + Σ[ℓ−τ]_+/(αn), tried at every loss (the
// minimum is attained at one).
func bruteCVaR(ls []float64, alpha float64) float64 {
	best := math.Inf(1)
	for _, tau := range ls {
		s := 0.0
		for _, l := range ls {
			s += max(l-tau, 0)
		}
		best = min(best, tau+s/(alpha*float64(len(ls))))
	}
	return best
}

// groupCase is small data: losses, correctness and groups of 3 groups,
// the last of which has no rows.
func groupCase() ([]float64, []bool, []int32, []string) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 41
	losses, correct, groups := make([]float64, n), make([]bool, n), make([]int32, n)
	for i := range losses {
		groups[i] = int32(r.IntN(2))
		losses[i] = r.ExpFloat64() * float64(1+2*groups[i])
		correct[i] = losses[i] < 1.2
	}
	return losses, correct, groups, []string{"a", "b", "empty"}
}

func TestGroupMetricsBruteForce(t *testing.T) {
	t.Parallel()
	losses, correct, groups, names := groupCase()
	alphas := []float64{0.1, 0.5}
	ge, err := BootstrapGroups(losses, correct, groups, names, alphas, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ge.Groups) != 3 || ge.All.N != len(losses) || ge.All.Name != "all" {
		t.Fatalf("%d groups, all %+v", len(ge.Groups), ge.All)
	}
	for g, m := range append([]GroupMetrics{ge.All}, ge.Groups...) {
		var ls []float64
		hits := 0
		for i, l := range losses {
			if g == 0 || int(groups[i]) == g-1 {
				ls = append(ls, l)
				if correct[i] {
					hits++
				}
			}
		}
		if m.N != len(ls) {
			t.Fatalf("%s: n %d, want %d", m.Name, m.N, len(ls))
		}
		if len(ls) == 0 {
			if !math.IsNaN(m.MeanLoss.Value) || !math.IsNaN(m.Accuracy.Value) || !math.IsNaN(m.Tails[0].CVaR.Value) {
				t.Errorf("%s: an empty group's metrics %+v, want NaN", m.Name, m)
			}
			continue
		}
		sum := 0.0
		for _, l := range ls {
			sum += l
		}
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("%s: %s %v, want %v", m.Name, what, got, want)
			}
		}
		near("mean loss", m.MeanLoss.Value, sum/float64(len(ls)))
		near("accuracy", m.Accuracy.Value, float64(hits)/float64(len(ls)))
		for j, a := range alphas {
			near("CVaR", m.Tails[j].CVaR.Value, bruteCVaR(ls, a))
			if !math.IsNaN(m.Tails[j].CVaR.Lo) {
				t.Errorf("%s: an interval without resamples", m.Name)
			}
		}
	}
	// Group b's losses are three times a's, in distribution: it is the
	// worst by mean loss and CVaR, and by accuracy.
	for _, by := range []string{"", "accuracy", "cvar", "cvar_0.5"} {
		ge, err := BootstrapGroups(losses, correct, groups, names, alphas, GroupOptions{WorstBy: by})
		if err != nil {
			t.Fatal(err)
		}
		if ge.Worst != 1 {
			t.Errorf("worst by %q: group %d (%s), want b", by, ge.Worst, ge.WorstBy)
		}
	}
}

// The worst group follows the metric: a group of few large losses that
// are all classified correctly is the worst by loss, not by accuracy.
func TestGroupWorstByMetric(t *testing.T) {
	t.Parallel()
	losses := []float64{0.1, 0.2, 0.3, 0.1, 5, 6}
	correct := []bool{false, false, true, true, true, true}
	groups := []int32{0, 0, 0, 0, 1, 1}
	names := []string{"many", "few"}
	for by, want := range map[string]int{"mean_loss": 1, "accuracy": 0, "cvar_0.5": 1} {
		ge, err := BootstrapGroups(losses, correct, groups, names, []float64{0.5}, GroupOptions{WorstBy: by})
		if err != nil {
			t.Fatal(err)
		}
		if ge.Worst != want || ge.WorstBy != by {
			t.Errorf("worst by %s: %d (%s), want %d", by, ge.Worst, ge.WorstBy, want)
		}
	}
}

func TestGroupBootstrapIntervals(t *testing.T) {
	t.Parallel()
	losses, correct, groups, names := groupCase()
	alphas := []float64{0.1}
	opt := GroupOptions{Bootstrap: BootstrapOptions{Resamples: 300, Seed: 7, Threads: 3}}
	ge, err := BootstrapGroups(losses, correct, groups, names, alphas, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Bootstrap.Threads = 1
	again, err := BootstrapGroups(losses, correct, groups, names, alphas, opt)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(ge)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("the same seed on 3 and 1 threads differs:\n%s\n%s", a, b)
	}
	opt.Bootstrap.Seed = 8
	other, _ := BootstrapGroups(losses, correct, groups, names, alphas, opt)
	if c, _ := json.Marshal(other); string(c) == string(a) {
		t.Error("another seed gives the same intervals")
	}
	for _, m := range append([]GroupMetrics{ge.All}, ge.Groups[:2]...) {
		for _, iv := range []Interval{m.MeanLoss, m.Accuracy, m.Tails[0].CVaR, m.Tails[0].VaR} {
			if !(iv.Lo <= iv.Value && iv.Value <= iv.Hi) {
				t.Errorf("%s: interval %+v does not contain its estimate", m.Name, iv)
			}
		}
	}
	// The "all" row is Bootstrap of all losses, as cvar eval reports it.
	bm, err := Bootstrap(losses, correct, alphas, opt.Bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	if other.All.MeanLoss != bm.MeanLoss || other.All.Tails[0] != bm.Tails[0] {
		t.Errorf("all rows %+v, Bootstrap %+v", other.All.BootstrapMetrics, *bm)
	}
	var decoded struct {
		Worst  string `json:"worst"`
		Groups []struct {
			Name     string    `json:"name"`
			N        int       `json:"n"`
			Accuracy *Interval `json:"accuracy"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(a, &decoded); err != nil || decoded.Worst != "b" || len(decoded.Groups) != 3 || decoded.Groups[2].N != 0 {
		t.Errorf("JSON %s: %+v %v", a, decoded, err)
	}
}

func TestGroupErrors(t *testing.T) {
	t.Parallel()
	losses, correct, groups, names := groupCase()
	for _, c := range []struct {
		groups  []int32
		correct []bool
		by      string
		want    string
	}{
		{groups[:3], correct, "", "3 group ids for 41 losses"},
		{append(slices.Clone(groups[:40]), 3), correct, "", "row 40: group 3"},
		{groups, correct, "cvar_0.3", "not among the alphas"},
		{groups, correct, "median", `worst group by "median"`},
		{groups, nil, "accuracy", "no correctness flags"},
	} {
		_, err := BootstrapGroups(losses, c.correct, c.groups, names, []float64{0.1}, GroupOptions{WorstBy: c.by})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.by, err, c.want)
		}
	}
	if ge, err := BootstrapGroups(losses, correct, groups, names, []float64{0.05, 0.1}, GroupOptions{WorstBy: "CVaR@0.1"}); err != nil || ge.WorstBy != "cvar_0.1" {
		t.Errorf("worst by CVaR@0.1: %v", err)
	}
}

// Evaluator.Groups of a model agrees with Evaluate on all rows and on
// each group's rows.
func TestEvaluatorGroupsModel(t *testing.T) {
	t.Parallel()
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 500, Seed: 2, MarkGroups: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := batch.NewData(ds.X, ds.N, ds.D, nil, ds.Labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := batch.NewLogistic[float64](ds.D)
	res, err := Train(model, data, Options{Method: Vanilla, Epochs: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(model, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	ge, err := ev.Groups(res.Theta, data, ds.Groups, ds.GroupNames, GroupOptions{}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := Evaluate(model, res.Theta, data, 0.1)
	if ge.All.MeanLoss.Value != all.MeanLoss || ge.All.Accuracy.Value != all.Accuracy {
		t.Errorf("all rows %+v, Evaluate %+v", ge.All, all)
	}
	minority := ds.Subset(rowsOf(ds.Groups, 1))
	md, _ := batch.NewData(minority.X, minority.N, minority.D, nil, minority.Labels, 2)
	mm, _ := Evaluate(model, res.Theta, md, 0.1)
	if g := ge.Groups[1]; g.Name != "minority" || g.N != minority.N || math.Abs(g.MeanLoss.Value-mm.MeanLoss) > 1e-12 || g.Accuracy.Value != mm.Accuracy {
		t.Errorf("minority %+v, Evaluate of its rows %+v", g, mm)
	}
	if ge.Worst != 1 {
		t.Errorf("worst %d; the mean loss sacrifices the minority", ge.Worst)
	}
}

func rowsOf(groups []int32, g int32) []int {
	var rows []int
	for i, x := range groups {
		if x == g {
			rows = append(rows, i)
		}
	}
	return rows
}

func TestCollapseRules(t *testing.T) {
	t.Parallel()
	labels := []int32{0, 0, 0, 1}
	// Always class 0, confidently: accuracy 0.75 is the majority's.
	c := collapseOf([]float64{-3, -3, -3, -3}, 1, labels, 2)
	if !c.GaveUp || c.Accuracy != 0.75 || c.Majority != 0.75 || !strings.Contains(c.Reason, "most frequent class") {
		t.Errorf("majority predictor: %+v", c)
	}
	// Right on every row but barely: nearly uniform.
	c = collapseOf([]float64{0.1, 0, 0.1, 0, 0.1, 0, 0, 0.1}, 2, labels, 2)
	if !c.GaveUp || c.Accuracy != 1 || !strings.Contains(c.Reason, "nearly uniform") {
		t.Errorf("timid predictor: %+v", c)
	}
	c = collapseOf([]float64{math.NaN(), math.Inf(1), 0, math.Inf(-1), 0, 0, 0, 1}, 2, labels, 2)
	if math.IsNaN(c.MeanMaxProb) || c.MeanMaxProb > 1 {
		t.Errorf("scores that are not finite: mean largest probability %v", c.MeanMaxProb)
	}
	c = collapseOf([]float64{-3, -2, -3, 2}, 1, labels, 2)
	if c.GaveUp || c.Reason != "" || c.MeanMaxProb < 0.8 {
		t.Errorf("confident, right predictor: %+v", c)
	}
}

// Collapse triggers where noisy labels own the tail (CVaR at small α on
// 20 % flipped labels) and not on the built-in data with the defaults.
func TestCollapseTrained(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		noise, alpha float64
		obj          Objective
		want         bool
	}{{0.2, 0.05, ObjectiveCVaR, true}, {0, DefaultAlpha, ObjectiveDefault, false}} {
		ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 3000, Noise: c.noise, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		st, _ := dataset.FitStandardizer(ds)
		dataset.StandardizeInPlace(st, ds)
		data, _ := batch.NewData(ds.X, ds.N, ds.D, nil, ds.Labels, 2)
		model, _ := batch.NewLogistic[float64](ds.D)
		res, err := Train(model, data, Options{Method: Alg3, Alpha: c.alpha, Objective: c.obj, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := NewEvaluator(model, 1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.Collapse(res.Theta, data)
		ev.Close()
		if err != nil || got.GaveUp != c.want {
			t.Errorf("noise %v, α %v: %+v %v; want gave up %v", c.noise, c.alpha, got, err, c.want)
		}
	}
}
