package cvar

import (
	"errors"
	"reflect"
	"sync"
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
