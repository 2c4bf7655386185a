package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/cvarlearn/cvar/internal/rng"
)

// SynthTextOptions configures SyntheticText. Zero fields take the defaults
// given with them.
type SynthTextOptions struct {
	N     int     // rows; default 100 000
	D     int     // features; default 2²⁰
	NNZ   int     // non-zeros a row; default 40, at most D
	Zipf  float64 // exponent s of the features' frequencies, p(rank r) ∝ 1/(r+1)^s; default 1.1
	Noise float64 // probability of a flipped label, in [0, 0.5); default 0.05, negative for none
	Seed  uint64  // random seed; every seed, 0 included, is valid
}

func (c SynthTextOptions) withDefaults() SynthTextOptions {
	c.N = orDefault(c.N, 100_000)
	c.D = orDefault(c.D, 1<<20)
	c.NNZ = orDefault(c.NNZ, 40)
	c.Zipf = orDefault(c.Zipf, 1.1)
	c.Noise = orDefault(c.Noise, 0.05)
	c.Noise = max(c.Noise, 0)
	return c
}

// SyntheticText generates a text-like sparse binary classification
// problem in CSR form (IsSparse), the shape of bag-of-words data:
//
//  1. Each row has NNZ distinct features, drawn by frequency rank from a
//     Zipf law (rank r with probability ∝ 1/(r+1)^s, redrawn when already
//     in the row), so that a few features occur in most rows and most in
//     very few. Rank r is feature (r·m) mod D for a fixed m coprime to D,
//     which scatters the frequent features over the columns as a hashing
//     vectoriser would.
//  2. A feature's value is a tf-idf-like weight, (1 + U/2)·log(1 + (r+1)/4)
//     with U uniform in [0, 1), rarer features weighing more; each row is
//     then scaled to unit L2 norm.
//  3. The label follows a sparse linear rule: one rank in ten (fixed by
//     the seed) has a weight w_r ~ N(0, 1), the others 0; the class is +1
//     when Σ w·x > 0 (a coin for a row that no weighted feature touches),
//     then flipped with probability Noise.
//
// Classes are "-1" and "+1"; features "f1".."fD". The data depends only on
// the configuration, on every platform and Go version. Memory: the CSR
// arrays (NNZ·N entries) and O(D) for the frequency table and the rule.
func SyntheticText[T Float](cfg SynthTextOptions) (*Dataset[T], error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.N < 1 || cfg.D < 1 || uint64(cfg.D) > math.MaxUint32:
		return nil, fmt.Errorf("dataset: synthetic text of %d rows and %d features; want N ≥ 1 and 1 ≤ D ≤ 2³²−1", cfg.N, cfg.D)
	case cfg.NNZ < 1 || cfg.NNZ > cfg.D:
		return nil, fmt.Errorf("dataset: synthetic text with %d non-zeros a row of %d features; want 1 ≤ NNZ ≤ D", cfg.NNZ, cfg.D)
	case !(cfg.Zipf > 0) || math.IsInf(cfg.Zipf, 0):
		return nil, fmt.Errorf("dataset: Zipf exponent %v; want a finite s > 0", cfg.Zipf)
	case !(cfg.Noise < 0.5):
		return nil, fmt.Errorf("dataset: label noise %v; want a probability below 0.5", cfg.Noise)
	case int64(cfg.N)*int64(cfg.NNZ) > math.MaxInt32*4:
		return nil, fmt.Errorf("dataset: synthetic text of %d×%d non-zeros is too large", cfg.N, cfg.NNZ)
	}
	n, d, k := cfg.N, cfg.D, cfg.NNZ
	// The cumulative frequencies of the ranks, for inverse-CDF draws.
	cdf := make([]float64, d)
	var s float64
	for r := range cdf {
		s += math.Pow(float64(r+1), -cfg.Zipf)
		cdf[r] = s
	}
	m := uint64(2654435761) % uint64(d)
	for m == 0 || gcd(m, uint64(d)) != 1 {
		m++
	}
	col := func(r int) uint32 { return uint32(uint64(r) * m % uint64(d)) }
	rule := rng.New(cfg.Seed, 0x7e57)
	w := make([]float32, d) // by rank
	for r := range w {
		if rule.IntN(10) == 0 {
			w[r] = float32(rule.NormFloat64())
		}
	}
	g := rng.New(cfg.Seed, 0x7e58)
	ds := &Dataset[T]{
		Name: fmt.Sprintf("synthetic-text (N %d, D %d, %d non-zeros a row)", n, d, k),
		N:    n, D: d, Task: Classification,
		Indptr:  make([]int64, 1, n+1),
		Cols:    make([]uint32, 0, n*k),
		Vals:    make([]T, 0, n*k),
		Labels:  make([]int32, n),
		Classes: []string{"-1", "+1"},
	}
	ranks := make([]int, 0, k)
	type entry struct {
		c uint32
		v float64
	}
	row := make([]entry, 0, k)
	for i := range n {
		ranks = ranks[:0]
		for len(ranks) < k {
			r := sort.SearchFloat64s(cdf, g.Float64()*s)
			r = min(r, d-1)
			if !slices.Contains(ranks, r) {
				ranks = append(ranks, r)
			}
		}
		row = row[:0]
		var norm2, margin float64
		touched := false
		for _, r := range ranks {
			v := (1 + g.Float64()/2) * math.Log1p(float64(r+1)/4)
			row = append(row, entry{col(r), v})
			norm2 += v * v
			margin += v * float64(w[r])
			touched = touched || w[r] != 0
		}
		slices.SortFunc(row, func(a, b entry) int { return int(a.c) - int(b.c) })
		inv := 1 / math.Sqrt(norm2)
		for _, e := range row {
			ds.Cols, ds.Vals = append(ds.Cols, e.c), append(ds.Vals, T(e.v*inv))
		}
		ds.Indptr = append(ds.Indptr, int64(len(ds.Cols)))
		label := margin > 0
		if !touched {
			label = g.IntN(2) == 1
		}
		if g.Float64() < cfg.Noise {
			label = !label
		}
		if label {
			ds.Labels[i] = 1
		}
	}
	ds.Features = numberedNames("f", 1, d)
	return ds, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// WriteLIBSVM writes ds in LIBSVM format, a line a row. A line holds the
// class text (classification) or the target. Then comes index:value for
// every non-zero, with indices 1-based and increasing. A sparse row's
// entries come in column order, a repeated column summed. Values are
// written in the shortest form that reads back to the same T. ReadLIBSVM
// reads the file back, with Dim for trailing all-zero features. A nil w is
// an error. So is a nil ds, or one that Validate refuses.
func WriteLIBSVM[T Float](w io.Writer, ds *Dataset[T]) error {
	if w == nil {
		return errors.New("dataset: no writer (nil io.Writer)")
	}
	if err := ds.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bitSize := 64
	if sizeOf[T]() == 4 {
		bitSize = 32
	}
	var line []byte
	var cs []uint32
	var vs []T
	for i := range ds.N {
		line = line[:0]
		if ds.Labels != nil {
			line = append(line, ds.Classes[ds.Labels[i]]...)
		} else {
			line = strconv.AppendFloat(line, float64(ds.Y[i]), 'g', -1, bitSize)
		}
		cs, vs = cs[:0], vs[:0]
		if ds.IsSparse() {
			lo, hi := ds.Indptr[i], ds.Indptr[i+1]
			cs, vs = append(cs, ds.Cols[lo:hi]...), append(vs, ds.Vals[lo:hi]...)
			if !slices.IsSorted(cs) || hasRepeat(cs) {
				sum := map[uint32]T{}
				for p, c := range cs {
					sum[c] += vs[p]
				}
				cs = slices.Sorted(func(yield func(uint32) bool) {
					for c := range sum {
						if !yield(c) {
							return
						}
					}
				})
				vs = vs[:0]
				for _, c := range cs {
					vs = append(vs, sum[c])
				}
			}
		} else {
			for j, v := range ds.X[i*ds.D : (i+1)*ds.D] {
				if v != 0 {
					cs, vs = append(cs, uint32(j)), append(vs, v)
				}
			}
		}
		for p, c := range cs {
			line = append(line, ' ')
			line = strconv.AppendUint(line, uint64(c)+1, 10)
			line = append(line, ':')
			line = strconv.AppendFloat(line, float64(vs[p]), 'g', -1, bitSize)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func hasRepeat(sorted []uint32) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}
