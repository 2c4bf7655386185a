package tail

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// ---- brute-force references -------------------------------------------

// rankOrder returns the indices of v in rank order: value descending, lower
// index first among equal values (the package's total order).
func rankOrder[T Float](v []T) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[b], v[a]) })
	return idx
}

// bruteSort is CVaR/VaR by a full sort and the textbook formula.
func bruteSort[T Float](v []T, alpha float64) (cvar, vr float64) {
	n := len(v)
	m, k := Count(n, alpha)
	idx := rankOrder(v)
	sum := 0.0
	for _, i := range idx[:k] {
		sum += float64(v[i])
	}
	if k == n {
		return sum / float64(n), float64(v[idx[n-1]])
	}
	vr = float64(v[idx[k]])
	return (sum + (m-float64(k))*vr) / m, vr
}

// ruF is the Rockafellar–Uryasev objective τ + Σ p_i[ℓ_i − τ]_+ / α with
// weights p (nil: 1/n each).
func ruF[T Float](v []T, p []float64, alpha, tau float64) float64 {
	s := 0.0
	for i, x := range v {
		e := float64(x) - tau
		if e <= 0 {
			continue
		}
		if p == nil {
			s += e / float64(len(v))
		} else {
			s += p[i] * e
		}
	}
	return tau + s/alpha
}

// checkRU evaluates the Rockafellar–Uryasev objective at every loss value and
// checks that its minimum equals cvar and is attained at vr.
func checkRU[T Float](t *testing.T, what string, v []T, p []float64, alpha, cvar, vr float64) {
	t.Helper()
	if len(v) > 1100 {
		return // O(n²); the smaller sizes cover the logic
	}
	best := math.Inf(1)
	scale := 1.0
	for _, x := range v {
		best = min(best, ruF(v, p, alpha, float64(x)))
		scale = max(scale, math.Abs(float64(x)))
	}
	tol := 1e-10 * scale
	if math.Abs(best-cvar) > tol {
		t.Errorf("%s: min_τ F = %.17g, CVaR = %.17g", what, best, cvar)
	}
	if at := ruF(v, p, alpha, vr); math.Abs(at-best) > tol {
		t.Errorf("%s: F(VaR=%g) = %.17g, min_τ F = %.17g", what, vr, at, best)
	}
}

func near(a, b, scale float64) bool {
	return math.Abs(a-b) <= 1e-12*max(1, scale, math.Abs(a), math.Abs(b))
}

// ---- inputs ---------------------------------------------------------------

type pattern struct {
	name string
	gen  func(n int, r *rand.Rand) []float64
}

func fill(n int, f func(i int) float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// musser is Musser's median-of-3 killer sequence (for first/middle/last
// pivots); n is rounded down to even.
func musser(n int) []float64 {
	k := n / 2
	v := make([]float64, n)
	for i := 1; i <= k; i++ {
		if i%2 == 1 {
			v[i-1] = float64(i)
		} else {
			v[i-1] = float64(k + i - 1)
		}
		v[k+i-1] = float64(2 * i)
	}
	if n%2 == 1 {
		v[n-1] = float64(n)
	}
	return v
}

var patterns = []pattern{
	{"normal", func(n int, r *rand.Rand) []float64 { return fill(n, func(int) float64 { return r.NormFloat64() }) }},
	{"exp", func(n int, r *rand.Rand) []float64 { return fill(n, func(int) float64 { return r.ExpFloat64() }) }},
	{"negative", func(n int, r *rand.Rand) []float64 { return fill(n, func(int) float64 { return -1 - r.Float64() }) }},
	{"few", func(n int, r *rand.Rand) []float64 { return fill(n, func(int) float64 { return float64(r.IntN(3)) }) }},
	{"equal", func(n int, r *rand.Rand) []float64 { return fill(n, func(int) float64 { return 0.5 }) }},
	{"signedzero", func(n int, r *rand.Rand) []float64 {
		return fill(n, func(i int) float64 { return math.Copysign(0, float64(i%2)-0.5) })
	}},
	{"ascending", func(n int, r *rand.Rand) []float64 { return fill(n, func(i int) float64 { return float64(i) }) }},
	{"descending", func(n int, r *rand.Rand) []float64 { return fill(n, func(i int) float64 { return float64(n - i) }) }},
	{"organpipe", func(n int, r *rand.Rand) []float64 {
		return fill(n, func(i int) float64 { return float64(min(i, n-i)) })
	}},
	{"sawtooth", func(n int, r *rand.Rand) []float64 { return fill(n, func(i int) float64 { return float64(i % 7) }) }},
	{"alternating", func(n int, r *rand.Rand) []float64 {
		return fill(n, func(i int) float64 { return float64(i) * float64(1-2*(i%2)) })
	}},
	{"musser", func(n int, r *rand.Rand) []float64 { return musser(n) }},
	{"huge-range", func(n int, r *rand.Rand) []float64 {
		return fill(n, func(int) float64 { return math.Ldexp(r.Float64(), r.IntN(200)-100) })
	}},
}

var allSizes = []int{1, 2, 3, 4, 5, 7, 10, 16, 17, 18, 31, 33, 64, 100, 101, 127, 128, 129, 257, 1000, 4097}

// testSizes are the input sizes of the brute-force tests. With -short (CI's
// arm64 leg under emulation) the two largest are left out: the small sizes
// hold every edge case, the large ones only add work.
func bigSizes() []int {
	if testing.Short() {
		return nil
	}
	return []int{10000}
}

func testSizes() []int {
	if testing.Short() {
		return allSizes[:len(allSizes)-2]
	}
	return allSizes
}

// alphasFor returns the α grid for n: 1, α·n integral, not integral, tiny
// (< 1/n), and decimals whose products with n are inexact.
func alphasFor(n int, r *rand.Rand) []float64 {
	a := []float64{1, 0.5, 0.29, 0.1, 0.05, 0.01, 0.999, 1 / float64(n), 0.5 / float64(n), 1e-9,
		float64(n-1) / float64(n), r.Float64()*0.999 + 0.001}
	if n > 2 {
		a = append(a, 2/float64(n), float64(n/3)/float64(n))
	}
	return slices.DeleteFunc(a, func(x float64) bool { return x <= 0 })
}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// withMoM runs f twice: with the sampled pivots, and with median-of-medians
// pivots from the start.
func withMoM(t *testing.T, f func(t *testing.T, piv pivots)) {
	t.Run("sampled", func(t *testing.T) { f(t, sampled) })
	t.Run("mom", func(t *testing.T) { f(t, medianOfMedians) })
}

// ---- Count ---------------------------------------------------------------

func TestCount(t *testing.T) {
	cases := []struct {
		n     int
		alpha float64
		m     float64
		k     int
	}{
		{100, 0.1, 10, 10},
		{100, 0.29, 29, 29}, // raw product 28.999999999999996
		{100, 0.57, 57, 57}, // raw product 56.99999999999999
		{10, 0.3, 3, 3},     // raw product 3.0000000000000004
		{10, 0.7, 7, 7},
		{20, 0.05, 1, 1},
		{7, 1, 7, 7},
		{1, 1, 1, 1},
		{1, 0.5, 0.5, 0},
		{10, 0.25, 2.5, 2},
		{3, 1e-300, 3e-300, 0},
	}
	for _, c := range cases {
		m, k := Count(c.n, c.alpha)
		if m != c.m || k != c.k {
			t.Errorf("Count(%d, %v) = %v, %d; want %v, %d", c.n, c.alpha, m, k, c.m, c.k)
		}
	}
	// Every three-decimal α times a multiple of 1000 gives the exact count.
	for _, n := range []int{1000, 3000, 100000} {
		for d := 1; d <= 1000; d++ {
			alpha, _ := strconv.ParseFloat(fmt.Sprintf("0.%03d", d), 64)
			if d == 1000 {
				alpha = 1
			}
			want := d * (n / 1000)
			if m, k := Count(n, alpha); k != want || m != float64(want) {
				t.Fatalf("Count(%d, %v) = %v, %d; want %d", n, alpha, m, k, want)
			}
		}
	}
	// A deliberate offset well beyond rounding is kept.
	if m, k := Count(2, 0.5-1e-12); k != 0 || m >= 1 {
		t.Errorf("Count(2, 0.5-1e-12) = %v, %d; want m < 1, k = 0", m, k)
	}
	if m, k := Count(100, 0.1+1e-12); k != 10 || m == 10 {
		t.Errorf("Count(100, 0.1+1e-12) = %v, %d; want m just above 10", m, k)
	}
}

// ---- Select ----------------------------------------------------------------

// checkSelected verifies Select's contract for k on v.
func checkSelected[T Float](t *testing.T, what string, v []T, k int, perm []int) {
	t.Helper()
	n := len(v)
	seen := make([]bool, n)
	for _, i := range perm {
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("%s: perm is not a permutation: %v", what, perm)
		}
		seen[i] = true
	}
	pos := make([]int, n)
	for r, i := range rankOrder(v) {
		pos[i] = r
	}
	for q := range k {
		if pos[perm[q]] >= k {
			t.Fatalf("%s: perm[%d] = %d has rank %d, not in the top %d", what, q, perm[q], pos[perm[q]], k)
		}
	}
	if k < n {
		if pos[perm[k]] != k {
			t.Fatalf("%s: perm[k=%d] = %d has rank %d", what, k, perm[k], pos[perm[k]])
		}
		for q := k + 1; q < n; q++ {
			if pos[perm[q]] <= k {
				t.Fatalf("%s: perm[%d] = %d has rank %d ≤ k = %d", what, q, perm[q], pos[perm[q]], k)
			}
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(1)
		for _, pat := range patterns {
			for _, n := range slices.Concat(testSizes(), bigSizes()) {
				v := pat.gen(n, r)
				ks := []int{0, 1, n / 2, n - 1, n, r.IntN(n + 1)}
				for _, k := range ks {
					if k < 0 || k > n {
						continue
					}
					for _, start := range []string{"identity", "shuffled", "reversed"} {
						perm := make([]int, n)
						iota(perm)
						switch start {
						case "shuffled":
							r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
						case "reversed":
							slices.Reverse(perm)
						}
						selectK(piv, v, k, perm)
						checkSelected(t, fmt.Sprintf("%s n=%d k=%d %s", pat.name, n, k, start), v, k, perm)
					}
				}
			}
		}
	})
}

func TestSelectFloat32(t *testing.T) {
	r := rng(2)
	for _, n := range testSizes() {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.IntN(5)) + float32(r.Float64())*1e-3
		}
		for _, k := range []int{0, n / 3, n} {
			perm := make([]int, n)
			iota(perm)
			Select(v, k, perm)
			checkSelected(t, fmt.Sprintf("float32 n=%d k=%d", n, k), v, k, perm)
		}
	}
}

func TestSelectPanics(t *testing.T) {
	for _, f := range []func(){
		func() { Select([]float64{1, 2}, 0, []int{0}) },
		func() { Select([]float64{1, 2}, 3, []int{0, 1}) },
		func() { Select([]float64{1, 2}, -1, []int{0, 1}) },
		func() { Weights(make([]float64, 1), []float64{1, 2}, 0.5, make([]int, 2)) },
		func() { CVaRVaR([]float64{1, 2}, 0.5, make([]int, 1)) },
		func() { Multi([]float64{1, 2}, []float64{0.5}, make([]int, 2), nil, nil) },
		func() { WeightedCVaRVaR([]float64{1, 2}, []float64{1}, 0.5, make([]int, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on bad sizes")
				}
			}()
			f()
		}()
	}
}

// selectWork runs one selection with the pivots piv and returns the work
// counter.
func selectWork(v []float64, k int, piv pivots) int {
	p := make([]int, len(v))
	iota(p)
	s := newSelector(v, p, piv)
	s.run(0, len(v), k)
	return s.work
}

// TestSelectLinear checks that the work (elements partitioned or insertion
// sorted, a proxy for comparisons) grows linearly, including on a million
// equal values and on the inputs that defeat naive pivots. A quadratic
// selection would do ~n²/4 = 2.5·10¹¹ units on these sizes.
func TestSelectLinear(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	r := rng(3)
	for _, pat := range patterns {
		v := pat.gen(n, r)
		for _, k := range []int{0, n / 20, n / 2, n - 1} {
			// Measured: 1.0–3.0 n on these inputs (2.0 n or less on equal,
			// sorted and reverse-sorted ones).
			if w := selectWork(v, k, sampled); w > 4*n {
				t.Errorf("%s k=%d: work %.2f n, want ≤ 4 n", pat.name, k, float64(w)/float64(n))
			}
		}
	}
	// Median-of-medians alone is linear too (measured 5.7–7.2 n).
	for _, pat := range patterns {
		v := pat.gen(n/4, r)
		for _, k := range []int{0, n / 8, n/4 - 1} {
			if w := selectWork(v, k, medianOfMedians); w > 10*(n/4) {
				t.Errorf("mom %s k=%d: work %.2f n, want ≤ 10 n", pat.name, k, float64(w)/float64(n/4))
			}
		}
	}
}

// TestSelectBudget checks the switch to median-of-medians: a selector
// whose budget is spent keeps the result correct and linear.
func TestSelectBudget(t *testing.T) {
	r := rng(4)
	for _, pat := range patterns {
		v := pat.gen(5000, r)
		p := make([]int, len(v))
		iota(p)
		s := newSelector(v, p, sampled)
		s.budget = 3 * len(v) / 2 // runs out after the first partition or two
		s.selectAt(0, len(v), 1234)
		if !s.mom {
			t.Errorf("%s: budget exhausted but no median-of-medians", pat.name)
		}
		checkSelected(t, pat.name, v, 1234, p)
	}
}

// ---- CVaRVaR, Weights, Multi -------------------------------------------

func TestCVaRVaR(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(5)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				v := pat.gen(n, r)
				v32 := make([]float32, n)
				for i, x := range v {
					v32[i] = float32(x)
				}
				perm := make([]int, n)
				for _, alpha := range alphasFor(n, r) {
					what := fmt.Sprintf("%s n=%d α=%v", pat.name, n, alpha)
					c, vr := cvarVaR(piv, v, alpha, perm)
					bc, bv := bruteSort(v, alpha)
					if vr != bv || !near(c, bc, 0) {
						t.Fatalf("%s: CVaRVaR = %.17g, %g; sort gives %.17g, %g", what, c, vr, bc, bv)
					}
					checkRU(t, what, v, nil, alpha, c, vr)
					if c < vr {
						t.Fatalf("%s: CVaR %g < VaR %g", what, c, vr)
					}
					c32, vr32 := cvarVaR(piv, v32, alpha, perm)
					bc32, bv32 := bruteSort(v32, alpha)
					if vr32 != bv32 || !near(c32, bc32, 0) {
						t.Fatalf("%s float32: CVaRVaR = %.17g, %g; sort gives %.17g, %g", what, c32, vr32, bc32, bv32)
					}
					checkRU(t, what+" float32", v32, nil, alpha, c32, vr32)
				}
			}
		}
	})
}

func TestCVaRVaRSpecial(t *testing.T) {
	perm := make([]int, 8)
	v := []float64{3, -1, 7, 7, 2, 0, 5, 1}
	// α = 1 is the mean, VaR the minimum.
	if c, vr := CVaRVaR(v, 1, perm); c != 3 || vr != -1 {
		t.Errorf("α=1: %v, %v; want 3, -1", c, vr)
	}
	// α < 1/n: the maximum.
	if c, vr := CVaRVaR(v, 0.01, perm); c != 7 || vr != 7 {
		t.Errorf("α=0.01: %v, %v; want 7, 7", c, vr)
	}
	// α·n = 2: mean of the two 7s; VaR = ℓ(3) = 5.
	if c, vr := CVaRVaR(v, 0.25, perm); c != 7 || vr != 5 {
		t.Errorf("α=0.25: %v, %v; want 7, 5", c, vr)
	}
	// α·n = 3.2: (7 + 7 + 5 + 0.2·3)/3.2.
	if c, vr := CVaRVaR(v, 0.4, perm); !near(c, (19+0.2*3)/3.2, 0) || vr != 3 {
		t.Errorf("α=0.4: %v, %v; want %v, 3", c, vr, (19+0.2*3)/3.2)
	}
	// n = 1.
	for _, a := range []float64{1, 0.5, 1e-6} {
		if c, vr := CVaRVaR([]float64{-4.5}, a, perm); c != -4.5 || vr != -4.5 {
			t.Errorf("n=1 α=%v: %v, %v", a, c, vr)
		}
	}
	// Constant losses give the constant exactly (clamping absorbs rounding).
	cst := slices.Repeat([]float64{0.1}, 1000)
	for _, a := range []float64{1, 0.333, 0.05, 1e-4} {
		if c, vr := CVaRVaR(cst, a, make([]int, 1000)); c != 0.1 || vr != 0.1 {
			t.Errorf("constant α=%v: %v, %v", a, c, vr)
		}
	}
}

func TestWeights(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(6)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				v := pat.gen(n, r)
				perm := make([]int, n+3) // longer scratch is fine
				w := make([]float64, n)
				for _, alpha := range alphasFor(n, r) {
					what := fmt.Sprintf("%s n=%d α=%v", pat.name, n, alpha)
					vr := weights(piv, w, v, alpha, perm)
					bc, bv := bruteSort(v, alpha)
					if vr != bv {
						t.Fatalf("%s: VaR %g, want %g", what, vr, bv)
					}
					var sw, swl float64
					for i := range w {
						sw += w[i]
						swl += w[i] * v[i]
					}
					if math.Abs(sw-1) > 1e-12 {
						t.Fatalf("%s: Σw = %.17g", what, sw)
					}
					if !near(swl, bc, 0) {
						t.Fatalf("%s: Σwℓ = %.17g, CVaR = %.17g", what, swl, bc)
					}
					// Exact structure: the k first-ranked get 1/m, the next
					// (m−k)/m, the rest 0.
					m, k := Count(n, alpha)
					for rk, i := range rankOrder(v) {
						var want float64
						switch {
						case k == n:
							want = 1 / float64(n)
						case rk < k:
							want = 1 / m
						case rk == k:
							want = (m - float64(k)) / m
						}
						if w[i] != want {
							t.Fatalf("%s: w[%d] (rank %d) = %v, want %v", what, i, rk, w[i], want)
						}
					}
				}
			}
		}
	})
}

func TestWeightsFloat32(t *testing.T) {
	r := rng(7)
	for _, n := range testSizes() {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.IntN(4)) * 0.25
		}
		w := make([]float32, n)
		perm := make([]int, n)
		for _, alpha := range alphasFor(n, r) {
			vr := Weights(w, v, alpha, perm)
			bc, bv := bruteSort(v, alpha)
			var sw, swl float64
			for i := range w {
				sw += float64(w[i])
				swl += float64(w[i]) * float64(v[i])
			}
			if float64(vr) != bv || math.Abs(sw-1) > 1e-5 || math.Abs(swl-bc) > 1e-5*max(1, math.Abs(bc)) {
				t.Fatalf("n=%d α=%v: VaR %v (want %v), Σw %v, Σwℓ %v (CVaR %v)", n, alpha, vr, bv, sw, swl, bc)
			}
		}
	}
}

func TestMulti(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(8)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				v := pat.gen(n, r)
				alphas := alphasFor(n, r)
				alphas = append(alphas, alphas[3], 1, alphas[7]) // duplicates
				r.Shuffle(len(alphas), func(i, j int) { alphas[i], alphas[j] = alphas[j], alphas[i] })
				perm := make([]int, n)
				cv := make([]float64, len(alphas))
				vv := make([]float64, len(alphas))
				multi(piv, v, alphas, perm, cv, vv)
				checkPerm(t, perm)
				for j, a := range alphas {
					c, vr := cvarVaR(piv, v, a, perm)
					if vv[j] != vr || !near(cv[j], c, 0) {
						t.Fatalf("%s n=%d α=%v: Multi %.17g, %g; CVaRVaR %.17g, %g", pat.name, n, a, cv[j], vv[j], c, vr)
					}
				}
				// float32
				v32 := make([]float32, n)
				for i, x := range v {
					v32[i] = float32(x)
				}
				multi(piv, v32, alphas, perm, cv, vv)
				for j, a := range alphas {
					c, vr := cvarVaR(piv, v32, a, perm)
					if vv[j] != vr || !near(cv[j], c, 0) {
						t.Fatalf("float32 %s n=%d α=%v: Multi %.17g, %g; CVaRVaR %.17g, %g", pat.name, n, a, cv[j], vv[j], c, vr)
					}
				}
			}
		}
	})
	Multi([]float64{1}, nil, []int{0}, nil, nil) // no alphas: nothing to do
}

func checkPerm(t *testing.T, p []int) {
	t.Helper()
	seen := make([]bool, len(p))
	for _, i := range p {
		if i < 0 || i >= len(p) || seen[i] {
			t.Fatalf("not a permutation: %v", p)
		}
		seen[i] = true
	}
}

// ---- weighted ----------------------------------------------------------------

// bruteWeighted sorts (loss, weight) pairs and applies the definition
// literally: VaR is the smallest positive-weight loss v with
// Σ_{ℓ>v} p ≤ α, CVaR = (Σ_{ℓ>VaR} p ℓ + (α − Σ_{ℓ>VaR} p) VaR)/α.
func bruteWeighted(v, w []float64, alpha float64) (cvar, vr float64) {
	W := 0.0
	for _, x := range w {
		W += x
	}
	A := snap(alpha * W)
	vals := []float64{}
	for i, x := range v {
		if w[i] > 0 {
			vals = append(vals, x)
		}
	}
	slices.Sort(vals)
	above := func(t float64) (s, sl float64) {
		for i, x := range v {
			if x > t {
				s += w[i]
				sl += w[i] * x
			}
		}
		return
	}
	for _, t := range vals { // ascending: the first that qualifies
		if s, sl := above(t); s <= A {
			return (sl + (A-s)*t) / A, t
		}
	}
	panic("unreachable")
}

func TestWeightedEqualWeights(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(9)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				v := pat.gen(n, r)
				perm := make([]int, n)
				for _, c := range []float64{1, 0.1, 3.7, 1.0 / 3} {
					w := slices.Repeat([]float64{c}, n)
					for _, alpha := range alphasFor(n, r) {
						wc, wv := weightedCVaRVaR(piv, v, w, alpha, perm)
						uc, uv := cvarVaR(piv, v, alpha, perm)
						if wv != uv || !near(wc, uc, 0) {
							t.Fatalf("%s n=%d c=%v α=%v: weighted %.17g, %g; unweighted %.17g, %g", pat.name, n, c, alpha, wc, wv, uc, uv)
						}
					}
				}
			}
		}
	})
}

func TestWeightedIntegerWeights(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(10)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				if n > 1000 {
					continue
				}
				v := pat.gen(n, r)
				w := make([]float64, n)
				var dup []float64
				for i := range w {
					w[i] = float64(r.IntN(4)) // zeros included
					if i == 0 {
						w[i]++ // at least one positive
					}
					for range int(w[i]) {
						dup = append(dup, v[i])
					}
				}
				perm := make([]int, n)
				dperm := make([]int, len(dup))
				for _, alpha := range append(alphasFor(n, r), alphasFor(len(dup), r)...) {
					wc, wv := weightedCVaRVaR(piv, v, w, alpha, perm)
					dc, dv := cvarVaR(piv, dup, alpha, dperm)
					if wv != dv || !near(wc, dc, 0) {
						t.Fatalf("%s n=%d α=%v: weighted %.17g, %g; duplicated %.17g, %g (w=%v)", pat.name, n, alpha, wc, wv, dc, dv, w)
					}
				}
			}
		}
	})
}

func TestWeightedRandom(t *testing.T) {
	t.Parallel()
	withMoM(t, func(t *testing.T, piv pivots) {
		r := rng(11)
		for _, pat := range patterns {
			for _, n := range testSizes() {
				if n > 1000 {
					continue
				}
				v := pat.gen(n, r)
				w := make([]float64, n)
				for i := range w {
					if r.IntN(5) > 0 {
						w[i] = r.ExpFloat64()
					}
				}
				w[r.IntN(n)] = 0.5
				W := 0.0
				for _, x := range w {
					W += x
				}
				p := make([]float64, n)
				for i := range p {
					p[i] = w[i] / W
				}
				perm := make([]int, n)
				for _, alpha := range alphasFor(n, r) {
					what := fmt.Sprintf("%s n=%d α=%v", pat.name, n, alpha)
					wc, wv := weightedCVaRVaR(piv, v, w, alpha, perm)
					bc, bv := bruteWeighted(v, w, alpha)
					if wv != bv || !near(wc, bc, 0) {
						t.Fatalf("%s: weighted %.17g, %g; brute %.17g, %g", what, wc, wv, bc, bv)
					}
					checkRU(t, what, v, p, alpha, wc, wv)
				}
			}
		}
	})
}

func TestWeightedZeroWeights(t *testing.T) {
	// A zero-weight sample never counts, even as the minimum at α = 1 or as a
	// loss between two positive-weight losses.
	v := []float64{10, 5, 0, -100, 100}
	w := []float64{1, 0, 1, 0, 0}
	perm := make([]int, 5)
	for _, c := range []struct{ alpha, cvar, vr float64 }{
		{1, 5, 0}, {0.5, 10, 0}, {0.25, 10, 10}, {0.75, 20.0 / 3, 0},
	} {
		if gc, gv := WeightedCVaRVaR(v, w, c.alpha, perm); gv != c.vr || !near(gc, c.cvar, 0) {
			t.Errorf("α=%v: %v, %v; want %v, %v", c.alpha, gc, gv, c.cvar, c.vr)
		}
	}
	if c, vr := WeightedCVaRVaR(v, make([]float64, 5), 0.5, perm); !math.IsNaN(c) || !math.IsNaN(vr) {
		t.Errorf("no positive weight: %v, %v; want NaN", c, vr)
	}
}

// ---- allocations ---------------------------------------------------------

func TestZeroAllocs(t *testing.T) {
	r := rng(12)
	v := patterns[0].gen(1000, r)
	v32 := make([]float32, len(v))
	for i, x := range v {
		v32[i] = float32(x)
	}
	w := make([]float64, len(v))
	w32 := make([]float32, len(v))
	perm := make([]int, len(v))
	alphas := []float64{0.05, 0.1, 1}
	cv, vv := make([]float64, 3), make([]float64, 3)
	sw := make([]float64, len(v))
	for i := range sw {
		sw[i] = r.Float64()
	}
	for name, f := range map[string]func(){
		"Weights":         func() { Weights(w, v, 0.05, perm) },
		"Weights32":       func() { Weights(w32, v32, 0.05, perm) },
		"Select":          func() { iota(perm); Select(v, 100, perm) },
		"CVaRVaR":         func() { CVaRVaR(v, 0.1, perm) },
		"Multi":           func() { Multi(v32, alphas, perm, cv, vv) },
		"WeightedCVaRVaR": func() { WeightedCVaRVaR(v, sw, 0.1, perm) },
	} {
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s: %v allocations per run", name, a)
		}
	}
}

// ---- fuzz ------------------------------------------------------------------

// FuzzSelect checks Select's contract on byte-derived inputs with many ties.
func FuzzSelect(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, uint16(3))
	f.Add(make([]byte, 300), uint16(150))
	f.Fuzz(func(t *testing.T, b []byte, k16 uint16) {
		if len(b) == 0 {
			return
		}
		v := make([]float64, len(b))
		for i, x := range b {
			v[i] = float64(x%16) - 4
		}
		k := int(k16) % (len(v) + 1)
		perm := make([]int, len(v))
		iota(perm)
		Select(v, k, perm)
		checkSelected(t, "fuzz", v, k, perm)
	})
}

// ---- benchmarks ------------------------------------------------------------

func BenchmarkWeights(b *testing.B) {
	for _, n := range []int{512, 1 << 16} {
		r := rng(13)
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.ExpFloat64())
		}
		w := make([]float32, n)
		perm := make([]int, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				Weights(w, v, 0.05, perm)
			}
		})
	}
}

func BenchmarkCVaRVaR(b *testing.B) {
	n := 1 << 20
	r := rng(14)
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	perm := make([]int, n)
	for b.Loop() {
		CVaRVaR(v, 0.05, perm)
	}
}

// TestSumMerge: partial sums merged give the compensated sum of all the
// terms, where a plain float64 sum loses the small ones.
func TestSumMerge(t *testing.T) {
	xs := []float64{1e16, 1, 1, -1e16, 3, 0.5}
	var all Sum
	for _, x := range xs {
		all.Add(x)
	}
	for cut := range len(xs) + 1 {
		var a, b Sum
		for _, x := range xs[:cut] {
			a.Add(x)
		}
		for _, x := range xs[cut:] {
			b.Add(x)
		}
		a.Merge(b)
		if a.Value() != all.Value() || a.Value() != 5.5 {
			t.Errorf("cut at %d: merged %v, whole %v, want 5.5", cut, a.Value(), all.Value())
		}
	}
}
