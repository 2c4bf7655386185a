package cvar

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/engine"
	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/rng"
)

// Result is what a training run returns.
type Result[T batch.Float] struct {
	// Theta is the output parameters: the average of the iterates, the last
	// one or a random one, as Options.Output says.
	Theta []T
	// Tau is the threshold that goes with Theta, in the losses' units; at
	// the optimum it is VaR_α. NaN for the baselines, which have no τ.
	Tau float64
	// Iterate is the 1-based step whose iterate was returned when the output
	// is a random iterate (Alg4), else 0.
	Iterate int
	// Params are the constants and step sizes the run used.
	Params Params
}

// run is the state of one training run, shared by Train and Online.
type run[T batch.Float] struct {
	model  batch.Model[T]
	engine *batch.Engine[T]
	hooks  *engine.Hooks // the engine's, set around the calls that run them
	ops    kernel.Ops[T]
	pr     Params
	opt    Options
	output Output
	wt     batch.Weighting

	theta, g, avg, kept []T
	tau, tauAvg         float64 // normalised by L
	keptTau             float64
	keptStep            int
	tauLo, tauHi        float64
	t                   int
	rng                 *rng.Rand // Alg4's random iterate
	// fromLosses: ε and τ are still to be set from the losses at the
	// starting point (PracticalStep), by start.
	fromLosses bool
	lossCap    float64 // divergence bound on the mean loss; 0: set at the first step
	// lz is the state of the lazy sparse step (lazy.go): nil until the
	// first one.
	lz *lazy[T]
	// gs and ts hold the gradient and θ at the touched coordinates of a
	// sparse step.
	gs, ts []T
	// With fold, the dense step's update of θ runs in the engine's
	// parallel pass over the gradient. The hook Then is set to update,
	// updateBlock. Train sets it; Online, one sample a step, does not.
	fold   bool
	update func(lo, hi int)
	avgT   T // > 0: updateBlock first takes θ into the average with this weight
	// The weighting wg weights the minibatch for the objectives of
	// batch.Custom; it is nil for the others. Its field gTau is the
	// gradient of τ (or χ²'s η) it last returned. Its rows are the data
	// rows of the step it weighs; ps and pv are its plus kernel's buffers.
	wg     *weigher
	gTau   float64
	rows   []int
	ps, pv []T
}

// updateBlock is the dense step's update of θ on the coordinates [lo, hi).
// It updates the running average (where the output is the average), then
// applies the weight decay, then θ −= η·g. It uses the kernels of the
// whole-vector update, so a block of the engine's reduction gets the same
// bits.
func (r *run[T]) updateBlock(lo, hi int) {
	g, theta := r.g[lo:hi], r.theta[lo:hi]
	if r.avgT > 0 { // the running average of the iterates, x_t before its step
		r.ops.Lerp(r.avgT, theta, r.avg[lo:hi])
	}
	if r.opt.WeightDecay > 0 {
		r.ops.Axpy(T(r.opt.WeightDecay), theta, g)
	}
	r.ops.Axpy(T(-r.pr.LR), g, theta)
}

// gradient returns the d-long gradient buffer of the dense step. It is
// made on first use, as a run of lazy sparse steps never needs one.
func (r *run[T]) gradient() []T {
	if r.g == nil {
		r.g = make([]T, len(r.theta))
	}
	return r.g
}

// grow returns buf with length n, reallocated if its capacity is short.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// hookedModel brings a run's hooks to its Engine (internal/engine). One
// folds the update into the engine's pass over the gradient. The other is
// the lazy step's catch-up of the coordinates a minibatch touches.
type hookedModel[T batch.Float] struct {
	batch.Model[T]
	hooks *engine.Hooks
}

func (m hookedModel[T]) Unhooked() batch.Model[T]   { return m.Model }
func (m hookedModel[T]) EngineHooks() *engine.Hooks { return m.hooks }

// newEngine returns an Engine for model on threads workers, and the hooks
// its calls run, none until the run sets one.
func newEngine[T batch.Float](model batch.Model[T], threads int) (*batch.Engine[T], *engine.Hooks, error) {
	hooks := &engine.Hooks{}
	e, err := batch.NewEngine[T](hookedModel[T]{model, hooks}, threads)
	return e, hooks, err
}

// newRun starts a run of opt as resolved in pr, from theta. It reads the
// output, the objective and the sources of ε and τ in pr. It never reads
// the zero fields of opt.
func newRun[T batch.Float](model batch.Model[T], e *batch.Engine[T], hooks *engine.Hooks, opt Options, pr Params, theta []T) (*run[T], error) {
	r := &run[T]{model: model, engine: e, hooks: hooks, ops: kernel.Named[T](batch.KernelOf(model).Name()), pr: pr, opt: opt, theta: theta, output: pr.Output}
	switch r.output {
	case OutputAverage:
		r.avg = make([]T, len(theta))
	case OutputRandom:
		r.kept = make([]T, len(theta))
		r.rng = rng.New(opt.Seed, 0xa194)
	}
	r.wt = batch.Weighting{Objective: pr.Objective, Alpha: pr.Alpha, Eps: pr.Eps, InvL: 1 / pr.L}
	if pr.Objective == batch.Custom {
		r.customWeights(opt)
	}
	r.tauLo, r.tauHi = pr.TauMin/pr.L, pr.TauMax/pr.L
	r.tau = r.tauLo
	if pr.TauFrom == tauGiven {
		r.tau = pr.Tau0 / pr.L
	}
	r.fromLosses = pr.TauFrom == fromInitialLosses || pr.EpsFrom == fromInitialLosses
	if !r.fromLosses {
		if err := r.wt.Validate(); err != nil {
			return nil, err
		}
	}
	if nrm2 := r.project(); !finite(nrm2) {
		return nil, fmt.Errorf("cvar: the initial parameters are not finite")
	}
	return r, nil
}

// start sets the practical ε and starting τ from losses: those of a sample
// of the data at the starting point. The threshold τ starts at their
// VaR_α, where the optimum puts it, unless InitTau gave τ. The smoothing ε
// is pr.EpsFraction times that VaR, or times the largest loss when the VaR
// is 0. So the smoothing
// follows the scale of the losses whatever η is.
func (r *run[T]) start(losses []T) error {
	r.fromLosses = false
	pr := &r.pr
	valueAtRisk, err := VaR(losses, pr.Alpha)
	if err != nil {
		return &DivergenceError{Step: 0, What: fmt.Sprintf("a loss at the starting point: %v", err)}
	}
	if pr.TauFrom == fromInitialLosses { // not InitTau's
		r.tau = math.Min(math.Max(valueAtRisk/pr.L, r.tauLo), r.tauHi)
		pr.Tau0, pr.TauFrom = r.tau*pr.L, fmt.Sprintf("VaR_%g of %d initial losses", pr.Alpha, len(losses))
		if pr.Risk == ObjectiveChi2 { // η at the dual's minimum over the initial losses
			_, eta := chi2Risk(toFloat64(losses), pr.Rho)
			r.tau = math.Min(math.Max(eta/pr.L, r.tauLo), r.tauHi)
			pr.Tau0, pr.TauFrom = r.tau*pr.L, fmt.Sprintf("the χ² dual's η of %d initial losses", len(losses))
		}
	}
	if pr.EpsFrom == fromInitialLosses {
		scale, what := valueAtRisk, fmt.Sprintf("VaR_%g", pr.Alpha)
		if !(scale > 0) {
			scale, what = float64(slices.Max(losses)), "the largest"
		}
		if !(scale > 0) {
			scale, what = 1, "1 (every initial loss is 0), not"
		}
		pr.Eps = pr.EpsFraction * scale / pr.L
		pr.EpsFrom = fmt.Sprintf("%g × %s of %d initial losses (%.4g)", pr.EpsFraction, what, len(losses), scale)
		r.wt.Eps = pr.Eps
	}
	return r.wt.Validate()
}

// project maps θ onto K and returns ‖θ‖², which is NaN or +Inf when θ has a
// non-finite entry.
func (r *run[T]) project() float64 {
	nrm2 := float64(r.ops.Dot(r.theta, r.theta))
	d := r.opt.Domain
	switch d.kind {
	case domainBall:
		if nrm2 > d.rad*d.rad {
			s := T(d.rad / math.Sqrt(nrm2))
			for i := range r.theta {
				r.theta[i] *= s
			}
		}
	case domainBox:
		lo, hi := T(d.lo), T(d.hi)
		for i, v := range r.theta {
			r.theta[i] = min(max(v, lo), hi)
		}
	}
	return nrm2
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// firstLosses sets ε and τ from the losses at the starting point of the
// rows idx. Alg1 and Alg4 under PracticalStep use their first sample.
func (r *run[T]) firstLosses(data *batch.Data[T], idx []int, n int) error {
	r.sync()
	var losses []T
	var err error
	if data.IsSparse() {
		losses, err = r.engine.LossesOf(r.theta, data, idx, n)
	} else {
		losses, _, err = r.engine.Gradient(r.gradient(), r.theta, data, idx, n, &batch.Weighting{Objective: batch.Mean})
	}
	if err != nil {
		return err
	}
	return r.start(losses)
}

// tauStep updates τ after step t from the minibatch's Σ v_i.
func (r *run[T]) tauStep(t, b int, sumV float64) error {
	if r.opt.hasTau() {
		gTau := 1 - sumV/(r.pr.Alpha*float64(b))
		if r.wg != nil {
			gTau = r.gTau
		}
		r.tau = math.Min(math.Max(r.tau-r.pr.TauLR*gTau, r.tauLo), r.tauHi)
		if !finite(r.tau) {
			return &DivergenceError{Step: t, What: fmt.Sprintf("τ is %v", r.tau*r.pr.L)}
		}
		// τ estimates the VaR of the losses. Past the losses' bound (see
		// DivergenceFactor) it runs away, as a far too large TauLR makes it.
		if tau := math.Abs(r.tau * r.pr.L); r.lossCap > 0 && tau > r.lossCap {
			return &DivergenceError{Step: t, What: fmt.Sprintf("τ = %.3g exceeds %g times the initial loss scale (%.3g)", r.tau*r.pr.L, DivergenceFactor, r.lossCap/DivergenceFactor)}
		}
	}
	return nil
}

// step makes one update on the rows idx of data (nil idx: the first n).
// On sparse data the linear models and softmax pay only for the
// minibatch's non-zeros (see lazyStep). Otherwise it reads and writes
// every parameter.
func (r *run[T]) step(data *batch.Data[T], idx []int, n int) error {
	t := r.t + 1
	if r.lazyOK() && r.engine.HasSparseGradient(data) {
		if r.lz == nil {
			r.startLazy()
		}
		r.setRows(idx, n)
		losses, sumV, err := r.lazyStep(data, idx, n)
		if err != nil {
			return err
		}
		if err := r.tauStep(t, len(losses), sumV); err != nil {
			return err
		}
		r.t = t
		if r.lazyDue() {
			r.sync()
		}
		return nil
	}
	r.sync()
	if r.fromLosses { // Alg1 and Alg4: the first sample sets ε and τ, before τ_1 enters the output
		if err := r.firstLosses(data, idx, n); err != nil {
			return err
		}
	}
	switch r.output { // the output is built from the iterates x_1 … x_T
	case OutputAverage:
		r.avgT = 0
		if r.fold { // in updateBlock, before θ's update there
			r.avgT = T(1 / float64(t))
		} else {
			r.ops.Lerp(T(1/float64(t)), r.theta, r.avg)
		}
		r.tauAvg += (r.tau - r.tauAvg) / float64(t)
	case OutputRandom: // reservoir sampling: x_s with s uniform in [t]
		if r.rng.IntN(t) == 0 {
			copy(r.kept, r.theta)
			r.keptTau, r.keptStep = r.tau, t
		}
	}
	r.wt.Tau = r.tau
	r.setRows(idx, n)
	var (
		losses []T
		sumV   float64
		err    error
		folded bool // θ updated by the hook Then
	)
	if r.fold {
		r.hooks.Then = r.update
		losses, sumV, err = r.engine.Gradient(r.gradient(), r.theta, data, idx, n, &r.wt)
		r.hooks.Then = nil
		folded = err == nil
	} else {
		losses, sumV, err = r.engine.Gradient(r.gradient(), r.theta, data, idx, n, &r.wt)
	}
	if err != nil {
		return err
	}
	var sum T
	for _, l := range losses {
		sum += l
	}
	if err := r.checkLosses(t, losses, float64(sum)); err != nil {
		return err
	}
	if !folded {
		if r.opt.WeightDecay > 0 {
			r.ops.Axpy(T(r.opt.WeightDecay), r.theta, r.g)
		}
		r.ops.Axpy(T(-r.pr.LR), r.g, r.theta)
	}
	if err := r.tauStep(t, len(losses), sumV); err != nil {
		return err
	}
	if nrm2 := r.project(); !finite(nrm2) {
		return &DivergenceError{Step: t, What: fmt.Sprintf("the parameters are not finite (‖θ‖² = %v)", nrm2)}
	}
	r.t = t
	if r.lz != nil { // θ is up to date: the lazy state starts again here
		r.restartLazy()
	}
	return nil
}

// current returns the parameters and τ (losses' units) the run would return now.
func (r *run[T]) current() ([]T, float64) {
	r.sync()
	tau := r.tau
	theta := r.theta
	switch r.output {
	case OutputAverage:
		if r.t > 0 {
			theta, tau = r.avg, r.tauAvg
		}
	case OutputRandom:
		if r.keptStep > 0 {
			theta, tau = r.kept, r.keptTau
		}
	}
	if !r.opt.hasTau() {
		return theta, math.NaN()
	}
	return theta, tau * r.pr.L
}

func (r *run[T]) result() *Result[T] {
	theta, tau := r.current()
	res := &Result[T]{Theta: append([]T(nil), theta...), Tau: tau, Params: r.pr}
	if r.output == OutputRandom {
		res.Iterate = r.keptStep
	}
	return res
}

func (r *run[T]) epochDone(epoch int) error {
	if r.opt.OnEpoch == nil {
		return nil
	}
	theta, tau := r.current()
	th := make([]float64, len(theta))
	for i, v := range theta {
		th[i] = float64(v)
	}
	return r.opt.OnEpoch(EpochInfo{Epoch: epoch, Step: r.t, Theta: th, Tau: tau})
}

// Train runs opt.Method on data with model and returns the output
// parameters. The data is not modified. Same seed, same data and same kernel
// implementation give a bit-identical result whatever opt.Threads is. Bad
// arguments are errors; a run that blows up stops with a *DivergenceError
// naming the step (see DivergenceFactor). Train's workers have exited when
// it returns.
func Train[T batch.Float](model batch.Model[T], data *batch.Data[T], opt Options) (*Result[T], error) {
	return TrainContext(context.Background(), model, data, opt)
}

// TrainContext is Train under ctx. When ctx is cancelled or its deadline
// passes, training stops before its next step. It returns an error that
// wraps ctx.Err() and names the step. A nil ctx is an error.
func TrainContext[T batch.Float](ctx context.Context, model batch.Model[T], data *batch.Data[T], opt Options) (*Result[T], error) {
	if ctx == nil {
		return nil, errNoContext
	}
	if err := checkModelData(model, data); err != nil {
		return nil, err
	}
	if err := validate(&opt); err != nil {
		return nil, err
	}
	if opt.objective() == ObjectiveGroup {
		if _, err := checkGroups(opt.Groups, data.N); err != nil {
			return nil, err
		}
	}
	theta, err := initialTheta(model, opt)
	if err != nil {
		return nil, err
	}
	// Every option is resolved here, once, before any worker or sampler is
	// made; what follows reads the resolved pr.
	scale := opt.Scale
	if scale == (batch.Scale{}) {
		scale = data.Scale()
	}
	p := model.NumParams()
	bounds := model.Bounds(scale, opt.Domain.radius(p))
	est := func() (float64, float64) { return estimateConstants(model, theta, data, opt.Seed) }
	pr, err := resolve(&opt, p, data.N, bounds, model.Convex(), est)
	if err != nil {
		return nil, err
	}
	engine, hooks, err := newEngine(model, opt.Threads)
	if err != nil {
		return nil, err
	}
	defer engine.Close()
	r, err := newRun(model, engine, hooks, opt, pr, theta)
	if err != nil {
		return nil, err
	}
	// The update of θ runs in the engine's pass over the gradient, spread
	// over its workers. A DivergenceError then finds θ already stepped, but
	// Train returns no parameters with it.
	r.fold, r.update = !opt.serialUpdate, r.updateBlock
	// The initial losses set the divergence bound, and ε and τ for the
	// practical rule. Online methods start from their first sample instead,
	// as Online does.
	var initial []T
	// Compute the losses alone where Gradient would compute them the same
	// way: all but the dense linear models' fused pass. That needs no
	// d-long gradient a chunk. Its scratch (a score a class or hidden unit
	// a row) is that of a few chunks, not of every initial row.
	if _, fused := model.(*batch.Linear[T]); data.IsSparse() || !fused {
		initial, err = engine.LossesOf(theta, data, initRows(data.N), 0)
	} else {
		initial, _, err = engine.Gradient(r.gradient(), theta, data, initRows(data.N), 0, &batch.Weighting{Objective: batch.Mean})
	}
	if err != nil {
		return nil, err
	}
	r.setLossScale(maxAbs(initial))
	if r.fromLosses && !opt.Method.online() {
		if err := r.start(initial); err != nil {
			return nil, err
		}
	}
	sampler, err := batch.NewSampler(data.N, pr.Batch, pr.Sampling, opt.Seed)
	if err != nil {
		return nil, err
	}
	perEpoch := sampler.BatchesPerEpoch()
	done := ctx.Done()
	for t := 1; t <= pr.Steps; t++ {
		if done != nil {
			select {
			case <-done:
				return nil, fmt.Errorf("cvar: training stopped before step %d of %d: %w", t, pr.Steps, ctx.Err())
			default:
			}
		}
		if err := r.step(data, sampler.Next(), 0); err != nil {
			return nil, err
		}
		if t%perEpoch == 0 {
			if err := r.epochDone(t / perEpoch); err != nil {
				return nil, err
			}
		}
	}
	return r.result(), nil
}

// initRows returns the rows whose losses at the starting point are the
// run's initial losses. They are up to DefaultInitSample rows, spread
// evenly over the data.
func initRows(n int) []int {
	m := min(n, DefaultInitSample)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = int(int64(i) * int64(n) / int64(m))
	}
	return idx
}

func initialTheta[T batch.Float](model batch.Model[T], opt Options) ([]T, error) {
	theta := make([]T, model.NumParams())
	if opt.Init != nil {
		if len(opt.Init) != len(theta) {
			return nil, fmt.Errorf("cvar: Init has %d parameters, the %s model has %d", len(opt.Init), model.Name(), len(theta))
		}
		for i, v := range opt.Init {
			theta[i] = T(v)
			if !finite(float64(theta[i])) {
				return nil, fmt.Errorf("cvar: Init[%d] is %v, not a finite %T", i, v, theta[i])
			}
		}
		if err := inDomain(opt.Init, opt.Domain); err != nil {
			return nil, err
		}
		return theta, nil
	}
	model.InitParams(theta, opt.Seed)
	return theta, nil
}

// domainSlack is the relative rounding inDomain forgives: a point projected
// onto K in float32 may land a few ulps outside it.
const domainSlack = 1e-6

// inDomain reports a starting point outside K (to rounding).
func inDomain(x []float64, d Domain) error {
	if d.validate() != nil {
		return nil // validate reports the domain
	}
	switch d.kind {
	case domainBall:
		var s float64
		for _, v := range x {
			s += v * v
		}
		if nrm := math.Sqrt(s); !(nrm <= d.rad*(1+domainSlack)) {
			return fmt.Errorf("cvar: Init has norm %g, outside K = %v", nrm, d)
		}
	case domainBox:
		slack := domainSlack * math.Max(math.Abs(d.lo), math.Abs(d.hi))
		for i, v := range x {
			if !(v >= d.lo-slack && v <= d.hi+slack) {
				return fmt.Errorf("cvar: Init[%d] is %v, outside K = %v", i, v, d)
			}
		}
	}
	return nil
}
