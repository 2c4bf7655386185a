package cvarbeam

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// writeSynthetic writes the built-in classification data (n rows of d
// features) to shards CSV files and returns their glob.
func writeSynthetic(t *testing.T, dir string, n, d, shards int) string {
	t.Helper()
	return writeSyntheticClasses(t, dir, n, d, 2, shards, nil)
}

// writeSyntheticClasses is writeSynthetic with k classes, written as the
// texts names (nil: the numbers 0..k−1).
func writeSyntheticClasses(t *testing.T, dir string, n, d, k, shards int, names []string) string {
	t.Helper()
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: n, D: d, Classes: k, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for s := range shards {
		var b bytes.Buffer
		b.WriteString(csvHeader(d) + "\n")
		for i := s * n / shards; i < (s+1)*n/shards; i++ {
			for _, v := range ds.Row(i) {
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
			}
			label := ds.Classes[ds.Labels[i]]
			if names != nil {
				label = names[ds.Labels[i]]
			}
			b.WriteString(label + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.csv", s)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "shard-*.csv")
}

// singleMachine trains on the training rows of the glob on one machine,
// as cvar train does (z-score fitted on them, one run of cvar.Train), and
// returns the validation metrics on the held-out rows.
func singleMachine(t *testing.T, glob, kind string, classes []string, opt cvar.Options, hold float64) cvar.Metrics {
	t.Helper()
	splits, format, err := Parts(context.Background(), Input{Glob: glob})
	if err != nil {
		t.Fatal(err)
	}
	read := func(held bool) *dataset.Dataset[float64] {
		rs := rowSpec{Format: format, Task: dataset.Classification, Classes: classes, Hold: hold, Seed: opt.Seed}
		var rows *dataset.Dataset[float64]
		for _, sp := range splits {
			st, c, err := openStream[float64](context.Background(), sp, &rs)
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if rows == nil {
				rows = newRows[float64](&rs, st.D())
			}
			tr, ho := appendTo(rows), rowFunc[float64](nil)
			if held {
				tr, ho = nil, tr
			}
			if err := eachRow(context.Background(), sp, &rs, tr, ho); err != nil {
				t.Fatal(err)
			}
		}
		return rows
	}
	train, val := read(false), read(true)
	st, err := dataset.FitStandardizer(train)
	if err != nil {
		t.Fatal(err)
	}
	p := dataset.Preprocessing{Mean: st.Mean, Scale: st.Scale}
	for _, ds := range []*dataset.Dataset[float64]{train, val} {
		if err := dataset.PreprocessDataset(&p, ds); err != nil {
			t.Fatal(err)
		}
	}
	td, err := train.Batch()
	if err != nil {
		t.Fatal(err)
	}
	vd, err := val.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewModel[float64](kind, train.D, len(classes), 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cvar.Train(model, td, opt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := cvar.Evaluate(model, res.Theta, vd, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Eight shards of the built-in data, two classes and four: the averaged
// CVaR-SGD, its local minibatches together one machine's, reaches a
// validation CVaR_0.1 within 5 % of one machine's at the same epochs and
// the same steps along the average, at an accuracy within 2 points, and
// writes a model file that the library reads back with the same metrics.
func TestTrainMatchesSingleMachine(t *testing.T) {
	for _, tc := range []struct {
		n, d, k, b int
		kind       string
		classes    []string
	}{
		{3000, 20, 2, 32, batch.KindLogistic, []string{"0", "1"}},
		{4000, 40, 4, 64, batch.KindSoftmax, []string{"0", "1", "2", "3"}},
	} {
		t.Run(tc.kind, func(t *testing.T) { trainMatches(t, tc.n, tc.d, tc.k, tc.b, tc.kind, tc.classes) })
	}
}

func trainMatches(t *testing.T, n, d, k, b int, kind string, classes []string) {
	const epochs = 5
	glob := writeSyntheticClasses(t, t.TempDir(), n, d, k, 8, nil)
	cfg := TrainOptions{Input: Input{Glob: glob}, Options: cvar.Options{Epochs: epochs, Batch: b, Seed: 1}}
	got, err := Train(context.Background(), cfg, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	want := singleMachine(t, glob, kind, classes, cvar.Options{Method: cvar.Alg3, Epochs: epochs, Batch: b, Seed: 1}, 1.0/3)
	gc, _ := got.Validation.TailAt(0.1)
	wc, _ := want.TailAt(0.1)
	t.Logf("validation CVaR_0.1 %.4f (one machine %.4f), accuracy %.4f (%.4f), %d rounds", gc, wc, got.Validation.Accuracy, want.Accuracy, got.Rounds)
	if !(gc <= 1.05*wc) || math.Abs(got.Validation.Accuracy-want.Accuracy) > 0.02 {
		t.Errorf("validation CVaR_0.1 %v and accuracy %v; one machine: %v and %v", gc, got.Validation.Accuracy, wc, want.Accuracy)
	}
	p := got.Model.Params
	if tn := got.Training.N; p.Steps != epochs*((tn+b-1)/b) || p.Batch < b-4 || p.Batch > b+4 || p.TauFrom == "given" || !(p.Tau0 > 0) {
		t.Errorf("%d steps of %d samples on %d rows, τ from %q (%v); want one machine's %d steps of %d ± 4, τ from the initial losses",
			p.Steps, p.Batch, tn, p.TauFrom, p.Tau0, epochs*((tn+b-1)/b), b)
	}
	if got.Model.Kind != kind || got.Model.D != d || got.Rounds != epochs || got.Validation.N+got.Training.N != n {
		t.Errorf("model %s of %d features, %d rounds, %d + %d rows", got.Model.Kind, got.Model.D, got.Rounds, got.Training.N, got.Validation.N)
	}
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, got.Model); err != nil {
		t.Fatal(err)
	}
	back, err := cvar.LoadModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Evaluate(context.Background(), EvalOptions{Model: back, Input: Input{Glob: glob}, Alphas: []float64{0.1}}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	if m.N != n {
		t.Errorf("the model file evaluates %d rows, want %d", m.N, n)
	}
}

// A shard that does not parse fails training, naming the file and line.
func TestTrainBadShard(t *testing.T) {
	dir := t.TempDir()
	glob := writeSynthetic(t, dir, 400, 6, 4)
	name := filepath.Join(dir, "shard-2.csv")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[9] = "1,2,oops,4,5,6,1"
	if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Train(context.Background(), TrainOptions{Input: Input{Glob: glob}, Options: cvar.Options{Epochs: 1}}, &Runner{})
	if err == nil || !strings.Contains(err.Error(), "shard-2.csv:10:") || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("a bad cell at line 10 of shard-2.csv: got %v", err)
	}
}

// Class texts train as cvar train takes them: the classes in byte-wise
// order of their texts, the model evaluated on the same files; a linear
// model on them is refused.
func TestTrainClassTexts(t *testing.T) {
	names := []string{"eel", "cat", "dog"}
	glob := writeSyntheticClasses(t, t.TempDir(), 900, 8, 3, 3, names)
	got, err := Train(context.Background(), TrainOptions{Input: Input{Glob: glob}, Options: cvar.Options{Epochs: 3, Batch: 32, Seed: 1}}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	m := got.Model
	if m.Kind != batch.KindSoftmax || strings.Join(m.Classes, ",") != "cat,dog,eel" || !(got.Validation.Accuracy > 0.8) {
		t.Errorf("a %s model of classes %q, validation accuracy %v; want softmax over cat, dog, eel, above 0.8", m.Kind, m.Classes, got.Validation.Accuracy)
	}
	ev, err := Evaluate(context.Background(), EvalOptions{Model: m, Input: Input{Glob: glob}}, &Runner{})
	if err != nil || ev.N != 900 || math.Abs(ev.Accuracy*900-(got.Training.Accuracy*float64(got.Training.N)+got.Validation.Accuracy*float64(got.Validation.N))) > 0.5 {
		t.Errorf("the model evaluated on its files: %+v, %v", ev, err)
	}
	_, err = Train(context.Background(), TrainOptions{Input: Input{Glob: glob}, Kind: batch.KindLinear, Options: cvar.Options{Epochs: 1}}, &Runner{})
	if err == nil || !strings.Contains(err.Error(), "needs numeric targets") {
		t.Errorf("a linear model on class texts: %v", err)
	}
}

// LIBSVM shards train, sparse, with max-abs scaling, and the model file
// reads its shards back.
func TestTrainLIBSVM(t *testing.T) {
	text, err := dataset.SyntheticText[float64](dataset.SynthTextOptions{N: 600, D: 200, NNZ: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteLIBSVM(&b, text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	glob := writeShards(t, t.TempDir(), "", lines, []int{200, 200, 200}, ".libsvm")
	got, err := Train(context.Background(), TrainOptions{Input: Input{Glob: glob}, Options: cvar.Options{Epochs: 2, Batch: 32, Seed: 1}}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Model; m.Kind != batch.KindLogistic || m.D > 200 || m.Preprocessing.Centres() || got.Training.N+got.Validation.N != 600 {
		t.Errorf("a %s model of %d features, centring %v, on %d + %d rows", m.Kind, m.D, m.Preprocessing.Centres(), got.Training.N, got.Validation.N)
	}
}
