package cvar

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// objectiveRuns are the objectives on the methods that take them.
var objectiveRuns = []struct {
	name string
	opt  Options
}{
	{"blend/alg3", Options{Method: Alg3, Objective: ObjectiveBlend, Blend: 0.3}},
	{"blend/minibatch", Options{Method: MinibatchCVaR, Objective: ObjectiveBlend}},
	{"trimmed/alg3", Options{Method: Alg3, Objective: ObjectiveTrimmed, Trim: 0.1}},
	{"trimmed/minibatch", Options{Method: MinibatchCVaR, Objective: ObjectiveTrimmed}},
	{"chi2/alg3", Options{Method: Alg3, Objective: ObjectiveChi2, Rho: 0.5}},
	{"chi2/alg2", Options{Method: Alg2, Objective: ObjectiveChi2}},
	{"group/alg3", Options{Method: Alg3, Objective: ObjectiveGroup, GroupLR: 0.1}},
	{"group/vanilla", Options{Method: Vanilla, Objective: ObjectiveGroup}},
}

// groupsOf marks every third row group 1, the rest group 0.
func groupsOf(n int) []int32 {
	g := make([]int32, n)
	for i := range g {
		if i%3 == 0 {
			g[i] = 1
		}
	}
	return g
}

// trainBits trains opt on threads 1, 2 and 3 and fails unless every run
// gives the same bits; it returns the first run.
func trainBits[T batch.Float](t *testing.T, model batch.Model[T], data *batch.Data[T], opt Options) *Result[T] {
	t.Helper()
	var ref *Result[T]
	for _, threads := range []int{1, 2, 3} {
		opt.Threads = threads
		res, err := Train(model, data, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range res.Theta {
			if !finite(float64(v)) {
				t.Fatalf("θ[%d] = %v", i, v)
			}
		}
		if ref == nil {
			ref = res
			continue
		}
		for i := range ref.Theta {
			if ref.Theta[i] != res.Theta[i] {
				t.Fatalf("%d threads: θ[%d] = %v, one thread %v", threads, i, res.Theta[i], ref.Theta[i])
			}
		}
		if math.Float64bits(ref.Tau) != math.Float64bits(res.Tau) {
			t.Fatalf("%d threads: τ = %v, one thread %v", threads, res.Tau, ref.Tau)
		}
	}
	return ref
}

// TestObjectivesAcrossModels trains each objective on every model kind, in
// float64 and float32, and requires the same bits on every thread count.
func TestObjectivesAcrossModels(t *testing.T) {
	t.Parallel()
	const d = 6
	data := subgroupData(t, 900, d, 11)
	sp, de := sparseTwins(t, 700, 30, false, 12)
	for _, run := range objectiveRuns {
		t.Run(run.name, func(t *testing.T) {
			opt := run.opt
			opt.Epochs, opt.Batch, opt.LR, opt.Seed = 2, 100, 0.05, 5
			if opt.Method.oneSample() {
				opt.Batch, opt.Epochs = 0, 1
			}
			if opt.Objective == ObjectiveGroup {
				opt.Groups = groupsOf(data.N)
			}
			trainBits(t, must(batch.NewLogistic[float64](d)), data, opt)
			trainBits(t, must(batch.NewMLP[float64](d, 5, 2)), data, opt)
			trainBits(t, must(batch.NewSoftmax[float64](d, 2)), data, opt)
			x32 := make([]float32, len(data.X))
			for i, v := range data.X {
				x32[i] = float32(v)
			}
			d32 := must(batch.NewData(x32, data.N, d, nil, data.Labels, 2))
			trainBits(t, must(batch.NewLogistic[float32](d)), d32, opt)
			u8 := make([]uint8, len(data.X))
			for i, v := range data.X {
				u8[i] = uint8(min(max(math.Round(v*20+128), 0), 255))
			}
			c := must(batch.NewDataU8[float32](u8, 1.0/20, data.N, d, nil, data.Labels, 2))
			trainBits(t, must(batch.NewLogistic[float32](d)), c, opt)
			if opt.Objective == ObjectiveGroup {
				opt.Groups = groupsOf(sp.N)
			}
			rs := trainBits(t, must(batch.NewLeastSquares[float64](30)), sp, opt)
			rd := trainBits(t, must(batch.NewLeastSquares[float64](30)), de, opt)
			for i := range rs.Theta {
				if !near(rs.Theta[i], rd.Theta[i], 1e-9) {
					t.Fatalf("sparse θ[%d] = %v, dense %v", i, rs.Theta[i], rd.Theta[i])
				}
			}
		})
	}
}

// TestObjectiveModelFile saves and reads a model of each objective: its
// objective and parameter survive.
func TestObjectiveModelFile(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 300, 4, 13)
	model := must(batch.NewLogistic[float64](4))
	for _, run := range objectiveRuns {
		opt := run.opt
		opt.Epochs, opt.Batch, opt.Seed = 1, 50, 1
		if opt.Method.oneSample() {
			opt.Batch = 0
		}
		if opt.Objective == ObjectiveGroup {
			opt.Groups = groupsOf(data.N)
		}
		res, err := Train(model, data, opt)
		if err != nil {
			t.Fatal(err)
		}
		mf := modelFileOf(model, res, 4, []string{"0", "1"}, nil, dataset.Preprocessing{}, Provenance{})
		var buf bytes.Buffer
		if err := SaveModel(&buf, mf); err != nil {
			t.Fatal(err)
		}
		back, err := LoadModel(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p, q := res.Params, back.Params
		if q.Risk != p.Risk || q.Blend != p.Blend || q.Trim != p.Trim || q.Rho != p.Rho || q.GroupLR != p.GroupLR || q.Groups != p.Groups {
			t.Errorf("%s: read back %v %v %v %v %v %v, trained %v %v %v %v %v %v", run.name,
				q.Risk, q.Blend, q.Trim, q.Rho, q.GroupLR, q.Groups, p.Risk, p.Blend, p.Trim, p.Rho, p.GroupLR, p.Groups)
		}
	}
}

func TestObjectiveMisuse(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 100, 3, 14)
	model := must(batch.NewLogistic[float64](3))
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Method: Vanilla, Objective: ObjectiveBlend}, "needs a CVaR method"},
		{Options{Method: MinibatchCVaR, Objective: ObjectiveChi2}, "needs alg1, alg2, alg3 or alg4"},
		{Options{Method: Alg3, Objective: ObjectiveGroup}, "needs Groups"},
		{Options{Method: Alg3, Objective: ObjectiveGroup, Groups: make([]int32, 99)}, "99 groups for 100 training rows"},
		{Options{Method: Alg3, Objective: ObjectiveGroup, Groups: append(make([]int32, 99), -1)}, "row 99 has group -1"},
		{Options{Method: Alg3, Objective: ObjectiveBlend, Blend: 1.5}, "blend λ 1.5 outside [0, 1]"},
		{Options{Method: Alg3, Objective: ObjectiveTrimmed, Trim: 1}, "trim ε 1 outside [0, 1)"},
		{Options{Method: Alg3, Objective: ObjectiveChi2, Rho: math.NaN()}, "χ² radius ρ NaN"},
		{Options{Method: Alg3, Objective: ObjectiveBlend, Rule: TheoremStep, Domain: Ball(1)}, "practical rule"},
		{Options{Method: Alg3, Objective: Objective(9)}, "unknown objective 9"},
	} {
		_, err := Train(model, data, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := NewOnline(model, 3, 2, Options{Method: Alg1, Objective: ObjectiveGroup, Groups: []int32{0}, Steps: 10}); err == nil {
		t.Error("Online took Group DRO")
	}
}

// builtinGroups is the built-in data (a rare group whose spurious feature
// reverses) as training data, with its groups: 1 for the minority.
func builtinGroups(t *testing.T, n int, seed uint64, noise float64) (*batch.Data[float64], []int32) {
	t.Helper()
	ds, minority, err := dataset.SyntheticClassificationGroups[float64](dataset.SynthClassOptions{N: n, Seed: seed, Noise: noise})
	if err != nil {
		t.Fatal(err)
	}
	groups := make([]int32, n)
	for i, m := range minority {
		if m {
			groups[i] = 1
		}
	}
	return must(ds.Batch()), groups
}

// worstGroupAccuracy is the lowest accuracy of a group.
func worstGroupAccuracy(t *testing.T, model batch.Model[float64], theta []float64, data *batch.Data[float64], groups []int32) float64 {
	t.Helper()
	worst := 1.0
	for g := range int32(2) {
		var x []float64
		var lab []int32
		for i, gi := range groups {
			if gi == g {
				x, lab = append(x, data.Row(i)...), append(lab, data.Labels[i])
			}
		}
		m, err := Evaluate(model, theta, must(batch.NewData(x, len(lab), data.D, nil, lab, 2)), 0.1)
		if err != nil {
			t.Fatal(err)
		}
		worst = min(worst, m.Accuracy)
	}
	return worst
}

// TestGroupDROLiftsWorstGroup: on the built-in data, whose rare group's
// spurious feature reverses, Group DRO and CVaR raise the worst group's
// validation accuracy over plain SGD, on three seeds.
func TestGroupDROLiftsWorstGroup(t *testing.T) {
	t.Parallel()
	model := must(batch.NewLogistic[float64](20))
	for seed := uint64(1); seed <= 3; seed++ {
		train, groups := builtinGroups(t, 4000, seed, 0)
		val, vgroups := builtinGroups(t, 3000, seed+100, 0)
		acc := map[string]float64{}
		for name, o := range map[string]Options{
			"vanilla": {Method: Vanilla},
			"group":   {Method: Vanilla, Objective: ObjectiveGroup, Groups: groups},
			"cvar":    {Method: Alg3},
		} {
			o.Epochs, o.Seed = 30, seed
			res, err := Train(model, train, o)
			if err != nil {
				t.Fatal(err)
			}
			acc[name] = worstGroupAccuracy(t, model, res.Theta, val, vgroups)
		}
		t.Logf("seed %d: worst-group accuracy vanilla %.3f, group DRO %.3f, CVaR %.3f", seed, acc["vanilla"], acc["group"], acc["cvar"])
		if !(acc["group"] > acc["vanilla"]+0.05) || !(acc["cvar"] > acc["vanilla"]+0.05) {
			t.Errorf("seed %d: worst-group accuracy vanilla %.3f, group DRO %.3f, CVaR %.3f: want both above vanilla by 0.05", seed, acc["vanilla"], acc["group"], acc["cvar"])
		}
	}
}

func TestGridTrims(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opt  Options
		grid []float64
		want []float64
	}{
		{Options{Method: Alg3, Objective: ObjectiveBlend}, nil, Grid{}.WithDefaults().Trim},
		{Options{Method: Alg3, Objective: ObjectiveTrimmed}, nil, []float64{0.05, 0.1, 0.2}},
		{Options{Method: Alg3, Objective: ObjectiveTrimmed}, []float64{0}, []float64{0}},
		{Options{Method: Alg3, Objective: ObjectiveBlend, Trim: 0.3}, nil, []float64{0}},
		{Options{Method: Alg3}, []float64{0.1}, []float64{0}},
		{Options{Method: Alg3, Objective: ObjectiveChi2}, nil, []float64{0}},
	} {
		if got := gridTrims(c.grid, &c.opt); !slices.Equal(got, c.want) {
			t.Errorf("%v, grid %v: trims %v, want %v", c.opt.Objective, c.grid, got, c.want)
		}
	}
	chi2 := Options{Method: Alg3, Objective: ObjectiveChi2}
	if got := gridRhos(nil, &chi2); !slices.Equal(got, Grid{}.WithDefaults().Rho) {
		t.Errorf("χ² radii %v, want the default grid's", got)
	}
	chi2.Rho = 2
	if got := gridRhos([]float64{1, 3}, &chi2); !slices.Equal(got, []float64{0}) {
		t.Errorf("χ² radii with Rho given: %v, want one setting", got)
	}
	blend := Options{Method: Alg3, Objective: ObjectiveBlend}
	if got := gridRhos([]float64{1, 3}, &blend); !slices.Equal(got, []float64{0}) {
		t.Errorf("χ² radii for the blend: %v, want one setting", got)
	}
	// Tune tries each radius, and the trial's radius is the run's.
	data := subgroupData(t, 600, 4, 21)
	tuned, err := Tune(must(batch.NewLogistic[float64](4)), data, data, Options{Method: Alg3, Objective: ObjectiveChi2, Epochs: 1, Seed: 1},
		TuneOptions{Grid: Grid{LR: []float64{0.01}, WeightDecay: []float64{0}, EpsFraction: []float64{0.05}, Rho: []float64{0.5, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tuned.Trials) != 2 || tuned.Trials[0].Rho != 0.5 || tuned.Trials[1].Rho != 2 || tuned.Result.Params.Rho != tuned.Trials[tuned.Best].Rho {
		t.Errorf("trials %+v, best %d with ρ %v", tuned.Trials, tuned.Best, tuned.Result.Params.Rho)
	}
}

// TestTuneTrimsNoisyLabels: on the built-in data with 15 % of its training
// labels flipped, the blend tuned over trims and picked by validation
// accuracy keeps the clean validation accuracy within 2 points of plain
// SGD's on each of three seeds, and lowers the clean validation CVaR_0.1
// below plain SGD's on average over them.
func TestTuneTrimsNoisyLabels(t *testing.T) {
	t.Parallel()
	model := must(batch.NewLogistic[float64](20))
	var sumB, sumV float64
	for seed := uint64(1); seed <= 3; seed++ {
		train, _ := builtinGroups(t, 4000, seed, 0.15)
		noisyVal, _ := builtinGroups(t, 2000, seed+50, 0.15)
		clean, _ := builtinGroups(t, 3000, seed+100, -1)
		base := Options{Method: Alg3, Epochs: 20, Seed: seed}
		grid := TuneOptions{Grid: Grid{LR: []float64{0.01, 0.03}, WeightDecay: []float64{0}, EpsFraction: []float64{0.05}}, Select: SelectAccuracy}
		score := func(theta []float64) (acc, cv float64) {
			m, err := Evaluate(model, theta, clean, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			cv, _ = m.TailAt(0.1)
			return m.Accuracy, cv
		}
		van := base
		van.Method = Vanilla
		vt, err := Tune(model, train, noisyVal, van, grid)
		if err != nil {
			t.Fatal(err)
		}
		blend := base
		blend.Objective = ObjectiveBlend
		bt, err := Tune(model, train, noisyVal, blend, grid)
		if err != nil {
			t.Fatal(err)
		}
		if len(bt.Trials) != 2*len(Grid{}.WithDefaults().Trim) {
			t.Fatalf("%d trials, want 2 step sizes × %d trims", len(bt.Trials), len(Grid{}.WithDefaults().Trim))
		}
		plain := base
		plain.Objective = ObjectiveCVaR
		pt, err := Tune(model, train, noisyVal, plain, grid)
		if err != nil {
			t.Fatal(err)
		}
		va, vc := score(vt.Result.Theta)
		ba, bc := score(bt.Result.Theta)
		pa, pc := score(pt.Result.Theta)
		t.Logf("seed %d: clean validation accuracy / CVaR_0.1: vanilla %.3f / %.3f, tuned blend (trim %g) %.3f / %.3f, CVaR %.3f / %.3f",
			seed, va, vc, bt.Trials[bt.Best].Trim, ba, bc, pa, pc)
		if !(ba >= va-0.02) {
			t.Errorf("seed %d: tuned blend accuracy %.3f against vanilla %.3f: want it within 2 points", seed, ba, va)
		}
		sumB, sumV = sumB+bc, sumV+vc
	}
	if !(sumB < sumV) {
		t.Errorf("mean clean CVaR_0.1: tuned blend %.4f, vanilla %.4f: want the blend's lower", sumB/3, sumV/3)
	}
}

func TestSettleObjective(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opt  Options
		want Objective
		err  string
	}{
		{Options{Method: Alg3}, ObjectiveBlend, ""},
		{Options{Method: MinibatchCVaR, Trim: 0.1}, ObjectiveBlend, ""},
		{Options{Method: Alg3, Rule: TheoremStep}, ObjectiveDefault, ""},
		{Options{Method: Vanilla}, ObjectiveDefault, ""},
		{Options{Method: Alg3, Rho: 2}, ObjectiveChi2, ""},
		{Options{Method: Vanilla, GroupLR: 0.1}, ObjectiveGroup, ""},
		{Options{Method: Alg3, Objective: ObjectiveTrimmed, Trim: 0.1}, ObjectiveTrimmed, ""},
		{Options{Method: Alg3, Objective: ObjectiveCVaR, Blend: 0.2}, 0, "Blend is not a parameter of objective cvar"},
		{Options{Method: Vanilla, Trim: 0.1}, 0, "Trim is not a parameter of objective mean"},
		{Options{Method: Alg3, Objective: ObjectiveBlend, Rho: 1}, 0, "Rho is not a parameter of objective blend"},
		{Options{Method: Alg3, Rho: 1, GroupLR: 0.1}, 0, "GroupLR is not a parameter of objective chi2"},
	} {
		opt := c.opt
		err := opt.SettleObjective()
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.err)
		case c.err == "" && (err != nil || opt.Objective != c.want):
			t.Errorf("%+v: %v, %v; want %v", c.opt, opt.Objective, err, c.want)
		}
	}
}
