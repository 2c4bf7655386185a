package rounds

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// part is n rows of a two-class problem in d features.
func part(t *testing.T, n, d int, seed uint64) (batch.Model[float64], *batch.Data[float64]) {
	t.Helper()
	r := rng.New(seed, 0)
	x, labels := make([]float64, n*d), make([]int32, n)
	for i := range n {
		s := 0.0
		for j := range d {
			x[i*d+j] = r.NormFloat64()
			s += x[i*d+j]
		}
		if s+r.NormFloat64() > 0 {
			labels[i] = 1
		}
	}
	data, err := batch.NewData(x, n, d, nil, labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewModel[float64](batch.KindLogistic, d, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	return model, data
}

// A part starts from the round's θ and τ (and ε once set), takes its
// share of the global minibatch for the round's steps, and the next
// round's state is the average weighted by the samples drawn.
func TestLocalAndNext(t *testing.T) {
	t.Parallel()
	o := Options{Method: cvar.Alg3, Alpha: 0.1, LR: 0.01, Batch: 40, Seed: 1, Steps: 3, Rows: 400}
	theta := make([]float64, 7)
	theta[0] = 0.5
	var ups []Update
	for i, tc := range []struct{ tau, eps float64 }{{math.NaN(), 0}, {0.25, 0.01}} {
		model, data := part(t, 200, 6, uint64(i))
		u, err := Local(context.Background(), model, data, o, State{Round: 1, Theta: theta, Tau: tc.tau, Eps: tc.eps}, 0, i)
		if err != nil {
			t.Fatal(err)
		}
		p := u.Params
		if u.N != 200 || p.Batch != 20 || p.Steps != 3 || u.W != 60 || !u.HasTau || u.Key != Key(0, i) {
			t.Errorf("τ %v: %d rows, %d steps of %d, weight %v, key %d; want 200 rows, 3 steps of 20 (half of 40), weight 60, key %d",
				tc.tau, u.N, p.Steps, p.Batch, u.W, u.Key, Key(0, i))
		}
		switch {
		case math.IsNaN(tc.tau) && !strings.Contains(p.TauFrom, "initial losses"):
			t.Errorf("no τ given: τ from %q; want the initial losses", p.TauFrom)
		case !math.IsNaN(tc.tau) && (p.TauFrom != "given" || p.Tau0 != tc.tau || p.Eps != tc.eps):
			t.Errorf("τ %v and ε %v given: the part starts at τ %v (%s), ε %v", tc.tau, tc.eps, p.Tau0, p.TauFrom, p.Eps)
		}
		ups = append(ups, u)
	}
	sum := Sum(ups)
	next := sum.Next(State{Round: 1, Eps: 0.01})
	wantTau := (ups[0].Tau + ups[1].Tau) / 120
	if next.Round != 2 || math.Abs(next.Tau-wantTau) > 1e-12 || next.Eps != 0.01 || math.Abs(next.Theta[0]-(ups[0].Theta[0]+ups[1].Theta[0])/120) > 1e-12 {
		t.Errorf("next round %d: τ %v, ε %v, θ_0 %v; want round 2 and the weighted averages τ %v and ε 0.01", next.Round, next.Tau, next.Eps, next.Theta[0], wantTau)
	}
	model, data := part(t, 200, 6, 0)
	again, err := Local(context.Background(), model, data, o, State{Round: 2, Theta: theta, Tau: math.NaN()}, 0, 0)
	if err != nil || again.Theta[0] == ups[0].Theta[0] {
		t.Errorf("round 2 drew as round 1 did: θ_0 %v, %v", again.Theta[0], err)
	}
}

// Sum takes the parts in their keys' order, whatever order they come in:
// the same bits.
func TestSumInKeyOrder(t *testing.T) {
	t.Parallel()
	ups := func() []Update {
		return []Update{
			{N: 1, W: 1, Theta: []float64{1e16, 0.1}, Key: 2},
			{N: 1, W: 1, Theta: []float64{1, 0.2}, Key: 0},
			{N: 1, W: 1, Theta: []float64{-1e16, 0.3}, Key: 1},
		}
	}
	a, b := ups(), ups()
	b[0], b[2] = b[2], b[0]
	x, y, z := 1.0, -1e16, 1e16
	want := (x + y) + z // 0 in floating point, where another order gives 1
	first, second := Sum(a), Sum(b)
	if first.Theta[0] != want || second.Theta[0] != want || first.Theta[1] != second.Theta[1] || first.N != 3 {
		t.Errorf("sums %v and %v of %d; want θ_0 = %v both, in the keys' order", first.Theta, second.Theta, first.N, want)
	}
	if Sum(nil).N != 0 || Sum([]Update{{}}).Theta != nil {
		t.Error("a sum of no rows is not empty")
	}
}

// An epoch is one machine's steps, cut into rounds of at most
// maxSteps, or into the rounds given.
func TestScheduleOf(t *testing.T) {
	t.Parallel()
	o := cvar.Options{Method: cvar.Alg3, Batch: 10, Epochs: 3}
	for _, c := range []struct {
		perEpoch             int
		n                    int64
		batch, steps, rounds int
	}{
		{0, 1000, 10, 50, 6}, // 100 steps an epoch: 2 rounds of 50
		{4, 1000, 10, 25, 12},
		{0, 5, 5, 1, 3}, // the minibatch is at most the rows
	} {
		s := ScheduleOf(&o, c.perEpoch, 64, c.n)
		if s.Batch != c.batch || s.Steps != c.steps || s.Rounds != c.rounds || s.LR <= 0 || s.LRFrom == "" {
			t.Errorf("%d rounds an epoch of %d rows: %+v; want minibatch %d, %d steps, %d rounds and a step size", c.perEpoch, c.n, s, c.batch, c.steps, c.rounds)
		}
	}
}

// A run's parameters are the first round's largest part's, with the
// global minibatch, the steps along the average and the shared τ and ε.
func TestParams(t *testing.T) {
	t.Parallel()
	first := Update{W: 4, Tau0: 2, HasTau: true, Params: cvar.Params{Alpha: 0.1, Batch: 5, EpsFrom: "0.05 × VaR_0.1 of the initial losses", EpsFraction: 0.05}}
	p := Params(first, Update{Batch: 20}, State{Eps: 0.3}, Schedule{Steps: 7, Rounds: 3, LRFrom: "practical"})
	if p.Batch != 20 || p.Steps != 21 || p.LRFrom != "practical" || p.Eps != 0.3 || p.Tau0 != 0.5 ||
		!strings.Contains(p.TauFrom, "averaged") || !strings.Contains(p.EpsFrom, "averaged") {
		t.Errorf("params %+v", p)
	}
	given := Params(Update{Params: cvar.Params{EpsFrom: "given", TauFrom: "given", Tau0: 1}}, Update{}, State{}, Schedule{})
	if given.EpsFrom != "given" || given.TauFrom != "given" || given.Tau0 != 1 {
		t.Errorf("given ε and τ: %+v", given)
	}
}
