package batch

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/engine"
)

// TestGradientSparse checks GradientSparse against Gradient on sparse data:
// the same bits at the touched coordinates, a zero gradient elsewhere (and
// g left as it was there), the touched set that of SparseCoords and the
// one a hooked model's Before hook sees, on 1, 2 and 3 threads, for the
// linear models and softmax, every objective.
func TestGradientSparse(t *testing.T) {
	t.Parallel()
	const n, d = 300, 200
	rng := rand.New(rand.NewPCG(7, 7))
	type mc struct {
		model    Model[float64]
		classify bool
	}
	models := []mc{
		{must(NewLogistic[float64](d)), true},
		{must(NewLeastSquares[float64](d)), false},
		{must(NewLeastAbsolute[float64](d)), false},
		{must(NewSoftmax[float64](d, 2)), true},
	}
	weightings := []Weighting{
		{Objective: Mean},
		{Objective: Softplus, Alpha: 0.2, Eps: 0.1, InvL: 1, Tau: 0.3},
		{Objective: Hinge, Alpha: 0.2, InvL: 1, Tau: 0.3},
		{Objective: TopK, Alpha: 0.2},
	}
	for _, m := range models {
		// Rows with few columns, so most weights are untouched.
		data := stepData(t, rng, n, d, 4, m.classify)
		p := m.model.NumParams()
		theta := make([]float64, p)
		for i := range theta {
			theta[i] = 0.1 * rng.NormFloat64()
		}
		idx := make([]int, 150)
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		seq := make([]int, 170)
		for i := range seq {
			seq[i] = i
		}
		for _, rows := range [][]int{idx, nil} {
			listed := rows // the rows as a list (nil: the first 170), for the reference Gradients and sparseCoords
			if rows == nil {
				listed = seq
			}
			for _, wt := range weightings {
				ref, err := NewEngine(m.model, 1)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float64, p)
				wl, wsv, err := ref.Gradient(want, theta, data, listed, 170, &wt)
				if err != nil {
					t.Fatal(err)
				}
				wl = slices.Clone(wl)
				ref.Close()
				for _, threads := range []int{1, 2, 3} {
					h := &engine.Hooks{}
					// Past GOMAXPROCS, and on small data, to run the workers.
					opts := engineOptions{chunkRows: 16, allThreads: true, sparseAlways: true}
					e, err := newEngineWith[float64](hooked[float64]{m.model, h}, threads, opts)
					if err != nil {
						t.Fatal(err)
					}
					// Chunks of 16 rows differ from the reference's 64 in
					// the order of the sums; compare to a Gradient of the
					// same engine for bits, and to the reference to 1e-12.
					same := make([]float64, p)
					if _, _, err := e.Gradient(same, theta, data, listed, 170, &wt); err != nil {
						t.Fatal(err)
					}
					wantCoords := sparseCoords(data, listed[:min(170, len(listed))], d, m.model.NumOutputs())
					for rep := 0; rep < 2; rep++ { // the scratch is clean again after a call
						var seen []int
						h.Before = func(c []int) { seen = slices.Clone(c) }
						losses, sv, coords, grad, err := e.GradientSparse(theta, data, rows, 170, &wt)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(coords, wantCoords) || !slices.Equal(seen, coords) || len(grad) != len(coords) {
							t.Fatalf("%s: coords %v (before saw %v), %d gradient entries; want %v", m.model.Name(), coords, seen, len(grad), wantCoords)
						}
						if !slices.Equal(losses, wl) || math.Abs(sv-wsv) > 1e-12*(1+math.Abs(wsv)) {
							t.Fatalf("%s %v: losses %d %d or Σv %v %v differ", m.model.Name(), wt.Objective, len(losses), len(wl), sv, wsv)
						}
						g := make([]float64, p)
						for i := range g {
							g[i] = math.NaN()
						}
						for u, i := range coords {
							g[i] = grad[u]
						}
						for i := range g {
							if math.IsNaN(g[i]) { // untouched: Gradient's 0
								if same[i] != 0 {
									t.Fatalf("%s %v: untouched g[%d], Gradient %v", m.model.Name(), wt.Objective, i, same[i])
								}
								continue
							}
							if math.Float64bits(g[i]) != math.Float64bits(same[i]) {
								t.Fatalf("%s %v %d threads: g[%d] = %v, Gradient %v", m.model.Name(), wt.Objective, threads, i, g[i], same[i])
							}
							if math.Abs(g[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
								t.Fatalf("%s %v: g[%d] = %v, 64-row chunks %v", m.model.Name(), wt.Objective, i, g[i], want[i])
							}
						}
					}
					e.Close()
				}
			}
		}
	}
}

// TestGradientSparseRefuses checks that GradientSparse refuses dense data
// and a model without a sparse gradient, and that HasSparseGradient says so.
func TestGradientSparseRefuses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	sp, de := twins(t, rng, 100, 10, true)
	wt := &Weighting{Objective: Mean}
	lin := must(NewEngine(Model[float64](must(NewLogistic[float64](10))), 1))
	defer lin.Close()
	theta := make([]float64, 11)
	if lin.HasSparseGradient(de) || !lin.HasSparseGradient(sp) {
		t.Fatal("HasSparseGradient: want false on dense data, true on sparse")
	}
	if _, _, _, _, err := lin.GradientSparse(theta, de, nil, 100, wt); err == nil || !strings.Contains(err.Error(), "dense") {
		t.Fatalf("dense data: err %v", err)
	}
	mlp := must(NewMLP[float64](10, 3, 2))
	em := must(NewEngine(Model[float64](mlp), 1))
	defer em.Close()
	if em.HasSparseGradient(sp) {
		t.Fatal("HasSparseGradient for the MLP")
	}
	if _, _, _, _, err := em.GradientSparse(make([]float64, mlp.NumParams()), sp, nil, 100, wt); err == nil || !strings.Contains(err.Error(), "mlp") {
		t.Fatalf("mlp: err %v", err)
	}
}

// sparseCoords lists the coordinates GradientSparse documents for the rows
// of data: for each class, the columns in order of first appearance, then
// the biases.
func sparseCoords(data *Data[float64], rows []int, d, k int) []int {
	var cols []int
	seen := map[uint32]bool{}
	for _, r := range rows {
		for _, c := range data.Cols[data.Indptr[r]:data.Indptr[r+1]] {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, int(c))
			}
		}
	}
	var out []int
	for j := range k {
		for _, c := range cols {
			out = append(out, j*d+c)
		}
	}
	for j := range k {
		out = append(out, k*d+j)
	}
	return out
}
