package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/cvarlearn/cvar/internal/modelio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipped returns s compressed with gzip.
func gzippedText(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// numericCSV is classCSV with the labels 0 and 1, which -stream reads.
func numericCSV(n int, seed uint64) string {
	return strings.NewReplacer(",cat\n", ",0\n", ",dog\n", ",1\n").Replace(classCSV(n, seed, true))
}

// TestTabDelimiter: a name ending .tsv or .tab, in any case and before any
// compression suffix, is read tab-separated, in memory and as a stream.
func TestTabDelimiter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tsv := strings.ReplaceAll(numericCSV(60, 2), ",", "\t")
	for name, content := range map[string]string{
		"heart.tsv.bz2": tsv, // compression is sniffed, not taken from the name
		"HEART.TSV.GZ":  gzippedText(tsv),
		"heart.tab":     tsv,
		"heart.Tsv":     tsv,
	} {
		var r trainJSON
		decodeJSON(t, ok(t, "train", "-data", write(t, dir, name, content), "-epochs", "1", "-json"), &r)
		if r.Model.D != 3 {
			t.Errorf("%s: %d features, want 3", name, r.Model.D)
		}
	}
	num := write(t, dir, "num.tsv", tsv)
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", num, "-stream", "-method", "alg1", "-json"), &r)
	if r.Model.D != 3 {
		t.Errorf("-stream num.tsv: %d features, want 3", r.Model.D)
	}
}

// TestLimitBuiltIn: -limit keeps the first rows of the built-in data too,
// in train, eval, predict and experiment.
func TestLimitBuiltIn(t *testing.T) {
	t.Parallel()
	model := filepath.Join(t.TempDir(), "m1.cvar")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-limit", "30", "-json", "-o", model), &r)
	if n := *r.Metrics["training"]["n"] + *r.Metrics["validation"]["n"]; n != 30 {
		t.Errorf("train -limit 30: %v rows in all", n)
	}
	var rows []map[string]any
	decodeJSON(t, ok(t, "predict", "-in", model, "-json", "-limit", "2"), &rows)
	if len(rows) != 2 {
		t.Errorf("predict -limit 2: %d rows", len(rows))
	}
	var ev struct{ N int }
	decodeJSON(t, ok(t, "eval", "-in", model, "-json", "-limit", "7", "-bootstrap", "0"), &ev)
	if ev.N != 7 {
		t.Errorf("eval -limit 7: n = %d", ev.N)
	}
	// Three rows split into two for training and one for validation, whose
	// accuracy is 0 or 1.
	var ex []struct {
		Raw map[string]struct{ Mean float64 }
	}
	decodeJSON(t, ok(t, "experiment", "-n", "600", "-limit", "3", "-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1", "-json"), &ex)
	for _, row := range ex {
		if acc := row.Raw["accuracy"].Mean; acc != 0 && acc != 1 {
			t.Errorf("experiment -limit 3: validation accuracy %v on one row", acc)
		}
	}
	if len(ex) == 0 {
		t.Error("experiment -limit 3: no rows")
	}
}

// TestHeaderNamesTrimmed: header names are trimmed of spaces like cells
// and labels, so -target finds " b " as b and the model file records b.
func TestHeaderNamesTrimmed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a, b ,y\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d, %d , %d\n", i%7, i%2, i%3)
	}
	data := write(t, dir, "spaced.csv", b.String())
	model := filepath.Join(dir, "m.cvar")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", data, "-target", "b", "-epochs", "1", "-json", "-o", model), &r)
	if r.Model.K != 2 || r.Model.D != 2 {
		t.Errorf("-target b: d %d, k %d; want 2 features and the 2 classes of b", r.Model.D, r.Model.K)
	}
	m, err := modelio.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Features, ",") != "a,y" {
		t.Errorf("features %q, want a, y", m.Features)
	}
}

// TestEvalTargetAndNames: eval on a file without the target column says
// the target is missing, and eval, predict and train -test refuse feature
// columns whose names differ from the training file's, naming the first.
func TestEvalTargetAndNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("w,h,kind\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%.1f,%.1f,%s\n", float64(i%10)/10, float64(i%7)/10, []string{"ant", "bee", "cat"}[i%3])
	}
	animals := write(t, dir, "animals.csv", b.String())
	model := filepath.Join(dir, "animals.cvar")
	ok(t, "train", "-data", animals, "-target", "kind", "-epochs", "1", "-o", model)
	named := filepath.Join(dir, "last.cvar")
	ok(t, "train", "-data", animals, "-epochs", "1", "-o", named)

	an2 := write(t, dir, "an2.csv", "w,h\n0.1,0.2\n0.3,0.4\n")
	fails(t, 1, []string{"an2.csv", `the target column "kind" is missing`}, "eval", "-in", model, "-data", an2)
	fails(t, 1, []string{"an2.csv", "the target column is missing"}, "eval", "-in", named, "-data", an2)
	noHead := write(t, dir, "nohead.csv", "0.1,0.2\n0.3,0.4\n")
	fails(t, 1, []string{"nohead.csv", "target column", "missing"}, "eval", "-in", model, "-data", noHead, "-no-header")
	if recs := readCSV(t, ok(t, "predict", "-in", model, "-data", an2)); len(recs) != 3 {
		t.Errorf("predict without the target column: %q", recs)
	}

	swapped := write(t, dir, "swapped.csv", "h,w,kind\n0.2,0.1,ant\n0.4,0.3,bee\n")
	for _, cmd := range []string{"eval", "predict"} {
		fails(t, 1, []string{"swapped.csv", `feature 1 is named "h"`, `"w"`, "by position"}, cmd, "-in", model, "-data", swapped)
	}
	fails(t, 1, []string{"swapped.csv", `feature 1 is named "h"`, "animals.csv", `"w"`}, "train", "-data", animals, "-test", swapped, "-epochs", "1")
	// Without a header there are no names to compare.
	ok(t, "eval", "-in", model, "-data", write(t, dir, "plain.csv", "0.2,0.1,ant\n0.4,0.3,bee\n"), "-no-header", "-target", "2", "-bootstrap", "0")
}

// TestStorageNamesModelPrecision: eval and predict take the precision from
// the model file, and a -storage that does not fit it says so, not
// -precision, which they do not have.
func TestStorageNamesModelPrecision(t *testing.T) {
	t.Parallel()
	model := filepath.Join(t.TempDir(), "m.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-o", model)
	for _, cmd := range []string{"eval", "predict"} {
		for _, s := range []string{"f32", "f16"} {
			out, errOut, code := cli(t, cmd, "-in", model, "-storage", s)
			if code == 0 || out != "" || !strings.Contains(errOut, "model file holds a f64 model") || strings.Contains(errOut, "-precision f64") {
				t.Errorf("%s -storage %s: exit %d, stderr %q", cmd, s, code, errOut)
			}
		}
	}
}

// TestExitStatusRule: 2 for a command line that is wrong in itself, found
// before any data is read (with eval and predict, from the flags and the
// model file); 1 for what only the data shows, even when a flag is its
// cause.
func TestExitStatusRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	three := write(t, dir, "three.csv", strings.ReplaceAll(classCSV(60, 1, true), "cat\n", "emu\n")+"1,2,3,cat\n")
	idx := filepath.Dir(idxPair(t, filepath.Join(dir), 30, false))
	svm := write(t, dir, "sparse.svm", wideSVM(60, 500, 3, 1))
	f64 := filepath.Join(dir, "f64.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-o", f64)

	// A format that cannot be guessed from the name: 2, in experiment ahead
	// of the other data sets' runs.
	txt := write(t, dir, "data.txt", "a,b,y\n1,2,0\n")
	fails(t, 2, []string{"data.txt", "cannot guess the format", "-format"}, "train", "-data", txt)
	fails(t, 2, []string{"data.txt", "cannot guess the format"}, "experiment", "-data", "builtin,"+txt, "-n", "300", "-epochs", "2", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1")
	fails(t, 2, []string{"is a directory", "-format idx"}, "train", "-data", idx, "-format", "csv")
	fails(t, 2, []string{"-d 3", "at least 5 features"}, "experiment", "-data", three+",builtin", "-d", "3", "-model", "softmax", "-epochs", "2", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1")
	// A compact storage the flags alone rule out: 2, before reading.
	fails(t, 2, []string{"-storage u8", "CSV"}, "train", "-data", three, "-precision", "f32", "-storage", "u8")
	fails(t, 2, []string{"-storage f16", "float32", "f64 model"}, "eval", "-in", f64, "-storage", "f16")
	// What only the data shows: 1.
	fails(t, 1, []string{"3 classes", "logistic regression is binary"}, "train", "-data", three, "-model", "logistic")
	fails(t, 1, []string{"-storage f16", "held sparse", "-sparse 0"}, "train", "-data", svm, "-precision", "f32", "-storage", "f16")
	fails(t, 1, []string{"-epochs", "steps each"}, "train", "-data", three, "-epochs", "4503599627370497", "-batch", "20")
}

// TestCompactRangeNamesLine: a feature that f16 storage cannot hold is
// reported at its 1-based line of the file, in train, -test and eval.
func TestCompactRangeNamesLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 40 {
		if i == 17 {
			b.WriteString("\n") // an empty line still counts
		}
		v := i % 5
		if i == 25 {
			v = 1_000_000
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", i%3, v, i%2)
	}
	big := write(t, dir, "f16.csv", b.String())
	common := []string{"-precision", "f32", "-storage", "f16", "-scale", "none", "-epochs", "1"}
	fails(t, 1, []string{"f16.csv:28:", `feature 2 ("b")`, "1e+06", "f16"}, append([]string{"train", "-data", big}, common...)...)
	small := write(t, dir, "small.csv", strings.Replace(b.String(), "1000000", "4", 1))
	fails(t, 1, []string{"f16.csv:28:", `feature 2 ("b")`}, append([]string{"train", "-data", small, "-test", big}, common...)...)
	model := filepath.Join(dir, "m.cvar")
	ok(t, append([]string{"train", "-data", small, "-o", model}, common...)...)
	fails(t, 1, []string{"f16.csv:28:", `feature 2 ("b")`}, "eval", "-in", model, "-data", big, "-storage", "f16")
}

// TestIDXNameRule: an IDX image file whose label file cannot be found from
// its name gets the naming rule in the error.
func TestIDXNameRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images := idxPair(t, dir, 10, false)
	b, err := os.ReadFile(images)
	if err != nil {
		t.Fatal(err)
	}
	x := write(t, dir, "x.idx", string(b))
	fails(t, 1, []string{"x.idx", "cannot find the label file", "images-idx3", "labels-idx1", "train-labels-idx1-ubyte"}, "train", "-data", x)
}

// TestNoPackagePrefixes: the library packages' prefixes do not reach the
// command's messages (internal/errtext words them).
func TestNoPackagePrefixes(t *testing.T) {
	t.Parallel()
	fails(t, 1, []string{"cvar train: no train-images-idx3-ubyte"}, "train", "-data", t.TempDir())
}

// TestExperimentJSONLists: experiment -json writes "diverged" as a list,
// [] when no run diverged, never null.
func TestExperimentJSONLists(t *testing.T) {
	t.Parallel()
	out := ok(t, "experiment", "-n", "300", "-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1", "-json")
	var rows []map[string]json.RawMessage
	decodeJSON(t, out, &rows)
	for _, r := range rows {
		if d := string(r["diverged"]); d != "[]" {
			t.Errorf("diverged %s, want []", d)
		}
	}
	if len(rows) == 0 {
		t.Error("no rows")
	}
}

// TestTrainJSONBoundFrom: train -json gives where the bound comes from,
// or why there is none, as the text report does.
func TestTrainJSONBoundFrom(t *testing.T) {
	t.Parallel()
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-n", "300", "-epochs", "1", "-json"), &r)
	if from, _ := r.Params["bound_from"].(string); from == "" || !strings.Contains(ok(t, "train", "-n", "300", "-epochs", "1"), "bound      none ("+from+")") {
		t.Errorf("params.bound_from %q, not the text report's", r.Params["bound_from"])
	}
}

// TestStepsLine: the report's method line counts steps and samples in the
// singular and plural, and n is the training rows, also when the passes
// of alg1 and alg4 consume more samples.
func TestStepsLine(t *testing.T) {
	t.Parallel()
	data := write(t, t.TempDir(), "num.csv", numericCSV(60, 3))
	if out := ok(t, "train", "-data", data, "-stream", "-method", "alg4", "-epochs", "2"); !strings.Contains(out, "80 steps of 1 sample (n = 40)") {
		t.Errorf("-stream -epochs 2 on 40 training rows:\n%s", out)
	}
	if out := ok(t, "train", "-limit", "30", "-method", "vanilla", "-epochs", "1"); !strings.Contains(out, "1 step of 20 samples (n = 20)") {
		t.Errorf("-limit 30 -epochs 1:\n%s", out)
	}
}

// TestExperimentPlotChecks: every figure name is checked before any run,
// two data sets that make the same figure are a usage error, and the -plot
// directory is created only when the figures are written.
func TestExperimentPlotChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sub := range []string{"x", "y"} {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
		write(t, filepath.Join(dir, sub), "d.csv", classCSV(60, 1, true))
	}
	quick := []string{"-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1"}
	plots := filepath.Join(dir, "plots")
	twice := filepath.Join(dir, "x", "d.csv") + "," + filepath.Join(dir, "y", "d.csv")
	fails(t, 2, []string{"x/d.csv", "y/d.csv", "d.csv-curves.png"}, append([]string{"experiment", "-data", twice, "-plot", plots}, quick...)...)
	bad := write(t, dir, "bad.csv", "a,b,y\n1,2,0\n1,x,1\n")
	fails(t, 1, []string{"bad.csv:3"}, append([]string{"experiment", "-data", filepath.Join(dir, "x", "d.csv") + "," + bad, "-plot", plots}, quick...)...)
	if _, err := os.Stat(plots); err == nil {
		t.Error("a failed experiment created the -plot directory")
	}
	notDir := write(t, dir, "file", "")
	fails(t, 1, []string{"cannot create -plot", "not a directory"}, append([]string{"experiment", "-n", "300", "-plot", filepath.Join(notDir, "plots")}, quick...)...)
	ok(t, append([]string{"experiment", "-n", "300", "-plot", plots}, quick...)...)
	if _, err := os.Stat(filepath.Join(plots, "synthetic-classification-curves.png")); err != nil {
		t.Error(err)
	}
}

// TestMaxDim: -max-dim bounds the width a LIBSVM file's indices give, in
// every command that reads data, and the message names it; a width fixed
// by the training data or the model is named as such; a model wider than
// the default bound is evaluated without -max-dim.
func TestMaxDim(t *testing.T) {
	dir := t.TempDir()
	wide := write(t, dir, "wide.svm", "1 1:1 1100000:1\n-1 2:1\n1 1:2\n-1 2:2\n1 1:1\n-1 2:1\n")
	want := []string{"wide.svm:1:", `token "1100000:1"`, "exceeds -max-dim 1048576", "give a larger -max-dim"}
	fails(t, 1, want, "train", "-data", wide)
	fails(t, 1, want, "train", "-data", wide, "-stream", "-method", "alg1")
	fails(t, 1, want, "experiment", "-data", wide, "-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1")
	fails(t, 2, []string{"-max-dim 0"}, "train", "-data", wide, "-max-dim", "0")
	fails(t, 1, []string{"-max-dim 2147483647", "-max-memory"}, "train", "-data", wide, "-max-dim", "2147483647")
	// Within -max-dim but past -max-memory: the error names the file whose
	// width sizes the model.
	large := write(t, dir, "large.svm", "1 1:1 1000000:1\n-1 2:1\n1 1:2\n-1 2:2\n1 1:1\n-1 2:1\n")
	past := []string{large + ": 1000000 features make a logistic model", "more than the bound of 16 MiB", "(-max-memory)"}
	fails(t, 1, past, "train", "-data", large, "-max-memory", "16MiB")
	fails(t, 1, []string{large + ": 1000000 features make a logistic model", "more than the bound of 40 MiB", "(-max-memory)"}, "train", "-data", large, "-max-memory", "40MiB", "-stream", "-method", "alg1")
	fails(t, 1, past, "experiment", "-data", large, "-max-memory", "16MiB", "-epochs", "1", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1")
	model := filepath.Join(dir, "wide.cvar")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", wide, "-max-dim", "1100000", "-epochs", "1", "-json", "-o", model), &r)
	if r.Model.D != 1100000 {
		t.Errorf("-max-dim 1100000: %d features", r.Model.D)
	}
	ok(t, "eval", "-in", model, "-data", wide, "-bootstrap", "0")
	fails(t, 1, []string{"-max-dim 2147483647", "-max-memory"}, "predict", "-in", model, "-data", wide, "-max-dim", "2147483647")

	narrow := write(t, dir, "narrow.svm", "1 1:1\n-1 2:1\n1 1:2\n-1 2:2\n1 1:1\n-1 2:1\n")
	test := write(t, dir, "test.svm", "1 1:1 3:3\n")
	fails(t, 1, []string{"test.svm:1:", `token "3:3"`, "index 3 exceeds the 2 features of the training data", "narrow.svm"}, "train", "-data", narrow, "-test", test)
	small := filepath.Join(dir, "narrow.cvar")
	ok(t, "train", "-data", narrow, "-epochs", "1", "-o", small)
	fails(t, 1, []string{"test.svm:1:", "index 3 exceeds the 2 features of the model"}, "eval", "-in", small, "-data", test)
}

// TestModelFileChecksumFirst: a header damaged into another valid header
// is reported as a checksum mismatch, not by what it seems to say; a
// compressed model file is named as such.
func TestModelFileChecksumFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := write(t, dir, "d.csv", classCSV(60, 1, true))
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", data, "-o", model, "-epochs", "1")
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	x := write(t, dir, "x.cvar", strings.Replace(string(b), `"logistic"`, `"logistix"`, 1))
	fails(t, 1, []string{"x.cvar", "checksum mismatch"}, "eval", "-in", x, "-data", data)
	gz := write(t, dir, "m.cvar.gz", gzippedText(string(b)))
	fails(t, 1, []string{"m.cvar.gz", "gzip-compressed", "model files are not compressed; decompress it first"}, "predict", "-in", gz, "-data", data)
	bz := write(t, dir, "m.cvar.bz2", "BZh91AY&SY"+string(b[:40]))
	fails(t, 1, []string{"m.cvar.bz2", "bzip2-compressed", "decompress it first"}, "eval", "-in", bz, "-data", data)
}
