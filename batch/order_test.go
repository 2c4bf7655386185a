package batch

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cvarlearn/cvar/internal/rng"
)

// TestSortRows holds sortRows to a stable sort of (row, place) pairs: rows
// spread evenly or bunched, with repeats, fewer rows than buckets, one row.
func TestSortRows(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 60000, 1 << 31} {
		for _, m := range []int{0, 1, 2, 5, 32, 64, 100, 513} {
			for trial := range 4 {
				idx := make([]int, m)
				for i := range idx {
					switch trial {
					case 0:
						idx[i] = rng.IntN(n)
					case 1: // bunched in one bucket
						idx[i] = n - 1 - rng.IntN(min(n, 3))
					case 2: // descending
						idx[i] = (n - 1) * (m - i) / max(m, 1)
					default: // repeats of a few rows
						idx[i] = rng.IntN(min(n, 4)) * (n / min(n, 4))
					}
				}
				type pair struct {
					row int
					pos int32
				}
				want := make([]pair, m)
				for i, r := range idx {
					want[i] = pair{r, int32(i)}
				}
				slices.SortStableFunc(want, func(a, b pair) int { return a.row - b.row })
				rows, pos := make([]int, m), make([]int32, m)
				sortRows(rows, pos, idx, n, make([]int32, sortBuckets(m)+1))
				for i := range want {
					if rows[i] != want[i].row || pos[i] != want[i].pos {
						t.Fatalf("n=%d m=%d trial %d: place %d holds (%d, %d), want (%d, %d)", n, m, trial, i, rows[i], pos[i], want[i].row, want[i].pos)
					}
				}
			}
		}
	}
}

// TestReduceBlock checks the reduction's blocks: multiples of
// minReduceBlock, at most maxReduceBlock, and about one a thread for a small
// gradient.
func TestReduceBlock(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 255, 256, 785, 2048, 7850, 79510} {
		for _, threads := range []int{1, 2, 3, 8, 16} {
			b := reduceBlock(n, threads)
			if b%minReduceBlock != 0 || b > maxReduceBlock || b < minReduceBlock {
				t.Fatalf("n=%d threads=%d: block %d", n, threads, b)
			}
			blocks := (n + b - 1) / b
			if want := min(threads, n/(2*minReduceBlock)); blocks < want {
				t.Errorf("n=%d threads=%d: %d blocks of %d, want at least %d", n, threads, blocks, b, want)
			}
		}
	}
}

// TestSamplerDrawsAsIntN holds the sampler's draws with replacement to
// IntN of stream 0 of the seed in internal/rng, value for value: row counts
// that are powers of two or next to them, up to the largest allowed.
func TestSamplerDrawsAsIntN(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 7, 8, 9, 1000, 60000, 1 << 20, 1<<40 - 1, 1 << 40} {
		s := must(NewSampler(n, 97, WithReplacement, 11))
		ref := rng.New(11, 0)
		for call := range 5 {
			for i, r := range s.Next() {
				if want := ref.IntN(n); r != want {
					t.Fatalf("n=%d: call %d draw %d: %d, IntN gives %d", n, call, i, r, want)
				}
			}
		}
	}
}

// TestSamplerShufflesAsPerm holds each epoch of Shuffled to the next
// Fisher–Yates pass over the previous order with the same stream.
func TestSamplerShufflesAsPerm(t *testing.T) {
	t.Parallel()
	const n, b = 23, 5
	s := must(NewSampler(n, b, Shuffled, 4))
	ref := rng.New(4, 0)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for epoch := range 3 {
		ref.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		var got []int
		for range s.BatchesPerEpoch() {
			got = append(got, s.Next()...)
		}
		if !slices.Equal(got, order) {
			t.Fatalf("epoch %d: %v, want %v", epoch, got, order)
		}
	}
}

// TestChunkLabelErrors checks the labels checked by the chunks: a bad label
// in any chunk of a call, on 1–3 threads, for every objective, is an error
// naming the first bad row of the call, with g zero and then not run; and
// the next call with good rows gives the bits of a fresh engine's.
func TestChunkLabelErrors(t *testing.T) {
	t.Parallel()
	const n, d, k = 400, 7, 3
	data := testData[float64](t, n, d, k, 9)
	bad := *data
	bad.Labels = append([]int32(nil), data.Labels...)
	bad.Labels[123], bad.Labels[321] = 5, -1
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = 0.01 * float64(i%9-4)
	}
	idx := make([]int, 200)
	for i := range idx {
		idx[i] = (i*7 + 3) % n
	}
	idx[150], idx[40] = 321, 123 // the first bad row of the call is 123, in an earlier chunk than 321
	good := make([]int, 200)
	for i := range good {
		good[i] = (i * 11) % 120
	}
	for _, obj := range []Objective{Mean, Softplus, TopK} {
		wt := &Weighting{Objective: obj, Alpha: 0.2, Eps: 0.1, Tau: 0.5, InvL: 1}
		want := make([]float64, len(theta))
		ref := must(newEngineWith(model, 1, engineOptions{chunkRows: 16}))
		if _, _, err := ref.Gradient(want, theta, data, good, 0, wt); err != nil {
			t.Fatal(err)
		}
		ref.Close()
		for _, threads := range []int{1, 2, 3} {
			e := must(newEngineWith(model, threads, engineOptions{chunkRows: 16}))
			g := make([]float64, len(theta))
			for i := range g {
				g[i] = 1
			}
			ran := false
			_, _, err := e.gradientThen(g, theta, &bad, idx, 0, wt, func(lo, hi int) { ran = true })
			if err == nil || !strings.Contains(err.Error(), "row 123: label 5") {
				t.Fatalf("%v, threads=%d: error %v, want row 123's label", obj, threads, err)
			}
			if ran {
				t.Fatalf("%v, threads=%d: then ran after an error", obj, threads)
			}
			for i, v := range g {
				if v != 0 {
					t.Fatalf("%v, threads=%d: g[%d] = %v after an error, want 0", obj, threads, i, v)
				}
			}
			if _, _, err := e.Gradient(g, theta, data, good, 0, wt); err != nil {
				t.Fatal(err)
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%v, threads=%d: after the error g[%d] = %v, want %v", obj, threads, i, g[i], want[i])
				}
			}
			e.Close()
		}
	}
}

// nextRecorder is a softmax that records, for each Backward, the goroutine
// it ran on, its rows and the prefetch hint the Engine gave its Work.
type nextRecorder struct {
	*Softmax[float64]
	mu   sync.Mutex
	seen []nextSeen
}

type nextSeen struct {
	gid        int
	rows, next []int
}

func (m *nextRecorder) Backward(wk *Work[float64], theta []float64, data *Data[float64], idx []int, coef, g []float64) {
	m.mu.Lock()
	m.seen = append(m.seen, nextSeen{goid(), slices.Clone(idx), slices.Clone(wk.next)})
	m.mu.Unlock()
	m.Softmax.Backward(wk, theta, data, idx, coef, g)
}

// TestChunkNextHint checks the Engine's prefetch hint (Work.next): a
// chunk's hint, where it has one, is the rows of the chunk that the same
// goroutine runs next (in any order), every chunk but the last has one on
// one thread, and the gradient is the same bits with hints as without.
func TestChunkNextHint(t *testing.T) {
	t.Parallel()
	const n, d, k = 400, 7, 3
	data := testData[float64](t, n, d, k, 9)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	for i := range theta {
		theta[i] = 0.01 * float64(i%9-4)
	}
	idx := make([]int, 300)
	for i := range idx {
		idx[i] = (i*37 + 11) % n
	}
	wt := &Weighting{Objective: Softplus, Alpha: 0.2, Eps: 0.1, Tau: 0.5, InvL: 1}
	var want []float64
	for _, threads := range []int{1, 2, 3} {
		rec := &nextRecorder{Softmax: model}
		e := must(newEngineWith[float64](rec, threads, engineOptions{chunkRows: 16}))
		g := make([]float64, len(theta))
		if _, _, err := e.Gradient(g, theta, data, idx, 0, wt); err != nil {
			t.Fatal(err)
		}
		e.Close()
		if want == nil {
			want = g
		} else if !slices.Equal(g, want) {
			t.Fatalf("threads=%d: gradient differs from one thread's", threads)
		}
		hints := 0
		for i, s := range rec.seen {
			if s.next == nil {
				continue
			}
			hints++
			j := i + 1
			for j < len(rec.seen) && rec.seen[j].gid != s.gid {
				j++
			}
			if j == len(rec.seen) {
				t.Fatalf("threads=%d: chunk %d has a hint and no later chunk on its goroutine", threads, i)
			}
			got, next := slices.Sorted(slices.Values(rec.seen[j].rows)), slices.Sorted(slices.Values(s.next))
			if !slices.Equal(got, next) {
				t.Fatalf("threads=%d: hint %v, the goroutine's next chunk read %v", threads, next, got)
			}
		}
		if chunks := (len(idx) + 15) / 16; threads == 1 && hints != chunks-1 {
			t.Fatalf("one thread: %d of %d chunks had a hint, want all but the last", hints, chunks)
		}
	}
}
