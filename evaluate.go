package cvar

import (
	"fmt"
	"math"
	"sync"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// Metrics summarise a model's losses on a data set.
type Metrics struct {
	N        int     `json:"n"`
	MeanLoss float64 `json:"mean_loss"`
	// Accuracy is the fraction of rows whose highest-scoring class is the
	// label (for binary logistic regression: margin > 0 ⇔ class 1); NaN for
	// regression.
	Accuracy float64 `json:"accuracy"`
	// Tails holds CVaR_α and VaR_α of the losses for each α asked.
	Tails []Tail `json:"tails"`
}

// Evaluator computes the losses, scores, predictions and metrics of one
// model. It reuses its engine's workers and its buffers from call to call.
// Make one with NewEvaluator when a model is evaluated more than once:
// every epoch, on several data sets, chunk after chunk of a stream. Close
// it when done. Evaluate is a one-call shorthand.
//
// An Evaluator is safe for concurrent use; its calls are serialised, one
// at a time on its workers. Every result is a new slice or value, so a
// call that waits for another cannot disturb that one's results.
// Goroutines that want to evaluate in parallel make an Evaluator each.
type Evaluator[T batch.Float] struct {
	mu      sync.Mutex // held by the running call
	model   batch.Model[T]
	engine  *batch.Engine[T]
	scratch tailScratch[T]
	losses  []T // Metrics' buffers
	classes []int
}

// NewEvaluator returns an Evaluator of model on threads workers
// (0: GOMAXPROCS; more are clamped to it). It returns an error for a nil
// model or negative threads.
func NewEvaluator[T batch.Float](model batch.Model[T], threads int) (*Evaluator[T], error) {
	if model == nil {
		return nil, errNoModel
	}
	if err := checkThreads(threads); err != nil {
		return nil, err
	}
	e, err := batch.NewEngine(model, threads)
	if err != nil {
		return nil, err
	}
	return &Evaluator[T]{model: model, engine: e}, nil
}

// Close stops the Evaluator's workers and waits until they have exited,
// after a running call has returned. It may be called more than once;
// calls after it return an error.
func (ev *Evaluator[T]) Close() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.engine.Close()
}

// Losses returns every row's loss under θ in a new slice. Nil or invalid
// data (batch.Data.Validate) is an error. So is data the model does not
// fit, or a θ that is not the model's NumParams long.
func (ev *Evaluator[T]) Losses(theta []T, data *batch.Data[T]) ([]T, error) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.lossesInto(nil, theta, data)
}

// lossesInto is Losses writing into buf when it is large enough.
func (ev *Evaluator[T]) lossesInto(buf, theta []T, data *batch.Data[T]) ([]T, error) {
	n, err := resultRows(data)
	if err != nil {
		return nil, err
	}
	if cap(buf) < n {
		buf = make([]T, n)
	}
	buf = buf[:n]
	if err := ev.engine.Losses(buf, theta, data); err != nil {
		return nil, err
	}
	return buf, nil
}

// Scores returns every row's NumOutputs scores under θ in a new slice,
// row-major. The data's targets or labels are not used and may be absent.
// Errors as for Losses.
func (ev *Evaluator[T]) Scores(theta []T, data *batch.Data[T]) ([]T, error) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.scoresInto(nil, theta, data)
}

// scoresInto is Scores writing into buf when it is large enough.
func (ev *Evaluator[T]) scoresInto(buf, theta []T, data *batch.Data[T]) ([]T, error) {
	rows, err := resultRows(data) // scores need no targets or labels
	if err != nil {
		return nil, err
	}
	n := rows * ev.model.NumOutputs()
	if cap(buf) < n {
		buf = make([]T, n)
	}
	buf = buf[:n]
	if err := ev.engine.Scores(buf, theta, data); err != nil {
		return nil, err
	}
	return buf, nil
}

// Predictions returns each row's predicted class in a new slice. One score
// (binary logistic regression) predicts 1 when positive; more scores
// predict the first highest. The data's targets or labels are not used
// and may be absent. Errors as for Losses.
func (ev *Evaluator[T]) Predictions(theta []T, data *batch.Data[T]) ([]int, error) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	n, err := resultRows(data)
	if err != nil {
		return nil, err
	}
	pred := make([]int, n)
	if err := ev.eachRow(theta, data, func(i int, s []T) { pred[i] = modelkind.Class(s) }); err != nil {
		return nil, err
	}
	return pred, nil
}

// eachRow calls fn with every row's index and scores under θ. It calls fn
// from several goroutines at once (batch.Engine.EachScores). It holds the
// scores of a few pieces of rows at a time. So a model of many classes is
// evaluated within the memory of its parameters.
func (ev *Evaluator[T]) eachRow(theta []T, data *batch.Data[T], fn func(i int, scores []T)) error {
	k := ev.model.NumOutputs()
	return ev.engine.EachScores(theta, data, func(lo int, s []T) {
		for i := range len(s) / k {
			fn(lo+i, s[i*k:(i+1)*k])
		}
	})
}

// Metrics computes the losses of the model under θ on every row of data.
// It returns their mean, the accuracy of a classifier, and CVaR and VaR at
// each α (exact, by selection). Errors as for Losses, and those of Tails for the
// alphas.
func (ev *Evaluator[T]) Metrics(theta []T, data *batch.Data[T], alphas ...float64) (Metrics, error) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	losses, err := ev.lossesInto(ev.losses, theta, data)
	if err != nil {
		return Metrics{}, err
	}
	ev.losses = losses
	m := Metrics{N: data.N, Accuracy: math.NaN(), MeanLoss: meanOf(losses)}
	if len(alphas) > 0 {
		if m.Tails, err = ev.scratch.AppendTails(nil, losses, alphas...); err != nil {
			return Metrics{}, err
		}
	}
	if data.IsClassification() {
		if cap(ev.classes) < data.N {
			ev.classes = make([]int, data.N)
		}
		ev.classes = ev.classes[:data.N]
		pred := ev.classes
		if err := ev.eachRow(theta, data, func(i int, s []T) { pred[i] = modelkind.Class(s) }); err != nil {
			return Metrics{}, err
		}
		correct := 0
		for i, c := range ev.classes {
			if c == int(data.Labels[i]) {
				correct++
			}
		}
		m.Accuracy = float64(correct) / float64(data.N)
	}
	return m, nil
}

// MetricsOf summarises losses already computed, for instance chunk by
// chunk over a stream. It returns their number and mean, and CVaR and VaR
// at each α. When correct is not nil, it holds one flag per loss: whether
// that row was classified correctly. The accuracy is then the fraction of
// true flags. For regression correct is nil, and Accuracy is NaN. Errors: those of Tails for the alphas,
// and a correct of another length than losses.
func MetricsOf[T float32 | float64](losses []T, correct []bool, alphas ...float64) (Metrics, error) {
	if correct != nil && len(correct) != len(losses) {
		return Metrics{}, fmt.Errorf("cvar: %d correctness flags for %d losses", len(correct), len(losses))
	}
	m := Metrics{N: len(losses), Accuracy: math.NaN(), MeanLoss: meanOf(losses)}
	if len(alphas) > 0 {
		var err error
		if m.Tails, err = Tails(losses, alphas...); err != nil {
			return Metrics{}, err
		}
	}
	if correct != nil {
		c := 0
		for _, ok := range correct {
			if ok {
				c++
			}
		}
		m.Accuracy = float64(c) / float64(len(correct))
	}
	return m, nil
}

// meanOf is the mean of the losses, summed in float64 in order.
func meanOf[T float32 | float64](losses []T) float64 {
	var sum float64
	for _, l := range losses {
		sum += float64(l)
	}
	return sum / float64(len(losses))
}

// Evaluate computes the losses of model under θ on every row of data. It
// returns their mean, the accuracy of a classifier, and CVaR and VaR at
// each α (exact, by selection). Errors as for NewEvaluator and
// Evaluator.Metrics. It is Evaluator.Metrics of a one-call Evaluator on
// GOMAXPROCS workers.
func Evaluate[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], alphas ...float64) (Metrics, error) {
	return evaluateOn(model, theta, data, 0, alphas...)
}

// evaluateOn is Evaluate on threads workers (0: GOMAXPROCS).
func evaluateOn[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int, alphas ...float64) (Metrics, error) {
	ev, err := NewEvaluator(model, threads)
	if err != nil {
		return Metrics{}, err
	}
	defer ev.Close()
	return ev.Metrics(theta, data, alphas...)
}

// TailAt returns the CVaR and VaR of m at α, or NaNs when α was not asked.
func (m Metrics) TailAt(alpha float64) (cvar, valueAtRisk float64) {
	for _, t := range m.Tails {
		if t.Alpha == alpha {
			return t.CVaR, t.VaR
		}
	}
	return math.NaN(), math.NaN()
}
