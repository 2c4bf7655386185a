// Package rounds is what training on parts of the data computes, whatever
// runs it. That is the fitting pass over the parts, the held-out rows, the
// rounds and the tuning trials. cvarbeam runs it as Beam pipelines.
//
// Each part of the data runs the method's local steps from the round's
// state. The round then averages the parts' parameters, weighted by the
// samples each drew. Sums and merges take the parts in their keys' order.
// So a seed gives the same model however the parts were spread.
package rounds

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rng"
)

// State is where a round starts: its number (from 1), θ, τ and ε. A NaN τ
// makes each part start τ as the library does, at the VaR_α of its
// losses at θ. A zero ε makes each part set its own from its losses.
type State struct {
	Round int
	Theta []float64
	Tau   float64
	Eps   float64
}

// Options are the local runs' settings, as cvar.Options names them.
// Batch is the global minibatch, Steps the local steps a round and Rows
// the training rows of all parts. They are plain values, which a Beam
// DoFn can hold.
type Options struct {
	Method                 cvar.Method
	Alpha, LR, WeightDecay float64
	Batch                  int
	Smoothing              cvar.Smoothing
	Eps, EpsFraction       float64
	Seed                   uint64
	Steps                  int
	Rows                   int64
}

// OptionsOf are the local runs' settings of o on rows training rows.
func OptionsOf(o *cvar.Options, rows int64) Options {
	return Options{Method: o.Method, Alpha: o.Alpha, LR: o.LR, WeightDecay: o.WeightDecay, Batch: o.Batch,
		Smoothing: o.Smoothing, Eps: o.Eps, EpsFraction: o.EpsFraction, Seed: o.Seed, Steps: o.Steps, Rows: rows}
}

// Schedule is what every round of a run shares.
type Schedule struct {
	Batch  int     // the global minibatch: the sum of the parts' local ones
	LR     float64 // η, as one machine resolves it for Batch
	LRFrom string
	Steps  int // local steps a round
	Rounds int
}

// ScheduleOf resolves the global minibatch b, the step size, and the
// rounds and local steps of a run of o on n training rows. An epoch is
// one machine's ⌈n/b⌉ steps. It is cut into perEpoch rounds, or, when
// perEpoch is 0, into as few as keep each to maxSteps steps.
func ScheduleOf(o *cvar.Options, perEpoch, maxSteps int, n int64) Schedule {
	b := min(int64(cmp.Or(o.Batch, cvar.DefaultBatch)), n)
	epochs := cmp.Or(o.Epochs, o.Method.DefaultEpochs(int(n), int(b)))
	steps := int((n + b - 1) / b)
	rpe := cmp.Or(perEpoch, (steps+maxSteps-1)/maxSteps)
	s := Schedule{Batch: int(b), Steps: max(1, (steps+rpe-1)/rpe), Rounds: epochs * rpe}
	s.LR, s.LRFrom = o.PracticalLR(int(b))
	return s
}

// Update is a part's contribution to a round. Its θ, τ and ε are
// multiplied by W, the samples its local steps drew, so that sums of
// updates give the weighted averages. Params are those of the part with
// the most rows.
type Update struct {
	N      int64
	W      float64
	Theta  []float64
	Tau    float64
	Tau0   float64 // the first τ
	HasTau bool
	Eps    float64
	Batch  int // the local minibatches' sum
	Params cvar.Params
	PN     int64 // the rows of the part whose Params these are
	Key    int64 // that part's key, for a stable choice
}

// Key orders the parts: by file, then part in the file.
func Key(file, part int) int64 { return int64(file)<<20 | int64(part) }

// Local runs the local steps of o on a part's training rows from st. The
// part draws its share of the global minibatch, in proportion to its
// rows. Its seed mixes o.Seed with the round, the file and the part, so
// no two parts or rounds draw alike.
func Local[T batch.Float](ctx context.Context, model batch.Model[T], data *batch.Data[T], o Options, st State, file, part int) (Update, error) {
	opt := cvar.Options{Method: o.Method, Alpha: o.Alpha, LR: o.LR, WeightDecay: o.WeightDecay,
		Batch: max(1, int(math.Round(float64(o.Batch)*float64(data.N)/float64(o.Rows)))), Smoothing: o.Smoothing,
		Eps: o.Eps, EpsFraction: o.EpsFraction, Steps: o.Steps, Threads: 1, Init: st.Theta,
		Seed: rng.Mix(o.Seed ^ rng.Mix(uint64(st.Round)<<32|uint64(file)<<12|uint64(part)))}
	if st.Eps > 0 {
		opt.Eps = st.Eps
	}
	if !math.IsNaN(st.Tau) {
		opt.InitTau = &st.Tau
	}
	res, err := cvar.TrainContext(ctx, model, data, opt)
	if err != nil {
		return Update{}, err
	}
	w := float64(res.Params.Batch) * float64(res.Params.Steps)
	u := Update{N: int64(data.N), W: w, Theta: make([]float64, len(res.Theta)), Batch: res.Params.Batch,
		Params: res.Params, PN: int64(data.N), Key: Key(file, part), Eps: res.Params.Eps * w}
	for i, v := range res.Theta {
		u.Theta[i] = float64(v) * w
	}
	if !math.IsNaN(res.Tau) {
		u.Tau, u.Tau0, u.HasTau = res.Tau*w, res.Params.Tau0*w, true
	}
	return u, nil
}

// Sum adds the updates in the order of their keys, whatever order they
// came in. It sorts us.
func Sum(us []Update) Update {
	slices.SortFunc(us, func(x, y Update) int { return cmp.Compare(x.Key, y.Key) })
	var sum Update
	for _, u := range us {
		sum = add(sum, u)
	}
	return sum
}

func add(a, b Update) Update {
	if b.N == 0 {
		return a
	}
	if a.N == 0 {
		b.Theta = slices.Clone(b.Theta)
		return b
	}
	for i, v := range b.Theta {
		a.Theta[i] += v
	}
	if b.PN > a.PN || b.PN == a.PN && b.Key < a.Key { // the largest part's parameters
		a.Params, a.PN, a.Key = b.Params, b.PN, b.Key
	}
	a.N, a.W, a.Tau, a.Tau0, a.Eps, a.Batch = a.N+b.N, a.W+b.W, a.Tau+b.Tau, a.Tau0+b.Tau0, a.Eps+b.Eps, a.Batch+b.Batch
	a.HasTau = a.HasTau || b.HasTau
	return a
}

// Next is the state of the round after st, whose updates sum to u. It
// holds the parts' θ and τ averaged, weighted by the samples each drew.
// The ε the first round's parts set stays for every later round, as in
// one run.
func (u *Update) Next(st State) State {
	out := State{Round: st.Round + 1, Theta: make([]float64, len(u.Theta)), Tau: math.NaN(), Eps: st.Eps}
	for i, v := range u.Theta {
		out.Theta[i] = v / u.W
	}
	if u.HasTau {
		out.Tau = u.Tau / u.W
	}
	if out.Eps == 0 && u.Eps > 0 {
		out.Eps = u.Eps / u.W
	}
	return out
}

// Params are the parameters of a run by rounds, from its first and last
// rounds' sums and its last state. They are the first round's largest
// part's, where ε and τ came from. The minibatch is the global one, the
// steps those along the average, ε and τ the shared.
func Params(first, last Update, st State, s Schedule) cvar.Params {
	p := first.Params
	p.Batch, p.Steps, p.LRFrom = last.Batch, s.Rounds*s.Steps, s.LRFrom
	if st.Eps > 0 {
		p.Eps = st.Eps
	}
	if first.HasTau {
		p.Tau0 = first.Tau0 / first.W
		p.TauFrom = fmt.Sprintf("VaR_%g of each part's initial losses, averaged", p.Alpha)
	}
	if p.EpsFrom != "" && p.EpsFrom != "given" {
		p.EpsFrom = fmt.Sprintf("%g × VaR_%g of each part's initial losses, averaged", p.EpsFraction, p.Alpha)
	}
	return p
}
