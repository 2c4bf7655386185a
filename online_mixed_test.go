package cvar

import (
	"fmt"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// TestOnlineMixesDenseAndSparse feeds one Online a stream of samples given
// some as dense rows (Observe) and some as non-zeros (ObserveSparse), asking
// for the Result between them, and wants the run of the all-dense stream,
// θ and τ to 1e-9: the lazy sparse steps take up from where a dense step
// left θ, and a dense step from lazy ones.
func TestOnlineMixesDenseAndSparse(t *testing.T) {
	t.Parallel()
	const n, d = 240, 40
	for _, mc := range []struct {
		model    batch.Model[float64]
		classify bool
	}{
		{must(batch.NewLogistic[float64](d)), true},
		{must(batch.NewLeastSquares[float64](d)), false},
		{must(batch.NewSoftmax[float64](d, 2)), true},
	} {
		sp, de := sparseTwins(t, n, d, mc.classify, 17)
		for _, method := range []Method{Alg1, Alg4} {
			for _, dom := range []Domain{{}, Ball(2)} {
				if method == Alg4 && dom != (Domain{}) {
					continue // Alg4 is unconstrained
				}
				for _, decay := range []float64{0, 0.02} {
					opt := Options{Method: method, Alpha: 0.2, Steps: n, LR: 0.01, Seed: 4, WeightDecay: decay, Domain: dom}
					name := fmt.Sprintf("%s %v %v λ=%g", mc.model.Name(), method, dom, decay)
					mixed := must(NewOnline(mc.model, d, de.K, opt))
					dense := must(NewOnline(mc.model, d, de.K, opt))
					for i := 0; i < n; i++ {
						var y float64
						var label int
						if mc.classify {
							label = int(de.Labels[i])
						} else {
							y = de.Y[i]
						}
						var err error
						if i%5 < 2 { // runs of two sparse samples, then three dense
							cols, vals := sp.SparseRow(i)
							err = mixed.ObserveSparse(cols, vals, y, label)
						} else {
							err = mixed.Observe(de.Row(i), y, label)
						}
						if err == nil {
							err = dense.Observe(de.Row(i), y, label)
						}
						if err != nil {
							t.Fatalf("%s: sample %d: %v", name, i, err)
						}
						if i%7 == 3 {
							mixed.Result()
						}
					}
					rm, rd := mixed.Result(), dense.Result()
					mixed.Close()
					dense.Close()
					for j := range rd.Theta {
						if !near(rm.Theta[j], rd.Theta[j], 1e-9) {
							t.Fatalf("%s: θ[%d] mixed %v, dense %v", name, j, rm.Theta[j], rd.Theta[j])
						}
					}
					if !near(rm.Tau, rd.Tau, 1e-9) || rm.Iterate != rd.Iterate {
						t.Fatalf("%s: τ %v and %v, iterate %d and %d", name, rm.Tau, rd.Tau, rm.Iterate, rd.Iterate)
					}
				}
			}
		}
	}
}
