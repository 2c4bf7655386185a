package cvarbeam

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/tail"
)

func init() {
	register.Function1x1(lossBatchOf)
	register.Combiner3[summary, LossBatch, summary](&summaryFn{})
	register.DoFn3x0[LossBatch, summary, func(topList)](&topFn{})
	register.Emitter1[topList]()
	register.Combiner3[topList, topList, topList](&mergeTopFn{})
	register.DoFn4x1[context.Context, summary, func(*topList) bool, func(cvar.Metrics), error](&metricsFn{})
	register.Iter1[topList]()
	register.Emitter1[cvar.Metrics]()
	gobCoder(encSummary, decSummary)
	gobCoder(encTopList, decTopList)
	gobCoder(encMetrics, decMetrics)
}

// TailMetrics adds to s the exact metrics of a PCollection of losses
// (float64, or the LossBatch of Losses): one cvar.Metrics, with the mean
// loss, the accuracy when the batches come from a classifier (NaN
// otherwise) and CVaR_α and VaR_α at each α of alphas, as cvar.Tails
// gives them on all the losses at once. An empty PCollection gives none.
//
// Only the K = ⌊α_max·n⌋ + 1 largest losses decide the tails: a combine
// gives the count n, compensated sum and extremes; with n as a side
// input each batch keeps its K largest losses, and a combine merges those
// lists, keeping K. Memory: K values a bundle and an accumulator.
func TailMetrics(s beam.Scope, alphas []float64, losses beam.PCollection) beam.PCollection {
	return tailMetrics(s.Scope("cvarbeam.TailMetrics"), alphas, losses, "")
}

// tailMetrics is TailMetrics whose errors are recorded in the run folder
// errs.
func tailMetrics(s beam.Scope, alphas []float64, losses beam.PCollection, errs string) beam.PCollection {
	if losses.Type().Type() == reflect.TypeFor[float64]() {
		losses = beam.ParDo(s, lossBatchOf, losses)
	}
	sum := beam.Combine(s, &summaryFn{}, losses)
	tops := beam.ParDo(s, &topFn{Alphas: alphas}, losses, beam.SideInput{Input: sum})
	top := beam.Combine(s, &mergeTopFn{}, tops)
	return beam.ParDo(s, &metricsFn{Alphas: alphas, Errs: errs}, sum, beam.SideInput{Input: top})
}

func lossBatchOf(x float64) LossBatch { return LossBatch{Losses: []float64{x}} }

// summary is what the combine of all losses keeps: their count, their
// compensated sum, the extremes and the rows classified correctly.
type summary struct {
	N          int64
	Sum, Comp  float64 // Neumaier's sum and its compensation
	Min, Max   float64
	Correct    int64
	Classifier bool
}

func (s *summary) add(x float64) {
	s.addSum(x)
	if s.N == 0 {
		s.Min, s.Max = x, x
	}
	s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	s.N++
}

// addSum adds x to the compensated sum.
func (s *summary) addSum(x float64) {
	t := s.Sum + x
	if math.Abs(s.Sum) >= math.Abs(x) {
		s.Comp += (s.Sum - t) + x
	} else {
		s.Comp += (x - t) + s.Sum
	}
	s.Sum = t
}

func (s *summary) merge(o *summary) {
	s.Classifier = s.Classifier || o.Classifier
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		s.Min, s.Max = o.Min, o.Max
	}
	s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
	s.addSum(o.Sum)
	s.Comp += o.Comp
	s.N += o.N
	s.Correct += o.Correct
}

func (s *summary) total() float64 { return s.Sum + s.Comp }

// summaryFn combines the loss batches into their summary.
type summaryFn struct{}

func (*summaryFn) CreateAccumulator() summary { return summary{} }

func (*summaryFn) AddInput(a summary, b LossBatch) summary {
	for _, x := range b.Losses {
		a.add(x)
	}
	a.Correct += b.Correct
	a.Classifier = a.Classifier || b.Classifier
	return a
}

func (*summaryFn) MergeAccumulators(a, b summary) summary { a.merge(&b); return a }

// topK is the number of largest losses the tails at alphas need of n
// losses: ⌊αn⌋ + 1 for the largest α whose tail is not all n losses (a
// tail of all n is the mean and the minimum, which the summary holds).
func topK(n int64, alphas []float64) int {
	k := 0
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			continue
		}
		if _, ka := tail.Count(int(n), a); ka < int(n) {
			k = max(k, ka+1)
		}
	}
	return k
}

// topList is a set of the largest losses, K of them at most.
type topList struct {
	K    int
	Vals []float64
}

// topFn emits the K largest losses of each batch that the tails need (K
// from the count of all losses, a side input); the combine that follows
// keeps the K largest of all, its partial combines (before the shuffle)
// K of each bundle. It keeps no state across elements: a runner may
// finish a bundle that had no element, where the count of no losses
// does not exist (Flink), so FinishBundle cannot read it.
type topFn struct {
	Alphas []float64
}

func (f *topFn) ProcessElement(b LossBatch, all summary, emit func(topList)) {
	if k := topK(all.N, f.Alphas); k > 0 && len(b.Losses) > 0 {
		emit(topList{K: k, Vals: largest(b.Losses, k)})
	}
}

// mergeTopFn merges the batches' lists, keeping the K largest (every
// list of one pipeline has the same K).
type mergeTopFn struct{}

func (*mergeTopFn) CreateAccumulator() topList { return topList{} }

func (*mergeTopFn) AddInput(a, b topList) topList { return mergeTop(a, b) }

func (*mergeTopFn) MergeAccumulators(a, b topList) topList { return mergeTop(a, b) }

func mergeTop(a, b topList) topList {
	k := max(a.K, b.K)
	return topList{K: k, Vals: largest(append(slices.Clone(a.Vals), b.Vals...), k)}
}

// largest moves the k largest of vals to its front, by the library's
// selection, and returns them (all of vals when it holds no more).
func largest(vals []float64, k int) []float64 {
	if len(vals) <= k {
		return vals
	}
	perm := make([]int, len(vals))
	for i := range perm {
		perm[i] = i
	}
	tail.Select(vals, k, perm)
	out := make([]float64, k)
	for i, p := range perm[:k] {
		out[i] = vals[p]
	}
	return out
}

// metricsFn turns the summary and the largest losses into the metrics.
type metricsFn struct {
	Alphas []float64
	Errs   string // the run's folder, for an error's record
}

func (f *metricsFn) ProcessElement(ctx context.Context, s summary, tops func(*topList) bool, emit func(cvar.Metrics)) error {
	var top topList
	tops(&top)
	m, err := metricsOf(&s, top.Vals, f.Alphas)
	if err != nil {
		return record(ctx, f.Errs, err)
	}
	emit(m)
	return nil
}

// metricsOf computes the metrics from the summary of all n losses and
// their largest (any order, at least topK of them). A tail of all n
// losses is their mean and minimum; another is the tail of the largest:
// CVaR_α and VaR_α of n losses are CVaR and VaR at m/K of their K largest
// (m = αn, the library's count), which hold the ⌊m⌋ + 1 that decide them.
func metricsOf(s *summary, top []float64, alphas []float64) (cvar.Metrics, error) {
	n := int(s.N)
	m := cvar.Metrics{N: n, MeanLoss: s.total() / float64(n), Accuracy: math.NaN(), Tails: make([]cvar.Tail, len(alphas))}
	if s.Classifier {
		m.Accuracy = float64(s.Correct) / float64(n)
	}
	if k := topK(s.N, alphas); len(top) < k {
		return m, fmt.Errorf("cvarbeam: the pipeline kept %d of the %d largest losses the tails need", len(top), k)
	}
	for j, a := range alphas {
		if !(a > 0 && a <= 1) {
			return m, fmt.Errorf("cvarbeam: alpha %v outside (0, 1]", a)
		}
		am, k := tail.Count(n, a)
		if k == n {
			m.Tails[j] = cvar.Tail{Alpha: a, VaR: s.Min, CVaR: min(max(m.MeanLoss, s.Min), s.Max)}
			continue
		}
		t, err := cvar.Tails(top, am/float64(len(top)))
		if err != nil {
			return m, err
		}
		m.Tails[j] = cvar.Tail{Alpha: a, CVaR: t[0].CVaR, VaR: t[0].VaR}
	}
	return m, nil
}
