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
	const most = 40
	var count [most]atomic.Int32
	p := newPool(4, func(j int) { count[j].Add(1) })
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

// chanPool is the engine's former dispatch, a channel of task numbers and a
// WaitGroup, kept as the baseline of BenchmarkDispatch.
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
// step pays. "spin" is the engine's pool, "chan" the channel round trip it
// replaced.
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
			p := newPool(threads, task)
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
