package cvar

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/batch"
)

// The sparse step. On sparse data a minibatch touches few of the model's
// parameters: the weights of its columns and the biases. Every other
// coordinate of the dense update θ ← Π_K(θ − η(g + λθ)) changes only by a
// factor common to all of them. So the step is done lazily, in the
// minibatch's non-zeros:
//
//   - Weight decay multiplies an untouched coordinate by c = 1 − ηλ; the
//     ball's projection multiplies every coordinate by p_t = min(1,
//     R/‖θ'‖). Step t's factor for the untouched coordinates is f_t = c·p_t,
//     and the run keeps P_t = f_1·…·f_t (since the last full sync). A
//     coordinate last touched at step L holds x_{L+1}; at step t its
//     value is x_{L+1}·P_t/P_L, applied when it is next touched or read.
//   - ‖θ‖², for the ball, is kept up to date: the untouched part scales by
//     c², the touched part is summed over the touched coordinates, so that
//     p_t costs the non-zeros too. It is recomputed exactly at every full
//     sync.
//   - The box: clipping commutes with a positive factor when 0 ∈ [lo, hi]
//     (c·x stays in the box), and x ← clip(c·x) k times is clip(c^k·x)
//     otherwise, so a coordinate is clipped when it is next touched or read.
//   - The averaged output (1/t)·Σ x_s: the iterates x_{L+1} … x_t of an
//     untouched coordinate are x_{L+1}·P_{s−1}/P_L, whose sum is
//     x_{L+1}·(Q_t − Q_L)/P_L with Q_t = P_0 + … + P_{t−1}; the average is
//     brought up to date with it when the coordinate is next touched or
//     read. (A box that excludes 0, with weight decay, is not a product of
//     factors: the average there runs the dense step.)
//   - The random iterate (Alg4) copies θ when the reservoir keeps the
//     current iterate, about ln T times in T steps: each copy syncs θ first.
//
// A full sync, O(d), brings every coordinate to the current step. It
// restarts P and Q at 1 and 0. It runs when θ is read (the result,
// OnEpoch, a dense step). It runs when P_t falls below 1e-12 with the
// average, 1e-250 without (long runs with decay, or a ball that binds by
// a large factor). It also runs every max(d, 4096) steps, which bounds the
// history of P and Q and the rounding of Q_t − Q_L.
//
// Where no coordinate is ever owed anything (needCatchUp) and K = R^d,
// the linear models skip the compact minibatch. The step then runs in θ
// itself (direct, Engine.StepSparse). Each non-zero's share is added into
// its weight in turn.
//
// The numerical contract. The touched coordinates get the dense step's
// arithmetic: the same Axpy and Lerp kernels, on the gathered
// coordinates. The factors are products in float64. So a lazily caught-up
// coordinate equals the dense step's repeated multiplication to rounding,
// a few ulps a catch-up. Without weight decay, ball or averaging (factors
// 1) it is bit-identical to the dense step. The exception is the direct
// step: it rounds a weight's sum of shares share by share. The tests hold
// sparse and dense runs to 1e-9 in float64.

// lazy is the state of the lazy sparse step.
type lazy[T batch.Float] struct {
	// Coordinate i is up to date as of step base + last[i]. The offset is
	// at most the history's length, max(d, 4096) + 1: 4 bytes a weight.
	last []int32
	base int       // the step of the last full sync
	p    []float64 // P_{base+j}: p[0] = 1
	// Q_{base+j} = q[j] + qe[j], summed in double-double (TwoSum). The
	// average needs (Q_t − Q_L)/P_L to float64's precision. Yet the early,
	// larger P_j dominate Q_t.
	q, qe []float64
	nrm2  float64            // ‖θ‖² (the ball), up to date at every step
	owe   func(coords []int) // the run's owe, made once
	// accept is the run's acceptLosses, made once: the direct step's check
	// of the losses before θ changes.
	accept func(losses []T, sumV float64) error
}

// lazyMinP bounds P_t from below before a full sync: (Q_t − Q_L)/P_L
// then has a relative rounding of about 2⁻¹⁰⁶·(t − base)/lazyMinP, below
// float64's ulp.
const lazyMinP = 1e-12

// lazyMinRatio bounds P_t from below without the average: P_t/P_L stays a
// normal float64, and a sync is due only after a long run of binding
// projections or decay.
const lazyMinRatio = 1e-250

// lazyOK reports whether the sparse step can run lazily with the run's
// options. That needs c = 1 − ηλ in (0, 1]. The averaged output in a box
// that excludes 0 also needs no weight decay.
func (r *run[T]) lazyOK() bool {
	if r.opt.denseStep {
		return false
	}
	c := 1 - r.pr.LR*r.opt.WeightDecay
	if !(c > 0 && c <= 1) {
		return false
	}
	d := r.opt.Domain
	if d.kind == domainBox && r.output == OutputAverage && r.opt.WeightDecay > 0 && (d.lo > 0 || d.hi < 0) {
		return false
	}
	return true
}

// needCatchUp reports whether a coordinate that a step did not touch can
// change. It can with weight decay, a ball, the average to keep or a box
// that excludes 0. Otherwise an untouched coordinate keeps its value. The
// step then skips the catch-up (the engine's hook Before). It costs the
// gradient and the update at the touched coordinates alone.
func (r *run[T]) needCatchUp() bool {
	d := r.opt.Domain
	return r.opt.WeightDecay > 0 || d.kind == domainBall || r.avg != nil || (d.kind == domainBox && (d.lo > 0 || d.hi < 0))
}

// startLazy starts the lazy state at step r.t, θ up to date.
func (r *run[T]) startLazy() {
	z := &lazy[T]{base: r.t, p: []float64{1}, q: []float64{0}, qe: []float64{0}}
	if r.needCatchUp() { // else nothing is ever owed: no d-long state
		z.last = make([]int32, len(r.theta))
	}
	if r.opt.Domain.kind == domainBall {
		z.nrm2 = float64(r.ops.Dot(r.theta, r.theta))
	}
	z.owe, z.accept = r.owe, r.acceptLosses
	r.lz = z
}

// clip maps v into the box, if K is one.
func (r *run[T]) clip(v T) T {
	if d := r.opt.Domain; d.kind == domainBox {
		return min(max(v, T(d.lo)), T(d.hi))
	}
	return v
}

// catchUp brings the coordinates coords up to step r.t. It applies the
// factors of the steps that did not touch them, the box, and their share
// of the average.
func (r *run[T]) catchUp(coords []int) {
	z := r.lz
	t := r.t
	pt, qt, qet := z.p[t-z.base], z.q[t-z.base], z.qe[t-z.base]
	box := r.opt.Domain.kind == domainBox
	for _, i := range coords {
		l := z.base + int(z.last[i])
		if l == t {
			continue
		}
		z.last[i] = int32(t - z.base)
		v := r.theta[i]
		if v == 0 {
			if r.avg != nil {
				r.avg[i] = T(float64(r.avg[i]) * float64(l) / float64(t))
			}
			continue
		}
		pl := z.p[l-z.base]
		if r.avg != nil {
			seg := float64(v) * ((qt - z.q[l-z.base]) + (qet - z.qe[l-z.base])) / pl
			a := float64(r.avg[i])
			r.avg[i] = T(a + (seg-float64(t-l)*a)/float64(t))
		}
		if pt != pl {
			v = T(float64(v) * (pt / pl))
		}
		if box {
			v = r.clip(v)
		}
		r.theta[i] = v
	}
}

// sync brings every coordinate up to step r.t and restarts P and Q.
func (r *run[T]) sync() {
	z := r.lz
	if z == nil {
		return
	}
	if z.base != r.t && z.last != nil {
		all := make([]int, 0, 4096)
		for lo := 0; lo < len(r.theta); lo += 4096 {
			all = all[:0]
			for i := lo; i < min(lo+4096, len(r.theta)); i++ {
				all = append(all, i)
			}
			r.catchUp(all)
		}
	}
	r.restartLazy()
}

// restartLazy restarts P and Q at step r.t, with every coordinate of θ up
// to date. That holds after sync and after a dense step, which updates
// them all. Online may feed a run both dense and sparse samples.
func (r *run[T]) restartLazy() {
	z := r.lz
	z.base = r.t
	clear(z.last) // every coordinate up to date as of the new base
	z.p, z.q, z.qe = append(z.p[:0], 1), append(z.q[:0], 0), append(z.qe[:0], 0)
	if r.opt.Domain.kind == domainBall {
		z.nrm2 = float64(r.ops.Dot(r.theta, r.theta))
	}
}

// owe is the engine's hook Before in GradientSparse. It brings the
// coordinates coords up to date before step r.t+1 reads them. It adds x_t
// to the average there; the other coordinates' share is owed.
func (r *run[T]) owe(coords []int) {
	r.catchUp(coords)
	if r.output != OutputAverage {
		return
	}
	t := r.t + 1
	m := len(coords)
	r.gs, r.ts = grow(r.gs, m), grow(r.ts, m)
	for k, i := range coords {
		r.gs[k], r.ts[k] = r.theta[i], r.avg[i]
	}
	r.ops.Lerp(T(1/float64(t)), r.gs, r.ts)
	for k, i := range coords {
		r.avg[i] = r.ts[k]
	}
}

// lazyStep makes step t = r.t+1 on the rows idx of sparse data. It works
// in the minibatch's non-zeros, as the comment above says. It returns the
// minibatch's losses and Σ v_i, or an error.
func (r *run[T]) lazyStep(data *batch.Data[T], idx []int, n int) ([]T, float64, error) {
	t := r.t + 1
	if r.fromLosses { // Alg1 and Alg4: the first sample sets ε and τ, before τ_1 enters the output (the first step: nothing is owed yet)
		if err := r.firstLosses(data, idx, n); err != nil {
			return nil, 0, err
		}
	}
	switch r.output {
	case OutputAverage:
		r.tauAvg += (r.tau - r.tauAvg) / float64(t)
	case OutputRandom:
		if r.rng.IntN(t) == 0 {
			r.sync()
			copy(r.kept, r.theta)
			r.keptTau, r.keptStep = r.tau, t
		}
	}
	r.wt.Tau = r.tau
	if r.direct(data) {
		return r.directStep(data, idx, n)
	}
	var owe func([]int)
	if r.needCatchUp() {
		owe = r.lz.owe
	}
	r.hooks.Before = owe
	losses, sumV, touched, grad, err := r.engine.GradientSparse(r.theta, data, idx, n, &r.wt)
	r.hooks.Before = nil
	if err != nil {
		return nil, 0, err
	}
	var sum T
	for _, l := range losses {
		sum += l
	}
	if err := r.checkLosses(t, losses, float64(sum)); err != nil {
		return nil, 0, err
	}
	// The update at the touched coordinates, gathered, through the dense
	// step's Axpy kernels (elementwise: each coordinate gets the same bits).
	z := r.lz
	m := len(touched)
	r.ts = grow(r.ts, m)
	for k, i := range touched {
		r.ts[k] = r.theta[i]
	}
	lambda := r.opt.WeightDecay
	if lambda > 0 {
		r.ops.Axpy(T(lambda), r.ts, grad) // the engine's buffer, ours until its next call
	}
	r.ops.Axpy(T(-r.pr.LR), grad, r.ts)
	c := 1 - r.pr.LR*lambda
	f := c
	switch dom := r.opt.Domain; dom.kind {
	case domainBall:
		var before float64 // ‖θ‖² over the touched coordinates, before the step
		for _, i := range touched {
			before += float64(r.theta[i]) * float64(r.theta[i])
		}
		after := float64(r.ops.Dot(r.ts, r.ts))
		nrm2 := c*c*max(z.nrm2-before, 0) + after
		if !finite(nrm2) {
			return nil, 0, &DivergenceError{Step: t, What: fmt.Sprintf("the parameters are not finite (‖θ‖² = %v)", nrm2)}
		}
		if nrm2 > dom.rad*dom.rad {
			p := dom.rad / math.Sqrt(nrm2)
			s := T(p)
			for k := range r.ts {
				r.ts[k] *= s
			}
			f *= p
			nrm2 *= p * p
		}
		z.nrm2 = nrm2
	case domainBox:
		for k, v := range r.ts {
			r.ts[k] = r.clip(v)
		}
	}
	if nrm2 := r.ops.Dot(r.ts, r.ts); !finite(float64(nrm2)) {
		return nil, 0, &DivergenceError{Step: t, What: fmt.Sprintf("the parameters are not finite (‖θ‖² over the updated ones = %v)", nrm2)}
	}
	for k, i := range touched {
		r.theta[i] = r.ts[k]
	}
	if z.last != nil {
		for _, i := range touched {
			z.last[i] = int32(t - z.base)
		}
	}
	z.advance(t, f)
	return losses, sumV, nil
}

// advance appends step t's factor f of the untouched coordinates to the
// history: P_t = P_{t−1}·f and Q_t = Q_{t−1} + P_{t−1}.
func (z *lazy[T]) advance(t int, f float64) {
	j := t - 1 - z.base
	z.p = append(z.p, z.p[j]*f)
	q, pj := z.q[j], z.p[j] // TwoSum: q + pj = s + e exactly
	s := q + pj
	b := s - q
	e := (q - (s - b)) + (pj - b)
	z.q, z.qe = append(z.q, s), append(z.qe, z.qe[j]+e)
}

// direct reports whether the sparse step on data runs in θ itself
// (Engine.StepSparse). That needs a linear model, K = R^d (no clipping or
// projection of the updated coordinates), and no coordinate ever owed
// anything (needCatchUp). Each non-zero then costs a read of its weight
// for the margin and an update of it. The compact minibatch
// (GradientSparse) also numbers its column, and gathers and scatters θ at
// the distinct columns. Softmax keeps the compact minibatch. Its k weights
// a column lie in k blocks of θ: k random accesses a non-zero in θ itself.
// The compact minibatch makes them once a distinct column. On text-like
// data that is well under once a non-zero, as frequent words repeat.
func (r *run[T]) direct(data *batch.Data[T]) bool {
	return !r.opt.compactStep && !r.needCatchUp() && r.opt.Domain.kind == domainR && r.engine.HasSparseStep(data)
}

// directStep is lazyStep's step where direct(data): the margins at θ, the
// losses' check (acceptLosses), then the update added into θ.
func (r *run[T]) directStep(data *batch.Data[T], idx []int, n int) ([]T, float64, error) {
	t := r.t + 1
	losses, sumV, nrm2, err := r.engine.StepSparse(r.theta, data, idx, n, &r.wt, T(r.pr.LR), r.lz.accept)
	if err != nil {
		return nil, 0, err
	}
	if !finite(float64(nrm2)) {
		return nil, 0, &DivergenceError{Step: t, What: fmt.Sprintf("the parameters are not finite (‖θ‖² over the updated ones = %v)", nrm2)}
	}
	r.lz.advance(t, 1)
	return losses, sumV, nil
}

// acceptLosses is checkLosses on the losses of step r.t+1.
func (r *run[T]) acceptLosses(losses []T, _ float64) error {
	var sum T
	for _, l := range losses {
		sum += l
	}
	return r.checkLosses(r.t+1, losses, float64(sum))
}

// lazyDue reports whether the lazy state wants a full sync after step r.t:
// P too small, or a history of max(d, 4096) steps.
func (r *run[T]) lazyDue() bool {
	z := r.lz
	minP := lazyMinP
	if r.avg == nil { // only the ratios P_t/P_L are read: far from underflow is enough
		minP = lazyMinRatio
	}
	return z != nil && (z.p[len(z.p)-1] < minP || len(z.p) > max(len(r.theta), 4096))
}
