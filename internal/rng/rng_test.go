package rng

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// The first draws of New(1, 2). They must never change: a change here
// changes every seeded result of cvar.
var (
	pinnedUint64 = []uint64{0x1623bacd8932cf75, 0x41424b2357496ff5, 0x910e52040afb0fbd}
	pinnedNorm   = []float64{-0.013140405419169646, 0.4251273250190212, 1.2906497981869567, 0.08078210228424099}
)

func TestPinnedDraws(t *testing.T) {
	r := New(1, 2)
	for i, want := range pinnedUint64 {
		if got := r.Uint64(); got != want {
			t.Errorf("Uint64 #%d = %#016x, want %#016x", i, got, want)
		}
	}
	// Float64 is the top 53 bits: 0x1623bacd8932cf75>>11 · 2⁻⁵³ etc.
	r = New(1, 2)
	for i, want := range []float64{0.08648269193617886, 0.2549178086549425, 0.566624761569056} {
		if got := r.Float64(); got != want || got != float64(pinnedUint64[i]>>11)*0x1p-53 {
			t.Errorf("Float64 #%d = %v, want %v", i, got, want)
		}
	}
	// IntN(10) is ⌊x·10/2⁶⁴⌋: 0.0865·10, 0.2549·10, 0.5666·10.
	r = New(1, 2)
	for i, want := range []int{0, 2, 5} {
		hi, _ := bits.Mul64(pinnedUint64[i], 10)
		if got := r.IntN(10); got != want || uint64(got) != hi {
			t.Errorf("IntN(10) #%d = %d, want %d", i, got, want)
		}
	}
	// Box–Muller on u = 0.0865, v = 0.2549: √(−2 ln(1−u))·cos(2πv) ≈
	// 0.4254·(−0.0309), then the sine ≈ 0.4254·0.9995.
	r = New(1, 2)
	for i, want := range pinnedNorm {
		if got := r.NormFloat64(); got != want {
			t.Errorf("NormFloat64 #%d = %v, want %v", i, got, want)
		}
	}
	// Fisher–Yates on 0..4 with j = 0, 1, 1 (from the draws above), then 0.
	r = New(1, 2)
	if got, want := r.Perm(5), []int{2, 4, 3, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("Perm(5) = %v, want %v", got, want)
	}
}

// TestSourceIsPCGDXSM checks the bit source against math/rand/v2's PCG,
// whose output sequence Go specifies: the state is (seed, stream^golden).
func TestSourceIsPCGDXSM(t *testing.T) {
	for _, s := range [][2]uint64{{0, 0}, {1, 2}, {^uint64(0), 7}, {12345, golden}} {
		r, ref := New(s[0], s[1]), rand.NewPCG(s[0], s[1]^golden)
		for i := range 1000 {
			if got, want := r.Uint64(), ref.Uint64(); got != want {
				t.Fatalf("New(%d, %d): draw %d = %#x, PCG gives %#x", s[0], s[1], i, got, want)
			}
		}
	}
	var zero Rand
	if got, want := zero.Uint64(), rand.NewPCG(0, 0).Uint64(); got != want {
		t.Errorf("zero Rand draws %#x, PCG(0, 0) draws %#x", got, want)
	}
}

// TestIntNDerivation recomputes IntN from the Uint64 stream, rejections
// included, for bounds where about a quarter of the draws are rejected.
func TestIntNDerivation(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 1 << 20, 3 << 61, math.MaxInt} {
		r, src := New(9, uint64(n)), New(9, uint64(n))
		rejected := 0
		for range 2000 {
			got := r.IntN(n)
			thresh := -uint64(n) % uint64(n)
			hi, lo := bits.Mul64(src.Uint64(), uint64(n))
			for lo < thresh {
				rejected++
				hi, lo = bits.Mul64(src.Uint64(), uint64(n))
			}
			if uint64(got) != hi || got < 0 || got >= n {
				t.Fatalf("IntN(%d) = %d, the derivation gives %d", n, got, hi)
			}
		}
		if n == 3<<61 && (rejected < 400 || rejected > 1000) {
			t.Errorf("IntN(3·2⁶¹): %d of ~2700 draws rejected, want about a quarter", rejected)
		}
	}
}

func TestIntNUniform(t *testing.T) {
	const n, draws = 7, 70000
	r := New(3, 4)
	var count [n]int
	for range draws {
		count[r.IntN(n)]++
	}
	chi2 := 0.0
	for _, c := range count {
		e := float64(draws) / n
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	if chi2 > 22.5 { // P(χ²₆ > 22.5) ≈ 0.001
		t.Errorf("IntN(7) counts %v: χ² = %.1f", count, chi2)
	}
}

func TestIntNPanicsOnEmptyRange(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("IntN(%d) did not panic", n)
				}
			}()
			New(1, 1).IntN(n)
		}()
	}
}

func TestPermAndShuffle(t *testing.T) {
	r := New(5, 6)
	for _, n := range []int{0, 1, 2, 17, 1000} {
		p := r.Perm(n)
		s := slices.Clone(p)
		slices.Sort(s)
		for i, v := range s {
			if v != i {
				t.Fatalf("Perm(%d) = %v is not a permutation", n, p)
			}
		}
	}
	// Shuffle swaps as Perm does.
	a, b := New(8, 9), New(8, 9)
	x := []int{0, 1, 2, 3, 4, 5, 6, 7}
	a.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
	if p := b.Perm(len(x)); !slices.Equal(x, p) {
		t.Errorf("Shuffle gives %v, Perm %v", x, p)
	}
	// Every position of Perm(3) is uniform: each of the 6 orders about 1/6.
	counts := map[[3]int]int{}
	for range 60000 {
		p := r.Perm(3)
		counts[[3]int(p)]++
	}
	for p, c := range counts {
		if len(counts) != 6 || c < 9400 || c > 10600 {
			t.Errorf("Perm(3) gives %v %d times of 60000 (%d orders)", p, c, len(counts))
		}
	}
}

// moments returns the mean and variance of n draws of f.
func moments(n int, f func() float64) (mean, variance float64) {
	var s, s2 float64
	for range n {
		v := f()
		s += v
		s2 += v * v
	}
	mean = s / float64(n)
	return mean, s2/float64(n) - mean*mean
}

func TestDistributions(t *testing.T) {
	const n = 200000
	r := New(11, 12)
	check := func(name string, f func() float64, mean, variance float64) {
		t.Helper()
		m, v := moments(n, f)
		se := math.Sqrt(variance / n)
		if math.Abs(m-mean) > 5*se || math.Abs(v-variance) > 0.05*variance {
			t.Errorf("%s: mean %.4f variance %.4f, want %.4f and %.4f", name, m, v, mean, variance)
		}
	}
	check("Float64", r.Float64, 0.5, 1.0/12)
	check("NormFloat64", r.NormFloat64, 0, 1)
	for _, a := range []float64{0.3, 0.5, 1, 2.5, 10} {
		check("Gamma", func() float64 { return r.Gamma(a) }, a, a)
	}
	check("StudentT(5)", func() float64 { return r.StudentT(5) }, 0, 5.0/3)
	for range n {
		if u := r.Float64(); u < 0 || u >= 1 {
			t.Fatalf("Float64 = %v, outside [0, 1)", u)
		}
	}
}

// ulps returns how many float64s lie between a and b.
func ulps(a, b float64) uint64 {
	x, y := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if x > y {
		return uint64(x - y)
	}
	return uint64(y - x)
}

// TestElementary compares log, exp, pow and sincos with package math: log,
// exp, sin and cos of either are within 1 ulp of the true value, so they
// differ by at most 2; pow's repeated squaring rounds at each step, in both.
func TestElementary(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 1))
	for range 200000 {
		u := 1 - src.Float64()
		x := math.Ldexp(0.5+src.Float64(), src.IntN(2000)-1000)
		for _, v := range []float64{u, x} {
			if d := ulps(log(v), math.Log(v)); d > 2 {
				t.Fatalf("log(%v) = %v, math.Log %v", v, log(v), math.Log(v))
			}
		}
		e := 1400*src.Float64() - 700
		if d := ulps(exp(e), math.Exp(e)); d > 2 {
			t.Fatalf("exp(%v) = %v, math.Exp %v", e, exp(e), math.Exp(e))
		}
		y := 4 * src.Float64()
		if d := ulps(pow(u, y), math.Pow(u, y)); d > 4 {
			t.Fatalf("pow(%v, %v) = %v, math.Pow %v", u, y, pow(u, y), math.Pow(u, y))
		}
		a := 2 * math.Pi * src.Float64()
		s, c := sincos(a)
		ms, mc := math.Sincos(a)
		if ulps(s, ms) > 2 || ulps(c, mc) > 2 {
			t.Fatalf("sincos(%v) = %v, %v; math.Sincos %v, %v", a, s, c, ms, mc)
		}
	}
	for _, c := range []struct{ got, want float64 }{
		{log(1), 0}, {log(math.E), 1}, {exp(0), 1}, {exp(1), math.E}, {pow(0.25, 0.5), 0.5},
		{pow(0.5, 3), 0.125}, {pow(0.5, -2), 4}, {log(0), math.Inf(-1)}, {exp(800), math.Inf(1)}, {exp(-800), 0},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	if s, c := sincos(0); s != 0 || c != 1 {
		t.Errorf("sincos(0) = %v, %v", s, c)
	}
}

// Mix of 0, 1, 2… is the published SplitMix64 sequence of seed 0.
func TestMixIsSplitMix64(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := Mix(uint64(i) * golden); got != w {
			t.Errorf("Mix(%d·γ) = %#x, want %#x", i, got, w)
		}
	}
}
