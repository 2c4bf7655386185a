package batch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColTable checks the numbering of columns by first appearance, and a
// reset.
func TestColTable(t *testing.T) {
	var tab colTable
	for _, n := range []int{0, 5, 300} {
		tab.reset(n)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		var want []uint32
		for range n {
			c := uint32(rng.IntN(40)) << 20 // collide in the low bits
			u := tab.index(c)
			p := slices.Index(want, c)
			if p < 0 {
				p = len(want)
				want = append(want, c)
			}
			if int(u) != p {
				t.Fatalf("n %d: column %d numbered %d, want %d", n, c, u, p)
			}
		}
		if !slices.Equal(tab.cols, want) {
			t.Fatalf("n %d: columns %v, want %v", n, tab.cols, want)
		}
	}
}

// TestGradientSparseEmptyChunk runs GradientSparse in float32 for softmax
// (3 classes) on rows of which a whole chunk has no non-zeros: the bits of
// Gradient on 1 and 2 threads.
func TestGradientSparseEmptyChunk(t *testing.T) {
	const n, d, k = 64, 30, 3
	rng := rand.New(rand.NewPCG(3, 4))
	indptr := []int64{0}
	var cols []uint32
	var vals []float32
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		if i < 16 || i >= 32 {
			for range 1 + rng.IntN(5) {
				cols, vals = append(cols, uint32(rng.IntN(d))), append(vals, float32(rng.NormFloat64()))
			}
		}
		indptr = append(indptr, int64(len(cols)))
		labels[i] = int32(rng.IntN(k))
	}
	data, err := NewSparseData(indptr, cols, vals, n, d, nil, labels, k)
	if err != nil {
		t.Fatal(err)
	}
	model := must(NewSoftmax[float32](d, k))
	theta := make([]float32, model.NumParams())
	for i := range theta {
		theta[i] = float32(0.3 * rng.NormFloat64())
	}
	wt := &Weighting{Objective: Softplus, Alpha: 0.3, Tau: 0.5, Eps: 0.1}
	for _, threads := range []int{1, 2} {
		e, err := NewEngineChunks(model, threads, 16)
		if err != nil {
			t.Fatal(err)
		}
		e.threads = threads
		want := make([]float32, len(theta))
		if _, _, err := e.Gradient(want, theta, data, nil, n, wt); err != nil {
			t.Fatal(err)
		}
		g := make([]float32, len(theta))
		_, _, touched, err := e.GradientSparse(g, theta, data, nil, n, wt)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range touched {
			if g[i] != want[i] {
				t.Fatalf("%d threads: g[%d] = %v, Gradient %v", threads, i, g[i], want[i])
			}
		}
		e.Close()
	}
}
