package cvar

import (
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestAlg1AverageTauStartsAtFirstLoss checks that, under the practical
// rule, Alg1's averaged τ is the mean of the τ it used, τ_1 being the first
// sample's loss (Params.Tau0): one step returns Tau0, and k steps return
// the mean of Tau0 and the τ after each of the first k−1 steps (read from
// runs that return their last iterate), on dense and sparse data alike.
func TestAlg1AverageTauStartsAtFirstLoss(t *testing.T) {
	t.Parallel()
	const n, d, k = 60, 8, 5
	sp, de := sparseTwins(t, n, d, false, 3)
	model := must(batch.NewLeastSquares[float64](d))
	run := func(data *batch.Data[float64], steps int, out Output) *Result[float64] {
		t.Helper()
		res, err := Train(model, data, Options{Method: Alg1, Alpha: 0.3, Steps: steps, Output: out, LR: 0.05, Seed: 4, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, tc := range []struct {
		name string
		data *batch.Data[float64]
	}{{"dense", de}, {"sparse", sp}} {
		one := run(tc.data, 1, OutputDefault)
		if !(one.Params.Tau0 > 0) {
			t.Fatalf("%s: Tau0 %v; want the first sample's loss, > 0", tc.name, one.Params.Tau0)
		}
		if !near(one.Tau, one.Params.Tau0, 1e-15) {
			t.Fatalf("%s: one step: τ %v, want Tau0 %v", tc.name, one.Tau, one.Params.Tau0)
		}
		sum := one.Params.Tau0
		for s := 1; s < k; s++ {
			sum += run(tc.data, s, OutputLast).Tau
		}
		avg := run(tc.data, k, OutputDefault)
		if !near(avg.Tau, sum/k, 1e-12) {
			t.Fatalf("%s: %d steps: averaged τ %v, want the mean of the iterates' τ %v", tc.name, k, avg.Tau, sum/k)
		}
		if avg.Params.Tau0 != one.Params.Tau0 {
			t.Fatalf("%s: Tau0 %v over %d steps, %v over one", tc.name, avg.Params.Tau0, k, one.Params.Tau0)
		}
	}
	rd, rs := run(de, k, OutputDefault), run(sp, k, OutputDefault)
	if !near(rs.Tau, rd.Tau, 1e-12) {
		t.Fatalf("averaged τ: sparse %v, dense %v", rs.Tau, rd.Tau)
	}
}
