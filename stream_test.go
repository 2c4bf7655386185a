package cvar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// csvOf writes ds (dense) as CSV: a header x0…, y, then the rows, every
// value exactly.
func csvOf(ds *dataset.Dataset[float64]) []byte {
	var b bytes.Buffer
	for j := range ds.D {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := range ds.N {
		for _, v := range ds.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		if ds.Task == dataset.Classification {
			b.WriteString(ds.Classes[ds.Labels[i]] + "\n")
		} else {
			b.WriteString(strconv.FormatFloat(ds.Y[i], 'g', -1, 64) + "\n")
		}
	}
	return b.Bytes()
}

// memSource is a source over data in memory that counts its opens.
func memSource(data []byte, opens *int) StreamSource {
	return StreamSource{Name: "mem.csv", CSV: &dataset.CSVOptions{}, Open: func() (io.ReadCloser, error) {
		*opens++
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

func synthClass(t *testing.T, n, d, k int) *dataset.Dataset[float64] {
	t.Helper()
	ds, err := dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: n, D: d, Classes: k, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// checkMetrics compares the stream's metrics of a part with Evaluate on
// that part in memory, preprocessed as the stream says.
func checkMetrics(t *testing.T, name string, res *StreamResult[float64], part *dataset.Dataset[float64], got Metrics) {
	t.Helper()
	p := *part
	p.X = slices.Clone(part.X)
	if err := dataset.PreprocessDataset(&res.Preprocessing, &p); err != nil {
		t.Fatal(err)
	}
	data, err := p.Batch()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Evaluate(res.Model, res.Result.Theta, data, 0.1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != want.N || !close9(got.MeanLoss, want.MeanLoss) || !(got.Accuracy == want.Accuracy || math.IsNaN(want.Accuracy) && math.IsNaN(got.Accuracy)) {
		t.Errorf("%s: streamed %+v, in memory %+v", name, got, want)
	}
	for i, tl := range want.Tails {
		if g := got.Tails[i]; g.Alpha != tl.Alpha || !close9(g.CVaR, tl.CVaR) || !close9(g.VaR, tl.VaR) {
			t.Errorf("%s: streamed tail %+v, in memory %+v", name, g, tl)
		}
	}
}

// TestTrainStreamLikeMemory: the stream splits as dataset.Split does, fits
// the z-score of the training part, infers the classes, and its metrics are
// those of the model on the parts in memory.
func TestTrainStreamLikeMemory(t *testing.T) {
	t.Parallel()
	ds := synthClass(t, 600, 5, 2)
	opens := 0
	res, err := TrainStream(context.Background(), memSource(csvOf(ds), &opens), StreamOptions[float64]{
		Options: Options{Method: Alg1, Seed: 5}, Alphas: []float64{0.1, 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	train, val, err := dataset.Split(ds, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != batch.KindLogistic || !slices.Equal(res.Classes, ds.Classes) || res.NTrain != train.N || res.NVal != val.N || res.D != 5 || res.Sparse {
		t.Fatalf("info %+v, want logistic on %v, %d + %d rows", res.StreamInfo, ds.Classes, train.N, val.N)
	}
	if !slices.Equal(res.Features, []string{"x0", "x1", "x2", "x3", "x4"}) {
		t.Errorf("features %v", res.Features)
	}
	z, err := dataset.FitStandardizer(train)
	if err != nil {
		t.Fatal(err)
	}
	for j := range z.Mean {
		if !close9(res.Preprocessing.Mean[j], z.Mean[j]) || !close9(res.Preprocessing.Scale[j], z.Scale[j]) {
			t.Errorf("feature %d: streamed z-score %v, %v; in memory %v, %v", j, res.Preprocessing.Mean[j], res.Preprocessing.Scale[j], z.Mean[j], z.Scale[j])
		}
	}
	checkMetrics(t, "training", res, train, res.Training)
	checkMetrics(t, "validation", res, val, res.Validation)
	if opens != 4 { // count, fit, train, evaluate
		t.Errorf("%d opens, want 4", opens)
	}
}

// TestTrainStreamPasses: the source is opened once a pass — one more for
// the theorem's bounds and one a training epoch — and Progress and OnEpoch
// see every step and epoch.
func TestTrainStreamPasses(t *testing.T) {
	t.Parallel()
	data := csvOf(synthClass(t, 300, 5, 2))
	var steps, total int
	var epochs []int
	opens := 0
	res, err := TrainStream(context.Background(), memSource(data, &opens), StreamOptions[float32]{
		Options: Options{Method: Alg4, Rule: TheoremStep, Epochs: 3, OnEpoch: func(e EpochInfo) error {
			epochs = append(epochs, e.Epoch)
			return nil
		}},
		Progress: func(done, all int) { steps, total = done, all },
	})
	if err != nil {
		t.Fatal(err)
	}
	if opens != 7 || steps != 3*res.NTrain || total != steps || !slices.Equal(epochs, []int{1, 2, 3}) {
		t.Errorf("%d opens (want 7), %d of %d steps (want %d), epochs %v", opens, steps, total, 3*res.NTrain, epochs)
	}
	if res.Result.Params.Steps != 3*res.NTrain || !(res.Result.Params.G > 0) {
		t.Errorf("params %+v: want %d steps and G from the measured bounds", res.Result.Params, 3*res.NTrain)
	}
}

// TestTrainStreamSparse: LIBSVM rows below SparseBelow are handled as their
// non-zeros, scaled by the training part's max-abs, with the dense
// handling's metrics to rounding.
func TestTrainStreamSparse(t *testing.T) {
	t.Parallel()
	text, err := dataset.SyntheticText[float64](dataset.SynthTextOptions{N: 400, D: 300, NNZ: 8, Zipf: 1.1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteLIBSVM(&b, text); err != nil {
		t.Fatal(err)
	}
	run := func(below float64, scaling Scaling) *StreamResult[float64] {
		opens := 0
		src := memSource(b.Bytes(), &opens)
		src.CSV, src.LIBSVM = nil, &dataset.LIBSVMOptions{SparseBelow: below}
		res, err := TrainStream(context.Background(), src, StreamOptions[float64]{Options: Options{Method: Alg1, Seed: 1}, Scaling: scaling, Alphas: []float64{0.1, 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		if opens != 5 { // width, count, fit, train, evaluate
			t.Errorf("%d opens, want 5", opens)
		}
		return res
	}
	sp, de := run(0.5, ScaleAuto), run(0, ScaleMaxAbs)
	if !sp.Sparse || de.Sparse {
		t.Fatalf("sparse %v, dense %v", sp.Sparse, de.Sparse)
	}
	mem, err := dataset.ReadLIBSVM[float64](bytes.NewReader(b.Bytes()), "mem", dataset.LIBSVMOptions{Dim: sp.D})
	if err != nil {
		t.Fatal(err)
	}
	train, val, err := dataset.Split(mem, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := must(dataset.FitMaxAbs(train))
	if !slices.Equal(sp.Preprocessing.Scale, want.Scale) || !slices.Equal(de.Preprocessing.Scale, want.Scale) {
		t.Errorf("max-abs differs from FitMaxAbs of the training part")
	}
	for i, tl := range sp.Validation.Tails {
		if d := de.Validation.Tails[i]; math.Abs(d.CVaR-tl.CVaR) > 1e-9 {
			t.Errorf("validation CVaR_%v: sparse %v, dense %v", tl.Alpha, tl.CVaR, d.CVaR)
		}
	}
	checkMetrics(t, "sparse validation", sp, val, sp.Validation)
	checkMetrics(t, "sparse training", sp, train, sp.Training)
}

// TestTrainStreamMaxAbsDense: max-abs scaling of dense rows is FitMaxAbs
// of the training part, exactly.
func TestTrainStreamMaxAbsDense(t *testing.T) {
	t.Parallel()
	ds := synthClass(t, 200, 6, 2)
	opens := 0
	res, err := TrainStream(context.Background(), memSource(csvOf(ds), &opens), StreamOptions[float64]{Options: Options{Method: Alg1, Seed: 9}, Scaling: ScaleMaxAbs})
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := dataset.Split(ds, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	want := must(dataset.FitMaxAbs(train))
	if !slices.Equal(res.Preprocessing.Scale, want.Scale) || !slices.Equal(res.Preprocessing.Mean, want.Mean) {
		t.Errorf("max-abs %v, want %v", res.Preprocessing.Scale, want.Scale)
	}
}

// TestTrainStreamRegression: real targets give a linear model (or the
// kind asked for), trained on standardised targets and mapped back, so its
// metrics are in the target's units.
func TestTrainStreamRegression(t *testing.T) {
	t.Parallel()
	ds, err := dataset.SyntheticRegression[float64](dataset.SynthRegOptions{N: 400, D: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Y {
		ds.Y[i] = 100 + 50*ds.Y[i]
	}
	for _, kind := range []string{"", batch.KindLAD} {
		opens := 0
		res, err := TrainStream(context.Background(), memSource(csvOf(ds), &opens), StreamOptions[float64]{
			Options: Options{Method: Alg4, Seed: 2, Epochs: 3}, Kind: kind, ScaleTarget: true, Alphas: []float64{0.1, 0.5},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := kind
		if kind == "" {
			want = batch.KindLinear
		}
		ts := must(dataset.FitTargetScaler(ds))
		if res.Kind != want || res.Classes != nil || !(res.Preprocessing.TargetScale > 10) || math.Abs(res.Preprocessing.TargetMean-ts.Mean) > 10 {
			t.Errorf("%q: kind %s, classes %v, target scaling %v, %v", kind, res.Kind, res.Classes, res.Preprocessing.TargetMean, res.Preprocessing.TargetScale)
		}
		_, val, err := dataset.Split(ds, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkMetrics(t, want+" validation", res, val, res.Validation)
	}
}

// TestTrainStreamSoftmax: three numeric classes give softmax.
func TestTrainStreamSoftmax(t *testing.T) {
	t.Parallel()
	ds := synthClass(t, 300, 7, 3)
	opens := 0
	res, err := TrainStream(context.Background(), memSource(csvOf(ds), &opens), StreamOptions[float64]{Options: Options{Method: Alg1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != batch.KindSoftmax || len(res.Classes) != 3 || res.Model.NumOutputs() != 3 {
		t.Errorf("kind %s, classes %v", res.Kind, res.Classes)
	}
}

// TestTrainStreamModelFile: the model file of a stream loads back to the
// same model, preprocessing and source.
func TestTrainStreamModelFile(t *testing.T) {
	t.Parallel()
	ds := synthClass(t, 200, 5, 2)
	opens := 0
	src := memSource(csvOf(ds), &opens)
	src.CSV.Target = "y"
	res, err := TrainStream(context.Background(), src, StreamOptions[float32]{Options: Options{Method: Alg1}, Kind: batch.KindMLP,
		Model: func(info StreamInfo) (batch.Model[float32], error) {
			return batch.NewModel[float32](info.Kind, info.D, len(info.Classes), 3)
		}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := SaveModel(&b, res.ModelFile()); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := Provenance{Kind: "csv", Name: "mem.csv", Target: "y", N: res.NTrain}
	if m.Kind != batch.KindMLP || m.Hidden != 3 || m.Precision != F32 || !reflect.DeepEqual(m.Source, want) || !slices.Equal(m.Preprocessing.Mean, res.Preprocessing.Mean) || !slices.Equal(m.Classes, res.Classes) {
		t.Errorf("model file %+v", m)
	}
	_, theta, err := BuildModel[float32](m)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(theta, res.Result.Theta) || m.Tau != res.Result.Tau {
		t.Errorf("parameters or τ differ after a round trip")
	}
}

// TestTrainStreamLimit: Limit reads the first rows only, and the split is
// that of those rows.
func TestTrainStreamLimit(t *testing.T) {
	t.Parallel()
	opens := 0
	src := memSource(csvOf(synthClass(t, 300, 5, 2)), &opens)
	src.CSV.Limit = 100
	res, err := TrainStream(context.Background(), src, StreamOptions[float64]{Options: Options{Method: Alg1, Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := dataset.NewSplitter(100, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if res.NTrain != sp.NTrain() || res.NVal != 100-sp.NTrain() || res.Validation.N != res.NVal {
		t.Errorf("%d + %d rows, want %d + %d", res.NTrain, res.NVal, sp.NTrain(), 100-sp.NTrain())
	}
}

// TestTrainStreamCancel: a done context stops the stream with its error.
func TestTrainStreamCancel(t *testing.T) {
	t.Parallel()
	data := csvOf(synthClass(t, 300, 5, 2))
	ctx, cancel := context.WithCancel(context.Background())
	opens := 0
	_, err := TrainStream(ctx, memSource(data, &opens), StreamOptions[float64]{Options: Options{Method: Alg1},
		Progress: func(done, _ int) {
			if done == 10 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while training: %v", err)
	}
	if _, err := TrainStream(ctx, memSource(data, &opens), StreamOptions[float64]{Options: Options{Method: Alg1}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
}

// TestTrainStreamErrors: bad options, sources and data are errors that say
// what is wrong, and where in the data.
func TestTrainStreamErrors(t *testing.T) {
	t.Parallel()
	good := csvOf(synthClass(t, 60, 5, 2))
	mem := func(s string) []byte { return []byte(s) }
	errOpen := errors.New("no such bucket")
	errModel := errors.New("model too large")
	type opts = StreamOptions[float64]
	alg1 := Options{Method: Alg1}
	for name, c := range map[string]struct {
		data   []byte
		src    func(*StreamSource)
		opt    opts
		want   string
		target error
	}{
		"no open":        {good, func(s *StreamSource) { s.Open = nil }, opts{Options: alg1}, "no Open", nil},
		"two formats":    {good, func(s *StreamSource) { s.LIBSVM = &dataset.LIBSVMOptions{} }, opts{Options: alg1}, "exactly one", nil},
		"no format":      {good, func(s *StreamSource) { s.CSV = nil }, opts{Options: alg1}, "exactly one", nil},
		"negative limit": {good, func(s *StreamSource) { s.CSV.Limit = -1 }, opts{Options: alg1}, "Limit", nil},
		"alg3":           {good, nil, opts{Options: Options{Method: Alg3}}, "not an online method", nil},
		"steps":          {good, nil, opts{Options: Options{Method: Alg1, Steps: 5}}, "Steps 5", nil},
		"alpha":          {good, nil, opts{Options: alg1, Alphas: []float64{2}}, "alpha 2", ErrAlpha},
		"scaling":        {good, nil, opts{Options: alg1, Scaling: Scaling(9)}, "scaling 9", nil},
		"open":           {good, func(s *StreamSource) { s.Open = func() (io.ReadCloser, error) { return nil, errOpen } }, opts{Options: alg1}, "bucket", errOpen},
		"model hook":     {good, nil, opts{Options: alg1, Model: func(StreamInfo) (batch.Model[float64], error) { return nil, errModel }}, "too large", errModel},
		"text labels":    {mem("a,y\n1,cat\n2,dog\n"), nil, opts{Options: alg1}, "mem.csv:2", nil},
		"one row":        {mem("a,y\n1,0\n"), nil, opts{Options: alg1}, "1 samples cannot be split", nil},
		"one class":      {mem("a,y\n1,0\n2,0\n3,0\n"), nil, opts{Options: alg1}, "every label is 0", nil},
		"fractions":      {mem("a,y\n1,0.5\n2,1\n3,0\n"), nil, opts{Options: alg1, Kind: batch.KindLogistic}, "numeric class labels", nil},
		"logistic of 3":  {mem("a,y\n1,0\n2,1\n3,2\n"), nil, opts{Options: alg1, Kind: batch.KindLogistic}, "binary", nil},
		"long line":      {good, func(s *StreamSource) { s.CSV.MaxLine = 8 }, opts{Options: alg1}, "mem.csv:1", dataset.ErrLineTooLong},
		"diverged":       {mem("a,y\n1,0\n1e308,1\n-1e308,0\n"), nil, opts{Options: Options{Method: Alg1, Seed: 1}, Scaling: ScaleNone, Kind: batch.KindLinear}, "mem.csv:3: cvar: training diverged", nil},
	} {
		opens := 0
		src := memSource(c.data, &opens)
		if c.src != nil {
			c.src(&src)
		}
		_, err := TrainStream(context.Background(), src, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.target != nil && !errors.Is(err, c.target) {
			t.Errorf("%s: error %v, want one with %q", name, err, c.want)
		}
	}
	opens := 0
	var noCtx context.Context
	if _, err := TrainStream(noCtx, memSource(good, &opens), opts{Options: alg1}); !errors.Is(err, errNoContext) {
		t.Errorf("nil context: %v", err)
	}
}

// TestTrainStreamChangedData: data that changes between passes is an
// error, not a silent mix of two files.
func TestTrainStreamChangedData(t *testing.T) {
	t.Parallel()
	a, b := csvOf(synthClass(t, 60, 5, 2)), csvOf(synthClass(t, 50, 5, 2))
	opens := 0
	src := StreamSource{Name: "moving.csv", CSV: &dataset.CSVOptions{}, Open: func() (io.ReadCloser, error) {
		opens++
		if opens == 1 {
			return io.NopCloser(bytes.NewReader(a)), nil
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
	_, err := TrainStream(context.Background(), src, StreamOptions[float64]{Options: Options{Method: Alg1}})
	if err == nil || !strings.Contains(err.Error(), "moving.csv: 60 rows on one pass, 50 on the next") {
		t.Errorf("changed data: %v", err)
	}
}
