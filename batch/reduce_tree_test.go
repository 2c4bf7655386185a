package batch

import (
	"math"
	"testing"
)

// TestTreeInBlocksBitIdentical checks that the reduction's blocks summing
// every level of the chunks' tree (many threads for the chunks:
// treeInBlocks) give the bits of the tree climbed as the chunks finish (few
// threads) and of one thread, for every model, with and without an update
// folded into the blocks, over calls that reuse the chunks' buffers; and
// that the engines took the path the test is about.
func TestTreeInBlocksBitIdentical(t *testing.T) {
	t.Parallel()
	const n, d, batch, rows = 400, 70, 250, 16 // 16 chunks
	for _, mc := range modelCases {
		t.Run(mc.name, func(t *testing.T) {
			t.Parallel()
			data := testData[float64](t, n, d, mc.k, 31)
			model := mc.make(d, mc.k)
			idx := make([]int, batch)
			for i := range idx {
				idx[i] = (i*53 + 7) % n
			}
			wts := []Weighting{{Objective: Softplus, Alpha: 0.1, Eps: 0.1, Tau: 0.3}, {Objective: TopK, Alpha: 0.1}}
			run := func(threads int) (g [][]float64, inBlocks bool) {
				e := must(newEngineWith(model, threads, engineOptions{chunkRows: rows, allThreads: true}))
				defer e.Close()
				theta := make([]float64, model.NumParams())
				model.InitParams(theta, 1)
				grad := make([]float64, len(theta))
				step := func(lo, hi int) { // θ −= 0.1·g, folded into the blocks
					for i := lo; i < hi; i++ {
						theta[i] -= 0.1 * grad[i]
					}
				}
				for call := range 4 {
					then := step
					if call%2 == 1 {
						then = nil
					}
					wt := wts[call/2]
					if _, _, err := e.gradientThen(grad, theta, data, idx, 0, &wt, then); err != nil {
						t.Fatal(err)
					}
					g = append(g, append([]float64(nil), grad...), append([]float64(nil), theta...))
				}
				return g, e.blockTree
			}
			want, _ := run(1)
			for _, c := range []struct {
				threads  int
				inBlocks bool
			}{{3, false}, {8, true}, {16, true}} {
				got, inBlocks := run(c.threads)
				if inBlocks != c.inBlocks {
					t.Fatalf("%d threads, 16 chunks: tree in the blocks %v, want %v", c.threads, inBlocks, c.inBlocks)
				}
				for v := range want {
					for i := range want[v] {
						if math.Float64bits(got[v][i]) != math.Float64bits(want[v][i]) {
							t.Fatalf("%d threads, vector %d (gradient and θ by call): [%d] = %v, one thread gave %v", c.threads, v, i, got[v][i], want[v][i])
						}
					}
				}
			}
		})
	}
}
