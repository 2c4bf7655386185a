package cvar

import (
	"math"

	"github.com/cvarlearn/cvar/batch"
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

// Losses returns every row's loss under θ, computed on threads workers
// (0: GOMAXPROCS; more are clamped to it). It returns an error for a nil
// model or data, data the model does not fit, a θ that is not the model's
// NumParams long, or negative threads.
func Losses[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int) ([]T, error) {
	if err := checkApply(model, theta, data, threads); err != nil {
		return nil, err
	}
	e, err := batch.NewEngine(model, threads)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	out := make([]T, data.N)
	if err := e.Losses(out, theta, data); err != nil {
		return nil, err
	}
	return out, nil
}

// Predictions returns each row's predicted class (classification) — the
// highest-scoring one, or margin > 0 for binary logistic regression. The
// data's targets or labels are not used and may be absent. Errors as for
// Losses.
func Predictions[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int) ([]int, error) {
	if model == nil {
		return nil, errNoModel
	}
	if err := data.ValidateFeatures(); err != nil { // scores need no targets or labels
		return nil, err
	}
	if err := checkThreads(threads); err != nil {
		return nil, err
	}
	e, err := batch.NewEngine(model, threads)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	k := model.NumOutputs()
	scores := make([]T, data.N*k)
	if err := e.Scores(scores, theta, data); err != nil {
		return nil, err
	}
	pred := make([]int, data.N)
	for i := range pred {
		row := scores[i*k : (i+1)*k]
		if k == 1 {
			if row[0] > 0 {
				pred[i] = 1
			}
			continue
		}
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		pred[i] = best
	}
	return pred, nil
}

// Evaluate computes the losses of model under θ on every row of data and
// returns their mean, the accuracy of a classifier, and CVaR and VaR at each
// α (exact, by selection). Errors as for Losses, and those of Tails for the
// alphas.
func Evaluate[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], alphas ...float64) (Metrics, error) {
	return evaluateOn(model, theta, data, 0, alphas...)
}

// evaluateOn is Evaluate on threads workers (0: GOMAXPROCS).
func evaluateOn[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int, alphas ...float64) (Metrics, error) {
	losses, err := Losses(model, theta, data, threads)
	if err != nil {
		return Metrics{}, err
	}
	m := Metrics{N: data.N, Accuracy: math.NaN()}
	var sum float64
	for _, l := range losses {
		sum += float64(l)
	}
	m.MeanLoss = sum / float64(len(losses))
	if len(alphas) > 0 {
		if m.Tails, err = Tails(losses, alphas...); err != nil {
			return Metrics{}, err
		}
	}
	if data.IsClassification() {
		pred, err := Predictions(model, theta, data, threads)
		if err != nil {
			return Metrics{}, err
		}
		correct := 0
		for i, p := range pred {
			if p == int(data.Labels[i]) {
				correct++
			}
		}
		m.Accuracy = float64(correct) / float64(data.N)
	}
	return m, nil
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
