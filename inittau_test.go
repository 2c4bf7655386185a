package cvar

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// InitTau starts τ where it says: a run given the τ that the practical
// rule would pick is bit-identical to that run (ε still from the initial
// losses), and a run given another τ reports it and, with τ's step size
// near 0, returns it.
func TestInitTauStartsThere(t *testing.T) {
	t.Parallel()
	_, data := sparseTwins(t, 200, 6, true, 5)
	model := must(batch.NewLogistic[float64](6))
	opt := Options{Method: Alg3, Alpha: 0.2, Steps: 30, Batch: 16, Seed: 2, Threads: 1}
	base := must(Train(model, data, opt))
	if !strings.Contains(base.Params.TauFrom, "initial losses") {
		t.Fatalf("the practical rule's τ comes from %q", base.Params.TauFrom)
	}
	tau0 := base.Params.Tau0
	opt.InitTau = &tau0
	same := must(Train(model, data, opt))
	if !slices.Equal(same.Theta, base.Theta) || same.Tau != base.Tau || same.Params.Eps != base.Params.Eps {
		t.Errorf("InitTau at the rule's start: τ %v, ε %v; want the rule's run, τ %v, ε %v", same.Tau, same.Params.Eps, base.Tau, base.Params.Eps)
	}
	if same.Params.TauFrom != "given" || !strings.Contains(same.Params.EpsFrom, "initial losses") {
		t.Errorf("τ from %q, ε from %q; want given and the initial losses", same.Params.TauFrom, same.Params.EpsFrom)
	}
	other := 3 * tau0
	opt.InitTau, opt.TauLR = &other, 1e-300
	res := must(Train(model, data, opt))
	if res.Params.Tau0 != other || math.Abs(res.Tau-other) > 1e-12*other {
		t.Errorf("InitTau %v with τ's step near 0: Tau0 %v, τ %v", other, res.Params.Tau0, res.Tau)
	}
}

// InitTau is refused outside τ's interval, when not finite, and for the
// methods without τ.
func TestInitTauRefused(t *testing.T) {
	t.Parallel()
	_, data := sparseTwins(t, 50, 4, true, 6)
	model := must(batch.NewLogistic[float64](4))
	at := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Method: Alg3, InitTau: at(math.NaN())}, "outside τ's interval"},
		{Options{Method: Alg3, InitTau: at(-1)}, "outside τ's interval"},
		{Options{Method: Alg3, TauMin: 1, TauMax: 2, InitTau: at(2.5)}, "outside τ's interval"},
		{Options{Method: Vanilla, InitTau: at(0.5)}, "vanilla has no τ"},
		{Options{Method: MinibatchCVaR, InitTau: at(0.5)}, "minibatch has no τ"},
	} {
		tc.opt.Steps = 2
		if _, err := Train(model, data, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v with InitTau %v: error %v, want %q", tc.opt.Method, *tc.opt.InitTau, err, tc.want)
		}
	}
}
