package cvar

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/batch"
)

// evalOutputs is everything an Evaluator computes of one θ on one data set.
type evalOutputs struct {
	losses, scores []float64
	pred           []int
	metrics        Metrics
}

func evaluateAll(ev *Evaluator[float64], theta []float64, data *batch.Data[float64]) (evalOutputs, error) {
	var o evalOutputs
	var err error
	if o.losses, err = ev.Losses(theta, data); err != nil {
		return o, err
	}
	if o.scores, err = ev.Scores(theta, data); err != nil {
		return o, err
	}
	if o.pred, err = ev.Predictions(theta, data); err != nil {
		return o, err
	}
	o.metrics, err = ev.Metrics(theta, data, 0.05, 0.2)
	return o, err
}

// TestEvaluatorConcurrentUse shares one Evaluator among 8 goroutines, each
// making many calls on its own θ and data set, and wants every result equal
// to the one a lone goroutine gets; a deadlock fails the test at its
// deadline rather than hanging it.
func TestEvaluatorConcurrentUse(t *testing.T) {
	t.Parallel()
	const goroutines = 8
	calls := 30
	if testing.Short() {
		calls = 8
	}
	model := must(batch.NewLogistic[float64](4))
	ev := must(NewEvaluator(model, 4))
	defer ev.Close()
	thetas := make([][]float64, goroutines)
	sets := make([]*batch.Data[float64], goroutines)
	want := make([]evalOutputs, goroutines)
	for g := range goroutines {
		thetas[g] = make([]float64, model.NumParams())
		for i := range thetas[g] {
			thetas[g][i] = 0.1 * float64((g+1)*(i+1)%7-3)
		}
		sets[g] = subgroupData(t, 2500+300*g, 4, uint64(g+1)) // 3 to 4 chunks of the whole-data pass
		var err error
		if want[g], err = evaluateAll(ev, thetas[g], sets[g]); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, goroutines*calls)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				got, err := evaluateAll(ev, thetas[g], sets[g])
				if err == nil && !(reflect.DeepEqual(got.losses, want[g].losses) && reflect.DeepEqual(got.scores, want[g].scores) &&
					reflect.DeepEqual(got.pred, want[g].pred) && sameMetrics(got.metrics, want[g].metrics)) {
					err = errWrongResult
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(2 * time.Minute):
		t.Fatal("8 goroutines sharing an Evaluator did not finish in 2 minutes: deadlock")
	}
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 3 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d calls failed or differed from a lone goroutine's", n, goroutines*calls)
	}
}

var errWrongResult = errors.New("a result differs from a lone goroutine's")

// inParallel runs f(g) on goroutines g = 0 … n−1 and fails the test unless
// all return within limit.
func inParallel(t *testing.T, n int, limit time.Duration, f func(g int)) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() { defer wg.Done(); f(g) }()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(limit):
		t.Fatalf("%d goroutines did not finish within %v: deadlock", n, limit)
	}
}

// TestOnlineConcurrentUse observes one sample from 8 goroutines at once,
// many times over: every sample is one step, so the run equals that of
// the same samples observed from one goroutine (the order of equal samples
// does not matter), bit for bit.
func TestOnlineConcurrentUse(t *testing.T) {
	t.Parallel()
	const goroutines, each = 8, 40
	model := must(batch.NewSoftmax[float64](3, 3))
	opt := Options{Method: Alg4, Steps: goroutines * each, Seed: 2}
	x, sx := []float64{0.5, -1, 2}, []uint32{0, 1, 2}
	lone := must(NewOnline(model, 3, 3, opt))
	defer lone.Close()
	for i := range goroutines * each {
		var err error
		if i%2 == 0 {
			err = lone.Observe(x, 0, 2)
		} else {
			err = lone.ObserveSparse(sx, x, 0, 2)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	shared := must(NewOnline(model, 3, 3, opt))
	defer shared.Close()
	errs := make(chan error, goroutines*each)
	inParallel(t, goroutines, time.Minute, func(g int) {
		for range each / 2 {
			errs <- shared.Observe(x, 0, 2)
			errs <- shared.ObserveSparse(sx, x, 0, 2)
			_ = shared.Result()
		}
	})
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if shared.Seen() != lone.Seen() {
		t.Fatalf("shared run saw %d samples, want %d", shared.Seen(), lone.Seen())
	}
	got, want := shared.Result(), lone.Result()
	if !reflect.DeepEqual(got.Theta, want.Theta) || got.Tau != want.Tau {
		t.Errorf("shared run gives θ %v, τ %v; one goroutine %v, %v", got.Theta, got.Tau, want.Theta, want.Tau)
	}
}

// TestTailScratchConcurrent shares one tailScratch among 8 goroutines,
// each on losses of its own size, and wants every result equal to that of
// the package's functions.
func TestTailScratchConcurrent(t *testing.T) {
	t.Parallel()
	const goroutines, each = 8, 200
	var s tailScratch[float64]
	var wrong atomic.Int64
	inParallel(t, goroutines, time.Minute, func(g int) {
		losses := make([]float64, 500+97*g)
		for i := range losses {
			losses[i] = float64((i*7919+g)%1013) / 10
		}
		wantC, _ := CVaR(losses, 0.1)
		wantV, _ := VaR(losses, 0.1)
		wantT, _ := Tails(losses, 0.05, 0.5)
		for range each {
			c, err := s.CVaR(losses, 0.1)
			v, err1 := s.VaR(losses, 0.1)
			tails, err2 := s.AppendTails(nil, losses, 0.05, 0.5)
			if err != nil || err1 != nil || err2 != nil || c != wantC || v != wantV || !reflect.DeepEqual(tails, wantT) {
				wrong.Add(1)
			}
		}
	})
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d of %d calls failed or differed from the lone functions", n, goroutines*each)
	}
}
