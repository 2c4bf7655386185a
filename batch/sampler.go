package batch

import (
	"fmt"
	"math"
	"sync"

	"github.com/cvarlearn/cvar/internal/rng"
)

// Sampling says how a Sampler draws minibatches.
type Sampling int

const (
	// WithReplacement draws every index uniformly and independently: the
	// sampling the paper's theorems (Alg 2 and 3) assume. (The zero
	// Sampling is no mode: callers such as cvar.Options use it for "the
	// method's default".)
	WithReplacement Sampling = iota + 1
	// Shuffled passes over the data in a fresh random order each epoch, as
	// in the paper's experiments. The last batch of an epoch may be shorter.
	Shuffled
	// InOrder passes over the data in its stored order. Online algorithms
	// (Alg 1 and 4) use it to treat the data as a stream.
	InOrder
)

func (s Sampling) String() string {
	switch s {
	case WithReplacement:
		return "with-replacement"
	case Shuffled:
		return "shuffled"
	case InOrder:
		return "in-order"
	}
	return fmt.Sprintf("Sampling(%d)", int(s))
}

// Sampler yields the row indices of successive minibatches. It allocates
// only when it is made. A Sampler is safe for concurrent use. Next calls are
// serialised, each drawing one whole batch of the sampler's sequence. The
// slice Next returns is the sampler's own. The next call overwrites it, from
// whichever goroutine. So goroutines that share a Sampler copy each batch
// before another can call Next. Or they hold a lock of their own over its
// use.
type Sampler struct {
	mu   sync.Mutex // held by the running Next
	n, b int
	mode Sampling
	src  rng.Rand
	perm []int
	pos  int
	out  []int
}

// maxSamplerRows bounds n: a sampler holds O(n) indices.
const maxSamplerRows = 1 << 40

// NewSampler draws batches of b of the n rows, seeded by seed. It draws from
// stream 0 of internal/rng, whose draws are the same on every Go version and
// platform. WithReplacement takes each row by IntN(n). Shuffled reorders
// each epoch by Fisher–Yates. A b above n is taken as n. It returns an error
// for n or b below 1, or an unknown mode. It also returns one for n above
// 2⁴⁰, or above what an []int can hold on 32-bit platforms.
func NewSampler(n, b int, mode Sampling, seed uint64) (*Sampler, error) {
	if n <= 0 || b <= 0 || int64(n) > min(maxSamplerRows, math.MaxInt/8) {
		return nil, fmt.Errorf("batch: sampler needs 0 < n ≤ 2^40 and b > 0, got n = %d, b = %d", n, b)
	}
	if mode < WithReplacement || mode > InOrder {
		return nil, fmt.Errorf("batch: unknown sampling %v (want WithReplacement, Shuffled or InOrder)", mode)
	}
	b = min(b, n)
	s := &Sampler{n: n, b: b, mode: mode, src: *rng.New(seed, 0), out: make([]int, b)}
	if mode != WithReplacement {
		s.perm = make([]int, n)
		for i := range s.perm {
			s.perm[i] = i
		}
		s.startEpoch()
	}
	return s, nil
}

func (s *Sampler) startEpoch() {
	if s.mode == Shuffled {
		s.src.Shuffle(s.n, func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
	}
	s.pos = 0
}

// Next returns the next minibatch's indices. The slice is reused by the next
// call. With Shuffled and InOrder the last batch of an epoch holds the rows
// that remain. So an epoch visits every row once.
func (s *Sampler) Next() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mode == WithReplacement {
		for i := range s.out {
			s.out[i] = s.src.IntN(s.n)
		}
		return s.out
	}
	if s.pos == s.n {
		s.startEpoch()
	}
	end := min(s.pos+s.b, s.n)
	out := s.out[:end-s.pos]
	copy(out, s.perm[s.pos:end])
	s.pos = end
	return out
}

// BatchesPerEpoch is the number of Next calls that make one pass over n rows.
func (s *Sampler) BatchesPerEpoch() int { return (s.n + s.b - 1) / s.b }
