package main

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// metrics summarise a model's losses on one data set.
type metrics struct {
	N        int
	MeanLoss float64
	Accuracy float64 // NaN for regression
	Tails    []cvar.Tail
}

// MarshalJSON writes flat keys: n, mean_loss, accuracy (null for
// regression), cvar_<α> and var_<α>.
func (m metrics) MarshalJSON() ([]byte, error) {
	obj := map[string]any{"n": m.N, "mean_loss": jnum(m.MeanLoss), "accuracy": jnum(m.Accuracy)}
	for _, t := range m.Tails {
		a := alphaKey(t.Alpha)
		obj["cvar_"+a], obj["var_"+a] = jnum(t.CVaR), jnum(t.VaR)
	}
	return json.Marshal(obj)
}

func (m metrics) tail(alpha float64) cvar.Tail {
	for _, t := range m.Tails {
		if t.Alpha == alpha {
			return t
		}
	}
	return cvar.Tail{Alpha: alpha, CVaR: math.NaN(), VaR: math.NaN()}
}

// alphaKey formats α for keys and headings: 0.05, 0.1.
func alphaKey(a float64) string { return strconv.FormatFloat(a, 'g', -1, 64) }

// jnum is a float64 whose JSON form is null when it is NaN or infinite.
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// evaluator computes losses, scores and metrics of one model, reusing its
// engine and buffers.
type evaluator[T batch.Float] struct {
	model   batch.Model[T]
	engine  *batch.Engine[T]
	scratch cvar.TailScratch[T]
	losses  []T
	scores  []T
}

func newEvaluator[T batch.Float](model batch.Model[T], threads int) (*evaluator[T], error) {
	e, err := batch.NewEngine(model, threads)
	if err != nil {
		return nil, err
	}
	return &evaluator[T]{model: model, engine: e}, nil
}

func (ev *evaluator[T]) close() { ev.engine.Close() }

// lossesOf returns every row's loss (valid until the next call).
func (ev *evaluator[T]) lossesOf(theta []T, data *batch.Data[T]) ([]T, error) {
	if cap(ev.losses) < data.N {
		ev.losses = make([]T, data.N)
	}
	ev.losses = ev.losses[:data.N]
	if err := ev.engine.Losses(ev.losses, theta, data); err != nil {
		return nil, err
	}
	return ev.losses, nil
}

// scoresOf returns every row's scores, N×NumOutputs (valid until the next call).
func (ev *evaluator[T]) scoresOf(theta []T, data *batch.Data[T]) ([]T, error) {
	n := data.N * ev.model.NumOutputs()
	if cap(ev.scores) < n {
		ev.scores = make([]T, n)
	}
	ev.scores = ev.scores[:n]
	if err := ev.engine.Scores(ev.scores, theta, data); err != nil {
		return nil, err
	}
	return ev.scores, nil
}

// predicted returns the class of row i from its scores: margin > 0 for a
// single score, else the highest (the first on ties).
func predicted[T batch.Float](row []T) int {
	if len(row) == 1 {
		if row[0] > 0 {
			return 1
		}
		return 0
	}
	best := 0
	for j, v := range row {
		if v > row[best] {
			best = j
		}
	}
	return best
}

// metrics evaluates θ on data at the given α.
func (ev *evaluator[T]) metrics(theta []T, data *batch.Data[T], alphas []float64) (metrics, error) {
	m := metrics{N: data.N, Accuracy: math.NaN()}
	losses, err := ev.lossesOf(theta, data)
	if err != nil {
		return m, err
	}
	var sum float64
	for _, l := range losses {
		sum += float64(l)
	}
	m.MeanLoss = sum / float64(len(losses))
	if m.Tails, err = ev.scratch.AppendTails(nil, losses, alphas...); err != nil {
		return m, err
	}
	if data.IsClassification() {
		k := ev.model.NumOutputs()
		scores, err := ev.scoresOf(theta, data)
		if err != nil {
			return m, err
		}
		correct := 0
		for i := 0; i < data.N; i++ {
			if predicted(scores[i*k:(i+1)*k]) == int(data.Labels[i]) {
				correct++
			}
		}
		m.Accuracy = float64(correct) / float64(data.N)
	}
	return m, nil
}

// unionAlphas returns the α to report: 0.05, 0.1 and any others given.
func unionAlphas(extra ...float64) []float64 {
	out := []float64{0.05, 0.1}
	for _, a := range extra {
		found := false
		for _, b := range out {
			found = found || a == b
		}
		if !found {
			out = append(out, a)
		}
	}
	return out
}
