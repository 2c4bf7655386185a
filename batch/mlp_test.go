package batch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/tail"
)

// TestMLPFirstLayerByColumns checks the Engine's split of the MLP's
// gradient (firstLayerModel): the first layer's weights by blocks of
// firstLayerTaskCols columns over the chunks in order, the rest per chunk and
// summed. Against Forward and Backward of the whole minibatch in one call
// (no split, no chunks) it agrees to 1e-12 for every weighting, with rows
// listed or not and d not a multiple of the block (three blocks, the last
// short); it is bit-identical on 1, 2 and 3 threads; and the folded update
// (gradientThen) sees every coordinate once.
func TestMLPFirstLayerByColumns(t *testing.T) {
	t.Parallel()
	const n, d, h, k = 150, 2*firstLayerTaskCols + 9, 7, 3
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(k))
	}
	data := must(NewData(x, n, d, nil, labels, k))
	model := must(NewMLP[float64](d, h, k))
	if _, _, ok := model.firstLayer(data); !ok {
		t.Fatal("the MLP on dense data is not split")
	}
	theta := make([]float64, model.NumParams())
	model.InitParams(theta, 5)
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = rng.IntN(n)
	}
	for _, rows := range [][]int{idx, nil} {
		m := len(rows)
		if rows == nil {
			m = n
		}
		for _, wt := range []Weighting{{Objective: Mean}, {Objective: Softplus, Alpha: 0.2, Eps: 0.1, InvL: 1, Tau: 0.8}, {Objective: TopK, Alpha: 0.2}} {
			var first []float64
			for _, threads := range []int{1, 2, 3} {
				e := must(newEngineWith(Model[float64](model), threads, engineOptions{chunkRows: 16, allThreads: true}))
				g := make([]float64, len(theta))
				seen := make([]int, len(theta))
				losses, _, err := e.gradientThen(g, theta, data, rows, m, &wt, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						seen[i]++
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				e.Close()
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("%v, %d threads: coordinate %d run through then %d times", wt.Objective, threads, i, s)
					}
				}
				if first == nil {
					first = g
					// The reference: the model's own passes over all the rows.
					var wk Work[float64]
					model.Forward(&wk, theta, data, rows, m)
					coef := refCoefficients(e, kernelsOf(Model[float64](model)), wk.Loss[:m], &wt)
					if !slices.Equal(wk.Loss[:m], losses) {
						t.Fatalf("%v: losses differ from one Forward's", wt.Objective)
					}
					want := make([]float64, len(theta))
					model.Backward(&wk, theta, data, rows, coef, want)
					for i := range want {
						if math.Abs(g[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
							t.Fatalf("%v: g[%d] = %v, one-call Backward %v", wt.Objective, i, g[i], want[i])
						}
					}
					continue
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(first[i]) {
						t.Fatalf("%v: %d threads g[%d] = %v, 1 thread %v", wt.Objective, threads, i, g[i], first[i])
					}
				}
			}
		}
	}
}

// refCoefficients returns the coefficients of Gradient's doc for the losses
// of a minibatch, computed apart from the chunks (as Engine.weigh does for
// the smoothed weightings).
func refCoefficients(e *Engine[float64], ops kernel.Ops[float64], losses []float64, wt *Weighting) []float64 {
	b := len(losses)
	coef := make([]float64, b)
	switch wt.Objective {
	case Mean:
		for i := range coef {
			coef[i] = 1 / float64(b)
		}
	case TopK:
		tail.Weights(coef, losses, wt.Alpha, make([]int, b))
	default:
		p := e.linearStep(wt, b)
		s := make([]float64, b)
		for i, l := range losses {
			s[i] = l*p.InvL - p.Tau
		}
		ops.Plus(p.Plus, p.Eps, nil, coef, s)
		for i := range coef {
			coef[i] *= p.Scale
		}
	}
	return coef
}
