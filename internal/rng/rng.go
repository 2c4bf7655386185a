// Package rng is cvar's one source of random numbers.
//
// The minibatch sampler, model initialisation, the step-size estimates and
// Alg4's random iterate draw from it. So do splits, synthetic data, the
// command's bootstrap and the benchmarks' data.
//
// # Stability
//
// The same seed and stream give the same bits everywhere. This holds on
// every Go version and every platform. The bit source is PCG-DXSM,
// written out here. It is a 128-bit linear congruential generator with the "double
// xorshift multiply" output, as in NumPy and math/rand/v2's PCG. Every
// derived draw is an algorithm of this package, fixed by this
// documentation:
//
//   - Float64 is the top 53 bits of one Uint64, times 2⁻⁵³.
//   - IntN(n) is Lemire's multiply-shift with rejection: the high word of
//     Uint64()·n, redrawn while the low word is below 2⁶⁴ mod n.
//   - Shuffle and Perm are Fisher–Yates from the last index down, each swap
//     partner drawn by IntN(i+1).
//   - NormFloat64 is Box–Muller on two Float64 draws u, v: √(−2 ln(1−u))
//     times cos(2πv), then sin(2πv) on the next call.
//   - Gamma is Marsaglia and Tsang's method, with the boost U^(1/a) for a
//     shape a < 1; StudentT is a normal over √(χ²/ν), χ² = 2·Gamma(ν/2).
//
// The logarithm, exponential, power, sine and cosine these need are this
// package's own. They round every product before it is added, in IEEE
// double precision. Go may otherwise fuse a multiply and an add, as it
// does on arm64. So they do not depend on the platform's math routines.
// The package math/rand/v2 promises a stable bit source. It does not
// promise that its derived draws (Float64, IntN, NormFloat64, Perm, …)
// never change, so they are not used.
//
// A generator is not safe for concurrent use; give each goroutine its own.
package rng

import "math/bits"

// golden separates a stream number from the seed in the generator's state.
const golden = 0x9e3779b97f4a7c15

// Rand is a seeded generator. The zero Rand is valid (it is the generator
// whose state words are both zero).
type Rand struct {
	hi, lo uint64  // the 128-bit state
	spare  float64 // the second normal of the last Box–Muller pair
	has    bool    // whether spare is unused
}

// New returns the generator of seed and stream. Different streams of one
// seed give unrelated sequences. So the users of one seed (the sampler,
// the initialisation, the split, …) do not share draws. The state is
// (seed, stream XOR 0x9e3779b97f4a7c15).
func New(seed, stream uint64) *Rand {
	return &Rand{hi: seed, lo: stream ^ golden}
}

// Uint64 returns 64 uniformly random bits. The state advances by one step
// of the 128-bit LCG. The output is the DXSM mix of the new state.
func (r *Rand) Uint64() uint64 {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
		dxsm  = 0xda942042e4dd58b5
	)
	// state = state·mul + inc (mod 2¹²⁸)
	hi, lo := bits.Mul64(r.lo, mulLo)
	hi += r.hi*mulLo + r.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	r.hi, r.lo = hi, lo
	hi ^= hi >> 32
	hi *= dxsm
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// Float64 returns a number in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// IntN returns an integer uniform in [0, n), without bias. It panics if
// n ≤ 0: callers pass a count they have checked.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("rng: IntN of a bound below 1")
	}
	bound := uint64(n)
	hi, lo := bits.Mul64(r.Uint64(), bound)
	if lo < bound {
		thresh := -bound % bound // 2⁶⁴ mod n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), bound)
		}
	}
	return int(hi)
}

// Shuffle permutes n items by Fisher–Yates, calling swap(i, j) for i from
// n−1 down to 1 with j = IntN(i+1).
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.IntN(i+1))
	}
}

// Perm returns a random permutation of 0..n−1: the identity, shuffled.
func (r *Rand) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// Mix is SplitMix64's step and finaliser: a bijection of 64 bits whose
// outputs look random for consecutive inputs. Hashes that must give the
// same bits on every machine build on it.
func Mix(z uint64) uint64 {
	z += golden
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
