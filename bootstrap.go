package cvar

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/cvarlearn/cvar/internal/rng"
)

// Interval is an estimate and its 95 % confidence interval [Lo, Hi]; Lo
// and Hi are NaN when there is no interval.
type Interval struct {
	Value, Lo, Hi float64
}

// TailInterval is CVaR_α and VaR_α with their intervals.
type TailInterval struct {
	Alpha     float64
	CVaR, VaR Interval
}

// BootstrapMetrics are the metrics of MetricsOf with percentile bootstrap
// intervals.
type BootstrapMetrics struct {
	// Tails holds CVaR_α and VaR_α for each α asked, in order.
	Tails    []TailInterval
	MeanLoss Interval
	// Accuracy is the fraction of rows classified correctly; all NaN for
	// regression (no correctness flags).
	Accuracy Interval
}

// BootstrapOptions configure Bootstrap.
type BootstrapOptions struct {
	// Resamples is the number of resamples B; 0 gives the estimates
	// without intervals.
	Resamples int
	// Seed fixes the resamples. Resample r draws from a generator of its
	// own, made from Seed and r. So the result does not depend on Threads.
	Seed uint64
	// Threads is the number of workers; 0 means GOMAXPROCS, more are
	// clamped to it.
	Threads int
	// OnResample, when not nil, is called after each resample, from the
	// workers' goroutines, concurrently.
	OnResample func()
}

// bootStream is the first internal/rng stream of the bootstrap's
// resamples, far from the streams that training draws from.
const bootStream = 0xb007 << 32

// Bootstrap returns the metrics of losses already computed, as MetricsOf
// does, with percentile bootstrap 95 % intervals. When correct is not nil,
// it says for each loss whether its row was classified correctly. Each
// statistic is computed on opt.Resamples resamples of the rows with
// replacement. Its interval runs from the 2.5 % to the 97.5 % quantile of
// those values, interpolated between order statistics. It holds B values a statistic
// and, a worker, a copy of the losses and the flags. Errors: empty or
// non-finite losses, a correct of another length, an α outside (0, 1],
// negative Resamples or Threads.
func Bootstrap[T float32 | float64](losses []T, correct []bool, alphas []float64, opt BootstrapOptions) (*BootstrapMetrics, error) {
	switch {
	case correct != nil && len(correct) != len(losses):
		return nil, fmt.Errorf("cvar: %d correctness flags for %d losses", len(correct), len(losses))
	case opt.Resamples < 0:
		return nil, fmt.Errorf("cvar: %d resamples; want ≥ 0", opt.Resamples)
	}
	if err := checkThreads(opt.Threads); err != nil {
		return nil, err
	}
	if err := checkLosses(losses); err != nil {
		return nil, err
	}
	for _, a := range alphas {
		if err := checkAlpha(a); err != nil {
			return nil, err
		}
	}
	st := bootStats[T]{alphas: alphas, classified: correct != nil}
	point := make([]float64, st.count())
	var sc tailScratch[T]
	if err := st.compute(losses, correct, &sc, point); err != nil {
		return nil, err
	}
	lo, hi := make([]float64, len(point)), make([]float64, len(point))
	for i := range point {
		lo[i], hi[i] = math.NaN(), math.NaN()
	}
	if opt.Resamples > 0 {
		samples, err := st.resample(losses, correct, opt)
		if err != nil {
			return nil, err
		}
		for i, s := range samples {
			slices.Sort(s)
			lo[i], hi[i] = quantile(s, 0.025), quantile(s, 0.975)
		}
	}
	return st.metrics(point, lo, hi), nil
}

// bootStats computes the statistics of one sample of losses: CVaR and VaR
// at each α, the mean loss and, for classified rows, the accuracy.
type bootStats[T float32 | float64] struct {
	alphas     []float64
	classified bool
}

func (b bootStats[T]) count() int {
	if b.classified {
		return 2*len(b.alphas) + 2
	}
	return 2*len(b.alphas) + 1
}

func (b bootStats[T]) compute(ls []T, ok []bool, sc *tailScratch[T], dst []float64) error {
	tails, err := sc.AppendTails(nil, ls, b.alphas...)
	if err != nil {
		return err
	}
	for j, t := range tails {
		dst[2*j], dst[2*j+1] = t.CVaR, t.VaR
	}
	dst[2*len(b.alphas)] = meanOf(ls)
	if ok != nil {
		c := 0
		for _, v := range ok {
			if v {
				c++
			}
		}
		dst[2*len(b.alphas)+1] = float64(c) / float64(len(ok))
	}
	return nil
}

// resample returns samples[stat][r], the statistics of resample r.
func (b bootStats[T]) resample(losses []T, correct []bool, opt BootstrapOptions) ([][]float64, error) {
	samples := make([][]float64, b.count())
	for i := range samples {
		samples[i] = make([]float64, opt.Resamples)
	}
	threads := opt.Threads
	if threads <= 0 || threads > runtime.GOMAXPROCS(0) {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, opt.Resamples)
	var (
		wg   sync.WaitGroup
		next = make(chan int)
		errs = make([]error, threads)
	)
	for w := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = b.worker(losses, correct, samples, next, opt)
		}()
	}
	for r := range opt.Resamples {
		next <- r
	}
	close(next)
	wg.Wait()
	return samples, errors.Join(errs...)
}

// worker computes the resamples it receives from next into samples.
func (b bootStats[T]) worker(losses []T, correct []bool, samples [][]float64, next <-chan int, opt BootstrapOptions) error {
	n := len(losses)
	ls := make([]T, n)
	var ok []bool
	if correct != nil {
		ok = make([]bool, n)
	}
	var (
		sc    tailScratch[T]
		first error
	)
	dst := make([]float64, len(samples))
	for r := range next {
		rnd := rng.New(opt.Seed, bootStream+uint64(r))
		for i := range ls {
			k := rnd.IntN(n)
			ls[i] = losses[k]
			if ok != nil {
				ok[i] = correct[k]
			}
		}
		if err := b.compute(ls, ok, &sc, dst); err != nil && first == nil {
			first = err
		}
		for i, v := range dst {
			samples[i][r] = v
		}
		if opt.OnResample != nil {
			opt.OnResample()
		}
	}
	return first
}

// metrics arranges the statistics' estimates and bounds.
func (b bootStats[T]) metrics(point, lo, hi []float64) *BootstrapMetrics {
	at := func(i int) Interval { return Interval{Value: point[i], Lo: lo[i], Hi: hi[i]} }
	m := &BootstrapMetrics{MeanLoss: at(2 * len(b.alphas)), Accuracy: Interval{math.NaN(), math.NaN(), math.NaN()}}
	for j, a := range b.alphas {
		m.Tails = append(m.Tails, TailInterval{Alpha: a, CVaR: at(2 * j), VaR: at(2*j + 1)})
	}
	if b.classified {
		m.Accuracy = at(2*len(b.alphas) + 1)
	}
	return m
}

// quantile returns the q-quantile of sorted values by linear interpolation
// between order statistics.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}
