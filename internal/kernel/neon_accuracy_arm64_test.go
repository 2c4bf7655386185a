//go:build gc && !purego

package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The accuracy contract of the math kernels of kernel_arm64.s, checked
// against math/big: exp and log1p within 2 ulp (observed ≤ 1) in float64 and
// float32 over the whole domain — random points, tiny arguments, the
// range-reduction boundaries (k+½)·ln2 and √2·2^k − 1, the clamp limits,
// overflow and gradual underflow — and exact at 0, ±Inf and NaN.

const neonBigPrec = 300

var neonBigLn2, _ = new(big.Float).SetPrec(neonBigPrec).SetString(
	"0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573368552023575813055703267075163507596193072757082837143519030703862389167347112335")

func neonBig(x float64) *big.Float { return new(big.Float).SetPrec(neonBigPrec).SetFloat64(x) }

// neonBigExp returns e^x for finite x to about neonBigPrec bits.
func neonBigExp(x float64) *big.Float {
	k := math.Round(x / math.Ln2)
	r := neonBig(x)
	r.Sub(r, new(big.Float).SetPrec(neonBigPrec).Mul(neonBig(k), neonBigLn2))
	sum, term := neonBig(1), neonBig(1)
	for i := 1; i < 200; i++ {
		term.Mul(term, r)
		term.Quo(term, neonBig(float64(i)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-neonBigPrec-8 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// neonBigLog1p returns log(1+x) for finite x > −1 to about neonBigPrec bits.
func neonBigLog1p(x float64) *big.Float {
	return neonBigLog1pBig(new(big.Float).SetPrec(1200).SetFloat64(x))
}

// neonBigLog1pBig is neonBigLog1p of a big.Float.
func neonBigLog1pBig(bx *big.Float) *big.Float {
	if bx.Sign() == 0 {
		return neonBig(0)
	}
	if bx.MantExp(nil) < -30 {
		// x − x²/2 + x³/3 − …
		sum, pow := new(big.Float).SetPrec(neonBigPrec).Set(bx), new(big.Float).SetPrec(neonBigPrec).Set(bx)
		for i := 2; i < 40; i++ {
			pow.Mul(pow, bx)
			t := new(big.Float).SetPrec(neonBigPrec).Quo(pow, neonBig(float64(i)))
			if i%2 == 0 {
				sum.Sub(sum, t)
			} else {
				sum.Add(sum, t)
			}
		}
		return sum
	}
	u := new(big.Float).SetPrec(1200).Set(bx) // 1 + x exactly for a float64 x
	u.Add(u, new(big.Float).SetPrec(1200).SetInt64(1))
	m := new(big.Float).SetPrec(neonBigPrec)
	e := u.MantExp(m) // u = m·2^e, m ∈ [½, 1)
	if m.Cmp(neonBig(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// log m = 2·atanh(s), s = (m−1)/(m+1), |s| < 0.18.
	s := new(big.Float).SetPrec(neonBigPrec).Sub(m, neonBig(1))
	s.Quo(s, new(big.Float).SetPrec(neonBigPrec).Add(m, neonBig(1)))
	s2 := new(big.Float).SetPrec(neonBigPrec).Mul(s, s)
	sum, pow := new(big.Float).SetPrec(neonBigPrec).Set(s), new(big.Float).SetPrec(neonBigPrec).Set(s)
	for i := 3; i < 400; i += 2 {
		pow.Mul(pow, s2)
		t := new(big.Float).SetPrec(neonBigPrec).Quo(pow, neonBig(float64(i)))
		sum.Add(sum, t)
		if t.Sign() == 0 || t.MantExp(nil) < sum.MantExp(nil)-neonBigPrec-8 {
			break
		}
	}
	sum.Mul(sum, neonBig(2))
	return sum.Add(sum, new(big.Float).SetPrec(neonBigPrec).Mul(neonBig(float64(e)), neonBigLn2))
}

// neonULPErr is |got − ref| in units of the last place of T at ref (the
// subnormal spacing below the normal range). An infinite got is accepted
// when ref rounds to it.
func neonULPErr[T Float](got T, ref *big.Float) float64 {
	p, emin := 53, -1074
	maxT := math.MaxFloat64
	if is32[T]() {
		p, emin = 24, -149
		maxT = math.MaxFloat32
	}
	if math.IsInf(float64(got), 0) {
		r, _ := ref.Float64()
		if is32[T]() {
			r = float64(float32(r))
		}
		if math.IsInf(r, 0) && math.Signbit(r) == math.Signbit(float64(got)) {
			return 0
		}
		return math.Inf(1)
	}
	var e int
	if ref.Sign() != 0 {
		e = ref.MantExp(nil) - p // ulp exponent for |ref| in [2^(E−1), 2^E)
	} else {
		e = emin
	}
	e = max(e, emin)
	diff := new(big.Float).SetPrec(neonBigPrec).Sub(neonBig(float64(got)), ref)
	diff.Abs(diff)
	diff.SetMantExp(diff, -e)
	d, _ := diff.Float64()
	if math.Abs(float64(got)) > maxT {
		return math.Inf(1)
	}
	return d
}

func neonExpInputs(r *rand.Rand, n int, lo, hi float64, short bool) []float64 {
	xs := []float64{709.782712893384, 709.7827128933841, -708.3964185322641, -708.3964185322642,
		-745.1332191019411, -745.1332191019412, -745.2, 88.72283, 88.72284, -87.33654, -103.27893, -103.97208, -104}
	for k := int(math.Floor(lo/math.Ln2)) - 1; k <= int(math.Ceil(hi/math.Ln2))+1; k++ {
		if short && k%7 != 0 {
			continue
		}
		b := (float64(k) + 0.5) * math.Ln2
		xs = append(xs, b, math.Nextafter(b, math.Inf(1)), math.Nextafter(b, math.Inf(-1)))
	}
	for len(xs) < n {
		switch r.IntN(3) {
		case 0:
			xs = append(xs, lo+(hi-lo)*r.Float64())
		case 1:
			xs = append(xs, math.Ldexp(r.Float64()+0.5, -r.IntN(1080))*float64(1-2*r.IntN(2)))
		default:
			xs = append(xs, math.Ldexp(r.Float64()+0.5, r.IntN(10)-5)*float64(1-2*r.IntN(2)))
		}
	}
	return xs
}

func neonLog1pInputs(r *rand.Rand, n int, hiExp int, short bool) []float64 {
	var xs []float64
	for k := -60; k <= hiExp; k++ {
		if short && k%5 != 0 {
			continue
		}
		b := math.Ldexp(math.Sqrt2, k) - 1
		if b > -1 {
			xs = append(xs, b, math.Nextafter(b, math.Inf(1)), math.Nextafter(b, math.Inf(-1)))
		}
	}
	for i := 1; i < 40; i++ {
		xs = append(xs, -1+math.Ldexp(float64(i), -53), -1+math.Ldexp(float64(i), -30))
	}
	for len(xs) < n {
		switch r.IntN(4) {
		case 0:
			xs = append(xs, 2*r.Float64()-1)
		case 1:
			xs = append(xs, math.Ldexp(r.Float64()+0.5, -r.IntN(1080))*float64(1-2*r.IntN(2)))
		case 2:
			xs = append(xs, math.Ldexp(r.Float64()+0.5, r.IntN(hiExp+1)))
		default:
			xs = append(xs, -r.Float64())
		}
	}
	return xs
}

func TestNEONExpLog1pAccuracy(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	n := 6000
	if testing.Short() {
		n = 1000
	}
	t.Run("f64", func(t *testing.T) {
		neonAccuracy(t, im.F64(), neonExpInputs(rand.New(rand.NewPCG(1, 1)), n, -746, 710, testing.Short()),
			neonLog1pInputs(rand.New(rand.NewPCG(2, 2)), n, 1023, testing.Short()))
	})
	t.Run("f32", func(t *testing.T) {
		neonAccuracy(t, im.F32(), neonExpInputs(rand.New(rand.NewPCG(3, 3)), n, -104, 89, testing.Short()),
			neonLog1pInputs(rand.New(rand.NewPCG(4, 4)), n, 127, testing.Short()))
	})
}

func neonAccuracy[T Float](t *testing.T, ops Ops[T], ex, lx []float64) {
	const bound = 2
	check := func(name string, f func(dst, x []T), ref func(float64) *big.Float, xs []float64) {
		in := make([]T, 0, len(xs))
		for _, x := range xs {
			v := T(x)
			if !math.IsInf(float64(v), 0) && v == v && (name == "Exp" || v > -1) {
				in = append(in, v)
			}
		}
		got := make([]T, len(in))
		f(got, in)
		worst, at := 0.0, 0.0
		for i, x := range in {
			e := neonULPErr(got[i], ref(float64(x)))
			if e > worst {
				worst, at = e, float64(x)
			}
			if e > bound {
				t.Errorf("%s(%v) = %v: %.3f ulp from the math/big value", name, x, got[i], e)
			}
		}
		t.Logf("%s: %d points, max error %.3f ulp at x = %v", name, len(in), worst, at)
	}
	check("Exp", ops.Exp, neonBigExp, ex)
	check("Log1p", ops.Log1p, neonBigLog1p, lx)

	// Exact values at the special points.
	inf, nan := T(math.Inf(1)), T(math.NaN())
	negz := T(math.Copysign(0, -1))
	type pt struct{ x, want T }
	exps := []pt{{0, 1}, {negz, 1}, {inf, inf}, {-inf, 0}, {nan, nan}, {T(1e6), inf}, {T(-1e6), 0}}
	logs := []pt{{0, 0}, {negz, negz}, {-1, -inf}, {T(-1.5), nan}, {inf, inf}, {-inf, nan}, {nan, nan}}
	for _, c := range []struct {
		name string
		f    func(dst, x []T)
		pts  []pt
	}{{"Exp", ops.Exp, exps}, {"Log1p", ops.Log1p, logs}} {
		for _, p := range c.pts {
			// In every lane position of a vector and in the padded tail.
			for n := 1; n <= 9; n++ {
				for pos := 0; pos < n; pos++ {
					x := make([]T, n)
					for i := range x {
						x[i] = T(0.25)
					}
					x[pos] = p.x
					dst := make([]T, n)
					c.f(dst, x)
					if !neonSameBits(dst[pos], p.want) {
						t.Errorf("%s(%v) = %v, want %v (n=%d, pos %d)", c.name, p.x, dst[pos], p.want, n, pos)
					}
				}
			}
		}
	}
	// Overflow and underflow edges in float64.
	if !is32[T]() {
		d := make([]T, 6)
		ops.Exp(d, []T{709.782712893384, 709.7827128933841, -708.3964185322641, -745.1332191019411, -745.1332191019412, -745.2})
		if math.IsInf(float64(d[0]), 0) || !math.IsInf(float64(d[1]), 1) || d[2] == 0 || d[3] == 0 || d[5] != 0 {
			t.Errorf("Exp at the overflow/underflow edges: %v", d)
		}
	}
}

// TestNEONLogisticAccuracy checks the logistic loss and its derivative, and
// softplus with its derivative, against math/big: loss = max(−z,0) +
// log(1+e^{−|z|}), dloss = −y·σ(−z), within 2 ulp in float64 (they combine an
// exp, a log1p and a division).
func TestNEONLogisticAccuracy(t *testing.T) {
	t.Parallel()
	im := neonImpl(t)
	r := rand.New(rand.NewPCG(5, 5))
	n := 3000
	if testing.Short() {
		n = 500
	}
	ms := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1e-17, -1e-17, 0.5, -0.5, 1, -1, 36, -36, 37.5, -37.5, 700, -700, 745, -745, 800, -800}
	for len(ms) < n {
		switch r.IntN(3) {
		case 0:
			ms = append(ms, 80*r.Float64()-40)
		case 1:
			ms = append(ms, math.Ldexp(r.Float64()+0.5, -r.IntN(60))*float64(1-2*r.IntN(2)))
		default:
			ms = append(ms, 1500*r.Float64()-750)
		}
	}
	y := make([]float64, len(ms))
	for i := range y {
		y[i] = float64(1 - 2*r.IntN(2))
	}
	loss, dl := make([]float64, len(ms)), make([]float64, len(ms))
	im.F64().LinearLoss(Logistic, loss, dl, ms, y)
	worstL, worstD := 0.0, 0.0
	for i, m := range ms {
		z := y[i] * m
		e := neonBigExp(-math.Abs(z))
		ref := neonBigLog1pBig(e)
		if z < 0 {
			ref.Add(ref, neonBig(-z))
		}
		// σ(−z) = e/(1+e) for z ≥ 0, 1/(1+e) for z < 0.
		den := new(big.Float).SetPrec(neonBigPrec).Add(e, neonBig(1))
		num := e
		if z < 0 {
			num = neonBig(1)
		}
		sig := new(big.Float).SetPrec(neonBigPrec).Quo(num, den)
		sig.Mul(sig, neonBig(-y[i]))
		el, ed := neonULPErr(loss[i], ref), neonULPErr(dl[i], sig)
		worstL, worstD = max(worstL, el), max(worstD, ed)
		if el > 2 || ed > 2 {
			t.Errorf("logistic(m=%v, y=%v) = %v, %v: %.2f, %.2f ulp from math/big", m, y[i], loss[i], dl[i], el, ed)
		}
	}
	t.Logf("logistic: %d points, max error %.3f ulp (loss), %.3f ulp (derivative)", len(ms), worstL, worstD)

	// Softplus ρ = max(s,0) + ε·log1p(e^{−|s|/ε}) and ρ' = σ(s/ε), ε = 0.5 (exact t = s/ε).
	const eps = 0.5
	rho, drho := make([]float64, len(ms)), make([]float64, len(ms))
	im.F64().Plus(PlusSoftplus, eps, rho, drho, ms)
	worstL, worstD = 0, 0
	for i, s := range ms {
		tt := s / eps
		e := neonBigExp(-math.Abs(tt))
		ref := neonBigLog1pBig(e)
		ref.Mul(ref, neonBig(eps))
		if s > 0 {
			ref.Add(ref, neonBig(s))
		}
		den := new(big.Float).SetPrec(neonBigPrec).Add(e, neonBig(1))
		num := e
		if tt >= 0 {
			num = neonBig(1)
		}
		sig := new(big.Float).SetPrec(neonBigPrec).Quo(num, den)
		el, ed := neonULPErr(rho[i], ref), neonULPErr(drho[i], sig)
		worstL, worstD = max(worstL, el), max(worstD, ed)
		if el > 2 || ed > 2 {
			t.Errorf("softplus(%v) = %v, %v: %.2f, %.2f ulp from math/big", s, rho[i], drho[i], el, ed)
		}
	}
	t.Logf("softplus: %d points, max error %.3f ulp (rho), %.3f ulp (derivative)", len(ms), worstL, worstD)
}
