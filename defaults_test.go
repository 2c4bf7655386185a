package cvar

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/batch"
)

// classData is a k-class problem with rare classes: class 0 takes 80 % of
// the samples, the others share the rest, and a sample's class shifts its
// features by 3 along the class's own axis. The rare classes are the tail a
// CVaR method must lower.
func classData(t testing.TB, n, d, k int, seed uint64) *batch.Data[float64] {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 31))
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		c := 0
		if rng.Float64() < 0.2 {
			c = 1 + rng.IntN(k-1)
		}
		lab[i] = int32(c)
		row[c] += 3
	}
	data, err := batch.NewData(x, n, d, nil, lab, k)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func trainCVaR(t *testing.T, model batch.Model[float64], theta []float64, data *batch.Data[float64]) float64 {
	t.Helper()
	m, err := Evaluate(model, theta, data, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.TailAt(0.1)
	return c
}

// TestPracticalDefaultsMove checks that Alg2, Alg3 and Alg4 with no step
// size, no ε and no K move the model and lower the training CVaR_0.1 below
// the starting point's, and that Params say where η, ε and τ came from.
func TestPracticalDefaultsMove(t *testing.T) {
	t.Parallel()
	data := classData(t, 3000, 8, 3, 1)
	model := must(batch.NewSoftmax[float64](8, 3))
	start := trainCVaR(t, model, make([]float64, model.NumParams()), data)
	for _, m := range []Method{Alg2, Alg3, Alg4, Alg1} {
		res, err := Train(model, data, Options{Method: m, Seed: 1})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		got := trainCVaR(t, model, res.Theta, data)
		if !(got < 0.97*start) {
			t.Errorf("%v: training CVaR_0.1 %.4f, at the start %.4f: want at least 3 %% lower", m, got, start)
		}
		p := res.Params
		if p.TheoremLR || p.LRFrom == "" || p.TauFrom == "" || math.IsNaN(p.Tau0) {
			t.Errorf("%v: LR from %q (theorem %v), τ₀ %v from %q", m, p.LRFrom, p.TheoremLR, p.Tau0, p.TauFrom)
		}
		if m != Alg1 && (p.TheoremEps || !(p.Eps > 0) || p.EpsFrom == fromInitialLosses) {
			t.Errorf("%v: ε %v from %q", m, p.Eps, p.EpsFrom)
		}
		// At θ = 0 every loss is log 3: τ starts there and ε is a fraction of it.
		if math.Abs(p.Tau0-math.Log(3)) > 1e-12 {
			t.Errorf("%v: τ₀ = %v, want log 3", m, p.Tau0)
		}
		if m != Alg1 && math.Abs(p.Eps-DefaultEpsFraction*math.Log(3)) > 1e-12 {
			t.Errorf("%v: ε = %v, want %v × log 3", m, p.Eps, DefaultEpsFraction)
		}
	}
}

// TestOnlineDefaultsMove checks that Online runs of Alg1 and Alg4 with their
// defaults (no step size, no scale, no ε) lower the CVaR of the stream.
func TestOnlineDefaultsMove(t *testing.T) {
	t.Parallel()
	data := classData(t, 3000, 8, 3, 2)
	model := must(batch.NewSoftmax[float64](8, 3))
	start := trainCVaR(t, model, make([]float64, model.NumParams()), data)
	for _, m := range []Method{Alg1, Alg4} {
		on, err := NewOnline(model, 8, 3, Options{Method: m, Steps: data.N, Seed: 1})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		for i := 0; i < data.N; i++ {
			if err := on.Observe(data.Row(i), 0, int(data.Labels[i])); err != nil {
				t.Fatal(err)
			}
		}
		res := on.Result()
		on.Close()
		if got := trainCVaR(t, model, res.Theta, data); !(got < 0.97*start) {
			t.Errorf("online %v: CVaR_0.1 %.4f, at the start %.4f", m, got, start)
		}
		if res.Params.TauFrom == "" || res.Params.LR != DefaultLROneSample {
			t.Errorf("online %v: η %v, τ from %q", m, res.Params.LR, res.Params.TauFrom)
		}
	}
}

// TestPracticalBeatsTheorem compares, on data with a rare subgroup whose
// rule is reversed, CVaR-SGD with its defaults against Theorem 3.9's step
// and smoothing and against Vanilla-SGD: the defaults must give the
// smallest validation CVaR_0.1.
func TestPracticalBeatsTheorem(t *testing.T) {
	t.Parallel()
	train, val := subgroupData(t, 4000, 10, 3), subgroupData(t, 2000, 10, 4)
	model := must(batch.NewLogistic[float64](10))
	cv := map[string]float64{}
	for name, opt := range map[string]Options{
		"default": {Method: Alg3},
		"theorem": {Method: Alg3, Rule: TheoremStep, Domain: Ball(10)},
		"vanilla": {Method: Vanilla},
	} {
		opt.Seed = 1
		res, err := Train(model, train, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cv[name] = trainCVaR(t, model, res.Theta, val)
	}
	if !(cv["default"] < cv["theorem"] && cv["default"] < 0.95*cv["vanilla"]) {
		t.Errorf("validation CVaR_0.1: defaults %.4f, theorem %.4f, vanilla %.4f", cv["default"], cv["theorem"], cv["vanilla"])
	}
}

// TestSmoothingDefault: the zero Smoothing is Softplus, by name and in the
// weighting a smoothed method's run trains with, and training with it gives
// the bits of Softplus given, and not those of Quadratic.
func TestSmoothingDefault(t *testing.T) {
	t.Parallel()
	var zero Options
	if zero.Smoothing != Softplus || zero.Smoothing.String() != "softplus" {
		t.Fatalf("the zero Smoothing is %v", zero.Smoothing)
	}
	data := classData(t, 400, 4, 2, 3)
	model := must(batch.NewLogistic[float64](4))
	for _, c := range []struct {
		opt  Options
		want batch.Objective
	}{{Options{Method: Alg3}, batch.Softplus}, {Options{Method: Alg3, Smoothing: Quadratic}, batch.Quadratic}} {
		if got := objectiveOf(c.opt.Method, c.opt.Smoothing); got != c.want {
			t.Errorf("smoothing %v trains with %v, want %v", c.opt.Smoothing, got, c.want)
		}
	}
	opt := Options{Method: Alg3, Steps: 30, Batch: 64, Eps: 0.5, Seed: 1, Threads: 1}
	var res [3]*Result[float64]
	for i, s := range []Smoothing{0, Softplus, Quadratic} {
		opt.Smoothing = s
		res[i] = must(Train(model, data, opt))
	}
	if !slices.Equal(res[0].Theta, res[1].Theta) || slices.Equal(res[0].Theta, res[2].Theta) {
		t.Errorf("θ of the zero Smoothing %v, of Softplus %v, of Quadratic %v", res[0].Theta, res[1].Theta, res[2].Theta)
	}
}

// TestGridWithDefaults: every WithDefaults call fills the empty lists with
// new slices, so a caller that changes one leaves the default as
// documented; lists given are kept.
func TestGridWithDefaults(t *testing.T) {
	t.Parallel()
	g := Grid{}.WithDefaults()
	g.LR[0], g.WeightDecay[0], g.EpsFraction[0], g.Trim[0], g.Rho[0] = 7, 7, 7, 7, 7
	h := Grid{}.WithDefaults()
	if h.LR[0] != 0.001 || h.WeightDecay[0] != 0 || h.EpsFraction[0] != 0.01 || h.Trim[0] != 0 || h.Rho[0] != 0.25 {
		t.Errorf("WithDefaults after a caller changed its result: %+v", h)
	}
	mine := Grid{LR: []float64{0.5}, Rho: []float64{2, 3}}.WithDefaults()
	if !slices.Equal(mine.LR, []float64{0.5}) || !slices.Equal(mine.Rho, []float64{2, 3}) || !slices.Equal(mine.Trim, h.Trim) {
		t.Errorf("WithDefaults of a grid with lists: %+v", mine)
	}
}

// TestTune checks that Tune tries every setting, picks the best by its rule,
// gives the same answer whatever its thread count, and beats the default
// setting, which is in its grid.
func TestTune(t *testing.T) {
	t.Parallel()
	train, val := classData(t, 2000, 8, 3, 5), classData(t, 1000, 8, 3, 6)
	model := must(batch.NewSoftmax[float64](8, 3))
	opt := Options{Method: Alg3, Alpha: 0.1, Epochs: 5, Seed: 2}
	tuned, err := Tune(model, train, val, opt, TuneOptions{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	def := Grid{}.WithDefaults()
	if n := len(def.LR) * len(def.WeightDecay) * len(def.EpsFraction); len(tuned.Trials) != n {
		t.Fatalf("%d trials, want %d", len(tuned.Trials), n)
	}
	best, _ := tuned.Trials[tuned.Best].Val.TailAt(0.1)
	var atDefault float64
	for i, tr := range tuned.Trials {
		c, _ := tr.Val.TailAt(0.1)
		if tr.Err == nil && c < best {
			t.Errorf("trial %d has CVaR %v below the pick's %v", i, c, best)
		}
		if tr.LR == DefaultLR && tr.WeightDecay == 0 && tr.EpsFraction == DefaultEpsFraction {
			atDefault = c
		}
	}
	if !(best <= atDefault) || atDefault == 0 {
		t.Errorf("tuned CVaR %v, default setting's %v", best, atDefault)
	}
	// The winner's result is the setting's run.
	if got := trainCVaR(t, model, tuned.Result.Theta, val); got != best {
		t.Errorf("winner's CVaR %v, trial says %v", got, best)
	}
	one, err := Tune(model, train, val, opt, TuneOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if one.Best != tuned.Best || one.Trials[5].Val.MeanLoss != tuned.Trials[5].Val.MeanLoss {
		t.Errorf("1 thread picks %d, 3 threads %d", one.Best, tuned.Best)
	}
	// The paper's rule, on a baseline: no ε in the grid.
	byLoss, err := Tune(model, train, val, Options{Method: Vanilla, Epochs: 5, Seed: 2}, TuneOptions{Select: SelectLoss, Grid: Grid{LR: []float64{0.01, 0.1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byLoss.Trials) != 2*len(def.WeightDecay) {
		t.Errorf("vanilla: %d trials", len(byLoss.Trials))
	}
	for _, tr := range byLoss.Trials {
		if tr.Val.MeanLoss < byLoss.Trials[byLoss.Best].Val.MeanLoss {
			t.Errorf("SelectLoss picked mean loss %v over %v", byLoss.Trials[byLoss.Best].Val.MeanLoss, tr.Val.MeanLoss)
		}
	}
	if _, err := Tune(model, train, val, opt, TuneOptions{Grid: Grid{LR: []float64{-1}}}); err == nil {
		t.Error("a negative step size in the grid was accepted")
	}
}

// TestTrainContext checks that a cancelled context stops training before
// its next step, with an error that wraps the context's and names the step.
func TestTrainContext(t *testing.T) {
	data := classData(t, 2000, 8, 3, 7)
	model := must(batch.NewSoftmax[float64](8, 3))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	epochs := 0
	opt := Options{Method: Alg3, Epochs: 50, Seed: 1, OnEpoch: func(EpochInfo) error {
		epochs++
		if epochs == 2 {
			cancel()
		}
		return nil
	}}
	_, err := TrainContext(ctx, model, data, opt)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "before step 9 of") {
		t.Errorf("cancelled after epoch 2: %v", err)
	}
	if epochs != 2 {
		t.Errorf("%d epochs ran after the cancel at the second", epochs)
	}
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	if _, err := TrainContext(past, model, data, Options{Method: Vanilla, Seed: 1}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past deadline: %v", err)
	}
	// A live context changes nothing.
	a, err := TrainContext(context.Background(), model, data, Options{Method: Alg3, Epochs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(model, data, Options{Method: Alg3, Epochs: 2, Seed: 1})
	for i := range a.Theta {
		if a.Theta[i] != b.Theta[i] {
			t.Fatalf("θ[%d]: %v with a context, %v without", i, a.Theta[i], b.Theta[i])
		}
	}
}
