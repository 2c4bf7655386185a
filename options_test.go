package cvar

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestOptionsRefusedNamingField: counts that would wrap or exceed
// MaxSteps, a non-finite Scale, a starting point outside K and bad tuning
// options are errors that name the field, never a run that wraps, clamps
// or projects silently.
func TestOptionsRefusedNamingField(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 200, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	f32 := must(batch.NewLogistic[float32](3))
	data32 := &batch.Data[float32]{X: make([]float32, len(data.X)), N: data.N, D: data.D, Stride: data.Stride, K: data.K, Labels: data.Labels, Y: make([]float32, len(data.Y))}
	for i, v := range data.X {
		data32.X[i] = float32(v)
	}
	for i, v := range data.Y {
		data32.Y[i] = float32(v)
	}
	train := func(opt Options) error { _, err := Train(model, data, opt); return err }
	tune := func(opt Options, to TuneOptions) error { _, err := Tune(model, data, data, opt, to); return err }
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"Epochs over MaxSteps", train(Options{Method: Vanilla, Epochs: 1844674407370955162, Batch: 10}), []string{"Epochs 1844674407370955162", "MaxSteps"}},
		{"Epochs MaxInt64", train(Options{Method: Vanilla, Epochs: math.MaxInt64, Batch: 10}), []string{"Epochs 9223372036854775807", "MaxSteps"}},
		{"Epochs × steps over MaxSteps", train(Options{Method: Alg2, Epochs: MaxSteps / 100}), []string{"Epochs", "200 steps each", "MaxSteps"}},
		{"Steps over MaxSteps", train(Options{Method: Vanilla, Steps: MaxSteps + 1}), []string{"Steps 9007199254740993", "MaxSteps"}},
		{"Online Steps over MaxSteps", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: MaxSteps + 1, LR: 0.1})
			return err
		}(), []string{"Steps", "MaxSteps"}},
		{"Scale NaN", train(Options{Method: Vanilla, Steps: 1, Scale: batch.Scale{MaxNorm: math.NaN(), MaxAbsY: 1}}), []string{"Scale.MaxNorm NaN"}},
		{"Scale negative", train(Options{Method: Vanilla, Steps: 1, Scale: batch.Scale{MaxNorm: 1, MaxAbsY: -1}}), []string{"Scale.MaxAbsY -1"}},
		{"Online Scale Inf", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, Scale: batch.Scale{MaxNorm: math.Inf(1)}})
			return err
		}(), []string{"Scale.MaxNorm +Inf"}},
		{"Init outside the ball", train(Options{Method: Alg3, Steps: 1, Domain: Ball(1), Init: []float64{1, 1, 0, 0}}), []string{"Init", "norm 1.414", "ball(R=1)"}},
		{"Init outside the box", train(Options{Method: Alg3, Steps: 1, Domain: Box(-1, 1), Init: []float64{0, 0, 2, 0}}), []string{"Init[2] is 2", "box[-1, 1]"}},
		{"Init NaN", train(Options{Method: Vanilla, Steps: 1, Init: []float64{0, math.NaN(), 0, 0}}), []string{"Init[1] is NaN"}},
		{"Init overflows float32", func() error {
			_, err := Train(f32, data32, Options{Method: Vanilla, Steps: 1, Init: []float64{0, 0, 1e300, 0}})
			return err
		}(), []string{"Init[2] is 1e+300", "float32"}},
		{"Online Init outside the ball", func() error {
			_, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, LR: 0.1, Domain: Ball(0.5), Init: []float64{0, 0, 0, 1}})
			return err
		}(), []string{"Init", "ball(R=0.5)"}},
		{"TuneOptions.Threads -1", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Threads: -1}), []string{"TuneOptions.Threads -1"}},
		{"Tune Options.Threads -1", tune(Options{Method: Vanilla, Steps: 1, Threads: -1}, TuneOptions{}), []string{"-1 threads"}},
		{"Grid.EpsFraction 0", tune(Options{Method: Alg3, Steps: 1}, TuneOptions{Grid: Grid{EpsFraction: []float64{0.05, 0}}}), []string{"Grid.EpsFraction value 0", "positive"}},
		{"Grid.LR 0", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Grid: Grid{LR: []float64{0}}}), []string{"Grid.LR value 0", "positive"}},
		{"Grid.WeightDecay NaN", tune(Options{Method: Vanilla, Steps: 1}, TuneOptions{Grid: Grid{WeightDecay: []float64{math.NaN()}}}), []string{"Grid.WeightDecay value NaN"}},
		{"grid too large", tune(Options{Method: Alg3, Steps: 1}, TuneOptions{Grid: Grid{LR: make1(300), WeightDecay: make1(300)}}), []string{"300 × 300 × 3", "MaxGridSettings"}},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(c.err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, c.err, w)
			}
		}
	}
}

// make1 returns n step sizes of 1.
func make1(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestInitOnTheBoundary: a starting point on K's boundary, as a projection
// leaves it (a few ulps outside in float32), is accepted, and counts up to
// MaxSteps resolve exactly.
func TestInitOnTheBoundary(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 200, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	r := 0.3
	init := []float64{1, 2, 3, 4}
	var s float64
	for _, v := range init {
		s += v * v
	}
	for i := range init {
		init[i] = float64(float32(init[i] * r / math.Sqrt(s)))
	}
	if _, err := Train(model, data, Options{Method: Alg3, Steps: 2, Domain: Ball(r), Init: init}); err != nil {
		t.Fatalf("Init on the ball's boundary: %v", err)
	}
	if _, err := Train(model, data, Options{Method: Alg3, Steps: 2, Domain: Box(-1, 1), Init: []float64{-1, 1, 0, 1}}); err != nil {
		t.Fatalf("Init on the box's boundary: %v", err)
	}
	pr, err := resolve(&Options{Method: Alg2, Epochs: MaxSteps / 8}, 4, 8, batch.Bounds{}, true, nil)
	if err != nil || pr.Steps != MaxSteps {
		t.Fatalf("Epochs MaxSteps/8 on 8 samples: %d steps, %v; want %d", pr.Steps, err, MaxSteps)
	}
	if _, err := resolve(&Options{Method: Alg2, Epochs: MaxSteps/8 + 1}, 4, 8, batch.Bounds{}, true, nil); err == nil || !strings.Contains(err.Error(), "MaxSteps") {
		t.Fatalf("Epochs MaxSteps/8 + 1 on 8 samples: %v; want an error naming MaxSteps", err)
	}
}

// TestValidateNamesFirstBadField: with every field from one on bad, the
// error names that field, the first bad one in the order Options declares
// them, on every run; the list follows Options' declaration.
func TestValidateNamesFirstBadField(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 50, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	nan, inf := math.NaN(), math.Inf(1)
	bad := []struct {
		field string
		set   func(*Options)
		want  string
	}{
		{"Method", func(o *Options) { o.Method = 99 }, "unknown method 99"},
		{"Alpha", func(o *Options) { o.Alpha = 2 }, "alpha 2 outside"},
		{"Objective", func(o *Options) { o.Objective = 9 }, "unknown objective 9"},
		{"Blend", func(o *Options) { o.Blend = 2 }, "blend λ 2"},
		{"Trim", func(o *Options) { o.Trim = -0.1 }, "trim ε -0.1"},
		{"Rho", func(o *Options) { o.Rho = nan }, "χ² radius ρ NaN"},
		{"Groups", func(o *Options) { o.Groups = []int32{0, -1} }, "row 1 has group -1"},
		{"GroupLR", func(o *Options) { o.GroupLR = inf }, "group step η_q +Inf"},
		{"Domain", func(o *Options) { o.Domain = Ball(-1) }, "ball radius -1"},
		{"TauMin", func(o *Options) { o.TauMin = nan }, "tau interval [NaN"},
		{"TauMax", func(o *Options) { o.TauMax = -5 }, "tau interval [0, -5]"},
		{"Smoothing", func(o *Options) { o.Smoothing = Smoothing(4) }, "smoothing Smoothing(4)"},
		{"Eps", func(o *Options) { o.Eps = -1 }, "Eps -1"},
		{"EpsFraction", func(o *Options) { o.EpsFraction = nan }, "EpsFraction NaN"},
		{"LR", func(o *Options) { o.LR = -1 }, "LR -1"},
		{"TauLR", func(o *Options) { o.TauLR = inf }, "TauLR +Inf"},
		{"Rule", func(o *Options) { o.Rule = 7 }, "step rule 7"},
		{"WeightDecay", func(o *Options) { o.WeightDecay = -1 }, "WeightDecay -1"},
		{"Steps", func(o *Options) { o.Steps = -1 }, "Steps -1"},
		{"Epochs", func(o *Options) { o.Epochs = -2 }, "Epochs -2"},
		{"Batch", func(o *Options) { o.Batch = -3 }, "Batch -3"},
		{"Sampling", func(o *Options) { o.Sampling = 9 }, "sampling 9"},
		{"Output", func(o *Options) { o.Output = 9 }, "output 9"},
		{"LossBound", func(o *Options) { o.LossBound = -1 }, "LossBound -1"},
		{"G", func(o *Options) { o.G = nan }, "G NaN"},
		{"Beta", func(o *Options) { o.Beta = -1 }, "Beta -1"},
		{"Scale.MaxNorm", func(o *Options) { o.Scale.MaxNorm = -1 }, "Scale.MaxNorm -1"},
		{"Scale.MaxAbsY", func(o *Options) { o.Scale.MaxAbsY = inf }, "Scale.MaxAbsY +Inf"},
		{"Threads", func(o *Options) { o.Threads = -1 }, "-1 threads"},
		{"Init", func(o *Options) { o.Init = []float64{nan, 0, 0, 0} }, "Init[0] is NaN"},
		{"InitTau", func(o *Options) { o.InitTau = &nan }, "InitTau NaN"},
	}
	// Every exported field that can be bad is in the list, in order.
	var fields, listed []string
	for f := range reflect.TypeFor[Options]().Fields() {
		if f.IsExported() && f.Name != "Seed" && f.Name != "OnEpoch" {
			fields = append(fields, f.Name)
		}
	}
	for _, b := range bad {
		name, _, _ := strings.Cut(b.field, ".")
		if len(listed) == 0 || listed[len(listed)-1] != name {
			listed = append(listed, name)
		}
	}
	if !slices.Equal(fields, listed) {
		t.Fatalf("the bad fields %v are not Options' fields %v in order", listed, fields)
	}
	for first := range bad {
		opt := Options{Method: Alg3}
		for _, b := range bad[first:] {
			b.set(&opt)
		}
		for run := range 20 {
			_, err := Train(model, data, opt)
			if err == nil || !strings.Contains(err.Error(), bad[first].want) {
				t.Fatalf("bad from %s on, run %d: %v; want an error with %q", bad[first].field, run, err, bad[first].want)
			}
		}
	}
}

// TestParamsReportPlan: Params reports the output, the sampling, the
// objective and the ε fraction each method resolves to, by default and
// when the options give them, and resolve leaves the options as given.
func TestParamsReportPlan(t *testing.T) {
	t.Parallel()
	data := subgroupData(t, 100, 3, 1)
	model := must(batch.NewLogistic[float64](3))
	cases := []struct {
		opt  Options
		out  Output
		samp batch.Sampling
		obj  batch.Objective
		frac float64
	}{
		{Options{Method: Alg1}, OutputAverage, batch.InOrder, batch.Hinge, 0},
		{Options{Method: Alg2}, OutputAverage, batch.WithReplacement, batch.Softplus, DefaultEpsFraction},
		{Options{Method: Alg3}, OutputLast, batch.WithReplacement, batch.Softplus, DefaultEpsFraction},
		{Options{Method: Alg4}, OutputLast, batch.InOrder, batch.Softplus, DefaultEpsFraction},
		{Options{Method: Vanilla}, OutputLast, batch.Shuffled, batch.Mean, 0},
		{Options{Method: MinibatchCVaR}, OutputLast, batch.Shuffled, batch.TopK, 0},
		{Options{Method: Alg3, Rule: TheoremStep, Domain: Ball(1)}, OutputAverage, batch.WithReplacement, batch.Softplus, 0},
		{Options{Method: Alg4, Rule: TheoremStep}, OutputRandom, batch.InOrder, batch.Softplus, 0},
		{Options{Method: Alg3, Eps: 0.1}, OutputLast, batch.WithReplacement, batch.Softplus, 0},
		{Options{Method: Alg2, Smoothing: Quadratic, EpsFraction: 0.2, Output: OutputLast, Sampling: batch.Shuffled}, OutputLast, batch.Shuffled, batch.Quadratic, 0.2},
		{Options{Method: Vanilla, Output: OutputRandom, Sampling: batch.InOrder}, OutputRandom, batch.InOrder, batch.Mean, 0},
	}
	for _, c := range cases {
		c.opt.Steps, c.opt.Seed = 5, 1
		given := c.opt
		res, err := Train(model, data, c.opt)
		if err != nil {
			t.Fatalf("%+v: %v", c.opt, err)
		}
		p := res.Params
		if p.Output != c.out || p.Sampling != c.samp || p.Objective != c.obj || p.EpsFraction != c.frac {
			t.Errorf("%v %v: output %v, sampling %v, objective %v, ε fraction %v; want %v, %v, %v, %v",
				c.opt.Method, c.opt.Rule, p.Output, p.Sampling, p.Objective, p.EpsFraction, c.out, c.samp, c.obj, c.frac)
		}
		if (res.Iterate > 0) != (p.Output == OutputRandom) {
			t.Errorf("%v %v: iterate %d with output %v", c.opt.Method, c.opt.Rule, res.Iterate, p.Output)
		}
		pr, err := resolve(&c.opt, model.NumParams(), data.N, batch.Bounds{G: 1, Beta: 1, L: 1}, true, nil)
		if err != nil || pr.Output != c.out || !reflect.DeepEqual(c.opt, given) {
			t.Errorf("%v %v: resolve gives output %v (%v) and leaves the options %+v; want %v and %+v", c.opt.Method, c.opt.Rule, pr.Output, err, c.opt, c.out, given)
		}
	}
	o, err := NewOnline(model, 3, 2, Options{Method: Alg1, Steps: 10, Sampling: batch.Shuffled})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if p := o.Result().Params; p.Sampling != batch.InOrder || p.Output != OutputAverage {
		t.Errorf("Online: sampling %v, output %v; want in-order, average", p.Sampling, p.Output)
	}
}
