package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// pool runs the tasks 0 … n−1 of one dispatch and returns when all are done.
// They run on the calling goroutine and threads−1 helper goroutines. A
// dispatch costs a few atomic operations when the helpers are awake. They
// take tasks from a shared ticket. Between dispatches they spin for a while
// that follows the recent waits (spinBudget), at most maxSpin. Then they
// park on a condition variable, so an idle pool costs no CPU. Which
// goroutine runs which task is left to chance. Callers make results
// independent of it: each task writes its own state. Dispatches from several
// goroutines at once are serialised. The ticket, the counts and the wait for
// the last task serve one dispatch at a time. Two dispatchers sharing them
// would each wait for tasks the other took.
//
// Two stores are swaps: the dispatcher's ticket, before it reads sleepers,
// and its waiting flag, before it reads left. The helpers change those and
// then read the ticket or the flag. So one side must see the other's write,
// or a wake-up is lost. Go's atomics promise that order, but a plain Store
// loses it under qemu. Qemu fences an arm64 store-release before the store
// and a load-acquire after the load, with nothing between the two. So an x86
// host's store buffer lets the load pass the store, and the dispatcher can
// park for good. A swap is a full barrier on every host.
type pool struct {
	busy sync.Mutex // held by the running dispatch, and by close

	run     func(j, next int) // the task body, set once; next: the task this goroutine runs after j (−1: none yet)
	threads int

	// ticket is the generation of the current dispatch (high 32 bits) and
	// the next task to take (low 32 bits). A helper takes task j of
	// generation g by a compare-and-swap on it. So a helper that is late for
	// a generation can never take a task of the next one.
	ticket atomic.Uint64
	// n[g&1] is the number of tasks of generation g. A helper late from
	// generation g−1 may read it before the ticket of g is out. It then sees
	// its own generation's count, never the next one's.
	n [2]atomic.Int64
	// first[g&1] is the number of tasks of generation g's first phase. A
	// task past them starts only when firstLeft is 0 (dispatch2). firstLeft
	// counts the first phase's tasks not yet finished.
	first     [2]atomic.Int64
	firstLeft atomic.Int64
	left      atomic.Int64 // tasks of the current dispatch not yet finished
	quit      atomic.Bool

	mu       sync.Mutex
	wake     sync.Cond    // parked helpers wait here for a new generation
	done     sync.Cond    // the dispatcher waits here for left = 0
	sleepers atomic.Int32 // helpers parked or about to park on wake
	waiting  atomic.Bool  // the dispatcher parked or about to park on done

	// published[g&1] is the time, from clock0, at which generation g's
	// ticket went out. So a helper learns how long it waited for the
	// generation after the one it served. This holds even when it parked and
	// woke late.
	clock0    time.Time
	published [2]atomic.Int64
	doneSpin  spinBudget   // the dispatcher's, for the wait for left = 0 (held under busy)
	learned   []spinBudget // learned[i]: helper i's budget as it exited (the pool's tests read it)

	helpers sync.WaitGroup
}

// A goroutine of the pool waiting for work spins on an atomic before it
// parks. It is a helper waiting for the next dispatch, or the dispatcher
// waiting for the last task of its own. It spins because waking a parked
// goroutine costs far more than a short wait. On a VM each wake is a futex
// call and an interrupt to another vCPU. The runtime wakes idle processors
// one after the other, so a step that wakes 15 helpers waits for a chain of
// them. How long it spins follows the waits it has seen (spinBudget). It is
// spinFactor times their running mean, at least spinWait and at most
// maxSpin. So the serial part of a training step between two gradients finds
// the helpers awake. That part takes µs for the linear models and tens of µs
// for the MLP's ‖θ‖². It takes more where the threads finish unevenly. Waits
// longer than maxSpin on the mean spin only spinWait, as spinning could not
// reach them. They come from an engine called now and then. An idle pool
// parks within maxSpin, and costs no CPU after it.
const (
	spinWait   = 50 * time.Microsecond
	maxSpin    = time.Millisecond
	spinFactor = 4
	// spinMeanShift: the running mean moves by 1/8 of each wait's difference
	// to it. So one long wait does not make the next waits park. Such a wait
	// may be an epoch's callback or a descheduled vCPU.
	spinMeanShift = 3
)

// spinBudget is one waiting goroutine's running mean of its waits, and
// the spin it allows.
type spinBudget struct {
	mean time.Duration
	seen int // the waits observed (the pool's tests read it)
}

// newSpinBudget returns the budget of a goroutine that has seen no wait. It
// spins maxSpin. A new engine's calls are the steps of a training run, which
// follow each other closely. Until the mean has learned the gaps, waking its
// helpers costs more than their spin.
func newSpinBudget() spinBudget { return spinBudget{mean: maxSpin / spinFactor} }

// limit is how long to spin before parking.
func (s *spinBudget) limit() time.Duration {
	if s.mean > maxSpin {
		return spinWait
	}
	return min(maxSpin, max(spinWait, spinFactor*s.mean))
}

// descheduled records a spin whose thread was taken off its processor. The
// mean is set past maxSpin. So the next waits spin only spinWait until short
// waits have brought it back, six or so.
func (s *spinBudget) descheduled() { s.mean = 2 * maxSpin }

// observe takes a wait into the mean. Waits past 2·maxSpin count as
// 2·maxSpin. That is enough to push the mean past maxSpin when they persist.
// It is little enough that it takes several in a row.
func (s *spinBudget) observe(w time.Duration) {
	w = min(max(w, 0), 2*maxSpin)
	s.mean += (w - s.mean) >> spinMeanShift
	s.seen++
}

func newPool(threads int, run func(j, next int)) *pool {
	p := &pool{run: run, threads: threads, clock0: time.Now(), doneSpin: newSpinBudget(), learned: make([]spinBudget, threads-1)}
	p.wake.L, p.done.L = &p.mu, &p.mu
	p.helpers.Add(threads - 1)
	for i := range threads - 1 {
		go p.helper(&p.learned[i])
	}
	return p
}

// helper serves the pool's dispatches until close, and leaves its spin
// budget in learned as it exits.
func (p *pool) helper(learned *spinBudget) {
	defer p.helpers.Done()
	var seen uint64 // the generation this helper has served
	budget := newSpinBudget()
	for {
		g := p.await(seen, &budget)
		if p.quit.Load() {
			*learned = budget
			return
		}
		seen = g
		p.work(g)
	}
}

// descheduledGap: a spin looks at the clock every 64 calls of its ready
// function. While it runs, the looks are well under a microsecond apart. A
// gap past descheduledGap between two looks means its thread was taken off
// the processor. The machine then has fewer free cores than running threads.
// Spinning on would only take the processor from the goroutines it waits
// for.
const descheduledGap = 50 * time.Microsecond

// spin calls ready until it returns true, limit has passed or it finds its
// thread descheduled (descheduledGap). It reports whether ready returned
// true and whether it was descheduled.
func spin(ready func() bool, limit time.Duration) (ok, descheduled bool) {
	var start, prev time.Time // the first and the latest look at the clock
	for i := 0; ; i++ {
		if ready() {
			return true, false
		}
		// No runtime.Gosched here. With many helpers spinning it takes the
		// scheduler's lock. On many cores that costs a large share of a
		// softmax step's CPU time. The engine has no more threads than
		// GOMAXPROCS, and the spin is bounded by limit.
		if i&63 == 63 {
			now := time.Now()
			switch {
			case start.IsZero():
				start = now
			case now.Sub(prev) > descheduledGap:
				return false, true
			case now.Sub(start) > limit:
				return false, false
			}
			prev = now
		}
	}
}

// now is the time since clock0.
func (p *pool) now() time.Duration { return time.Since(p.clock0) }

// await waits for a generation after seen, or for Close, and returns it. It
// spins as budget allows. It teaches budget how long the wait was: from its
// start to the generation's publication.
func (p *pool) await(seen uint64, budget *spinBudget) uint64 {
	gen := func() uint64 { return p.ticket.Load() >> 32 }
	from := p.now()
	ok, descheduled := spin(func() bool { return gen() != seen || p.quit.Load() }, budget.limit())
	if !ok {
		p.mu.Lock()
		p.sleepers.Add(1) // before the check: a dispatch that follows it wakes us
		for gen() == seen && !p.quit.Load() {
			p.wake.Wait()
		}
		p.sleepers.Add(-1)
		p.mu.Unlock()
	}
	if descheduled {
		budget.descheduled()
	} else if gen()-seen <= 2 { // else seen+1's time is overwritten: this helper slept through several
		budget.observe(time.Duration(p.published[(seen+1)&1].Load()) - from)
	}
	return gen()
}

// work takes and runs tasks of generation g until none are left. It takes a
// run of tasks at a time. The run is a share of those left of its phase,
// half of them a thread, and shrinks to one as they run out. So a dispatch
// of many short tasks on few threads costs few round trips of the shared
// counters between the cores. The last tasks still spread. While its phase
// has at least a task a thread left untaken, it takes its next run before
// the last task of the current one. So the task is told the task that
// follows it. A task may ready that one's data while it runs: the engine
// prefetches the next chunk's rows. With fewer left, it takes the next run
// once the current one is done. So no goroutine holds a task that an idle
// one could run. Else a step of 16 chunks on 16 threads would run on 8 of
// them, two chunks each. A goroutine holds at most one run it has not
// started.
func (p *pool) work(g uint64) {
	j, k, first, ok := p.take(g)
	for ok {
		if !first {
			p.awaitFirst()
		}
		var nj, nk int64
		var nfirst, nok, ahead bool
		for i := j; i < j+k; i++ {
			next := i + 1
			if next == j+k {
				next = -1
				if ahead = p.plenty(g); ahead {
					if nj, nk, nfirst, nok = p.take(g); nok {
						next = nj
					}
				}
			}
			p.run(int(i), int(next))
		}
		if first {
			p.firstLeft.Add(-k)
		}
		if p.left.Add(-k) == 0 && p.waiting.Load() {
			p.mu.Lock()
			p.done.Broadcast()
			p.mu.Unlock()
		}
		if !ahead {
			nj, nk, nfirst, nok = p.take(g)
		}
		j, k, first, ok = nj, nk, nfirst, nok
	}
}

// plenty reports whether the phase of generation g that the ticket is in has
// at least one untaken task a thread. Then a goroutine may take a run ahead,
// and every other goroutine still finds one.
func (p *pool) plenty(g uint64) bool {
	t := p.ticket.Load()
	j := int64(t & 0xffffffff)
	n, nf := p.n[g&1].Load(), p.first[g&1].Load()
	end := n
	if j < nf {
		end = nf
	}
	return t>>32 == g && end-j >= int64(p.threads)
}

// take claims the next run of tasks of generation g, [j, j+k), and says
// whether it is of the first phase. Its ok is false when none is left. A run
// does not cross from the first phase into the second.
func (p *pool) take(g uint64) (j, k int64, first, ok bool) {
	for {
		t := p.ticket.Load()
		j = int64(t & 0xffffffff)
		n, nf := p.n[g&1].Load(), p.first[g&1].Load()
		if t>>32 != g || j >= n {
			return 0, 0, false, false
		}
		end := n // the phase's end: a run does not cross into the next
		if j < nf {
			end = nf
		}
		k = max(1, (end-j)/int64(2*p.threads))
		if p.ticket.CompareAndSwap(t, t+uint64(k)) {
			return j, k, j < nf, true
		}
	}
}

// awaitFirst waits until the first phase's tasks are done. They were all
// taken before any later task, as the ticket only grows. They run on
// goroutines that are not waiting, so the wait ends. Past maxSpin it yields
// the processor, in case one of them is waiting for it. A yield takes the
// scheduler's lock. Many helpers yielding at once queue on it, as when the
// chunks of a step finish unevenly.
func (p *pool) awaitFirst() {
	done := func() bool { return p.firstLeft.Load() == 0 }
	for {
		if ok, _ := spin(done, maxSpin); ok {
			return
		}
		runtime.Gosched()
	}
}

// dispatch runs the tasks 0 … n−1 and returns when they are done. n must be
// below 2³².
func (p *pool) dispatch(n int) { p.dispatch2(n, 0) }

// dispatch2 runs the tasks 0 … n1+n2−1 and returns when they are done. It
// starts none of the last n2 before the first n1 are done. So there are two
// phases with one wake-up of the helpers. Whichever goroutines finish the
// first phase take the second phase's tasks. n1+n2 must be below 2³².
func (p *pool) dispatch2(n1, n2 int) {
	p.busy.Lock()
	defer p.busy.Unlock()
	n := n1 + n2
	g := p.ticket.Load()>>32 + 1
	p.n[g&1].Store(int64(n))
	p.first[g&1].Store(int64(n1))
	p.firstLeft.Store(int64(n1))
	p.left.Store(int64(n))
	p.published[g&1].Store(int64(p.now()))
	p.ticket.Swap(g << 32) // publishes the call's state to the helpers (a swap: see pool)
	if p.sleepers.Load() > 0 {
		p.mu.Lock()
		p.wake.Broadcast()
		p.mu.Unlock()
	}
	p.work(g)
	p.awaitDone()
}

// awaitDone waits for the current dispatch's last task, spinning as the
// dispatcher's budget allows. The helpers' tasks run on, so the wait is
// often short. A slow chunk can keep it past spinWait.
func (p *pool) awaitDone() {
	from := p.now()
	ok, descheduled := spin(func() bool { return p.left.Load() == 0 }, p.doneSpin.limit())
	if !ok {
		p.mu.Lock()
		p.waiting.Swap(true) // before the check, the helper finishing last wakes us (a swap: see pool)
		for p.left.Load() != 0 {
			p.done.Wait()
		}
		p.waiting.Store(false)
		p.mu.Unlock()
	}
	if descheduled {
		p.doneSpin.descheduled()
	} else {
		p.doneSpin.observe(p.now() - from)
	}
}

// close stops the helpers and waits until they have exited, after a
// running dispatch has returned.
func (p *pool) close() {
	p.busy.Lock()
	defer p.busy.Unlock()
	p.quit.Store(true)
	p.mu.Lock()
	p.ticket.Add(1 << 32) // a new generation, so that spinning helpers look
	p.wake.Broadcast()
	p.mu.Unlock()
	p.helpers.Wait()
}
