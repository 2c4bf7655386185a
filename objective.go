package cvar

import (
	"cmp"

	"fmt"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"math"
	"slices"

	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/tail"
)

// Objective is the risk of the losses a run minimises. The method says how
// (the steps, the minibatch, τ); the objective says what.
type Objective int

const (
	// ObjectiveDefault is the method's own risk: CVaR_α for Alg1–4 and
	// MinibatchCVaR, the mean loss for Vanilla.
	ObjectiveDefault Objective = iota
	// ObjectiveCVaR is CVaR_α: the mean of the worst α-fraction.
	ObjectiveCVaR
	// ObjectiveBlend is λ·E[ℓ] + (1 − λ)·CVaR_α, λ = Options.Blend.
	ObjectiveBlend
	// ObjectiveTrimmed is CVaR_α of the losses after discarding the
	// largest ε-fraction, ε = Options.Trim: CVaR-DORO (Zhai et al. 2021).
	ObjectiveTrimmed
	// ObjectiveChi2 is χ²-DRO: sup E_Q[ℓ] over Q with χ²(Q‖P) ≤ ρ,
	// ρ = Options.Rho (Levy et al. 2020). It is minimised through its dual
	// in (θ, η), with η carried in τ's place.
	ObjectiveChi2
	// ObjectiveGroup is Group DRO: the largest group mean loss, with online
	// exponentiated-gradient weights over Options.Groups (Sagawa et al.
	// 2020, Algorithm 1).
	ObjectiveGroup
)

var objectives = enum[Objective]{kind: "objective", typ: "Objective", hidden: 1,
	names: []string{"default", "cvar", "blend", "trimmed", "chi2", "group"}}

func (o Objective) String() string { return objectives.str(o) }

// MarshalText returns the objective's name, with an error for a value
// outside the constants.
func (o Objective) MarshalText() ([]byte, error) { return objectives.marshal(o) }

// UnmarshalText sets o from an objective's name: cvar, blend, trimmed,
// chi2 or group, in any case. "default" and "" give ObjectiveDefault.
func (o *Objective) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*o = ObjectiveDefault
		return nil
	}
	return objectives.unmarshal(o, b)
}

// objective returns the objective a run of opt minimises: the options',
// else the method's own.
func (opt *Options) objective() Objective {
	if opt.Objective != ObjectiveDefault {
		return opt.Objective
	}
	if opt.Method == Vanilla {
		return ObjectiveDefault
	}
	return ObjectiveCVaR
}

// checkObjective refuses an objective's parameter out of range, in the
// order of the fields. It refuses an objective the method cannot take.
// The mean loss (Vanilla) has no tail to blend or trim. χ²-DRO carries
// its η in τ's place, which only Alg1–4 have.
func checkObjective(opt *Options) error {
	o := opt.Objective
	switch {
	case o < ObjectiveDefault || o > ObjectiveGroup:
		return fmt.Errorf("cvar: unknown objective %d", int(o))
	case !(opt.Blend >= 0 && opt.Blend <= 1):
		return fmt.Errorf("cvar: blend λ %v outside [0, 1]", opt.Blend)
	case !(opt.Trim >= 0 && opt.Trim < 1):
		return fmt.Errorf("cvar: trim ε %v outside [0, 1)", opt.Trim)
	case !(opt.Rho >= 0) || math.IsInf(opt.Rho, 0):
		return fmt.Errorf("cvar: χ² radius ρ %v must be finite and ≥ 0", opt.Rho)
	}
	if _, err := checkGroups(opt.Groups, len(opt.Groups)); err != nil {
		return err
	}
	switch {
	case !(opt.GroupLR >= 0) || math.IsInf(opt.GroupLR, 0):
		return fmt.Errorf("cvar: group step η_q %v must be finite and ≥ 0", opt.GroupLR)
	case opt.Method == Vanilla && (o == ObjectiveCVaR || o == ObjectiveBlend || o == ObjectiveTrimmed || o == ObjectiveChi2):
		return fmt.Errorf("cvar: vanilla minimises the mean loss: objective %v needs a CVaR method (alg1–4 or minibatch)", o)
	case o == ObjectiveChi2 && !opt.Method.usesTau():
		return fmt.Errorf("cvar: objective chi2 carries its η in τ's place: it needs alg1, alg2, alg3 or alg4, not %v", opt.Method)
	case opt.Rule == TheoremStep && o > ObjectiveCVaR:
		return fmt.Errorf("cvar: the theorems' steps bound CVaR_α: objective %v takes the practical rule", o)
	case o == ObjectiveGroup && opt.Groups == nil:
		return fmt.Errorf("cvar: objective group needs Groups, the group of each training row")
	}
	return nil
}

// checkGroups refuses groups that do not match n rows: one non-negative id
// below dataset.MaxGroups a row. It returns the number of groups.
func checkGroups(groups []int32, n int) (int, error) {
	if len(groups) != n {
		return 0, fmt.Errorf("cvar: %d groups for %d training rows", len(groups), n)
	}
	k := 0
	for i, g := range groups {
		if g < 0 || g >= dataset.MaxGroups {
			return 0, fmt.Errorf("cvar: row %d has group %d, outside [0, %d)", i, g, dataset.MaxGroups)
		}
		k = max(k, int(g)+1)
	}
	return k, nil
}

// weigher computes a custom objective's coefficients c_i from a
// minibatch's losses; the gradient is Σ c_i ∇ℓ_i. It also computes the
// gradient of the dual variable: τ, or χ²'s η. The values are normalised by L, as the built-in
// weightings are: the gradient is of the objective divided by L.
type weigher struct {
	obj   Objective
	alpha float64
	invL  float64
	// plus sets v_i = ρ'(ℓ_i/L − τ) (the method's smoothed or hinge plus);
	// nil for the rank-weighted MinibatchCVaR.
	plus  func(v, losses []float64, tau float64)
	blend float64 // λ
	trim  float64 // ε
	k     float64 // √(1 + 2ρ)
	// Group DRO: the weight q_g of each group, its step η_q, the rows'
	// groups, and a count and sum a group.
	q       []float64
	groupLR float64
	groups  []int32
	cnt     []int
	sum     []float64
	v       []float64
	perm    []int
	order   []int
}

// weigh sets c from the losses of the rows at the dual variable tau
// (normalised). The rows index groups. It returns the dual's gradient, 0
// without one.
func (w *weigher) weigh(c, losses []float64, rows []int, tau float64) float64 {
	switch w.obj {
	case ObjectiveBlend:
		return w.blended(c, losses, tau)
	case ObjectiveTrimmed:
		return w.trimmed(c, losses, tau)
	case ObjectiveChi2:
		return chi2Weights(c, losses, w.invL, tau, w.k)
	case ObjectiveGroup:
		w.groupWeights(c, losses, rows)
	}
	return 0
}

// blended: c_i = λ/b + (1 − λ)·c_i^CVaR, and τ's gradient (1 − λ) times
// CVaR's.
func (w *weigher) blended(c, losses []float64, tau float64) float64 {
	b := float64(len(losses))
	g := w.trimmed(c, losses, tau)
	for i := range c {
		c[i] = w.blend/b + (1-w.blend)*c[i]
	}
	return (1 - w.blend) * g
}

// tail sets c to the CVaR_α coefficients of the losses. They are
// v_i/(L·α·b) with τ, or the exact top-k weights without. It returns τ's
// gradient 1 − Σ v_i/(α·b), or 0 without τ.
func (w *weigher) tail(c, losses []float64, tau float64) float64 {
	b := float64(len(losses))
	if w.plus == nil {
		w.perm = grow(w.perm, len(losses))
		tail.Weights(c, losses, w.alpha, w.perm)
		return 0
	}
	w.plus(c, losses, tau)
	var sumV float64
	for i, v := range c {
		sumV += v
		c[i] = v * w.invL / (w.alpha * b)
	}
	return 1 - sumV/(w.alpha*b)
}

// trimmed: the ⌊ε·b⌋ largest losses get c_i = 0, ties broken by the
// earlier row. The rest get CVaR_α's coefficients as a minibatch of their
// own.
func (w *weigher) trimmed(c, losses []float64, tau float64) float64 {
	b := len(losses)
	drop := int(w.trim * float64(b))
	if drop == 0 {
		return w.tail(c, losses, tau)
	}
	w.perm = grow(w.perm, b)
	for i := range w.perm {
		w.perm[i] = i
	}
	slices.SortStableFunc(w.perm, func(i, j int) int {
		switch {
		case losses[i] > losses[j]:
			return -1
		case losses[i] < losses[j]:
			return 1
		}
		return 0
	})
	w.v = grow(w.v, 2*(b-drop))
	kept, kc := w.v[:b-drop], w.v[b-drop:]
	w.order = append(w.order[:0], w.perm[drop:]...) // tail reuses w.perm
	for j, i := range w.order {
		kept[j] = losses[i]
	}
	g := w.tail(kc, kept, tau)
	clear(c)
	for j, i := range w.order {
		c[i] = kc[j]
	}
	return g
}

// chi2Weights is the gradient of the χ²-DRO dual
//
//	F(θ, η)/L = k·√(mean((ℓ_i/L − η)_+²)) + η,  k = √(1 + 2ρ),
//
// c_i = k·r_i/(L·b·√S) with r_i = (ℓ_i/L − η)_+ and S = mean(r_i²). It
// returns ∂F/∂η = 1 − k·Σ r_i/(b·√S). With every loss below η (S = 0) the
// coefficients are 0 and η's gradient 1.
func chi2Weights(c, losses []float64, invL, eta, k float64) float64 {
	b := float64(len(losses))
	var s, sumR float64
	for i, l := range losses {
		r := math.Max(l*invL-eta, 0)
		c[i] = r
		s += r * r
		sumR += r
	}
	if s == 0 {
		clear(c)
		return 1
	}
	root := math.Sqrt(s / b)
	for i := range c {
		c[i] *= k * invL / (b * root)
	}
	return 1 - k*sumR/(b*root)
}

// chi2Risk is the χ²-DRO risk of the losses, sup E_Q[ℓ] over χ²(Q‖P) ≤ ρ
// with P uniform on them. It also returns the η that attains it. The risk
// is the dual's minimum over η. Bisection finds it on the derivative,
// which increases in η.
func chi2Risk(losses []float64, rho float64) (risk, eta float64) {
	k := math.Sqrt(1 + 2*rho)
	n := float64(len(losses))
	var mean, sq float64
	for _, l := range losses {
		mean += l
	}
	mean /= n
	for _, l := range losses {
		sq += (l - mean) * (l - mean)
	}
	if rho == 0 || sq == 0 {
		return mean, mean
	}
	// Without clipping the minimum is at mean − sd/√(2ρ); clipping only
	// moves it up, toward the largest loss.
	lo := mean - math.Sqrt(sq/n/(2*rho))
	hi := slices.Max(losses)
	dual := func(eta float64) (f, d float64) {
		var s, sumR float64
		for _, l := range losses {
			r := math.Max(l-eta, 0)
			s += r * r
			sumR += r
		}
		if s == 0 {
			return eta, 1
		}
		root := math.Sqrt(s / n)
		return k*root + eta, 1 - k*sumR/(n*root)
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if _, d := dual(mid); d < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	risk, _ = dual(lo)
	return risk, lo
}

// groupWeights takes one exponentiated-gradient step of the group weights
// on the minibatch's group mean losses. Each group present gets
// q_g ← q_g·exp(η_q·ℓ̄_g), and the weights are renormalised. Then row i of
// group g gets c_i = q_g/n_g: the gradient of Σ_g q_g·ℓ̄_g.
func (w *weigher) groupWeights(c, losses []float64, rows []int) {
	clear(w.cnt)
	clear(w.sum)
	for i, l := range losses {
		g := w.groups[rows[i]]
		w.cnt[g]++
		w.sum[g] += l
	}
	var z float64
	for g, n := range w.cnt {
		if n > 0 {
			w.q[g] *= math.Exp(w.groupLR * w.sum[g] / float64(n))
		}
		z += w.q[g]
	}
	for g := range w.q {
		w.q[g] /= z
	}
	for i := range losses {
		g := w.groups[rows[i]]
		c[i] = w.q[g] / float64(w.cnt[g])
	}
}

// hasTau reports whether the run carries τ (or χ²'s η). The methods with
// τ do, but for Group DRO, whose group weights take its place.
func (opt *Options) hasTau() bool {
	return opt.Method.usesTau() && opt.objective() != ObjectiveGroup
}

// objectiveParams sets pr's objective and its parameter from opt. The
// objectives other than CVaR_α and the mean weight the minibatch by their
// own rule, batch.Custom.
func objectiveParams(opt *Options, pr *Params) {
	pr.Risk = opt.objective()
	switch pr.Risk {
	case ObjectiveBlend:
		pr.Blend, pr.Trim = cmp.Or(opt.Blend, DefaultBlend), opt.Trim
	case ObjectiveTrimmed:
		pr.Trim = cmp.Or(opt.Trim, DefaultTrim)
	case ObjectiveChi2:
		pr.Rho = cmp.Or(opt.Rho, DefaultRho)
	case ObjectiveGroup:
		pr.GroupLR = cmp.Or(opt.GroupLR, DefaultGroupLR)
		for _, g := range opt.Groups {
			pr.Groups = max(pr.Groups, int(g)+1)
		}
	default:
		return
	}
	pr.Objective = batch.Custom
}

// customWeights sets the run's weighting to its objective's weigher.
func (r *run[T]) customWeights(opt Options) {
	pr := &r.pr
	w := &weigher{obj: pr.Risk, alpha: pr.Alpha, invL: 1 / pr.L, blend: pr.Blend, trim: pr.Trim,
		k: math.Sqrt(1 + 2*pr.Rho), groupLR: pr.GroupLR}
	if pr.Risk == ObjectiveGroup {
		w.groups = opt.Groups
		w.q, w.cnt, w.sum = make([]float64, pr.Groups), make([]int, pr.Groups), make([]float64, pr.Groups)
		for g := range w.q {
			w.q[g] = 1 / float64(pr.Groups)
		}
	}
	if opt.Method.usesTau() {
		w.plus = r.plus(objectiveOf(opt.Method, opt.Smoothing))
	}
	r.wg = w
	r.wt.Weigh = func(c, losses []float64) { r.gTau = w.weigh(c, losses, r.rows, r.tau) }
}

// plus returns v_i = ρ'(ℓ_i/L − τ) at the run's ε. It uses the kernels'
// plus function of the method's weighting o: hinge, softplus or quadratic.
func (r *run[T]) plus(o batch.Objective) func(v, losses []float64, tau float64) {
	kind := kernel.PlusHinge
	switch o {
	case batch.Softplus:
		kind = kernel.PlusSoftplus
	case batch.Quadratic:
		kind = kernel.PlusQuadratic
	}
	return func(v, losses []float64, tau float64) {
		r.ps, r.pv = grow(r.ps, len(losses)), grow(r.pv, len(losses))
		for i, l := range losses {
			r.ps[i] = T(l*r.wt.InvL - tau)
		}
		r.ops.Plus(kind, T(r.wt.Eps), nil, r.pv, r.ps)
		for i, d := range r.pv {
			v[i] = float64(d)
		}
	}
}

// setRows records the data rows of the step (nil idx: the first n) for
// Group DRO's weights.
func (r *run[T]) setRows(idx []int, n int) {
	if r.wg == nil || r.wg.groups == nil {
		return
	}
	if idx == nil {
		r.rows = grow(r.rows, n)
		for i := range r.rows {
			r.rows[i] = i
		}
		return
	}
	r.rows = idx
}

func toFloat64[T batch.Float](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// SettleObjective names the objective of opt when it names none
// (ObjectiveDefault), as cvar train and the Python package do. The CVaR
// methods under the practical rule get the blend of the mean and CVaR_α.
// It lowers the tail without collapsing when labels are noisy. Vanilla
// keeps its own, and so does a run under TheoremStep, whose bound is about
// CVaR_α. A Rho
// names chi2 and a GroupLR group. A parameter of another objective is an
// error, as the run would ignore it, and so are nil Options.
func (opt *Options) SettleObjective() error {
	if opt == nil {
		return fmt.Errorf("cvar: SettleObjective of nil Options")
	}
	obj := opt.Objective
	if obj == ObjectiveDefault {
		switch {
		case opt.Rho > 0:
			obj = ObjectiveChi2
		case opt.GroupLR > 0:
			obj = ObjectiveGroup
		case opt.Method != Vanilla && opt.Rule != TheoremStep:
			obj = ObjectiveBlend
		}
	}
	for _, p := range []struct {
		name string
		v    float64
		ok   bool
	}{
		{"Blend", opt.Blend, obj == ObjectiveBlend},
		{"Trim", opt.Trim, obj == ObjectiveBlend || obj == ObjectiveTrimmed},
		{"Rho", opt.Rho, obj == ObjectiveChi2},
		{"GroupLR", opt.GroupLR, obj == ObjectiveGroup},
	} {
		if p.v != 0 && !p.ok {
			o := *opt
			o.Objective = obj
			return fmt.Errorf("cvar: %s is not a parameter of objective %v", p.name, objectiveName(&o))
		}
	}
	opt.Objective = obj
	return nil
}

// objectiveName is the name of the objective opt minimises: "mean" for
// Vanilla's own.
func objectiveName(opt *Options) string {
	if o := opt.objective(); o != ObjectiveDefault {
		return o.String()
	}
	return "mean"
}
