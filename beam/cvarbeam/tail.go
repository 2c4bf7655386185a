package cvarbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/tail"
)

// TailMetrics adds to s the exact metrics of a PCollection of losses:
// float64, or the LossBatch of Losses. The result is one cvar.Metrics:
// the mean loss, a classifier's accuracy (else NaN), and CVaR_α and VaR_α
// at each α. They are cvar.Tails' on all the losses at once. An empty
// PCollection gives none.
//
// Only the K = ⌊α_max·n⌋ + 1 largest losses decide the tails. A combine
// gives the count n, the sum and the extremes. With n as a side input,
// each batch keeps its K largest losses, and a combine merges the lists.
// Memory: K values a bundle and an accumulator.
func TailMetrics(s beam.Scope, alphas []float64, losses beam.PCollection) beam.PCollection {
	return tailMetrics(s.Scope("cvarbeam.TailMetrics"), alphas, losses, "")
}

// tailMetrics is TailMetrics recording its errors in the run folder errs.
func tailMetrics(s beam.Scope, alphas []float64, losses beam.PCollection, errs string) beam.PCollection {
	if losses.Type().Type() == reflect.TypeFor[float64]() {
		losses = beam.ParDo(s, lossBatchOf, losses)
	}
	sum := beam.Combine(s, &summaryFn{}, losses)
	tops := beam.ParDo(s, &topFn{Alphas: alphas}, losses, beam.SideInput{Input: sum})
	top := beam.Combine(s, &mergeTopFn{}, tops)
	return beam.ParDo(s, &metricsFn{Alphas: alphas, Dir: errs}, sum, beam.SideInput{Input: top})
}

func lossBatchOf(x float64) LossBatch { return LossBatch{Losses: []float64{x}} }

// summary is a combine of losses (tail.Summary) with the rows
// classified correctly.
type summary struct {
	tail.Summary
	Correct    int64
	Classifier bool
}

func merge(a, b summary) summary {
	a.Summary.Merge(b.Summary)
	a.Correct += b.Correct
	a.Classifier = a.Classifier || b.Classifier
	return a
}

// summaryFn combines the loss batches into their summary.
type summaryFn struct{}

func (*summaryFn) CreateAccumulator() summary             { return summary{} }
func (*summaryFn) MergeAccumulators(a, b summary) summary { return merge(a, b) }

func (*summaryFn) AddInput(a summary, b LossBatch) summary {
	for _, x := range b.Losses {
		a.Add(x)
	}
	a.Correct += b.Correct
	a.Classifier = a.Classifier || b.Classifier
	return a
}

// topFn emits the K largest losses of each batch that the tails need, K
// from the count of all losses (a side input). It keeps no state across
// elements. A runner may finish a bundle that had none, where the count
// of no losses does not exist (Flink), so FinishBundle cannot read it.
type topFn struct {
	Alphas []float64
}

func (f *topFn) ProcessElement(b LossBatch, all summary, emit func(summary)) {
	if k := tail.TopCount(int(all.N), f.Alphas); k > 0 && len(b.Losses) > 0 {
		emit(summary{Summary: tail.Summary{K: k, Top: tail.Largest(b.Losses, k)}})
	}
}

// mergeTopFn merges the batches' lists of largest losses.
type mergeTopFn struct{}

func (*mergeTopFn) MergeAccumulators(a, b summary) summary { return merge(a, b) }

// metricsFn turns the summary and the largest losses into the metrics.
type metricsFn struct {
	Alphas []float64
	Dir    string // the run's folder, for an error's record
}

func (f *metricsFn) ProcessElement(ctx context.Context, s summary, tops func(*summary) bool, emit func(cvar.Metrics)) error {
	var top summary
	tops(&top)
	m, err := metricsOf(&s, top.Top, f.Alphas)
	if err != nil {
		return record(ctx, f.Dir, err)
	}
	emit(m)
	return nil
}

// metricsOf computes the metrics from the summary of all n losses and
// their largest, at least tail.TopCount of them.
func metricsOf(s *summary, top []float64, alphas []float64) (cvar.Metrics, error) {
	n := int(s.N)
	if err := checkAlphas(alphas); err != nil {
		return cvar.Metrics{}, err
	}
	if k := tail.TopCount(n, alphas); len(top) < k {
		return cvar.Metrics{}, fmt.Errorf("cvarbeam: the pipeline kept %d of the %d largest losses the tails need", len(top), k)
	}
	if sum := s.Sum.Value(); sum-sum != 0 {
		return cvar.Metrics{}, errors.New("cvarbeam: a loss is not finite")
	}
	m := cvar.Metrics{N: n, Accuracy: math.NaN(), Tails: make([]cvar.Tail, len(alphas))}
	if s.Classifier {
		m.Accuracy = float64(s.Correct) / float64(n)
	}
	cv, vr := make([]float64, len(alphas)), make([]float64, len(alphas))
	s.Top = top
	m.MeanLoss = s.Tails(alphas, cv, vr)
	for j, a := range alphas {
		m.Tails[j] = cvar.Tail{Alpha: a, CVaR: cv[j], VaR: vr[j]}
	}
	return m, nil
}

// checkAlphas refuses a tail fraction outside (0, 1].
func checkAlphas(alphas []float64) error {
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			return fmt.Errorf("cvarbeam: alpha %v outside (0, 1]", a)
		}
	}
	return nil
}
