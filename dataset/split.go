package dataset

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/cvarlearn/cvar/internal/rng"
)

// DefaultTrainFrac is the training fraction Split uses when given 0: the
// 2/3 – 1/3 split of the CVaR paper's experiments.
const DefaultTrainFrac = 2.0 / 3

// Split divides the rows of ds into a training set of round(trainFrac·N)
// rows and a validation set of the rest. Both are copies that keep the
// rows' order. Splitter says which row goes where. So a stream that reads
// the same rows can make the same split. trainFrac 0 means
// DefaultTrainFrac. The split depends only on N, trainFrac and seed, on
// every platform and Go version. Both parts are non-empty, so N must be at
// least 2. The split is not stratified. A nil ds is an error, and so is
// one that Validate refuses.
func Split[T Float](ds *Dataset[T], trainFrac float64, seed uint64) (train, val *Dataset[T], err error) {
	if !(trainFrac == 0 || trainFrac > 0 && trainFrac < 1) {
		return nil, nil, fmt.Errorf("dataset: training fraction %v; expected a number in (0,1)", trainFrac)
	}
	if err := ds.Validate(); err != nil { // the parts copy every row
		return nil, nil, err
	}
	if ds.N < 2 {
		return nil, nil, fileError(ds.Name, "%d samples cannot be split into non-empty training and validation sets", ds.N)
	}
	sp, err := NewSplitter(ds.N, trainFrac, seed)
	if err != nil {
		return nil, nil, err
	}
	tr := make([]int, 0, sp.NTrain())
	va := make([]int, 0, ds.N-sp.NTrain())
	for i := range ds.N {
		if sp.Train(i) {
			tr = append(tr, i)
		} else {
			va = append(va, i)
		}
	}
	return ds.Subset(tr), ds.Subset(va), nil
}

// Splitter decides, row by row, the split that Split makes of N rows. Row
// i goes to the training set when π(i) < round(trainFrac·N). π is a seeded
// pseudorandom permutation of 0..N-1: a Feistel network, cycle-walked onto
// 0..N-1. It needs O(1) memory and no pass over the rows. So a stream that
// knows N can split exactly as Split does.
type Splitter struct {
	n, nTrain int
	half      uint // bits of each half of the Feistel network's domain
	keys      [4]uint64
}

// NewSplitter returns the splitter of n ≥ 2 rows; trainFrac 0 means
// DefaultTrainFrac.
func NewSplitter(n int, trainFrac float64, seed uint64) (*Splitter, error) {
	if trainFrac == 0 {
		trainFrac = DefaultTrainFrac
	}
	if !(trainFrac > 0 && trainFrac < 1) {
		return nil, fmt.Errorf("dataset: training fraction %v; expected a number in (0,1)", trainFrac)
	}
	if n < 2 {
		return nil, fmt.Errorf("dataset: %d samples cannot be split into non-empty training and validation sets", n)
	}
	nTrain := int(math.Round(trainFrac * float64(n)))
	s := &Splitter{n: n, nTrain: min(max(nTrain, 1), n-1)}
	s.half = uint(bits.Len64(uint64(n-1))+1) / 2
	r := rng.New(seed, 1)
	for k := range s.keys {
		s.keys[k] = r.Uint64()
	}
	return s, nil
}

// N returns the number of rows.
func (s *Splitter) N() int { return s.n }

// NTrain returns the number of training rows.
func (s *Splitter) NTrain() int { return s.nTrain }

// Train reports whether row i (0 ≤ i < N) belongs to the training set.
func (s *Splitter) Train(i int) bool { return s.perm(uint64(i)) < uint64(s.nTrain) }

// perm is π(i): the Feistel permutation of 0..4^half-1, applied again
// until the value falls in 0..N-1. That cycle walking restricts it to a
// permutation of 0..N-1. The domain is less than 4N, so the expected
// number of rounds is below 4.
func (s *Splitter) perm(x uint64) uint64 {
	for {
		x = s.feistel(x)
		if x < uint64(s.n) {
			return x
		}
	}
}

func (s *Splitter) feistel(x uint64) uint64 {
	mask := uint64(1)<<s.half - 1
	l, r := x>>s.half, x&mask
	for _, k := range s.keys {
		l, r = r, l^(rng.Mix(r^k)&mask)
	}
	return l<<s.half | r
}
