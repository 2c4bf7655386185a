package cvarbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// TestMain parses Beam's flags (--runner: Prism, in-process, by default)
// and lets Beam take over when the test binary is started as a worker.
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// testModel trains a logistic model on built-in data of d features, with
// the z-score of those rows as its preprocessing, and returns its file.
func testModel(t *testing.T, d int, precision string) *cvar.ModelFile {
	t.Helper()
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: 400, D: d, Classes: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	st, err := dataset.FitStandardizer(ds)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.StandardizeInPlace(st, ds); err != nil {
		t.Fatal(err)
	}
	data, err := ds.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewModel[float64](batch.KindLogistic, d, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cvar.Train(model, data, cvar.Options{Method: cvar.Alg3, Steps: 50, Batch: 32, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, len(res.Theta))
	for i, v := range res.Theta {
		theta[i] = v
		if precision == cvar.F32 {
			theta[i] = float64(float32(v))
		}
	}
	return &cvar.ModelFile{
		Kind: batch.KindLogistic, D: d, K: 2, Precision: precision, Theta: theta, Tau: res.Tau,
		Alpha: 0.1, Method: cvar.Alg3, Classes: ds.Classes, Features: ds.Features,
		Preprocessing: dataset.Preprocessing{Mean: st.Mean, Scale: st.Scale}, Params: res.Params,
		Source: cvar.Provenance{Kind: "csv", Name: "train.csv", N: ds.N},
	}
}

// testRows draws n rows of d features from other built-in data (another
// seed) as CSV lines with their label, with no header.
func testRows(t *testing.T, n, d int) []string {
	t.Helper()
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: max(n, 2), D: d, Classes: 2, Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, n)
	for i := range n {
		var b strings.Builder
		for _, v := range ds.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(ds.Classes[ds.Labels[i]])
		lines[i] = b.String()
	}
	return lines
}

func csvHeader(d int) string {
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("label")
	return b.String()
}

// writeShards writes the rows into files of the sizes given (a size 0 is
// a file with its header only), gzip-compressing those whose name ends in
// .gz, and returns the glob that names them.
func writeShards(t *testing.T, dir string, header string, rows []string, sizes []int, ext string) string {
	t.Helper()
	at := 0
	for i, n := range sizes {
		var b bytes.Buffer
		if header != "" {
			b.WriteString(header + "\n")
		}
		for _, r := range rows[at : at+n] {
			b.WriteString(r + "\n")
		}
		at += n
		name := filepath.Join(dir, fmt.Sprintf("part-%03d%s", i, ext))
		content := b.Bytes()
		if strings.HasSuffix(ext, ".gz") {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(content)
			w.Close()
			content = z.Bytes()
		}
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if at != len(rows) {
		t.Fatalf("shard sizes hold %d of %d rows", at, len(rows))
	}
	return filepath.Join(dir, "part-*"+ext)
}

// reference evaluates m on the rows read as one CSV file, as cvar eval does.
func reference[T batch.Float](t *testing.T, m *cvar.ModelFile, header string, rows []string, alphas []float64) cvar.Metrics {
	t.Helper()
	text := header + "\n" + strings.Join(rows, "\n") + "\n"
	ds, err := dataset.ReadCSV[T](strings.NewReader(text), "all.csv", dataset.CSVOptions{Classes: m.Classes})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.PreprocessDataset(&m.Preprocessing, ds); err != nil {
		t.Fatal(err)
	}
	data, err := ds.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cvar.Evaluate(model, theta, data, alphas...)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func close9(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func checkMetrics(t *testing.T, what string, got, want cvar.Metrics) {
	t.Helper()
	if got.N != want.N || !close9(got.MeanLoss, want.MeanLoss) || !close9(got.Accuracy, want.Accuracy) {
		t.Errorf("%s: n %d, mean loss %v, accuracy %v; cvar.Evaluate: %d, %v, %v", what, got.N, got.MeanLoss, got.Accuracy, want.N, want.MeanLoss, want.Accuracy)
	}
	if len(got.Tails) != len(want.Tails) {
		t.Fatalf("%s: %d tails, want %d", what, len(got.Tails), len(want.Tails))
	}
	for j, w := range want.Tails {
		g := got.Tails[j]
		if g.Alpha != w.Alpha || !close9(g.CVaR, w.CVaR) || !close9(g.VaR, w.VaR) {
			t.Errorf("%s: α = %v: CVaR %v, VaR %v; cvar.Evaluate: %v, %v", what, w.Alpha, g.CVaR, g.VaR, w.CVaR, w.VaR)
		}
	}
}

func TestEvaluateEqualsLibrary(t *testing.T) {
	const d = 6
	alphas := []float64{0.05, 0.1, 0.29, 1}
	cases := []struct {
		name  string
		sizes []int
		ext   string
		prec  string
	}{
		{"one shard, αn whole", []int{200}, ".csv", cvar.F64},
		{"three shards, one of one row", []int{120, 1, 79}, ".csv", cvar.F64},
		{"four shards, one empty, αn not whole", []int{50, 0, 100, 53}, ".csv", cvar.F64},
		{"eight gzip shards, f32", []int{30, 20, 40, 10, 25, 25, 25, 28}, ".csv.gz", cvar.F32},
		{"a single row", []int{1}, ".csv", cvar.F64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testModel(t, d, c.prec)
			n := 0
			for _, s := range c.sizes {
				n += s
			}
			rows := testRows(t, n, d)
			glob := writeShards(t, t.TempDir(), csvHeader(d), rows, c.sizes, c.ext)
			got, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}, Alphas: alphas, Batch: 37}, &Runner{})
			if err != nil {
				t.Fatal(err)
			}
			var want cvar.Metrics
			if c.prec == cvar.F32 {
				want = reference[float32](t, m, csvHeader(d), rows, alphas)
			} else {
				want = reference[float64](t, m, csvHeader(d), rows, alphas)
			}
			checkMetrics(t, c.name, got, want)
		})
	}
}

// Files read in parts of a few hundred bytes give the same metrics, and a
// bad row in a later part is named by its line in the file.
func TestEvaluateSplitsAndErrors(t *testing.T) {
	const d = 5
	m := testModel(t, d, cvar.F64)
	rows := testRows(t, 301, d)
	dir := t.TempDir()
	glob := writeShards(t, dir, csvHeader(d), rows, []int{150, 151}, ".csv")
	alphas := []float64{0.01, 0.1}
	got, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob, SplitSize: 700}, Alphas: alphas}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, "parts of 700 bytes", got, reference[float64](t, m, csvHeader(d), rows, alphas))

	bad := append([]string(nil), rows...)
	bad[100+40] = strings.Replace(bad[100+40], ",", ",x", 1) // file 2, data row 41: line 42
	glob = writeShards(t, t.TempDir(), csvHeader(d), bad, []int{100, 201}, ".csv")
	_, err = Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob, SplitSize: 500}, Alphas: alphas}, &Runner{})
	if err == nil || !strings.Contains(err.Error(), "part-001.csv:42:") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a bad cell at line 42 of part-001.csv: got %v", err)
	}
}

// A model of another width is refused before the pipeline runs.
func TestEvaluateRefusesOtherWidth(t *testing.T) {
	m := testModel(t, 5, cvar.F64)
	rows := testRows(t, 20, 6)
	glob := writeShards(t, t.TempDir(), csvHeader(6), rows, []int{10, 10}, ".csv")
	ran := false
	r := &Runner{Run: func(context.Context, *beam.Pipeline) error { ran = true; return nil }}
	_, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}}, r)
	if err == nil || !strings.Contains(err.Error(), "part-000.csv has 6 features; the model was trained on 5") {
		t.Fatalf("got %v", err)
	}
	if ran {
		t.Fatal("the pipeline ran")
	}
}

// LIBSVM shards, read sparse for a model that does not centre, and read in
// parts: the metrics of cvar.Evaluate on the whole file.
func TestEvaluateLIBSVM(t *testing.T) {
	const d = 30
	text, err := dataset.SyntheticText[float64](dataset.SynthTextOptions{N: 257, D: d, NNZ: 6, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := dataset.FitMaxAbs(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.PreprocessDataset(&dataset.Preprocessing{Mean: sc.Mean, Scale: sc.Scale}, text); err != nil {
		t.Fatal(err)
	}
	data, err := text.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewModel[float64](batch.KindLogistic, d, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cvar.Train(model, data, cvar.Options{Method: cvar.Vanilla, Steps: 40, Batch: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := &cvar.ModelFile{Kind: batch.KindLogistic, D: d, K: 2, Precision: cvar.F64, Theta: res.Theta, Tau: math.NaN(),
		Alpha: 0.1, Method: cvar.Vanilla, Classes: text.Classes, Preprocessing: dataset.Preprocessing{Mean: sc.Mean, Scale: sc.Scale},
		Params: res.Params, Source: cvar.Provenance{Kind: "libsvm", N: text.N}}
	raw, err := dataset.SyntheticText[float64](dataset.SynthTextOptions{N: 257, D: d, NNZ: 6, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteLIBSVM(&b, raw); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	glob := writeShards(t, t.TempDir(), "", lines, []int{100, 0, 157}, ".libsvm")
	alphas := []float64{0.05, 0.1}
	got, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob, SplitSize: 900}, Alphas: alphas, Batch: 50}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := dataset.ReadLIBSVM[float64](strings.NewReader(b.String()), "all.libsvm", dataset.LIBSVMOptions{Dim: d, Classes: m.Classes, SparseBelow: dataset.DefaultSparseBelow})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.PreprocessDataset(&m.Preprocessing, all); err != nil {
		t.Fatal(err)
	}
	allData, err := all.Batch()
	if err != nil {
		t.Fatal(err)
	}
	want, err := cvar.Evaluate(model, res.Theta, allData, alphas...)
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, "LIBSVM in parts", got, want)
}

// A LIBSVM shard with a feature index beyond the model's features fails
// the evaluation at that row, naming the file, the line and the model's
// feature count, before any metric is computed.
func TestEvaluateRefusesWiderLIBSVM(t *testing.T) {
	m := testModel(t, 5, cvar.F64)
	lines := []string{"1 1:0.5 3:1", "0 2:1 5:0.25", "1 4:2", "0 1:1 7:3 ", "1 5:1"}
	glob := writeShards(t, t.TempDir(), "", lines, []int{2, 3}, ".libsvm")
	_, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}}, &Runner{})
	if err == nil || !strings.Contains(err.Error(), "part-001.libsvm:2:") || !strings.Contains(err.Error(), "index 7 exceeds the dimension 5") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("index 7 at line 2 of part-001.libsvm for a model of 5 features: got %v", err)
	}
}
