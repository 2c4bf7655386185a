package cvar

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// sparseTwins returns a small sparse data set (empty rows, repeated columns)
// and its dense twin.
func sparseTwins(t *testing.T, n, d int, classify bool, seed uint64) (sp, de *batch.Data[float64]) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	indptr := []int64{0}
	var cols []uint32
	var vals []float64
	x := make([]float64, n*d)
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	var y []float64
	var labels []int32
	k := 0
	if classify {
		labels, k = make([]int32, n), 2
	} else {
		y = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		if i%9 != 4 {
			for range 1 + rng.IntN(4) {
				c := uint32(rng.IntN(d))
				if len(cols) > int(indptr[i]) && rng.IntN(4) == 0 {
					c = cols[len(cols)-1]
				}
				v := rng.NormFloat64()
				cols, vals = append(cols, c), append(vals, v)
				x[i*d+int(c)] += v
			}
		}
		indptr = append(indptr, int64(len(cols)))
		var m float64
		for j := 0; j < d; j++ {
			m += x[i*d+j] * w[j]
		}
		if classify {
			if m+0.5*rng.NormFloat64() > 0 {
				labels[i] = 1
			}
		} else {
			y[i] = m + 0.3*rng.NormFloat64()
		}
	}
	var err error
	if sp, err = batch.NewSparseData(indptr, cols, vals, n, d, y, labels, k); err != nil {
		t.Fatal(err)
	}
	if de, err = batch.NewData(x, n, d, y, labels, k); err != nil {
		t.Fatal(err)
	}
	return sp, de
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*(1+math.Abs(b)) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestSparseTrainsLikeDense trains the linear models and softmax on a sparse data set and
// its dense twin: the same θ and metrics to 1e-12, on 1 and 3 threads.
func TestSparseTrainsLikeDense(t *testing.T) {
	t.Parallel()
	const n, d = 400, 30
	models := []struct {
		model    batch.Model[float64]
		classify bool
	}{
		{must(batch.NewLogistic[float64](d)), true},
		{must(batch.NewLeastSquares[float64](d)), false},
		{must(batch.NewLeastAbsolute[float64](d)), false},
		{must(batch.NewSoftmax[float64](d, 2)), true},
	}
	for _, mc := range models {
		sp, de := sparseTwins(t, n, d, mc.classify, 11)
		for _, method := range []Method{Alg3, Vanilla} {
			for _, threads := range []int{1, 3} {
				opt := Options{Method: method, Alpha: 0.2, Epochs: 4, Batch: 100, LR: 0.05, Seed: 9, Threads: threads}
				if method == Alg3 {
					opt.Eps = 0.05
				}
				rs, err := Train(mc.model, sp, opt)
				if err != nil {
					t.Fatalf("%s %v sparse: %v", mc.model.Name(), method, err)
				}
				rd, err := Train(mc.model, de, opt)
				if err != nil {
					t.Fatalf("%s %v dense: %v", mc.model.Name(), method, err)
				}
				for j := range rd.Theta {
					if !near(rs.Theta[j], rd.Theta[j], 1e-12) {
						t.Fatalf("%s %v, %d threads: θ[%d] sparse %v, dense %v", mc.model.Name(), method, threads, j, rs.Theta[j], rd.Theta[j])
					}
				}
				if !near(rs.Tau, rd.Tau, 1e-12) {
					t.Fatalf("%s %v: τ sparse %v, dense %v", mc.model.Name(), method, rs.Tau, rd.Tau)
				}
				ms, err := Evaluate(mc.model, rs.Theta, sp, 0.1, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				md, err := Evaluate(mc.model, rd.Theta, de, 0.1, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				if ms.N != md.N || !near(ms.MeanLoss, md.MeanLoss, 1e-12) || !near(ms.Accuracy, md.Accuracy, 0) {
					t.Fatalf("%s %v: metrics sparse %+v, dense %+v", mc.model.Name(), method, ms, md)
				}
				for i := range md.Tails {
					if !near(ms.Tails[i].CVaR, md.Tails[i].CVaR, 1e-12) || !near(ms.Tails[i].VaR, md.Tails[i].VaR, 1e-12) {
						t.Fatalf("%s %v: tails sparse %+v, dense %+v", mc.model.Name(), method, ms.Tails, md.Tails)
					}
				}
			}
		}
	}
}

// TestSparseTune runs Tune on sparse data.
func TestSparseTune(t *testing.T) {
	t.Parallel()
	const d = 20
	train, _ := sparseTwins(t, 300, d, true, 1)
	val, _ := sparseTwins(t, 150, d, true, 2)
	model := must(batch.NewLogistic[float64](d))
	tu, err := Tune(model, train, val, Options{Method: Alg3, Alpha: 0.2, Epochs: 2, Seed: 1}, TuneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tu.Result == nil || len(tu.Result.Theta) != d+1 {
		t.Fatalf("Tune on sparse data gave %+v", tu)
	}
}

// TestSparseMLPTrainsLikeDense trains the MLP (first layer on CSR rows) on
// a sparse set and its dense twin: θ and the metrics to 1e-9, and the
// sparse run bit-identical on 1 and 3 threads.
func TestSparseMLPTrainsLikeDense(t *testing.T) {
	t.Parallel()
	sp, de := sparseTwins(t, 300, 40, true, 3)
	model := must(batch.NewMLP[float64](40, 8, 2))
	for _, method := range []Method{Alg3, Vanilla} {
		opt := Options{Method: method, Alpha: 0.2, Eps: 0.05, Epochs: 2, Batch: 64, LR: 0.1, Seed: 3, WeightDecay: 0.01}
		rs, err := Train(model, sp, opt)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := Train(model, de, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Threads = 3
		r3, err := Train(model, sp, opt)
		if err != nil {
			t.Fatal(err)
		}
		for j := range rd.Theta {
			if !near(rs.Theta[j], rd.Theta[j], 1e-9) || r3.Theta[j] != rs.Theta[j] {
				t.Fatalf("%v: θ[%d] sparse %v (3 threads %v), dense %v", method, j, rs.Theta[j], r3.Theta[j], rd.Theta[j])
			}
		}
		ms, err := Evaluate(model, rs.Theta, sp, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		md, _ := Evaluate(model, rd.Theta, de, 0.1)
		if !near(ms.MeanLoss, md.MeanLoss, 1e-9) || ms.Accuracy != md.Accuracy || !near(ms.Tails[0].CVaR, md.Tails[0].CVaR, 1e-9) {
			t.Fatalf("%v: metrics sparse %+v, dense %+v", method, ms, md)
		}
	}
}

// TestSparseLIBSVMEndToEnd reads a LIBSVM text sparse and dense, trains
// logistic regression on both and compares θ and the metrics.
func TestSparseLIBSVMEndToEnd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	for i := 0; i < 500; i++ {
		j1, j2 := 1+rng.IntN(100), 101+rng.IntN(100)
		label := 0
		if j1%3 == 0 || j2%5 == 0 {
			label = 1
		}
		fmt.Fprintf(&b, "%d %d:%.3f %d:1\n", label, j1, rng.Float64()+0.5, j2)
	}
	opt := dataset.LIBSVMOptions{Dim: 200}
	dd, err := dataset.ReadLIBSVM[float64](strings.NewReader(b.String()), "t.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.SparseBelow = dataset.DefaultSparseBelow
	sd, err := dataset.ReadLIBSVM[float64](strings.NewReader(b.String()), "t.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	if !sd.IsSparse() || dd.IsSparse() {
		t.Fatalf("sparse reading sparse %v, dense reading sparse %v", sd.IsSparse(), dd.IsSparse())
	}
	de, err := dd.Batch()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sd.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model := must(batch.NewLogistic[float64](200))
	o := Options{Method: Alg3, Alpha: 0.1, Eps: 0.05, Epochs: 5, Batch: 64, LR: 0.5, Seed: 2}
	rs, err := Train(model, sp, o)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Train(model, de, o)
	if err != nil {
		t.Fatal(err)
	}
	for j := range rd.Theta {
		if !near(rs.Theta[j], rd.Theta[j], 1e-12) {
			t.Fatalf("θ[%d] sparse %v, dense %v", j, rs.Theta[j], rd.Theta[j])
		}
	}
	ms, _ := Evaluate(model, rs.Theta, sp, 0.1)
	md, _ := Evaluate(model, rd.Theta, de, 0.1)
	if !near(ms.MeanLoss, md.MeanLoss, 1e-12) || ms.Accuracy != md.Accuracy || !near(ms.Tails[0].CVaR, md.Tails[0].CVaR, 1e-12) {
		t.Fatalf("metrics sparse %+v, dense %+v", ms, md)
	}
	t.Logf("accuracy %.3f, mean loss %.4f, CVaR_0.1 %.4f", ms.Accuracy, ms.MeanLoss, ms.Tails[0].CVaR)
}

// TestSparseStepLikeDense checks the sparse step (the update, and the weight
// decay applied lazily, only at the coordinates a minibatch touches) on
// K = R^d against the step on the same sparse data with a ball too large to
// bind (the compact minibatch's update, the dense step's arithmetic):
// without weight decay bit for bit for softmax and to 1e-12 for the linear
// models (their step on R^d adds each row's share into θ in turn, Engine.StepSparse), with it to 1e-9; against the dense twin, θ, τ and the metrics to 1e-9 (the
// sparse and dense dot products sum in different orders, and Alg3's τ
// amplifies an ulp, so the runs are one epoch, 75 steps of 8 rows); θ read by OnEpoch
// likewise; and the sparse runs bit-identical on 1, 2 and 3 threads.
func TestSparseStepLikeDense(t *testing.T) {
	t.Parallel()
	const n, d = 600, 300 // a few columns a row: most weights untouched each step
	models := []struct {
		model    batch.Model[float64]
		classify bool
	}{
		{must(batch.NewLogistic[float64](d)), true},
		{must(batch.NewLeastSquares[float64](d)), false},
		{must(batch.NewSoftmax[float64](d, 2)), true},
	}
	for _, mc := range models {
		sp, de := sparseTwins(t, n, d, mc.classify, 21)
		for _, method := range []Method{Alg3, Vanilla, MinibatchCVaR, Alg1} {
			for _, decay := range []float64{0, 0.05} {
				opt := Options{Method: method, Alpha: 0.2, Epochs: 1, Batch: 8, LR: 0.1, Seed: 5, WeightDecay: decay}
				switch method {
				case Alg3:
					opt.Eps = 0.05
				case Alg1: // ε and τ from the first minibatch; the last iterate, for the sparse step
					opt.Output, opt.Batch, opt.LR = OutputLast, 1, 0.01
				}
				name := fmt.Sprintf("%s %v λ=%g", mc.model.Name(), method, decay)
				var mid [][]float64
				train := func(data *batch.Data[float64], threads int, dom Domain) *Result[float64] {
					o := opt
					o.Threads, o.Domain = threads, dom
					o.OnEpoch = func(e EpochInfo) error {
						if e.Epoch == 1 {
							mid = append(mid, e.Theta)
						}
						return nil
					}
					r, err := Train(mc.model, data, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					return r
				}
				rs := train(sp, 1, Domain{})
				rb := train(sp, 1, Ball(1e9))
				rd := train(de, 1, Domain{})
				same := func(what string, a, b *Result[float64], ma, mb []float64, tol float64) {
					t.Helper()
					for j := range a.Theta {
						if !near(a.Theta[j], b.Theta[j], tol) || !near(ma[j], mb[j], tol) {
							t.Fatalf("%s, %s: θ[%d] %v and %v, at epoch 1 %v and %v", name, what, j, a.Theta[j], b.Theta[j], ma[j], mb[j])
						}
					}
					if !near(a.Tau, b.Tau, tol) {
						t.Fatalf("%s, %s: τ %v and %v", name, what, a.Tau, b.Tau)
					}
				}
				_, linear := mc.model.(*batch.Linear[float64])
				switch {
				case decay == 0 && !linear:
					same("sparse and dense steps", rs, rb, mid[0], mid[1], 0)
				case decay == 0:
					same("sparse and dense steps", rs, rb, mid[0], mid[1], 1e-12)
				default:
					same("sparse and dense steps", rs, rb, mid[0], mid[1], 1e-9)
				}
				same("sparse and dense twin", rs, rd, mid[0], mid[2], 1e-9)
				ms, err := Evaluate(mc.model, rs.Theta, sp, 0.1, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				md, err := Evaluate(mc.model, rd.Theta, de, 0.1, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				if ms.N != md.N || !near(ms.MeanLoss, md.MeanLoss, 1e-9) || !near(ms.Accuracy, md.Accuracy, 0) {
					t.Fatalf("%s: metrics sparse %+v, dense %+v", name, ms, md)
				}
				for i := range md.Tails {
					if !near(ms.Tails[i].CVaR, md.Tails[i].CVaR, 1e-9) || !near(ms.Tails[i].VaR, md.Tails[i].VaR, 1e-9) {
						t.Fatalf("%s: tails sparse %+v, dense %+v", name, ms.Tails, md.Tails)
					}
				}
				for _, threads := range []int{2, 3} {
					rt := train(sp, threads, Domain{})
					same(fmt.Sprintf("%d threads and 1", threads), rt, rs, mid[len(mid)-1], mid[0], 0)
				}
			}
		}
	}
}

// TestLazyStepLikeDense checks the lazy sparse step (lazy.go) against the
// dense step on the dense twin, θ and τ to 1e-9 in float64: the averaged,
// last and random outputs, K = R^d, a ball that binds and one that does
// not, boxes with and without 0, with and without weight decay; and the
// sparse runs bit-identical on 1 and 3 threads.
func TestLazyStepLikeDense(t *testing.T) {
	t.Parallel()
	const n, d = 400, 200
	models := []struct {
		model    batch.Model[float64]
		classify bool
	}{
		{must(batch.NewLogistic[float64](d)), true},
		{must(batch.NewLeastSquares[float64](d)), false},
		{must(batch.NewSoftmax[float64](d, 2)), true},
	}
	doms := []Domain{{}, Ball(0.1), Ball(1e9), Box(-0.05, 0.05), Box(0.01, 1)}
	for _, mc := range models {
		sp, de := sparseTwins(t, n, d, mc.classify, 23)
		for _, method := range []Method{Alg3, Vanilla, MinibatchCVaR, Alg1, Alg2, Alg4} {
			for _, out := range []Output{OutputAverage, OutputLast, OutputRandom} {
				if out == OutputRandom && method != Alg4 && method != Alg3 {
					continue
				}
				for _, dom := range doms {
					if method == Alg4 && dom.kind != domainR {
						continue
					}
					for _, decay := range []float64{0, 0.05} {
						// A start of distinct weights inside every domain: from
						// equal weights (a box excluding 0 clips 0 to its
						// bound) softmax's classes tie, and which of the tied
						// losses CVaR-on-Minibatch's top-k keeps then turns on
						// the last bit of two kernels' sums.
						// Init must lie in K: into a ball it is scaled.
						init := make([]float64, mc.model.NumParams())
						var norm2 float64
						for j := range init {
							init[j] = 0.01 + 0.02*float64((j*7919)%101)/101
							norm2 += init[j] * init[j]
						}
						if dom.kind == domainBall && norm2 > dom.rad*dom.rad {
							for j := range init {
								init[j] *= dom.rad / math.Sqrt(norm2)
							}
						}
						opt := Options{Method: method, Alpha: 0.2, Epochs: 1, Batch: 8, LR: 0.1, Seed: 5,
							WeightDecay: decay, Output: out, Domain: dom, Init: init}
						switch method {
						case Alg3:
							opt.Eps = 0.05
						case Alg1, Alg2, Alg4:
							opt.LR, opt.Batch = 0.01, 1
						}
						name := fmt.Sprintf("%s %v %v %v λ=%g", mc.model.Name(), method, out, dom, decay)
						train := func(data *batch.Data[float64], threads int) *Result[float64] {
							o := opt
							o.Threads = threads
							r, err := Train(mc.model, data, o)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							return r
						}
						rs, rd := train(sp, 1), train(de, 1)
						for j := range rd.Theta {
							if !near(rs.Theta[j], rd.Theta[j], 1e-9) {
								t.Fatalf("%s: θ[%d] sparse %v, dense %v", name, j, rs.Theta[j], rd.Theta[j])
							}
						}
						if !near(rs.Tau, rd.Tau, 1e-9) || rs.Iterate != rd.Iterate {
							t.Fatalf("%s: τ sparse %v, dense %v; iterate %d and %d", name, rs.Tau, rd.Tau, rs.Iterate, rd.Iterate)
						}
						if dom == Ball(0.1) && out == OutputLast && method == Vanilla {
							if nrm := math.Sqrt(dot(rs.Theta, rs.Theta)); !near(nrm, 0.1, 1e-9) {
								t.Fatalf("%s: ‖θ‖ = %v, the ball does not bind", name, nrm)
							}
						}
						if decay == 0 && dom.kind == domainR {
							r3 := train(sp, 3)
							for j := range r3.Theta {
								if r3.Theta[j] != rs.Theta[j] {
									t.Fatalf("%s: θ[%d] on 3 threads %v, on 1 %v", name, j, r3.Theta[j], rs.Theta[j])
								}
							}
						}
					}
				}
			}
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestOnlineObserveSparse feeds the same stream to Online as dense rows
// (Observe) and as non-zeros (ObserveSparse): Alg1 (the average) and Alg4
// (a random iterate), with and without weight decay, θ and τ to 1e-9.
func TestOnlineObserveSparse(t *testing.T) {
	t.Parallel()
	const n, d = 300, 50
	for _, mc := range []struct {
		model    batch.Model[float64]
		classify bool
	}{
		{must(batch.NewLogistic[float64](d)), true},
		{must(batch.NewLeastSquares[float64](d)), false},
		{must(batch.NewSoftmax[float64](d, 2)), true},
		{must(batch.NewMLP[float64](d, 5, 2)), true},
	} {
		sp, de := sparseTwins(t, n, d, mc.classify, 31)
		for _, method := range []Method{Alg1, Alg4} {
			for _, decay := range []float64{0, 0.02} {
				opt := Options{Method: method, Alpha: 0.2, Steps: n, LR: 0.01, Seed: 4, WeightDecay: decay}
				name := fmt.Sprintf("%s %v λ=%g", mc.model.Name(), method, decay)
				os, err := NewOnline(mc.model, d, de.K, opt)
				if err != nil {
					t.Fatal(err)
				}
				od, _ := NewOnline(mc.model, d, de.K, opt)
				for i := 0; i < n; i++ {
					var y float64
					var label int
					if mc.classify {
						label = int(de.Labels[i])
					} else {
						y = de.Y[i]
					}
					cols, vals := sp.SparseRow(i)
					if err := os.ObserveSparse(cols, vals, y, label); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := od.Observe(de.Row(i), y, label); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
				rs, rd := os.Result(), od.Result()
				os.Close()
				od.Close()
				for j := range rd.Theta {
					if !near(rs.Theta[j], rd.Theta[j], 1e-9) {
						t.Fatalf("%s: θ[%d] sparse %v, dense %v", name, j, rs.Theta[j], rd.Theta[j])
					}
				}
				if !near(rs.Tau, rd.Tau, 1e-9) || rs.Iterate != rd.Iterate {
					t.Fatalf("%s: τ %v and %v, iterate %d and %d", name, rs.Tau, rd.Tau, rs.Iterate, rd.Iterate)
				}
			}
		}
	}
	o, _ := NewOnline(must(batch.NewLogistic[float64](d)), d, 2, Options{Method: Alg4, Steps: 10})
	defer o.Close()
	for _, c := range []struct {
		cols []uint32
		vals []float64
		want string
	}{
		{[]uint32{d}, []float64{1}, "outside"},
		{[]uint32{1}, []float64{math.NaN()}, "not finite"},
		{[]uint32{1, 2}, []float64{1}, "2 columns and 1 values"},
	} {
		if err := o.ObserveSparse(c.cols, c.vals, 0, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ObserveSparse(%v, %v): %v, want %q", c.cols, c.vals, err, c.want)
		}
	}
	if o.Seen() != 0 {
		t.Errorf("%d bad samples counted", o.Seen())
	}
}

// TestLazyStepLongRun runs the lazy step past its history's bound
// (max(d, 4096) steps, then a full sync) and with factors that fall below
// lazyMinP: Alg1's average with weight decay over 4800 steps, and a ball
// that binds hard; sparse and dense twin to 1e-9.
func TestLazyStepLongRun(t *testing.T) {
	t.Parallel()
	sp, de := sparseTwins(t, 400, 60, true, 41)
	model := must(batch.NewLogistic[float64](60))
	for _, opt := range []Options{
		{Method: Alg1, Alpha: 0.2, Epochs: 12, LR: 0.01, Seed: 2, WeightDecay: 0.05, Domain: Ball(5)},
		{Method: Vanilla, Epochs: 30, Batch: 4, LR: 0.5, Seed: 2, Output: OutputAverage, Domain: Ball(0.01)},
	} {
		rs, err := Train(model, sp, opt)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := Train(model, de, opt)
		if err != nil {
			t.Fatal(err)
		}
		for j := range rd.Theta {
			if !near(rs.Theta[j], rd.Theta[j], 1e-9) {
				t.Fatalf("%v: θ[%d] sparse %v, dense %v", opt.Method, j, rs.Theta[j], rd.Theta[j])
			}
		}
		if !near(rs.Tau, rd.Tau, 1e-9) {
			t.Fatalf("%v: τ sparse %v, dense %v", opt.Method, rs.Tau, rd.Tau)
		}
	}
}

// TestDirectStepLikeCompact checks the sparse step on K = R^d without
// weight decay or average, which adds the update into θ row by row
// (Engine.StepSparse), against the compact minibatch's step (GradientSparse,
// compactStep) on data whose minibatches repeat columns across rows and
// within them: θ and τ to 1e-12 relative in float64, for the linear models
// and the methods that run it; and the direct runs bit-identical on 1, 2
// and 3 threads.
func TestDirectStepLikeCompact(t *testing.T) {
	t.Parallel()
	const n, d = 480, 12 // 12 columns: a minibatch of 16 rows repeats most of them
	for _, model := range []batch.Model[float64]{
		must(batch.NewLogistic[float64](d)),
		must(batch.NewLeastSquares[float64](d)),
		must(batch.NewLeastAbsolute[float64](d)),
	} {
		sp, _ := sparseTwins(t, n, d, model.Name() == "logistic", 31)
		for _, opt := range []Options{
			{Method: Alg3, Alpha: 0.2, Eps: 0.05, LR: 0.1},
			{Method: Vanilla, LR: 0.1},
			{Method: MinibatchCVaR, Alpha: 0.2, LR: 0.1},
			{Method: Alg4, Alpha: 0.2, LR: 0.01, Batch: 1, Output: OutputRandom},
			{Method: Alg3, Alpha: 0.2, Eps: 0.05, LR: 0.1, Output: OutputRandom},
		} {
			opt.Epochs, opt.Seed = 1, 7
			if opt.Batch == 0 {
				opt.Batch = 16
			}
			name := fmt.Sprintf("%s %v %v", model.Name(), opt.Method, opt.Output)
			train := func(compact bool, threads int) *Result[float64] {
				o := opt
				o.compactStep, o.Threads = compact, threads
				r, err := Train(model, sp, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return r
			}
			direct, compact := train(false, 1), train(true, 1)
			for j := range direct.Theta {
				if a, b := direct.Theta[j], compact.Theta[j]; math.Abs(a-b) > 1e-12*math.Abs(b) {
					t.Fatalf("%s: θ[%d] direct %v, compact %v", name, j, a, b)
				}
			}
			if !near(direct.Tau, compact.Tau, 1e-12) || direct.Iterate != compact.Iterate {
				t.Fatalf("%s: τ direct %v, compact %v; iterate %d and %d", name, direct.Tau, compact.Tau, direct.Iterate, compact.Iterate)
			}
			for _, threads := range []int{2, 3} {
				r := train(false, threads)
				for j := range r.Theta {
					if r.Theta[j] != direct.Theta[j] {
						t.Fatalf("%s: θ[%d] on %d threads %v, on 1 %v", name, j, threads, r.Theta[j], direct.Theta[j])
					}
				}
				if r.Tau != direct.Tau && !(math.IsNaN(r.Tau) && math.IsNaN(direct.Tau)) {
					t.Fatalf("%s: τ on %d threads %v, on 1 %v", name, threads, r.Tau, direct.Tau)
				}
			}
		}
	}
}

// TestDirectStepDiverges checks that the direct sparse step stops a run that
// blows up with a DivergenceError at the step the compact step names:
// parameters that overflow (targets of 1e150, step size 1e160), and losses
// that grow past the bound while staying finite.
func TestDirectStepDiverges(t *testing.T) {
	t.Parallel()
	sp, _ := sparseTwins(t, 300, 20, false, 33)
	for _, c := range []struct {
		name  string
		scale float64
		lr    float64
	}{{"overflow", 1e150, 1e160}, {"finite", 1e3, 5}} {
		data := *sp
		data.Y = slices.Clone(sp.Y)
		for i := range data.Y {
			data.Y[i] *= c.scale
		}
		steps := make([]int, 2)
		for k, compact := range []bool{false, true} {
			_, err := Train(must(batch.NewLeastSquares[float64](20)), &data, Options{Method: Vanilla, LR: c.lr, Epochs: 20, Batch: 10, compactStep: compact})
			var de *DivergenceError
			if !errors.As(err, &de) || de.Step < 1 {
				t.Fatalf("%s, compact %v: error %v, want a DivergenceError naming a step", c.name, compact, err)
			}
			if c.name == "overflow" && !strings.Contains(de.What, "parameters are not finite") {
				t.Fatalf("%s, compact %v: %v; want the parameters' check", c.name, compact, err)
			}
			steps[k] = de.Step
		}
		if steps[0] != steps[1] {
			t.Errorf("%s: the direct step diverges at step %d, the compact one at %d", c.name, steps[0], steps[1])
		}
	}
}
