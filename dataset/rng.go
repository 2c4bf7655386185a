package dataset

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// rng draws the random numbers of Split and the synthetic generators. It is
// built on rand.PCG, whose output is specified, and implements its own
// uniform, bounded-integer, normal and gamma draws, so that a seed gives the
// same data on every Go version and architecture (math/rand/v2 does not
// promise that its derived distributions never change).
type rng struct {
	src   *rand.PCG
	spare float64 // second normal of the last Box–Muller pair
	has   bool
}

// newRNG returns a generator for seed; purpose separates the streams of
// different users of the same seed.
func newRNG(seed, purpose uint64) *rng {
	return &rng{src: rand.NewPCG(seed, purpose^0x9e3779b97f4a7c15)}
}

// uniform returns a float64 in [0, 1) with 53 random bits.
func (r *rng) uniform() float64 { return float64(r.src.Uint64()>>11) * 0x1p-53 }

// intN returns an integer in [0, n), without bias (Lemire's method).
func (r *rng) intN(n int) int {
	bound := uint64(n)
	hi, lo := bits.Mul64(r.src.Uint64(), bound)
	if lo < bound {
		thresh := -bound % bound
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), bound)
		}
	}
	return int(hi)
}

// normal returns a standard normal variate (Box–Muller).
func (r *rng) normal() float64 {
	if r.has {
		r.has = false
		return r.spare
	}
	u := 1 - r.uniform() // (0, 1], so the log is finite
	v := r.uniform()
	rad := math.Sqrt(-2 * math.Log(u))
	s, c := math.Sincos(2 * math.Pi * v)
	r.spare, r.has = rad*s, true
	return rad * c
}

// gamma returns a Gamma(shape, 1) variate (Marsaglia and Tsang, 2000).
func (r *rng) gamma(shape float64) float64 {
	if shape < 1 {
		// Gamma(a) = Gamma(a+1) · U^(1/a).
		return r.gamma(shape+1) * math.Pow(1-r.uniform(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.normal()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.uniform()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// studentT returns a Student-t variate with dof degrees of freedom.
func (r *rng) studentT(dof float64) float64 {
	z := r.normal()
	chi2 := 2 * r.gamma(dof/2)
	return z / math.Sqrt(chi2/dof)
}

// perm returns a random permutation of 0..n-1 (Fisher–Yates).
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
