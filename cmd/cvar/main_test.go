package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/modelio"
)

// cli runs the program in-process.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// ok runs the program and fails the test unless it succeeds.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("cvar %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	if errOut != "" {
		t.Errorf("cvar %s: unexpected stderr %q", strings.Join(args, " "), errOut)
	}
	return out
}

// fails runs the program and checks that it fails with the exit code and
// exactly one line on stderr holding every wanted substring.
func fails(t *testing.T, wantCode int, want []string, args ...string) {
	t.Helper()
	out, errOut, code := cli(t, args...)
	if code != wantCode {
		t.Errorf("cvar %s: exit %d, want %d (stderr %q)", strings.Join(args, " "), code, wantCode, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("cvar %s: stderr is not one line: %q", strings.Join(args, " "), errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("cvar %s: stderr %q lacks %q", strings.Join(args, " "), errOut, w)
		}
	}
	if out != "" {
		t.Errorf("cvar %s: stdout %q on failure", strings.Join(args, " "), out)
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// classCSV returns a CSV file of n rows: three features, and a text label
// (cat or dog) that depends on the first two, with a few flipped.
func classCSV(n int, seed uint64, withTarget bool) string {
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	b.WriteString("x1,x2,x3")
	if withTarget {
		b.WriteString(",animal")
	}
	b.WriteString("\n")
	for range n {
		x := [3]float64{rng.NormFloat64(), rng.NormFloat64(), 10 + 3*rng.NormFloat64()}
		label := "cat"
		if x[0]+0.5*x[1]+0.3*rng.NormFloat64() > 0 {
			label = "dog"
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f", x[0], x[1], x[2])
		if withTarget {
			b.WriteString("," + label)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// svmFile returns a LIBSVM file of n rows with ±1 labels over 4 sparse
// features, or real targets.
func svmFile(n int, seed uint64, regression bool) string {
	rng := rand.New(rand.NewPCG(seed, 10))
	var b strings.Builder
	for range n {
		x := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := x[0] - x[2] + 0.1*rng.NormFloat64()
		if regression {
			fmt.Fprintf(&b, "%.4f", y)
		} else if y > 0 {
			b.WriteString("+1")
		} else {
			b.WriteString("-1")
		}
		for j, v := range x {
			if j == 1 && v < 0 {
				continue // sparse: leave some features out
			}
			fmt.Fprintf(&b, " %d:%.4f", j+1, v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// idxPair writes an IDX image and label file of n images of 4×4 pixels
// with labels 0..2, optionally gzipped.
func idxPair(t *testing.T, dir string, n int, gz bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	img = binary.BigEndian.AppendUint32(img, uint32(n))
	img = binary.BigEndian.AppendUint32(img, 4)
	img = binary.BigEndian.AppendUint32(img, 4)
	lbl := binary.BigEndian.AppendUint32(nil, 0x801)
	lbl = binary.BigEndian.AppendUint32(lbl, uint32(n))
	for range n {
		c := rng.IntN(3)
		for p := range 16 {
			v := rng.IntN(60)
			if p/4 == c { // class c lights up row c
				v += 180
			}
			img = append(img, byte(v))
		}
		lbl = append(lbl, byte(c))
	}
	suffix := ""
	enc := func(b []byte) []byte { return b }
	if gz {
		suffix = ".gz"
		enc = func(b []byte) []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		}
	}
	images := filepath.Join(dir, "train-images-idx3-ubyte"+suffix)
	os.WriteFile(images, enc(img), 0o644)
	os.WriteFile(filepath.Join(dir, "train-labels-idx1-ubyte"+suffix), enc(lbl), 0o644)
	os.WriteFile(filepath.Join(dir, "t10k-images-idx3-ubyte"+suffix), enc(img), 0o644)
	os.WriteFile(filepath.Join(dir, "t10k-labels-idx1-ubyte"+suffix), enc(lbl), 0o644)
	return images
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
}

func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	out := ok(t, "-h")
	if !strings.Contains(out, "experiment") {
		t.Errorf("usage lacks the commands: %q", out)
	}
	for _, cmd := range []string{"train", "eval", "predict", "experiment"} {
		out := ok(t, cmd, "-h")
		if !strings.HasPrefix(out, "Usage: cvar "+cmd) || !strings.Contains(out, "-json") {
			t.Errorf("%s -h: %q", cmd, out)
		}
	}
	if _, _, code := cli(t); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
	fails(t, 2, []string{"unknown command", "frobnicate"}, "frobnicate")
}

// TestDefaultLowersTail is the product's promise: with no flag, train's
// CVaR-SGD leaves a smaller validation CVaR_0.1 than Vanilla-SGD on the
// built-in data, for several seeds and both precisions.
func TestDefaultLowersTail(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-seed", "1"}, {"-seed", "2"}, {"-seed", "3", "-precision", "f32"}, {"-seed", "1", "-classes", "3", "-d", "30"}} {
		var def, van trainJSON
		decodeJSON(t, ok(t, append([]string{"train", "-json"}, args...)...), &def)
		decodeJSON(t, ok(t, append([]string{"train", "-json", "-method", "vanilla"}, args...)...), &van)
		d, v := *def.Metrics["validation"]["cvar_0.1"], *van.Metrics["validation"]["cvar_0.1"]
		if !(d < 0.9*v) {
			t.Errorf("%v: validation CVaR_0.1 %.4f with the defaults, %.4f with -method vanilla: want below 0.9×", args, d, v)
		}
		if def.Params["eps_from"] == "given" || def.Params["tau_from"] == "" {
			t.Errorf("%v: eps_from %v, tau_from %v", args, def.Params["eps_from"], def.Params["tau_from"])
		}
	}
}

type trainJSON struct {
	Model struct {
		Kind    string   `json:"kind"`
		D       int      `json:"d"`
		K       int      `json:"k"`
		Classes []string `json:"classes"`
	} `json:"model"`
	Method  string                         `json:"method"`
	Tau     *float64                       `json:"tau"`
	Params  map[string]any                 `json:"params"`
	Metrics map[string]map[string]*float64 `json:"metrics"`
	File    string                         `json:"model_file"`
}

func TestTrainBuiltIn(t *testing.T) {
	t.Parallel()
	// Text output with the defaults, on smaller built-in data.
	out := ok(t, "train", "-n", "900")
	for _, want := range []string{"logistic", "alg3", "R^d", "η = 0.01 (default)", "0.05 × VaR_0.1 of 600 initial losses", "sampling   with replacement; returns the last iterate",
		"validation", "CVaR_0.05", "VaR_0.1", "accuracy"} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	// The theorems' step size and smoothing are one flag away.
	// The bound is printed where the theorem's assumptions hold, and
	// otherwise the reason there is none.
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"ball(R=10)", "(Theorem 3.9), ε = ", "bound      none (Theorem 3.9's condition on c = T/n fails"}},
		{[]string{"-method", "alg1"}, []string{"(Theorem 3.2)", "bound      expected excess CVaR ≤ ", "(Theorem 3.2)\n"}},
		{[]string{"-method", "alg1", "-model", "mlp"}, []string{"bound      none (Theorem 3.2 assumes a convex loss; this one is not)"}},
		{[]string{"-method", "alg4"}, []string{"bound      none (Theorem 4.1 gives only an O(·) bound)"}},
	} {
		out = ok(t, append([]string{"train", "-n", "900", "-lr", "theorem"}, c.args...)...)
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("train -lr theorem %v output lacks %q:\n%s", c.args, want, out)
			}
		}
	}
	fails(t, 2, []string{"-lr", "want a positive step size or theorem"}, "train", "-lr", "fast")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-n", "900", "-json", "-method", "vanilla", "-epochs", "3", "-precision", "f32"), &r)
	if r.Model.Kind != "logistic" || r.Method != "vanilla" || r.Tau != nil {
		t.Errorf("got model %s, method %s, tau %v", r.Model.Kind, r.Method, r.Tau)
	}
	for _, set := range []string{"training", "validation"} {
		m := r.Metrics[set]
		for _, k := range []string{"cvar_0.05", "cvar_0.1", "var_0.05", "var_0.1", "accuracy", "mean_loss"} {
			if m[k] == nil || math.IsNaN(*m[k]) {
				t.Errorf("%s %s missing", set, k)
			}
		}
		if *m["cvar_0.05"] < *m["cvar_0.1"] || *m["cvar_0.1"] < *m["mean_loss"] {
			t.Errorf("%s: CVaR_0.05 %v, CVaR_0.1 %v, mean %v out of order", set, *m["cvar_0.05"], *m["cvar_0.1"], *m["mean_loss"])
		}
	}
	if r.Params["lr"] != 0.01 {
		t.Errorf("vanilla lr %v, want 0.01", r.Params["lr"])
	}
	// Every resolved value is reported, the sampling and the output included.
	for k, want := range map[string]any{"sampling": "shuffled", "output": "last", "objective": "mean", "eps_fraction": 0.0, "tau_lr": 0.0, "bound_from": "vanilla has no theorem"} {
		if r.Params[k] != want {
			t.Errorf("vanilla params %s = %v, want %v", k, r.Params[k], want)
		}
	}
	// Regression on the built-in data, and the other methods and models.
	for _, args := range [][]string{
		{"-model", "lad", "-method", "alg1"},
		{"-model", "linear", "-method", "alg2", "-steps", "200", "-smooth", "quadratic"},
		{"-model", "softmax", "-classes", "3", "-d", "8", "-method", "minibatch", "-epochs", "2"},
		{"-model", "mlp", "-hidden", "8", "-method", "alg4", "-d", "6"},
		{"-box", "-1,1", "-method", "alg3", "-epochs", "2", "-threads", "2"},
	} {
		decodeJSON(t, ok(t, append([]string{"train", "-n", "600", "-json"}, args...)...), &r)
		if v := r.Metrics["validation"]["mean_loss"]; v == nil || math.IsNaN(*v) {
			t.Errorf("%v: no validation mean loss", args)
		}
	}
}

// roundTrip trains on train, writes the model, evaluates and predicts.
func roundTrip(t *testing.T, dir, train, test string, extra ...string) (trainJSON, string) {
	t.Helper()
	model := filepath.Join(dir, "model.cvar")
	os.Remove(model)
	var r trainJSON
	decodeJSON(t, ok(t, append([]string{"train", "-data", train, "-test", test, "-o", model, "-json"}, extra...)...), &r)
	if r.File != model {
		t.Errorf("model_file %q", r.File)
	}
	if r.Metrics["test"] == nil {
		t.Error("no test metrics")
	}
	var ev struct {
		N     int `json:"n"`
		Tails []struct {
			Alpha float64 `json:"alpha"`
			CVaR  struct{ Value, Lo, Hi float64 }
		} `json:"tails"`
		Accuracy *struct{ Value, Lo, Hi float64 } `json:"accuracy"`
		MeanLoss struct{ Value, Lo, Hi float64 }  `json:"mean_loss"`
	}
	decodeJSON(t, ok(t, "eval", "-in", model, "-data", test, "-json", "-bootstrap", "200", "-alphas", "0.05,0.1,0.5"), &ev)
	if len(ev.Tails) != 3 || ev.N == 0 {
		t.Fatalf("eval: %+v", ev)
	}
	for _, tl := range ev.Tails {
		if !(tl.CVaR.Lo <= tl.CVaR.Value && tl.CVaR.Value <= tl.CVaR.Hi) {
			t.Errorf("CVaR_%v %v outside its interval [%v, %v]", tl.Alpha, tl.CVaR.Value, tl.CVaR.Lo, tl.CVaR.Hi)
		}
	}
	// The test metrics of train and eval agree.
	if got, want := ev.MeanLoss.Value, *r.Metrics["test"]["mean_loss"]; math.Abs(got-want) > 1e-9*math.Max(1, want) {
		t.Errorf("eval mean loss %v, train's test mean loss %v", got, want)
	}
	// Text output too.
	if out := ok(t, "eval", "-in", model, "-data", test, "-bootstrap", "50"); !strings.Contains(out, "CVaR_0.1") {
		t.Errorf("eval text: %q", out)
	}
	return r, ok(t, "predict", "-in", model, "-data", test)
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("bad CSV output: %v\n%s", err, s)
	}
	return recs
}

func TestRoundTripCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train := write(t, dir, "train.csv", classCSV(240, 1, true))
	test := write(t, dir, "test.csv", classCSV(60, 2, true))
	r, pred := roundTrip(t, dir, train, test, "-epochs", "5")
	if r.Model.Kind != "logistic" || strings.Join(r.Model.Classes, ",") != "cat,dog" {
		t.Errorf("model %s, classes %v", r.Model.Kind, r.Model.Classes)
	}
	recs := readCSV(t, pred)
	if strings.Join(recs[0], ",") != "row,class,score,label,loss" || len(recs) != 61 {
		t.Fatalf("predict header %v, %d rows", recs[0], len(recs))
	}
	right := 0
	for _, rec := range recs[1:] {
		score, _ := strconv.ParseFloat(rec[2], 64)
		if (score > 0) != (rec[1] == "dog") || (rec[1] != "cat" && rec[1] != "dog") {
			t.Fatalf("row %v: class and score disagree", rec)
		}
		if rec[1] == rec[3] {
			right++
		}
	}
	if right < 45 {
		t.Errorf("only %d of 60 test rows right", right)
	}
	// Unlabelled data: the target column left out.
	model := filepath.Join(dir, "model.cvar")
	unl := write(t, dir, "new.csv", classCSV(5, 3, false))
	recs = readCSV(t, ok(t, "predict", "-in", model, "-data", unl))
	if strings.Join(recs[0], ",") != "row,class,score" || len(recs) != 6 {
		t.Errorf("unlabelled predict: %v", recs)
	}
	// -o, which never replaces a file unless -force.
	out := filepath.Join(dir, "pred.csv")
	ok(t, "predict", "-in", model, "-data", unl, "-o", out)
	fails(t, 1, []string{out, "exists", "-force"}, "predict", "-in", model, "-data", unl, "-o", out)
	fails(t, 1, []string{model, "exists"}, "train", "-data", train, "-o", model)
	ok(t, "predict", "-in", model, "-data", unl, "-o", out, "-force", "-json")
	var rows []map[string]any
	b, _ := os.ReadFile(out)
	decodeJSON(t, string(b), &rows)
	if len(rows) != 5 || rows[0]["class"] == nil {
		t.Errorf("predict -json: %v", rows)
	}
	// The target column by name, and by index with no header.
	ok(t, "train", "-data", train, "-target", "animal", "-epochs", "1", "-method", "vanilla")
	noHead := write(t, dir, "nohead.csv", strings.SplitN(classCSV(60, 4, true), "\n", 2)[1])
	ok(t, "train", "-data", noHead, "-no-header", "-target", "3", "-epochs", "1", "-method", "vanilla", "-precision", "f32")
}

func TestRoundTripLIBSVM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train := write(t, dir, "train.svm", svmFile(300, 1, false))
	test := write(t, dir, "test.svm", svmFile(80, 2, false))
	r, pred := roundTrip(t, dir, train, test, "-precision", "f32", "-method", "minibatch", "-lr", "0.05", "-epochs", "4")
	if strings.Join(r.Model.Classes, ",") != "-1,1" {
		t.Errorf("classes %v", r.Model.Classes)
	}
	recs := readCSV(t, pred)
	if len(recs) != 81 || recs[1][1] != "-1" && recs[1][1] != "1" {
		t.Errorf("predict: %v", recs[:2])
	}
	// Regression, with a file in another format as the test set.
	rtrain := write(t, dir, "reg.libsvm", svmFile(300, 3, true))
	rtest := write(t, dir, "regtest.txt", svmFile(50, 4, true))
	model := filepath.Join(dir, "model.cvar")
	os.Remove(model)
	ok(t, "train", "-data", rtrain, "-test", rtest, "-format", "libsvm", "-model", "lad", "-o", model)
	recs = readCSV(t, ok(t, "predict", "-in", model, "-data", rtest, "-format", "libsvm"))
	if strings.Join(recs[0], ",") != "row,value,target,loss" {
		t.Errorf("regression predict header %v", recs[0])
	}
	for _, rec := range recs[1:] {
		v, _ := strconv.ParseFloat(rec[1], 64)
		y, _ := strconv.ParseFloat(rec[2], 64)
		l, _ := strconv.ParseFloat(rec[3], 64)
		if math.Abs(math.Abs(v-y)-l) > 1e-4 {
			t.Fatalf("row %v: |value − target| is not the loss", rec)
		}
	}
}

func TestIDXReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images := idxPair(t, dir, 150, true)
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", dir, "-json", "-epochs", "5", "-method", "vanilla", "-lr", "0.1"), &r)
	if r.Model.Kind != "softmax" || r.Model.K != 10 || r.Metrics["test"] == nil {
		t.Errorf("IDX directory: model %s, k %d, test %v", r.Model.Kind, r.Model.K, r.Metrics["test"] != nil)
	}
	if acc := *r.Metrics["validation"]["accuracy"]; acc < 0.9 {
		t.Errorf("validation accuracy %v on an easy problem", acc)
	}
	// An image file by name, its labels found beside it.
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", images, "-model", "mlp", "-hidden", "5", "-epochs", "2", "-o", model, "-method", "vanilla")
	ok(t, "eval", "-in", model, "-data", dir, "-bootstrap", "20")
	recs := readCSV(t, ok(t, "predict", "-in", model, "-data", images, "-limit", "7"))
	if len(recs) != 8 || len(recs[0]) != 2+10+2 {
		t.Errorf("predict on IDX: %d rows, header %v", len(recs), recs[0])
	}
}

// TestMNISTTail runs the paper's comparison, shortened, on real data: a
// quarter of MNIST, 40 epochs at the paper's largest step size. CVaR-SGD
// with its defaults must lower both CVaRs well below Vanilla-SGD's at an
// accuracy no more than a point lower.
func TestMNISTTail(t *testing.T) {
	t.Parallel()
	mnist := filepath.Join("..", "..", "..", "shared", "data", "mnist")
	if _, err := os.Stat(filepath.Join(mnist, "train-labels-idx1-ubyte.gz")); err != nil {
		t.Skip("MNIST not found at", mnist)
	}
	if testing.Short() {
		t.Skip("a minute under emulation")
	}
	var rows []map[string]any
	decodeJSON(t, ok(t, "experiment", "-data", mnist, "-limit", "15000", "-epochs", "40", "-seeds", "1", "-alpha", "0.1",
		"-lrs", "0.01", "-wds", "0", "-json"), &rows)
	mean := func(r map[string]any, k string) float64 { return r[k].(map[string]any)["mean"].(float64) }
	van, alg3 := rows[0], rows[2]
	if alg3["method"] != "alg3" {
		t.Fatalf("rows %v", rows)
	}
	if c5, c10 := mean(alg3, "cvar_0.05"), mean(alg3, "cvar_0.1"); !(c5 <= 0.85 && c10 <= 0.9) {
		t.Errorf("CVaR-SGD's CVaR_0.05 %.3f×, CVaR_0.1 %.3f× Vanilla-SGD's: want ≤ 0.85, 0.9", c5, c10)
	}
	if a, v := mean(alg3, "accuracy"), mean(van, "accuracy"); a < v-0.01 {
		t.Errorf("CVaR-SGD accuracy %.3f, Vanilla-SGD %.3f", a, v)
	}
}

func TestMNIST(t *testing.T) {
	t.Parallel()
	mnist := filepath.Join("..", "..", "..", "shared", "data", "mnist")
	if _, err := os.Stat(filepath.Join(mnist, "t10k-labels-idx1-ubyte.gz")); err != nil {
		t.Skip("MNIST not found at", mnist)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "mnist.cvar")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", mnist, "-limit", "600", "-epochs", "5", "-batch", "50", "-method", "vanilla", "-lr", "0.1",
		"-precision", "f32", "-o", model, "-json"), &r)
	if r.Model.D != 784 || r.Model.K != 10 || r.Metrics["test"] == nil {
		t.Fatalf("MNIST: d %d, k %d", r.Model.D, r.Model.K)
	}
	if acc := *r.Metrics["test"]["accuracy"]; acc < 0.6 {
		t.Errorf("MNIST test accuracy %v after 5 epochs on 400 images", acc)
	}
	out := ok(t, "eval", "-in", model, "-data", mnist, "-limit", "300", "-bootstrap", "50")
	if !strings.Contains(out, "300 rows") {
		t.Errorf("eval: %s", out)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := func(name, content string) string { return write(t, dir, name, content) }
	good := w("good.csv", classCSV(90, 1, true))
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", good, "-o", model, "-epochs", "1")

	// Data files: exit 1, the file, the line and the problem.
	for _, c := range []struct {
		name, content string
		want          []string
	}{
		{"empty.csv", "", []string{"empty.csv", "empty file"}},
		{"ragged.csv", "a,b,y\n1,2,0\n1,2\n", []string{"ragged.csv:3", "2 fields; expected 3"}},
		{"cell.csv", "a,b,y\n1,2,0\n1,abc,1\n", []string{"cell.csv:3", `"abc" is not a number`}},
		{"nan.csv", "a,b,y\n1,NaN,0\n2,3,1\n", []string{"nan.csv:2", `"NaN" is not a finite number`}},
		{"inf.csv", "a,b,y\n1,2,0\n-inf,3,1\n", []string{"inf.csv:3", "not a finite number"}},
		{"one.csv", "a,b,y\n1,2,0\n2,3,0\n", []string{"one.csv", "two classes"}},
		{"zero.svm", "1 1:2\n-1 0:1 2:3\n", []string{"zero.svm:2", "1-based"}},
		{"order.svm", "1 1:1 3:3\n-1 3:1 2:3\n", []string{"order.svm:2", "strictly increasing"}},
		{"empty.svm", "", []string{"empty.svm", "no samples"}},
		{"nan.svm", "1 1:nan\n", []string{"nan.svm:1", "not a finite number"}},
	} {
		fails(t, 1, c.want, "train", "-data", w(c.name, c.content))
	}
	fails(t, 2, []string{"data.bin", "cannot guess the format"}, "train", "-data", w("data.bin", "1,2\n"))
	fails(t, 1, []string{"missing.csv"}, "train", "-data", filepath.Join(dir, "missing.csv"))

	// Truncated IDX files.
	idxDir := filepath.Join(dir, "idx")
	os.Mkdir(idxDir, 0o755)
	images := idxPair(t, idxDir, 20, false)
	b, _ := os.ReadFile(images)
	os.WriteFile(images, b[:len(b)-7], 0o644)
	fails(t, 1, []string{"train-images-idx3-ubyte", "truncated"}, "train", "-data", idxDir)
	os.WriteFile(images, b[:10], 0o644)
	fails(t, 1, []string{"train-images-idx3-ubyte", "truncated"}, "train", "-data", images)

	// Labels outside the model's classes, at eval and at predict.
	emu := w("emu.csv", "x1,x2,x3,animal\n1,2,3,cat\n0,1,2,emu\n")
	fails(t, 1, []string{"emu.csv:3", `"emu"`, "cat"}, "eval", "-in", model, "-data", emu)
	fails(t, 1, []string{"emu.csv:3", `"emu"`}, "predict", "-in", model, "-data", emu)
	fails(t, 1, []string{"ragged.csv:3"}, "predict", "-in", model, "-data", filepath.Join(dir, "ragged.csv"))
	fails(t, 1, []string{"wide.csv", "5 columns", "3 features"}, "predict", "-in", model, "-data", w("wide.csv", "a,b,c,d,e\n1,2,3,4,5\n"))
	fails(t, 1, []string{"nan2.csv:2", "not a finite number"}, "predict", "-in", model, "-data", w("nan2.csv", "x1,x2,x3\n1,NaN,2\n"))
	fails(t, 2, []string{"-data is required"}, "eval", "-in", model)

	// Model files: truncated, another version, corrupted.
	mb, _ := os.ReadFile(model)
	fails(t, 1, []string{"cut.cvar", "truncated"}, "eval", "-in", w("cut.cvar", string(mb[:len(mb)/2])), "-data", good)
	v2 := append([]byte(nil), mb...)
	binary.LittleEndian.PutUint32(v2[8:], 2)
	fails(t, 1, []string{"v2.cvar", "version 2"}, "eval", "-in", w("v2.cvar", string(v2)), "-data", good)
	bad := append([]byte(nil), mb...)
	bad[len(bad)-10] ^= 1
	fails(t, 1, []string{"bad.cvar", "checksum"}, "predict", "-in", w("bad.cvar", string(bad)), "-data", good)
	fails(t, 1, []string{"good.csv", "not a cvar model file"}, "eval", "-in", good, "-data", good)

	// Usage errors: exit 2.
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-alpha", "0"}, []string{"-alpha", "outside (0, 1]"}},
		{[]string{"train", "-alpha", "1.5"}, []string{"-alpha", "outside (0, 1]"}},
		{[]string{"train", "-alpha", "NaN"}, []string{"-alpha", "outside (0, 1]"}},
		{[]string{"experiment", "-alpha", "-0.1"}, []string{"-alpha"}},
		{[]string{"eval", "-in", model, "-alphas", "0.05,2"}, []string{"-alphas", "outside (0, 1]"}},
		{[]string{"train", "-model", "foo"}, []string{"-model", `"foo"`, "logistic"}},
		{[]string{"train", "-method", "bar"}, []string{"-method", `"bar"`, "alg3"}},
		{[]string{"train", "-precision", "f16"}, []string{"-precision", `"f16"`, "f32"}},
		{[]string{"experiment", "-model", "foo"}, []string{"-model", `"foo"`}},
		{[]string{"train", "-format", "xml"}, []string{"-format", `"xml"`}},
		{[]string{"train", "-smooth", "cubic"}, []string{"-smooth"}},
		{[]string{"experiment", "-format-out", "html"}, []string{"-format-out"}},
		{[]string{"experiment", "-plot-format", "gif"}, []string{"-plot-format"}},
		{[]string{"train", "-nope"}, []string{"-nope"}},
		{[]string{"train", "stray"}, []string{`"stray"`}},
		{[]string{"train", "-radius", "3", "-box", "-1,1"}, []string{"-radius", "-box"}},
		{[]string{"train", "-box", "1"}, []string{"-box"}},
		{[]string{"train", "-method", "alg4", "-radius", "3"}, []string{"alg4"}},
		{[]string{"train", "-method", "alg1", "-batch", "8"}, []string{"-batch"}},
		{[]string{"train", "-stream"}, []string{"-stream"}},
		{[]string{"train", "-lr", "-1"}, []string{"-lr"}},
		{[]string{"train", "-alpha", "0.1", "-alpha", "2"}, []string{"-alpha"}},
		{[]string{"eval"}, []string{"-in is required"}},
		{[]string{"predict"}, []string{"-in is required"}},
		{[]string{"experiment", "-seeds", "0"}, []string{"-seeds"}},
		{[]string{"experiment", "-lrs", "0.1,x"}, []string{"-lrs"}},
	} {
		fails(t, 2, c.want, c.args...)
	}
}

func TestExperiment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plotDir := filepath.Join(dir, "plots")
	args := []string{"experiment", "-n", "600", "-epochs", "3", "-seeds", "2", "-lrs", "0.01,0.005", "-wds", "0,0.001", "-alpha", "0.1"}
	out := ok(t, append(args, "-json", "-plot", plotDir)...)
	var rows []map[string]any
	decodeJSON(t, out, &rows)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	methods := []string{"vanilla", "minibatch", "alg3"}
	for i, r := range rows {
		if r["dataset"] != "synthetic-classification" || r["method"] != methods[i] || r["alpha"] != 0.1 {
			t.Errorf("row %d: dataset %v, method %v, alpha %v", i, r["dataset"], r["method"], r["alpha"])
		}
		for _, k := range []string{"cvar_0.05", "cvar_0.1", "accuracy", "mean_loss"} {
			m, okm := r[k].(map[string]any)
			if !okm {
				t.Fatalf("row %d: %s is %v", i, k, r[k])
			}
			mean, ok1 := m["mean"].(float64)
			std, ok2 := m["std"].(float64)
			if !ok1 || !ok2 || std < 0 {
				t.Errorf("row %d: %s = %v", i, k, m)
			}
			if i == 0 && k != "accuracy" && (mean != 1 || std != 0) {
				t.Errorf("vanilla's normalised %s is %v ± %v, want 1 ± 0", k, mean, std)
			}
			if k == "accuracy" && !(mean > 0.5 && mean <= 1) {
				t.Errorf("row %d: accuracy %v", i, mean)
			}
		}
		if sel := r["selected"].([]any); len(sel) != 2 {
			t.Errorf("row %d: selected %v", i, sel)
		}
	}
	for _, name := range []string{"synthetic-classification-curves.png", "synthetic-classification-tails.png"} {
		f, err := os.Open(filepath.Join(plotDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f.Close()
	}
	// Figures are not replaced without -force.
	fails(t, 1, []string{"curves.png", "exists"}, append(args, "-plot", plotDir)...)

	// The table formats, and several data files with SVG figures.
	if out := ok(t, append(args, "-seeds", "1")...); !strings.Contains(out, "CVaR-SGD") || !strings.Contains(out, "1.000 ± 0.000") {
		t.Errorf("text table:\n%s", out)
	}
	if out := ok(t, append(args, "-seeds", "1", "-format-out", "markdown")...); !strings.Contains(out, "| synthetic-classification | Vanilla-SGD | 1.000 ± 0.000 |") {
		t.Errorf("markdown table:\n%s", out)
	}
	csvOut := readCSV(t, ok(t, append(args, "-seeds", "1", "-format-out", "csv")...))
	if len(csvOut) != 4 || csvOut[0][3] != "cvar_0.05_mean" || csvOut[1][3] != "1" {
		t.Errorf("csv table: %v", csvOut)
	}
	// Regression: no accuracy.
	decodeJSON(t, ok(t, "experiment", "-model", "linear", "-n", "400", "-epochs", "2", "-seeds", "1", "-json", "-alpha", "0.1"), &rows)
	if len(rows) != 3 || rows[2]["dataset"] != "synthetic-regression" || rows[2]["accuracy"].(map[string]any)["mean"] != nil {
		t.Errorf("regression experiment: %v", rows)
	}
	a := write(t, dir, "a.csv", classCSV(150, 1, true))
	b := write(t, dir, "b.svm", svmFile(150, 2, false))
	decodeJSON(t, ok(t, "experiment", "-data", a+","+b, "-epochs", "2", "-seeds", "1", "-lrs", "0.01", "-wds", "0", "-alpha", "0.1",
		"-json", "-plot", filepath.Join(dir, "svg"), "-plot-format", "svg"), &rows)
	if len(rows) != 6 || rows[0]["dataset"] != "a.csv" || rows[3]["dataset"] != "b.svm" {
		t.Errorf("two data sets: %v", rows)
	}
	if _, err := os.Stat(filepath.Join(dir, "svg", "b.svm-tails.svg")); err != nil {
		t.Error(err)
	}
}

// TestTrainTune checks train -tune: every setting of the grid is reported
// (the default blend's trims too), the pick is the largest validation
// accuracy among them, ties by the smallest CVaR_α (-select cvar: the
// smallest CVaR_α; -select loss: mean loss), and the model reported is
// the pick's.
func TestTrainTune(t *testing.T) {
	t.Parallel()
	var r struct {
		trainJSON
		Tune struct {
			Select string `json:"select"`
			Best   int    `json:"best"`
			Trials []struct {
				LR, WD, Eps float64
				Trim        float64 `json:"trim"`
				CVaR        float64 `json:"cvar"`
				MeanLoss    float64 `json:"mean_loss"`
				Accuracy    float64 `json:"accuracy"`
			} `json:"trials"`
		} `json:"tune"`
	}
	decodeJSON(t, ok(t, "train", "-n", "1500", "-tune", "-tune-lrs", "0.003,0.03", "-tune-wds", "0,0.001", "-json"), &r)
	grid := cvar.Grid{}.WithDefaults()
	if len(r.Tune.Trials) != 2*2*len(grid.EpsFraction)*len(grid.Trim) || r.Tune.Select != "accuracy" {
		t.Fatalf("tune: %+v", r.Tune)
	}
	best := r.Tune.Trials[r.Tune.Best]
	trims := map[float64]bool{}
	for i, tr := range r.Tune.Trials {
		trims[tr.Trim] = true
		if tr.Accuracy > best.Accuracy || tr.Accuracy == best.Accuracy && tr.CVaR < best.CVaR {
			t.Errorf("trial %d: accuracy %v, CVaR %v beat the pick's %v, %v", i, tr.Accuracy, tr.CVaR, best.Accuracy, best.CVaR)
		}
	}
	if len(trims) != len(grid.Trim) {
		t.Errorf("trims tried %v, want %v", trims, grid.Trim)
	}
	if got := *r.Metrics["validation"]["cvar_0.1"]; math.Abs(got-best.CVaR) > 1e-9 {
		t.Errorf("validation CVaR_0.1 %v, the pick's %v", got, best.CVaR)
	}
	if r.Params["lr_from"] != "tuned" {
		t.Errorf("lr_from %v", r.Params["lr_from"])
	}
	decodeJSON(t, ok(t, "train", "-n", "1500", "-objective", "cvar", "-tune", "-tune-lrs", "0.003,0.03", "-select", "cvar", "-json"), &r)
	best = r.Tune.Trials[r.Tune.Best]
	for i, tr := range r.Tune.Trials {
		if tr.CVaR < best.CVaR {
			t.Errorf("-select cvar: trial %d: CVaR %v below the pick's %v", i, tr.CVaR, best.CVaR)
		}
	}
	decodeJSON(t, ok(t, "train", "-n", "1500", "-method", "vanilla", "-tune", "-tune-lrs", "0.003,0.03", "-select", "loss", "-json"), &r)
	best = r.Tune.Trials[r.Tune.Best]
	for _, tr := range r.Tune.Trials {
		if tr.MeanLoss < best.MeanLoss {
			t.Errorf("-select loss picked mean loss %v over %v", best.MeanLoss, tr.MeanLoss)
		}
	}
	fails(t, 2, []string{"-tune"}, "train", "-tune", "-lr", "0.1")
}

// TestExperimentAlphas runs the paper's protocol with two α (the default):
// the CVaR methods run at each, -select picks by loss or CVaR, and a line
// per α says whether CVaR-SGD's CVaRs are below the baselines'. On the
// built-in data with the paper's 100 epochs CVaR-SGD's CVaR_0.1 must be at
// most 0.85× Vanilla-SGD's, at an accuracy no lower.
func TestExperimentAlphas(t *testing.T) {
	t.Parallel()
	var rows []map[string]any
	decodeJSON(t, ok(t, "experiment", "-seeds", "1", "-json"), &rows)
	want := []struct {
		method string
		alpha  float64
	}{{"vanilla", 0.05}, {"minibatch", 0.05}, {"alg3", 0.05}, {"minibatch", 0.1}, {"alg3", 0.1}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i]["method"] != w.method || rows[i]["alpha"] != w.alpha {
			t.Errorf("row %d: %v at α %v, want %s at %v", i, rows[i]["method"], rows[i]["alpha"], w.method, w.alpha)
		}
	}
	mean := func(r map[string]any, k string) float64 { return r[k].(map[string]any)["mean"].(float64) }
	alg3 := rows[4]
	if c := mean(alg3, "cvar_0.1"); !(c <= 0.85) {
		t.Errorf("CVaR-SGD's CVaR_0.1 is %.3f× Vanilla-SGD's, want ≤ 0.85", c)
	}
	if mean(alg3, "accuracy") < mean(rows[0], "accuracy") {
		t.Errorf("CVaR-SGD accuracy %.3f below Vanilla-SGD's %.3f", mean(alg3, "accuracy"), mean(rows[0], "accuracy"))
	}
	below, _ := alg3["below"].(map[string]any)
	if below["vanilla"] != true {
		t.Errorf("CVaR-SGD below: %v", alg3["below"])
	}
	text := ok(t, "experiment", "-seeds", "1", "-epochs", "20", "-select", "cvar")
	for _, w := range []string{"CVaR-SGD (α = 0.05)", "selected by validation CVaR_α", "α = 0.1: CVaR-SGD's CVaRs are below Vanilla-SGD's"} {
		if !strings.Contains(text, w) {
			t.Errorf("experiment -select cvar output lacks %q:\n%s", w, text)
		}
	}
	fails(t, 2, []string{"-select"}, "experiment", "-select", "median")
}

// TestRegressionTargetScale trains least squares on a CSV whose targets
// are in the hundreds: with standardised targets (the default) Vanilla-SGD
// beats predicting the mean, and every figure is in the target's units; with
// -scale-target none the same run is left far behind.
func TestRegressionTargetScale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	var ys []float64
	for i := 0; i < 900; i++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 400 + 60*x[0] - 30*x[1] + 10*x[2] + 5*rng.NormFloat64()
		ys = append(ys, y)
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", x[0], x[1], x[2], y)
	}
	path := write(t, dir, "hundreds.csv", b.String())
	var sum, sq float64
	for _, y := range ys {
		sum += y
	}
	mu := sum / float64(len(ys))
	for _, y := range ys {
		sq += (y - mu) * (y - mu)
	}
	meanPredictor := sq / float64(len(ys)) / 2 // ½(y − ȳ)² on average
	run := func(extra ...string) trainJSON {
		var r trainJSON
		decodeJSON(t, ok(t, append([]string{"train", "-data", path, "-model", "linear", "-method", "vanilla", "-epochs", "100", "-json"}, extra...)...), &r)
		return r
	}
	std, raw := run(), run("-scale-target", "none")
	sm, rm := *std.Metrics["validation"]["mean_loss"], *raw.Metrics["validation"]["mean_loss"]
	if !(sm < 0.05*meanPredictor) {
		t.Errorf("standardised targets: validation mean loss %.4g, predicting the mean %.4g", sm, meanPredictor)
	}
	if !(rm > 2*sm) {
		t.Errorf("raw targets: validation mean loss %.4g, standardised %.4g: want the raw run far behind", rm, sm)
	}
	// -stream standardises the target the same way.
	var st, sr trainJSON
	decodeJSON(t, ok(t, "train", "-data", path, "-model", "lad", "-method", "alg1", "-stream", "-epochs", "3", "-json"), &st)
	decodeJSON(t, ok(t, "train", "-data", path, "-model", "lad", "-method", "alg1", "-stream", "-epochs", "3", "-json", "-scale-target", "none"), &sr)
	if s, r := *st.Metrics["validation"]["mean_loss"], *sr.Metrics["validation"]["mean_loss"]; !(s < 0.2*r) || !(s < 30) {
		t.Errorf("-stream: validation mean absolute error %.4g standardised, %.4g raw", s, r)
	}
	// The model file predicts in the target's units.
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", path, "-model", "linear", "-method", "alg3", "-epochs", "50", "-o", model)
	pred := readCSV(t, ok(t, "predict", "-in", model, "-data", path))
	var errSum float64
	if pred[0][1] != "value" {
		t.Fatalf("predict header %v", pred[0])
	}
	for i, rec := range pred[1:] {
		p, err := strconv.ParseFloat(rec[1], 64)
		if err != nil {
			t.Fatalf("prediction %q: %v", rec, err)
		}
		errSum += math.Abs(p - ys[i])
	}
	if mae := errSum / float64(len(ys)); !(mae < 20) {
		t.Errorf("predictions' mean absolute error %.3g in the target's units, want < 20 (targets ≈ 400 ± 70)", mae)
	}
}

// TestBinary builds the program and runs it once as a process.
func TestBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	exe := filepath.Join(t.TempDir(), "cvar")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	// Build for the architecture the test runs on: under
	// "GOARCH=arm64 go test -exec qemu-aarch64-static" that is arm64, whose
	// binary then also needs the emulator.
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "GOARCH="+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	args := []string{"train", "-n", "300", "-epochs", "1", "-json"}
	run := func(name string, args ...string) ([]byte, string, error) {
		cmd := exec.Command(name, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		return out, stderr.String(), err
	}
	out, stderr, err := run(exe, args...)
	if errors.Is(err, syscall.ENOEXEC) {
		qemu, lerr := exec.LookPath("qemu-" + map[string]string{"arm64": "aarch64", "amd64": "x86_64"}[runtime.GOARCH] + "-static")
		if lerr != nil {
			t.Skipf("cannot run a %s binary here: %v", runtime.GOARCH, err)
		}
		out, stderr, err = run(qemu, append([]string{exe}, args...)...)
	}
	if err != nil || stderr != "" {
		t.Fatalf("cvar train: %v, stderr %q", err, stderr)
	}
	var r trainJSON
	decodeJSON(t, string(out), &r)
	if r.Metrics["validation"] == nil {
		t.Error("no validation metrics")
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csvFile := write(t, dir, "s.csv", strings.ReplaceAll(strings.ReplaceAll(classCSV(300, 5, true), ",cat\n", ",0\n"), ",dog\n", ",1\n"))
	svm := write(t, dir, "s.svm", svmFile(300, 6, false))
	model := filepath.Join(dir, "s.cvar")
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", csvFile, "-stream", "-method", "alg1", "-json", "-o", model), &r)
	if r.Model.Kind != "logistic" || r.Params["steps"].(float64) < 150 || r.Metrics["validation"] == nil {
		t.Errorf("stream: %+v", r)
	}
	if acc := *r.Metrics["validation"]["accuracy"]; acc < 0.75 {
		t.Errorf("streamed alg1: validation accuracy %v", acc)
	}
	// The streamed model is an ordinary model file.
	ok(t, "eval", "-in", model, "-data", csvFile, "-bootstrap", "10")
	decodeJSON(t, ok(t, "train", "-data", svm, "-stream", "-method", "alg4", "-lr", "0.05", "-eps", "0.1", "-epochs", "2", "-json", "-precision", "f32"), &r)
	if r.Params["steps"].(float64) < 300 || strings.Join(r.Model.Classes, ",") != "-1,1" {
		t.Errorf("stream alg4: steps %v, classes %v", r.Params["steps"], r.Model.Classes)
	}
	decodeJSON(t, ok(t, "train", "-data", write(t, dir, "r.svm", svmFile(200, 7, true)), "-stream", "-method", "alg1", "-model", "lad", "-json"), &r)
	if r.Model.Kind != "lad" {
		t.Errorf("stream regression: %s", r.Model.Kind)
	}
	fails(t, 1, []string{"bad.csv:4", "not a finite number"}, "train", "-stream", "-method", "alg1",
		"-data", write(t, dir, "bad.csv", "a,b,y\n1,2,0\n2,1,1\n1,inf,0\n"))
	fails(t, 2, []string{"-stream"}, "train", "-stream", "-method", "alg3", "-data", csvFile)
	fails(t, 2, []string{"-stream", "idx"}, "train", "-stream", "-method", "alg1", "-data", filepath.Dir(idxPair(t, t.TempDir(), 10, false)))
}

func TestProgress(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := newProgress(&env{stderr: &b, tty: true}, "work", 4)
	for range 4 {
		p.add(1)
	}
	p.finish()
	if s := b.String(); !strings.Contains(s, "work [") || !strings.Contains(s, "100% 4/4") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("progress on a terminal: %q", s)
	}
	b.Reset()
	p = newProgress(&env{stderr: &b}, "work", 4)
	p.add(4)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("progress when stderr is not a terminal: %q", b.String())
	}
	if isTerminal(&b) {
		t.Error("a buffer is not a terminal")
	}
}

// TestMissingOutputDirectory: a -o in a directory that does not exist is
// found before training, not after it.
func TestMissingOutputDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "no", "such", "m.cvar")
	fails(t, 1, []string{out, "does not exist"}, "train", "-n", "300", "-epochs", "1000", "-method", "vanilla", "-o", out)
	fails(t, 1, []string{"does not exist"}, "predict", "-in", filepath.Join(dir, "none.cvar"), "-o", out)
}

// TestResourceFlags: -threads beyond the cores is clamped to them (the
// program never starts more workers than it can run), negative -threads is
// a usage error for every command, and -bootstrap is bounded.
func TestResourceFlags(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-o", model, "-threads", "100000")
	// Watch the number of goroutines while eval runs with 100 000 threads.
	stop, peak := make(chan struct{}), make(chan int)
	go func() {
		m := 0
		for {
			m = max(m, runtime.NumGoroutine())
			select {
			case <-stop:
				peak <- m
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	ok(t, "eval", "-in", model, "-threads", "100000", "-bootstrap", "2000")
	close(stop)
	if p := <-peak; p > 1000 {
		t.Errorf("eval -threads 100000 ran %d goroutines at once", p)
	}
	for _, cmd := range [][]string{
		{"predict", "-in", model}, {"eval", "-in", model}, {"train"}, {"experiment"},
	} {
		fails(t, 2, []string{"-threads -1"}, append(cmd, "-threads", "-1")...)
	}
	fails(t, 2, []string{"-bootstrap 100001", "0..100000"}, "eval", "-in", model, "-bootstrap", "100001")
	fails(t, 2, []string{"-bootstrap -1"}, "eval", "-in", model, "-bootstrap", "-1")
	if n, err := threadsFlag(1 << 30); err != nil || n != runtime.GOMAXPROCS(0) {
		t.Errorf("threadsFlag(2^30) = %d, %v; want GOMAXPROCS %d", n, err, runtime.GOMAXPROCS(0))
	}
}

// TestLimitStopsReading: -limit N reads the first N samples of a CSV or
// LIBSVM file and nothing after them: a broken line further down (in a
// file of many megabytes) is never reached, and eval and predict stop too.
func TestLimitStopsReading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(classCSV(200, 1, true))
	b.WriteString("1,2,3,broken,line\n")
	for b.Len() < 8<<20 {
		b.WriteString("0.5,0.25,10,cat\n")
	}
	big := write(t, dir, "big.csv", b.String())
	model := filepath.Join(dir, "m.cvar")
	fails(t, 1, []string{"big.csv:202", "5 fields"}, "train", "-data", big, "-epochs", "1")
	ok(t, "train", "-data", big, "-limit", "150", "-epochs", "1", "-o", model)
	ok(t, "eval", "-in", model, "-data", big, "-limit", "150", "-bootstrap", "10")
	if recs := readCSV(t, ok(t, "predict", "-in", model, "-data", big, "-limit", "150")); len(recs) != 151 {
		t.Errorf("predict -limit 150: %d records", len(recs))
	}
	unl := write(t, dir, "unl.csv", "x1,x2,x3\n1,2,3\n4,5,6\n1,2\n")
	if recs := readCSV(t, ok(t, "predict", "-in", model, "-data", unl, "-limit", "2")); len(recs) != 3 {
		t.Errorf("predict -limit 2 without targets: %d records", len(recs))
	}
	b.Reset()
	b.WriteString(svmFile(200, 1, false))
	b.WriteString("1 3:1 2:1\n")
	for b.Len() < 8<<20 {
		b.WriteString("-1 1:0.5 4:1\n")
	}
	bigSVM := write(t, dir, "big.svm", b.String())
	fails(t, 1, []string{"big.svm:201", "strictly increasing"}, "train", "-data", bigSVM, "-epochs", "1")
	ok(t, "train", "-data", bigSVM, "-limit", "150", "-epochs", "1")
}

// TestMemoryPolicy: inputs and flags that would need more memory than
// -max-memory fail at once with the sizes and the flag that raises the
// bound, instead of running out of memory.
func TestMemoryPolicy(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 1500 {
		if i%2 == 0 {
			b.WriteString("0 1048576:1\n")
		} else {
			b.WriteString("1 1:1\n")
		}
	}
	wide := write(t, dir, "wide.svm", b.String())
	fails(t, 1, []string{"wide.svm", "1500 samples × 1048576 features", "12582912000 bytes", "-max-memory"}, "train", "-data", wide, "-sparse", "0")
	fails(t, 1, []string{"wide.svm", "1500 samples × 1048576 features", "float32", "6291456000 bytes"}, "train", "-data", wide, "-precision", "f32", "-max-memory", "5GiB", "-sparse", "0")
	// By default the file is held sparse, in memory proportional to its non-zeros.
	ok(t, "train", "-data", wide, "-method", "vanilla", "-epochs", "1", "-max-memory", "256MiB")
	// -limit reads fewer rows, which then fit.
	ok(t, "train", "-data", wide, "-limit", "2", "-method", "vanilla", "-epochs", "1")
	// The built-in data and the model are bounded too.
	fails(t, 1, []string{"-n 100000000", "-d 1000", "-max-memory"}, "train", "-n", "100000000", "-d", "1000")
	fails(t, 1, []string{"-hidden 100000000", "-max-memory"}, "train", "-n", "300", "-model", "mlp", "-hidden", "100000000")
	fails(t, 1, []string{"-hidden 100000000", "-max-memory"}, "experiment", "-n", "300", "-model", "mlp", "-hidden", "100000000")
	fails(t, 1, []string{"data.csv", "at least", "-max-memory"}, "train", "-data", write(t, dir, "data.csv", classCSV(300, 1, true)), "-max-memory", "1KiB")
	fails(t, 2, []string{"-max-memory", `"lots"`}, "train", "-max-memory", "lots")
	ok(t, "train", "-n", "300", "-epochs", "1", "-max-memory", "0")
	for s, want := range map[string]int64{"0": 0, "512": 512, "1KB": 1000, "1.5GiB": 3 << 29, "2G": 2 << 30, "3mb": 3e6} {
		var v byteSize
		if err := v.Set(s); err != nil || int64(v) != want {
			t.Errorf("byteSize %q = %d, %v; want %d", s, v, err, want)
		}
	}
}

// TestMessagesNameCause: a LIBSVM file that looks like CSV, label-only
// LIBSVM lines and a corrupt gzip file give messages that name the file
// and the cause, not a consequence of it.
func TestMessagesNameCause(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csvFile := write(t, dir, "d.csv", classCSV(50, 1, true))
	fails(t, 1, []string{"d.csv:1: ", "looks like CSV", "label index:value"}, "train", "-data", csvFile, "-format", "libsvm")
	fails(t, 1, []string{"labels.svm:1: ", "no index:value pairs"}, "train", "-data", write(t, dir, "labels.svm", "1\n0\n1\n"))
	fails(t, 1, []string{"labels2.svm", "no line has index:value pairs"}, "train", "-stream", "-method", "alg1", "-data", write(t, dir, "labels2.svm", "1\n0\n1\n"))
	// A corrupt gzip file is a gzip error, whatever the garbage looks like.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(classCSV(2000, 1, true)))
	zw.Close()
	gz := buf.Bytes()
	gz[len(gz)/2] ^= 0xff
	bad := write(t, dir, "bad.csv.gz", string(gz))
	fails(t, 1, []string{"bad.csv.gz", "gzip"}, "train", "-data", bad)
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", csvFile, "-o", model, "-epochs", "1")
	fails(t, 1, []string{"bad.csv.gz", "gzip"}, "eval", "-in", model, "-data", bad)
	fails(t, 1, []string{"bad.csv.gz", "gzip"}, "predict", "-in", model, "-data", bad)
}

// TestEvalErrorsNameItsFlags: eval's and predict's errors about a model's
// built-in data do not name train's flags (-d), which they do not have.
func TestEvalErrorsNameItsFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-method", "vanilla", "-o", model)
	m, err := modelio.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	syn, err := synthOf(m.Source)
	if err != nil {
		t.Fatal(err)
	}
	syn.D, syn.Classes = 3, 2 // too few features for 2 classes
	syn.put(&m.Source)
	f, _ := os.Create(filepath.Join(dir, "odd.cvar"))
	if err := cvar.SaveModel(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, cmd := range []string{"eval", "predict"} {
		_, errOut, code := cli(t, cmd, "-in", filepath.Join(dir, "odd.cvar"))
		if code == 0 || strings.Contains(errOut, "-d ") || strings.Contains(errOut, "see cvar") {
			t.Errorf("%s: exit %d, stderr %q names a flag it does not have", cmd, code, errOut)
		}
	}
	fails(t, 2, []string{"-d 3"}, "train", "-d", "3")
}

// TestIDXSingleClass: IDX labels of a single class are rejected like the
// same labels in a CSV file, though the IDX reader names ten classes.
func TestIDXSingleClass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idxPair(t, dir, 30, false)
	lbl := binary.BigEndian.AppendUint32(nil, 0x801)
	lbl = binary.BigEndian.AppendUint32(lbl, 30)
	lbl = append(lbl, bytes.Repeat([]byte{7}, 30)...)
	os.WriteFile(filepath.Join(dir, "train-labels-idx1-ubyte"), lbl, 0o644)
	fails(t, 1, []string{"train-labels-idx1-ubyte", `every label is "7"`, "two classes"}, "train", "-data", dir)
	fails(t, 1, []string{"one.csv", `every label is "7"`, "two classes"}, "train", "-data", write(t, dir, "one.csv", "a,b,y\n1,2,7\n3,4,7\n5,6,7\n"))
}

// TestStreamSplitsLikeMemory: -stream and in-memory training split a file
// the same way for the same -seed, and both accept two rows.
func TestStreamSplitsLikeMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The target is the row's index, and a tiny step leaves θ ≈ 0, so each
	// row's LAD loss is its index: the metrics of each split then tell
	// which rows it holds.
	var b strings.Builder
	b.WriteString("x1,x2,y\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%7, i%5, i)
	}
	data := write(t, dir, "rows.csv", b.String())
	for _, seed := range []string{"1", "7"} {
		args := []string{"train", "-data", data, "-model", "lad", "-method", "alg1", "-lr", "1e-300", "-scale", "none", "-seed", seed, "-json"}
		var mem, str trainJSON
		decodeJSON(t, ok(t, args...), &mem)
		decodeJSON(t, ok(t, append(args, "-stream")...), &str)
		for _, set := range []string{"training", "validation"} {
			for _, k := range []string{"n", "mean_loss", "cvar_0.05", "cvar_0.1", "var_0.1"} {
				m, s := mem.Metrics[set][k], str.Metrics[set][k]
				if m == nil || s == nil || math.Abs(*m-*s) > 1e-9*math.Max(1, math.Abs(*m)) {
					t.Errorf("seed %s, %s %s: in memory %v, streamed %v", seed, set, k, deref(m), deref(s))
				}
			}
		}
	}
	two := write(t, dir, "two.csv", "a,b,y\n1,2,0\n3,1,1\n")
	for _, extra := range [][]string{nil, {"-stream"}} {
		var r trainJSON
		decodeJSON(t, ok(t, append([]string{"train", "-data", two, "-method", "alg1", "-lr", "0.01", "-json"}, extra...)...), &r)
		if n := r.Metrics["validation"]["n"]; n == nil || *n != 1 {
			t.Errorf("two rows %v: validation n %v", extra, deref(n))
		}
	}
	fails(t, 1, []string{"one.csv", "1 samples cannot be split"}, "train", "-data", write(t, dir, "one.csv", "a,b,y\n1,2,0\n"), "-method", "alg1", "-stream")
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestExperimentDivergence: experiment names every run that diverged, and
// fails (exit 1, nothing on stdout) when all of them did.
func TestExperimentDivergence(t *testing.T) {
	t.Parallel()
	args := []string{"experiment", "-n", "300", "-epochs", "2", "-seeds", "2", "-wds", "0", "-json", "-alpha", "0.1"}
	out, errOut, code := cli(t, append(args, "-lrs", "1e300")...)
	if code != 1 || out != "" {
		t.Errorf("every run diverged: exit %d, stdout %q", code, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 7 || !strings.Contains(lines[6], "all 6 training runs diverged") {
		t.Fatalf("stderr: %q", errOut)
	}
	for _, l := range lines[:6] {
		if !strings.Contains(l, "synthetic-classification, seed ") || !strings.Contains(l, "with lr 1e+300, wd 0: training diverged") {
			t.Errorf("run line %q", l)
		}
	}
	// Some runs diverged: exit 0, each named on stderr and in -json.
	out, errOut, code = cli(t, append(args, "-lrs", "1e300,0.01")...)
	if code != 0 || strings.Count(errOut, "training diverged") != 6 {
		t.Errorf("half the runs diverged: exit %d, stderr %q", code, errOut)
	}
	var rows []struct {
		Failed   int `json:"failed_runs"`
		Diverged []struct {
			Seed  int     `json:"seed"`
			LR    float64 `json:"lr"`
			Error string  `json:"error"`
		} `json:"diverged"`
	}
	decodeJSON(t, out, &rows)
	for _, r := range rows {
		if r.Failed != 2 || len(r.Diverged) != 2 || r.Diverged[0].LR != 1e300 || !strings.Contains(r.Diverged[1].Error, "diverged") {
			t.Errorf("row %+v", r)
		}
	}
}
