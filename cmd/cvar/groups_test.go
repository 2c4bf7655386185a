package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// groupJSON is what train -json and eval -json say of the groups.
type groupJSON struct {
	All    groupRow   `json:"all"`
	Groups []groupRow `json:"groups"`
	Worst  *string    `json:"worst"`
	By     string     `json:"worst_by"`
}

type groupRow struct {
	Name     string `json:"name"`
	N        int    `json:"n"`
	MeanLoss struct {
		Value, Lo, Hi *float64
	} `json:"mean_loss"`
	Accuracy *struct {
		Value, Lo, Hi *float64
	} `json:"accuracy"`
}

// TestGroupBuiltIn: -group subgroup marks the built-in data's rare
// subgroup; train reports the validation split by group, eval a fresh
// sample's, reproducibly, with the worst group by the metric asked.
func TestGroupBuiltIn(t *testing.T) {
	t.Parallel()
	model := filepath.Join(t.TempDir(), "m.cvar")
	var r struct {
		Metrics  map[string]map[string]*float64 `json:"metrics"`
		Groups   *groupJSON                     `json:"validation_groups"`
		Collapse *struct {
			GaveUp bool `json:"gave_up"`
		} `json:"collapse"`
	}
	decodeJSON(t, ok(t, "train", "-n", "1500", "-method", "vanilla", "-group", "subgroup", "-json", "-o", model), &r)
	g := r.Groups
	if g == nil || len(g.Groups) != 2 || g.Groups[0].Name != "majority" || g.Groups[1].Name != "minority" {
		t.Fatalf("validation groups %+v", g)
	}
	if n := *r.Metrics["validation"]["n"]; float64(g.All.N) != n || g.Groups[0].N+g.Groups[1].N != g.All.N {
		t.Errorf("group sizes %d + %d, all %d, validation n %v", g.Groups[0].N, g.Groups[1].N, g.All.N, n)
	}
	if *g.All.MeanLoss.Value != *r.Metrics["validation"]["mean_loss"] {
		t.Errorf("all rows' mean loss %v, validation's %v", *g.All.MeanLoss.Value, *r.Metrics["validation"]["mean_loss"])
	}
	// The mean loss leans on the feature that reverses in the minority.
	if g.Worst == nil || *g.Worst != "minority" || *g.Groups[1].Accuracy.Value >= *g.Groups[0].Accuracy.Value {
		t.Errorf("worst %v; accuracies %v, %v", g.Worst, *g.Groups[0].Accuracy.Value, *g.Groups[1].Accuracy.Value)
	}
	if r.Collapse == nil || r.Collapse.GaveUp {
		t.Errorf("collapse %+v on the built-in data", r.Collapse)
	}
	text := ok(t, "eval", "-in", model, "-group", "subgroup", "-bootstrap", "200")
	if text != ok(t, "eval", "-in", model, "-group", "subgroup", "-bootstrap", "200", "-threads", "1") {
		t.Error("eval by group differs between runs or thread counts")
	}
	for _, want := range []string{"by group (2 groups):", "\nmajority ", "\nminority ", "worst group by mean_loss: minority"} {
		if !strings.Contains(text, want) {
			t.Errorf("eval text lacks %q:\n%s", want, text)
		}
	}
	var ev struct {
		N      int        `json:"n"`
		Groups *groupJSON `json:"groups"`
	}
	decodeJSON(t, ok(t, "eval", "-in", model, "-group", "subgroup", "-bootstrap", "100", "-worst-by", "cvar_0.05", "-json"), &ev)
	if ev.Groups == nil || ev.Groups.All.N != ev.N || ev.Groups.By != "cvar_0.05" || ev.Groups.Worst == nil {
		t.Fatalf("eval -json groups %+v", ev.Groups)
	}
	for _, row := range append(ev.Groups.Groups, ev.Groups.All) {
		m := row.MeanLoss
		if !(*m.Lo <= *m.Value && *m.Value <= *m.Hi) {
			t.Errorf("%s: mean loss %v outside its interval [%v, %v]", row.Name, *m.Value, *m.Lo, *m.Hi)
		}
	}
	var plain struct {
		Groups *groupJSON `json:"groups"`
	}
	decodeJSON(t, ok(t, "eval", "-in", model, "-bootstrap", "0", "-json"), &plain)
	if plain.Groups != nil {
		t.Error("eval without -group reports groups")
	}
}

// groupCSV is classCSV with a site column before the target: one site of
// three, the third of the rows.
func groupCSV(n int, seed uint64) string {
	lines := strings.Split(strings.TrimSuffix(classCSV(n, seed, true), "\n"), "\n")
	var b strings.Builder
	for i, line := range lines {
		cells := strings.Split(line, ",")
		site := []string{"north", "south", "east"}[i%3]
		if i == 0 {
			site = "site"
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", strings.Join(cells[:3], ","), site, cells[3])
	}
	return b.String()
}

// TestGroupCSVAndFile: a CSV column names the groups (and is no feature);
// a group file does for LIBSVM data, compressed too.
func TestGroupCSVAndFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := write(t, dir, "sites.csv", groupCSV(150, 3))
	model := filepath.Join(dir, "m.cvar")
	var r struct {
		Model struct {
			D int `json:"d"`
		} `json:"model"`
		Groups *groupJSON `json:"validation_groups"`
	}
	decodeJSON(t, ok(t, "train", "-data", data, "-group", "site", "-json", "-o", model), &r)
	if r.Model.D != 3 || r.Groups == nil || len(r.Groups.Groups) != 3 || r.Groups.Groups[0].Name != "east" {
		t.Fatalf("d %d, groups %+v", r.Model.D, r.Groups)
	}
	var ev struct {
		Groups *groupJSON `json:"groups"`
	}
	decodeJSON(t, ok(t, "eval", "-in", model, "-data", data, "-group", "site", "-worst-by", "accuracy", "-bootstrap", "50", "-json"), &ev)
	if ev.Groups == nil || ev.Groups.All.N != 150 || ev.Groups.Groups[1].N != 50 || ev.Groups.By != "accuracy" {
		t.Errorf("eval groups %+v", ev.Groups)
	}

	svm := write(t, dir, "d.svm", svmFile(120, 4, false))
	var labels strings.Builder
	for i := range 120 {
		fmt.Fprintf(&labels, "%d\n", i%4)
	}
	groups := write(t, dir, "groups.txt.gz", gzippedText(labels.String()))
	svmModel := filepath.Join(dir, "svm.cvar")
	decodeJSON(t, ok(t, "train", "-data", svm, "-group-file", groups, "-json", "-o", svmModel), &r)
	if r.Groups == nil || len(r.Groups.Groups) != 4 || r.Groups.All.N != 40 {
		t.Fatalf("LIBSVM groups %+v", r.Groups)
	}
	decodeJSON(t, ok(t, "eval", "-in", svmModel, "-data", svm, "-group-file", groups, "-bootstrap", "0", "-json"), &ev)
	if ev.Groups == nil || len(ev.Groups.Groups) != 4 || ev.Groups.Groups[3].N != 30 || ev.Groups.Groups[3].Name != "3" {
		t.Errorf("eval LIBSVM groups %+v", ev.Groups)
	}
	// -limit reads the group file's first lines.
	decodeJSON(t, ok(t, "eval", "-in", svmModel, "-data", svm, "-group-file", groups, "-limit", "10", "-bootstrap", "0", "-json"), &ev)
	if ev.Groups.All.N != 10 || ev.Groups.Groups[0].N != 3 {
		t.Errorf("eval -limit 10 groups %+v", ev.Groups)
	}
}

// TestGroupBadInput: bad group files and flags are one-line errors naming
// the file and line, or the flag.
func TestGroupBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svm := write(t, dir, "d.svm", svmFile(30, 5, false))
	csv := write(t, dir, "sites.csv", groupCSV(30, 5))
	lines := func(n int) string { return strings.Repeat("a\nb\n", n/2) }
	for _, c := range []struct {
		content string
		want    []string
	}{
		{lines(20), []string{"g.txt:20", "ends after 20 group labels", "30 rows"}},
		{lines(40), []string{"g.txt:31", "a group label for row 31", "30 rows"}},
		{"a\n\n" + lines(28), []string{"g.txt:2", "empty group"}},
	} {
		g := write(t, dir, "g.txt", c.content)
		fails(t, 1, c.want, "train", "-data", svm, "-group-file", g)
	}
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", svm, "-o", model)
	fails(t, 1, []string{"g.txt:20", "ends after 20"}, "eval", "-in", model, "-data", svm, "-group-file", write(t, dir, "g.txt", lines(20)))
	fails(t, 1, []string{"sites.csv:1", `no column named "region"`}, "train", "-data", csv, "-group", "region")
	fails(t, 1, []string{"sites.csv:1", `group column "site" is also the target column`}, "train", "-data", csv, "-group", "site", "-target", "site")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-data", svm, "-group", "site"}, []string{"-group names a column of a CSV file", "-group-file"}},
		{[]string{"train", "-group", "site"}, []string{`-group "site"`, "subgroup"}},
		{[]string{"train", "-group-file", filepath.Join(dir, "g.txt")}, []string{"-group-file needs -data"}},
		{[]string{"train", "-data", csv, "-group", "site", "-group-file", filepath.Join(dir, "g.txt")}, []string{"-group or -group-file, not both"}},
		{[]string{"train", "-data", csv, "-group", "site", "-stream", "-method", "alg1"}, []string{"-stream reads no groups"}},
		{[]string{"eval", "-in", model, "-worst-by", "median"}, []string{"-worst-by", `"median"`}},
		{[]string{"eval", "-in", model, "-worst-by", "cvar_0.3"}, []string{"-worst-by", "0.3", "not among the alphas"}},
		{[]string{"eval", "-in", model, "-data", svm, "-worst-by", "accuracy"}, []string{"-worst-by accuracy", "-group or -group-file"}},
	} {
		fails(t, 2, c.want, c.args...)
	}
}

// noisyCSV is two informative features and a label flipped with
// probability flip.
func noisyCSV(n int, flip float64) string {
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for range n {
		a, bb, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if a+0.5*bb > 0 {
			y = 1
		}
		if rng.Float64() < flip {
			y = 1 - y
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%d\n", a, bb, c, y)
	}
	return b.String()
}

// TestGaveUpReport: CVaR at a small α on a quarter of flipped labels makes
// nearly uniform predictions, which train says in one line naming the
// options that help; the mean loss on the same data does not.
func TestGaveUpReport(t *testing.T) {
	t.Parallel()
	data := write(t, t.TempDir(), "noisy.csv", noisyCSV(1500, 0.25))
	text := ok(t, "train", "-data", data, "-objective", "cvar", "-alpha", "0.05")
	if n := strings.Count(text, "gave up"); n != 1 || !strings.Contains(text, "nearly uniform") || !strings.Contains(text, "-tune, -blend or -trim") {
		t.Errorf("CVaR_0.05 on noisy labels: %d lines say gave up:\n%s", n, text)
	}
	var r struct {
		Collapse struct {
			GaveUp      bool    `json:"gave_up"`
			Reason      string  `json:"reason"`
			MeanMaxProb float64 `json:"mean_max_prob"`
		} `json:"collapse"`
	}
	decodeJSON(t, ok(t, "train", "-data", data, "-objective", "cvar", "-alpha", "0.05", "-json"), &r)
	if !r.Collapse.GaveUp || r.Collapse.Reason == "" || r.Collapse.MeanMaxProb >= 0.55 {
		t.Errorf("JSON collapse %+v", r.Collapse)
	}
	if text := ok(t, "train", "-data", data, "-method", "vanilla"); strings.Contains(text, "gave up") {
		t.Errorf("the mean loss gave up:\n%s", text)
	}
	if text := ok(t, "train", "-n", "1500"); strings.Contains(text, "gave up") {
		t.Errorf("the built-in data's defaults gave up:\n%s", text)
	}
}

// TestGroupFileIDXAndTest: a group file gives an MNIST directory's
// training rows their groups (not the t10k test set's); a -test CSV file
// has the group column as the training file does.
func TestGroupFileIDXAndTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idxDir := filepath.Join(dir, "mnist")
	if err := os.Mkdir(idxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	idxPair(t, idxDir, 60, true)
	var labels strings.Builder
	for i := range 60 {
		labels.WriteString([]string{"left", "right"}[i%2] + "\n")
	}
	groups := write(t, dir, "g.txt", labels.String())
	var r struct {
		Metrics map[string]map[string]*float64 `json:"metrics"`
		Groups  *groupJSON                     `json:"validation_groups"`
	}
	decodeJSON(t, ok(t, "train", "-data", idxDir, "-group-file", groups, "-epochs", "2", "-json"), &r)
	if r.Groups == nil || len(r.Groups.Groups) != 2 || r.Groups.All.N != 20 || r.Metrics["test"] == nil {
		t.Errorf("IDX groups %+v, test metrics %v", r.Groups, r.Metrics["test"])
	}
	short := write(t, dir, "short.txt", strings.Repeat("left\n", 59))
	fails(t, 1, []string{"short.txt:59", "ends after 59 group labels", "60 rows"}, "train", "-data", idxDir, "-group-file", short)
	csv := write(t, dir, "sites.csv", groupCSV(90, 6))
	test := write(t, dir, "sites-test.csv", groupCSV(30, 7))
	decodeJSON(t, ok(t, "train", "-data", csv, "-test", test, "-group", "site", "-json"), &r)
	if n := r.Metrics["test"]["n"]; n == nil || *n != 30 || r.Groups == nil {
		t.Errorf("-test with a group column: test n %v, groups %+v", n, r.Groups)
	}
	svm := write(t, dir, "d.svm", svmFile(90, 8, false))
	fails(t, 1, []string{"missing.txt"}, "train", "-data", svm, "-group-file", filepath.Join(dir, "missing.txt"))
	fails(t, 1, []string{"nul.txt:2", "NUL byte"}, "train", "-data", svm, "-group-file", write(t, dir, "nul.txt", "a\nb\x00\n"+strings.Repeat("a\n", 88)))
}
