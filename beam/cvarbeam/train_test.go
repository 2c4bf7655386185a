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
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassConfig{N: n, D: d, Classes: 2, Seed: 1})
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
			b.WriteString(ds.Classes[ds.Labels[i]] + "\n")
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
func singleMachine(t *testing.T, glob string, opt cvar.Options, hold float64) cvar.Metrics {
	t.Helper()
	splits, format, err := expand(context.Background(), Input{Glob: glob})
	if err != nil {
		t.Fatal(err)
	}
	read := func(keep int) *dataset.Dataset[float64] {
		rs := rowSpec{Format: format, Task: dataset.Classification, Classes: []string{"0", "1"}, Hold: hold, Seed: opt.Seed, Keep: keep}
		var buf *rowBuffer[float64]
		for _, sp := range splits {
			st, c, err := openStream[float64](context.Background(), sp, &rs)
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if buf == nil {
				buf = newRowBuffer[float64](&rs, st.D())
			}
			if err := eachRow(context.Background(), sp, &rs, buf.add); err != nil {
				t.Fatal(err)
			}
		}
		return &buf.ds
	}
	train, val := read(keepTrain), read(keepHeld)
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
	model, err := batch.NewModel[float64](batch.KindLogistic, train.D, 2, 0)
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

// Eight shards of the built-in data: the averaged CVaR-SGD reaches a
// validation CVaR_0.1 within 5 % of one machine's at the same epochs, at
// an accuracy within 2 points, and writes a model file that the library
// reads back with the same metrics.
func TestTrainMatchesSingleMachine(t *testing.T) {
	const epochs, b = 20, 32
	glob := writeSynthetic(t, t.TempDir(), 3000, 20, 8)
	cfg := TrainConfig{Input: Input{Glob: glob}, Epochs: epochs, Batch: b, Seed: 1}
	got, err := Train(context.Background(), cfg, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	want := singleMachine(t, glob, cvar.Options{Method: cvar.Alg3, Epochs: epochs, Batch: b, Seed: 1}, 1.0/3)
	gc, _ := got.Validation.TailAt(0.1)
	wc, _ := want.TailAt(0.1)
	t.Logf("validation CVaR_0.1 %.4f (one machine %.4f), accuracy %.4f (%.4f), %d rounds", gc, wc, got.Validation.Accuracy, want.Accuracy, got.Rounds)
	if !(gc <= 1.05*wc) || math.Abs(got.Validation.Accuracy-want.Accuracy) > 0.02 {
		t.Errorf("validation CVaR_0.1 %v and accuracy %v; one machine: %v and %v", gc, got.Validation.Accuracy, wc, want.Accuracy)
	}
	if got.Model.Kind != batch.KindLogistic || got.Model.D != 20 || got.Rounds != epochs || got.Validation.N+got.Training.N != 3000 {
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
	m, err := Evaluate(context.Background(), EvalConfig{Model: back, Input: Input{Glob: glob}, Alphas: []float64{0.1}}, &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 3000 {
		t.Errorf("the model file evaluates %d rows, want 3000", m.N)
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
	_, err = Train(context.Background(), TrainConfig{Input: Input{Glob: glob}, Epochs: 1}, &Runner{})
	if err == nil || !strings.Contains(err.Error(), "shard-2.csv:10:") || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("a bad cell at line 10 of shard-2.csv: got %v", err)
	}
}
