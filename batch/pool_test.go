package batch

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolRunsEveryTaskOnce checks that each dispatch runs each of its
// tasks exactly once, over many dispatches of changing sizes, and that close
// stops the helpers.
func TestPoolRunsEveryTaskOnce(t *testing.T) {
	t.Parallel()
	const most = 40
	var count [most]atomic.Int32
	p := newPool(4, func(j, _ int) { count[j].Add(1) })
	for i := range 2000 {
		n := 1 + i%most
		p.dispatch(n)
		for j := range most {
			want := int32(0)
			if j < n {
				want = 1
			}
			if got := count[j].Swap(0); got != want {
				t.Fatalf("dispatch %d of %d tasks: task %d ran %d times", i, n, j, got)
			}
		}
	}
	p.close()
}

// goid returns the calling goroutine's id, from its stack header.
func goid() int {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	var id int
	fmt.Sscanf(string(buf[:n]), "goroutine %d ", &id)
	return id
}

// TestPoolNext checks the run's promise to its tasks: a task told next
// is followed, on the same goroutine and after it has returned, by task
// next; and every task is told its next but at most 2·threads − 1 (the
// pool takes its next run before the last task of a run while at least a
// task a thread is left untaken: the runs taken once fewer are left, and
// the runs then under way, end untold).
func TestPoolNext(t *testing.T) {
	t.Parallel()
	const most, threads = 64, 3
	var gid, start, end, next [most]atomic.Int64
	var seq atomic.Int64
	p := newPool(threads, func(j, nx int) {
		start[j].Store(seq.Add(1))
		gid[j].Store(int64(goid()))
		next[j].Store(int64(nx))
		end[j].Store(seq.Add(1))
	})
	defer p.close()
	for i := range 500 {
		n := 1 + i%most
		p.dispatch(n)
		told := 0
		for j := range n {
			nx := next[j].Load()
			if nx < 0 {
				continue
			}
			told++
			if nx >= int64(n) || nx == int64(j) {
				t.Fatalf("dispatch of %d: task %d told next %d", n, j, nx)
			}
			if gid[nx].Load() != gid[j].Load() || start[nx].Load() < end[j].Load() {
				t.Fatalf("dispatch of %d: task %d told next %d, which ran on goroutine %d (not %d) or before it ended", n, j, nx, gid[nx].Load(), gid[j].Load())
			}
		}
		if told < n-(2*threads-1) {
			t.Fatalf("dispatch of %d: %d tasks told their next, want ≥ %d", n, told, n-(2*threads-1))
		}
	}
}

// TestPoolNoTaskHeldFromIdle dispatches as many tasks as threads, each of
// which waits until all of them have started: were a goroutine to take a
// task ahead of the one it runs while another goroutine has none, that
// task could not start and the dispatch would not end.
func TestPoolNoTaskHeldFromIdle(t *testing.T) {
	t.Parallel()
	const threads = 4
	var started atomic.Int32
	var stuck atomic.Bool
	all := make(chan struct{})
	p := newPool(threads, func(j, _ int) {
		if started.Add(1) == threads {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(5 * time.Second):
			stuck.Store(true)
		}
	})
	defer p.close()
	for i := range 50 {
		p.dispatch(threads)
		if stuck.Load() {
			t.Fatalf("dispatch %d of %d tasks on %d threads: a task did not start while the others waited for it", i, threads, threads)
		}
		started.Store(0)
		all = make(chan struct{})
	}
}

// TestPoolPlenty checks the rule for taking a run ahead: at least a task
// a thread left untaken in the phase the ticket is in.
func TestPoolPlenty(t *testing.T) {
	t.Parallel()
	p := newPool(1, func(int, int) {}) // no helpers: the test sets the counters
	defer p.close()
	const g = 3
	p.n[g&1].Store(20)
	p.first[g&1].Store(12)
	p.threads = 4
	for _, c := range []struct {
		next int
		want bool
	}{{0, true}, {8, true}, {9, false}, {11, false}, {12, true}, {16, true}, {17, false}, {20, false}} {
		p.ticket.Store(g<<32 | uint64(c.next))
		if got := p.plenty(g); got != c.want {
			t.Errorf("first phase of 12 tasks, 8 more, next task %d, 4 threads: plenty %v, want %v", c.next, got, c.want)
		}
	}
	p.ticket.Store((g+1)<<32 | 0)
	if p.plenty(g) {
		t.Error("a later generation's ticket: plenty for the earlier one")
	}
}

// TestPoolTwoPhases checks dispatch2: every task runs once, and no task of
// the second phase starts before every task of the first has finished
// (the first phase's tasks take turns being slow, so a helper that runs
// ahead would be caught), over many dispatches of changing sizes, and with
// more helpers than processors.
func TestPoolTwoPhases(t *testing.T) {
	t.Parallel()
	const most = 24
	var count [2 * most]atomic.Int32
	var firstDone atomic.Int32
	var n1 atomic.Int32
	var early atomic.Int32
	var round int
	p := newPool(runtime.GOMAXPROCS(0)+2, func(j, _ int) {
		if j < int(n1.Load()) {
			if j == round%int(n1.Load()) {
				time.Sleep(20 * time.Microsecond)
			}
			count[j].Add(1)
			firstDone.Add(1)
			return
		}
		if firstDone.Load() != n1.Load() {
			early.Add(1)
		}
		count[j].Add(1)
	})
	defer p.close()
	for i := range 500 {
		round = i
		a, b := 1+i%most, i%7
		n1.Store(int32(a))
		firstDone.Store(0)
		p.dispatch2(a, b)
		if e := early.Swap(0); e != 0 {
			t.Fatalf("dispatch %d (%d + %d tasks): %d second-phase tasks started before the first phase ended", i, a, b, e)
		}
		for j := range 2 * most {
			want := int32(0)
			if j < a+b {
				want = 1
			}
			if got := count[j].Swap(0); got != want {
				t.Fatalf("dispatch %d (%d + %d tasks): task %d ran %d times", i, a, b, j, got)
			}
		}
	}
}

// TestPoolConcurrentDispatch dispatches on one pool from 6 goroutines at
// once and wants every dispatch to run each of its tasks once and return:
// the pool serialises them. A deadlock fails the test at its deadline.
func TestPoolConcurrentDispatch(t *testing.T) {
	const goroutines, rounds = 6, 1000
	var ran atomic.Int64
	p := newPool(3, func(j, _ int) { ran.Add(1) })
	defer p.close()
	var wg sync.WaitGroup
	var want atomic.Int64
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				n1, n2 := 1+(g+i)%9, i%4
				want.Add(int64(n1 + n2))
				p.dispatch2(n1, n2)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("concurrent dispatches did not all return within 30 s: deadlock")
	}
	if ran.Load() != want.Load() {
		t.Errorf("%d tasks ran, the dispatches had %d", ran.Load(), want.Load())
	}
}

// chanPool is a dispatch by a channel of task numbers and a WaitGroup,
// the baseline of BenchmarkDispatch.
type chanPool struct {
	tasks chan int
	wg    sync.WaitGroup
	run   func(int)
}

func newChanPool(threads int, run func(int)) *chanPool {
	p := &chanPool{tasks: make(chan int, 1024), run: run}
	for range threads {
		go func() {
			for j := range p.tasks {
				p.run(j)
				p.wg.Done()
			}
		}()
	}
	return p
}

func (p *chanPool) dispatch(n int) {
	p.wg.Add(n)
	for j := 0; j < n; j++ {
		p.tasks <- j
	}
	p.wg.Wait()
}

// BenchmarkDispatch times one dispatch of 16 empty tasks (a training step's
// chunks) on all threads: the barrier's own cost, which every phase of a
// step pays. "spin" is the engine's pool, "chan" a channel round trip
// (chanPool).
//
// With gap=20µs the caller works alone for 20 µs between dispatches (the
// update of θ between two gradients), and the time reported is that of the
// dispatch alone: the workers have gone back to waiting, parked on the
// channel or spinning on the ticket.
func BenchmarkDispatch(b *testing.B) {
	threads := runtime.GOMAXPROCS(0)
	var sink atomic.Int64
	task := func(j int) { sink.Add(int64(j)) }
	for _, gap := range []time.Duration{0, 20 * time.Microsecond} {
		bench := func(b *testing.B, dispatch func(int)) {
			var in time.Duration
			for i := 0; i < b.N; i++ {
				if gap > 0 {
					for t0 := time.Now(); time.Since(t0) < gap; {
					}
				}
				t0 := time.Now()
				dispatch(16)
				in += time.Since(t0)
			}
			b.ReportMetric(float64(in.Nanoseconds())/float64(b.N), "ns/dispatch")
		}
		b.Run(fmt.Sprintf("spin/gap=%v/threads=%d", gap, threads), func(b *testing.B) {
			p := newPool(threads, func(j, _ int) { task(j) })
			defer p.close()
			bench(b, p.dispatch)
		})
		b.Run(fmt.Sprintf("chan/gap=%v/threads=%d", gap, threads), func(b *testing.B) {
			p := newChanPool(threads, task)
			defer close(p.tasks)
			bench(b, p.dispatch)
		})
	}
}

// TestSpinBudget checks the rule of a waiting goroutine's spin: maxSpin
// before it has seen a wait, spinFactor times the mean of steady waits
// that maxSpin can cover, never past maxSpin, spinWait again when the
// waits stay past maxSpin, and one long wait among short ones not enough
// to drop the spin.
func TestSpinBudget(t *testing.T) {
	t.Parallel()
	s := newSpinBudget()
	if got := s.limit(); got != maxSpin {
		t.Fatalf("no wait seen: spin %v, want maxSpin %v", got, maxSpin)
	}
	steady := func(w time.Duration) {
		for range 200 {
			s.observe(w)
		}
	}
	steady(100 * time.Microsecond)
	if got, want := s.limit(), spinFactor*100*time.Microsecond; got < want*9/10 || got > want {
		t.Errorf("waits of 100µs: spin %v, want about %v", got, want)
	}
	steady(600 * time.Microsecond)
	if got := s.limit(); got != maxSpin {
		t.Errorf("waits of 600µs: spin %v, want maxSpin %v", got, maxSpin)
	}
	steady(100 * time.Microsecond)
	s.observe(time.Hour)
	if got := s.limit(); got != maxSpin {
		t.Errorf("one wait of an hour after waits of 100µs: spin %v, want maxSpin %v", got, maxSpin)
	}
	steady(5 * time.Millisecond)
	if got := s.limit(); got != spinWait {
		t.Errorf("waits of 5ms: spin %v, want spinWait %v", got, spinWait)
	}
	steady(10 * time.Microsecond)
	if got := s.limit(); got != spinWait {
		t.Errorf("waits of 10µs: spin %v, want spinWait %v", got, spinWait)
	}
	s.descheduled()
	if got := s.limit(); got != spinWait {
		t.Errorf("after a descheduled spin: spin %v, want spinWait %v", got, spinWait)
	}
	for range 8 {
		s.observe(10 * time.Microsecond)
	}
	if got := s.limit(); got == spinWait || got > maxSpin {
		t.Errorf("8 waits of 10µs after a descheduled spin: spin %v, want past spinWait, at most maxSpin", got)
	}
	steady(-time.Second) // a wait that ended before it began counts as none
	if s.mean != 0 {
		t.Errorf("negative waits: mean %v, want 0", s.mean)
	}
}

// TestSpinDescheduled checks that a spin whose thread stops running for
// longer than descheduledGap (here a ready function that sleeps once) gives
// up at once and says so, rather than spinning on to its limit; that it
// runs to its limit otherwise; and that it reports ready.
func TestSpinDescheduled(t *testing.T) {
	t.Parallel()
	calls := 0
	t0 := time.Now()
	ok, descheduled := spin(func() bool {
		calls++
		if calls == 1000 {
			time.Sleep(4 * descheduledGap)
		}
		return false
	}, time.Minute)
	if ok || !descheduled {
		t.Errorf("a spin that slept: ready %v, descheduled %v; want false, true", ok, descheduled)
	}
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("a spin that slept ran %v, towards its limit", d)
	}
	if ok, _ := spin(func() bool { return false }, time.Millisecond); ok {
		t.Error("a spin whose ready never holds reported ready")
	}
	// A loaded machine may take the processor between two looks, which the
	// spin rightly reports; judge readiness on a spin that kept it.
	for try := 1; ; try++ {
		calls = 0
		ok, d := spin(func() bool { calls++; return calls == 500 }, time.Minute)
		if !d {
			if !ok {
				t.Error("a spin whose ready holds at the 500th call: not ready")
			}
			break
		}
		if try == 50 {
			t.Error("50 spins of 500 looks each descheduled")
			break
		}
	}
}

// busyFor spins the calling goroutine for d: the serial part of a step.
func busyFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestPoolSpinAdapts dispatches with 800 µs of work alone between
// dispatches, past a new budget's mean, and wants the helpers to have
// learned waits of that order (their spin then spans the gap:
// TestSpinBudget);
// then, left idle, every helper parks within maxSpin (a wide margin on a
// loaded machine) and the pool stays parked. A vCPU taken from a goroutine
// makes its waits look longer, never shorter, and a helper that sleeps
// through several dispatches learns nothing from them. It does not run in
// parallel with other tests: it times waits on all processors.
func TestPoolSpinAdapts(t *testing.T) {
	const rounds, gap, attempts = 150, 800 * time.Microsecond, 5
	if m := newSpinBudget().mean; m >= gap/2 {
		t.Fatalf("a new budget's mean %v already passes the test's bound %v", m, gap/2)
	}
	// No more goroutines than processors: a spinning helper does not yield.
	threads := max(2, runtime.GOMAXPROCS(0))
	helpers := int32(threads - 1)
	// A loaded machine (or the race detector) can deschedule every helper
	// through most dispatches of a pool; a fresh pool gets another chance,
	// so that the test judges the learning, not the machine's load.
	learners := 0
	for range attempts {
		p := newPool(threads, func(j, _ int) {})
		for range rounds {
			busyFor(gap)
			p.dispatch(3 * threads)
		}
		// A helper woken by the last dispatch counts as parked until it runs,
		// which an emulated or loaded machine can delay. So the count must
		// hold for 20 polls in a row, within a generous deadline.
		deadline := time.Now().Add(20 * time.Second)
		for held := 0; held < 20 && time.Now().Before(deadline); {
			if p.sleepers.Load() == helpers {
				held++
			} else {
				held = 0
			}
			time.Sleep(maxSpin)
		}
		if n := p.sleepers.Load(); n != helpers {
			t.Errorf("idle for 20s: %d of %d helpers parked", n, helpers)
		}
		time.Sleep(10 * maxSpin)
		if n := p.sleepers.Load(); n != helpers {
			t.Errorf("parked helpers woke with no dispatch: %d of %d parked", n, helpers)
		}
		p.close()
		for i, b := range p.learned {
			if b.seen < rounds/4 { // descheduled or asleep through most dispatches
				continue
			}
			learners++
			if b.mean < gap/2 {
				t.Errorf("helper %d: waits of %v between dispatches learned as %v", i, gap, b.mean)
			}
		}
		if learners > 0 || t.Failed() {
			break
		}
	}
	if learners == 0 {
		t.Errorf("in %d pools, no helper observed %d of the %d waits", attempts, rounds/4, rounds)
	}
}
