package kernel

// Accuracy of exp, log1p, sigmoid, softplus and the logistic loss against
// 200-bit math/big references (our own series with argument reduction), for
// every implementation in Impls():
//
//   - Exp, Log1p: ≤ 2 ulp in float64 and in float32 (the SIMD kernels compute
//     float32 through float64 and meet ≤ 1 ulp; the test holds everyone to the
//     stated contract, 2);
//   - sigmoid (ρ' of PlusSoftplus at ε = 1), softplus (ρ at ε = 1) and the
//     logistic loss and its derivative at y = ±1: ≤ 4 ulp in float64,
//     ≤ 2 ulp in float32.
//
// Points: random over the whole domain, log-uniform magnitudes down to the
// subnormals, near 0, at the reduction boundaries (odd multiples of ln2/2 for
// exp, √2·2^e − 1, √2/2·2^e − 1 and 2^e − 1 for log1p) and their neighbours,
// at the clamp limits and the overflow and underflow thresholds, ±0, ±Inf
// and NaN. Errors in the subnormal range are counted in units of the
// smallest subnormal.

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const bigPrec = 200

func newBig() *big.Float { return new(big.Float).SetPrec(bigPrec) }

// bigAtanh returns Σ_j t^(2j+1)/(2j+1) for |t| ≤ 1/3.
func bigAtanh(t *big.Float) *big.Float {
	sum := newBig().Set(t)
	if t.Sign() == 0 {
		return sum
	}
	p := newBig().Set(t)
	t2 := newBig().Mul(t, t)
	for j := 1; j < 1000; j++ {
		p.Mul(p, t2)
		term := newBig().Quo(p, newBig().SetInt64(int64(2*j+1)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-bigPrec-16 {
			break
		}
	}
	return sum
}

// bigLn2 is log 2 = 2·atanh(1/3).
var bigLn2 = func() *big.Float {
	t := newBig().Quo(newBig().SetInt64(1), newBig().SetInt64(3))
	a := bigAtanh(t)
	return a.Mul(a, newBig().SetInt64(2))
}()

// bigExp returns e^x for finite x (|x| < 2^40): x = k·ln2 + r, e^r by its
// Taylor series at r/2^16 squared 16 times, scaled by 2^k.
func bigExp(x *big.Float) *big.Float {
	xf, _ := x.Float64()
	k := math.Round(xf / math.Ln2)
	r := newBig().Sub(x, newBig().Mul(newBig().SetFloat64(k), bigLn2))
	r.SetMantExp(r, -16)
	sum := newBig().SetInt64(1)
	term := newBig().SetInt64(1)
	for n := 1; n < 200; n++ {
		term.Mul(term, r)
		term.Quo(term, newBig().SetInt64(int64(n)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < -bigPrec-24 {
			break
		}
	}
	for i := 0; i < 16; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// bigLog1p returns log(1+x) for finite x > −1: a series for |x| < 2^−20,
// otherwise 1+x = m·2^e with m ∈ [√½, √2) and log m = 2·atanh((m−1)/(m+1)).
func bigLog1p(x *big.Float) *big.Float {
	if x.Sign() == 0 {
		return newBig()
	}
	if x.MantExp(nil) < -20 {
		sum := newBig().Set(x)
		p := newBig().Set(x)
		negx := newBig().Neg(x)
		for n := 2; n < 100; n++ {
			p.Mul(p, negx)
			term := newBig().Quo(p, newBig().SetInt64(int64(n)))
			sum.Add(sum, term)
			if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-bigPrec-16 {
				break
			}
		}
		return sum
	}
	const wide = 2400
	y := new(big.Float).SetPrec(wide).Add(new(big.Float).SetPrec(wide).Set(x), big.NewFloat(1))
	m := new(big.Float).SetPrec(wide)
	e := y.MantExp(m)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	num := new(big.Float).SetPrec(wide).Sub(m, big.NewFloat(1))
	den := new(big.Float).SetPrec(wide).Add(m, big.NewFloat(1))
	t := newBig().Quo(num, den)
	a := bigAtanh(t)
	a.Mul(a, newBig().SetInt64(2))
	return a.Add(a, newBig().Mul(newBig().SetInt64(int64(e)), bigLn2))
}

func bigF(x float64) *big.Float { return newBig().SetFloat64(x) }

// bigSoftplusB returns log(1 + e^a), for finite a, as a + log1p(e^{−a}) when
// a > 0.
func bigSoftplusB(a float64) *big.Float {
	if a > 0 {
		l := bigLog1p(bigExp(bigF(-a)))
		return l.Add(l, bigF(a))
	}
	return bigLog1p(bigExp(bigF(a)))
}

// bigSigmoidB returns 1/(1 + e^{−a}) for finite a.
func bigSigmoidB(a float64) *big.Float {
	d := bigExp(bigF(-a))
	d.Add(d, newBig().SetInt64(1))
	return newBig().Quo(newBig().SetInt64(1), d)
}

func bigLogistic(a float64) float64 { v, _ := bigSoftplusB(a).Float64(); return v }
func bigSigmoid(a float64) float64  { v, _ := bigSigmoidB(a).Float64(); return v }

// ulpErr returns |got − exact| in ulps of T at exact (subnormal ulps in the
// subnormal range); an infinite got counts as the largest finite value plus
// one ulp.
func ulpErr[T Float](got T, exact *big.Float) float64 {
	g := float64(got)
	if g != g {
		return math.Inf(1)
	}
	maxT := math.MaxFloat64
	if isF32[T]() {
		maxT = math.MaxFloat32
	}
	if math.IsInf(g, 0) {
		// Correct when exact rounds to ±Inf in T: |exact| ≥ max + ulp/2.
		thr := bigF(maxT)
		thr.Add(thr, bigF(ulpOf[T](maxT)/2))
		if ab := newBig().Abs(exact); ab.Cmp(thr) >= 0 && (exact.Sign() > 0) == (g > 0) {
			return 0
		}
		g = math.Copysign(maxT, g)
		gb := bigF(g)
		ub := bigF(math.Copysign(ulpOf[T](maxT), g))
		gb.Add(gb, ub)
		d := newBig().Sub(gb, exact)
		df, _ := d.Float64()
		ef, _ := exact.Float64()
		return math.Abs(df) / ulpOf[T](math.Min(math.Abs(ef), maxT))
	}
	d := newBig().Sub(bigF(g), exact)
	df, _ := d.Float64()
	ef, _ := exact.Float64()
	return math.Abs(df) / ulpOf[T](math.Min(math.Abs(ef), maxT))
}

// accPoint is one accuracy check: input, the exact value (nil where want
// holds the exact special value), and the name.
type accPoint struct {
	x     float64
	exact *big.Float
	want  float64 // used when exact is nil
}

// checkAcc evaluates f on all points at once and checks the ulp bound,
// logging the largest error seen.
func checkAcc[T Float](t *testing.T, name string, pts []accPoint, f func(dst, x []T), bound float64) {
	t.Helper()
	x := make([]T, len(pts))
	for i, p := range pts {
		x[i] = T(p.x)
	}
	got := make([]T, len(pts))
	f(got, x)
	worst, at := 0.0, 0.0
	for i, p := range pts {
		if p.exact == nil {
			w := T(p.want)
			if !sameFloat(got[i], w) {
				t.Errorf("%s(%v) = %v, want %v", name, p.x, got[i], w)
			}
			continue
		}
		e := ulpErr(got[i], p.exact)
		if e > worst {
			worst, at = e, p.x
		}
		if e > bound {
			ef, _ := p.exact.Float64()
			t.Errorf("%s(%v) = %v, exact %v: %.3g ulp > %g", name, p.x, got[i], ef, e, bound)
		}
	}
	t.Logf("%s %s: %d points, max error %.3f ulp (at %v)", name, typeName[T](), len(pts), worst, at)
}

// Ranges and thresholds of T.
type limits struct {
	expMin, expMax    float64 // clamp limits of the inputs to test over
	overflow          float64 // log(MaxT)
	underflow         float64 // log(smallest subnormal / 2)
	subnormal         float64 // log(smallest normal)
	minExp, maxExpBin int     // binades of T
}

func limitsOf[T Float]() limits {
	if isF32[T]() {
		return limits{-110, 95, 88.72283905206835, -103.97207708399179, -87.33654475055310, -149, 127}
	}
	return limits{-760, 720, 709.782712893384, -745.1332191019412, -708.3964185322641, -1074, 1023}
}

// around returns x and its n neighbours on each side in T.
func around[T Float](x float64, n int) []float64 {
	out := []float64{float64(T(x))}
	up, dn := float64(T(x)), float64(T(x))
	for i := 0; i < n; i++ {
		if isF32[T]() {
			up = float64(math.Nextafter32(float32(up), float32(math.Inf(1))))
			dn = float64(math.Nextafter32(float32(dn), float32(math.Inf(-1))))
		} else {
			up = math.Nextafter(up, math.Inf(1))
			dn = math.Nextafter(dn, math.Inf(-1))
		}
		out = append(out, up, dn)
	}
	return out
}

// expInputs returns the test inputs of exp in T (already rounded to T).
func expInputs[T Float](r *rand.Rand, nRand int) []float64 {
	lim := limitsOf[T]()
	var xs []float64
	for i := 0; i < nRand; i++ {
		xs = append(xs, lim.expMin+(lim.expMax-lim.expMin)*r.Float64())
		xs = append(xs, math.Copysign(math.Ldexp(1+r.Float64(), lim.minExp+r.IntN(10-lim.minExp)), float64(2*r.IntN(2)-1)))
	}
	kmin, kmax := int(lim.underflow/math.Ln2)-2, int(lim.overflow/math.Ln2)+2
	for k := kmin; k <= kmax; k++ {
		xs = append(xs, around[T]((float64(k)+0.5)*math.Ln2, 1)...)
	}
	for _, th := range []float64{lim.overflow, lim.underflow, lim.subnormal, lim.expMin, lim.expMax, 710, -746, 0} {
		xs = append(xs, around[T](th, 8)...)
	}
	for i := range xs {
		xs[i] = float64(T(xs[i]))
	}
	return xs
}

func testExpAccuracy[T Float](t *testing.T, ops Ops[T], nRand int) {
	r := rand.New(rand.NewPCG(31, 32))
	var pts []accPoint
	for _, x := range expInputs[T](r, nRand) {
		if math.IsInf(x, 0) {
			continue
		}
		pts = append(pts, accPoint{x: x, exact: bigExp(bigF(x))})
	}
	pts = append(pts,
		accPoint{x: math.Inf(1), want: math.Inf(1)}, accPoint{x: math.Inf(-1), want: 0},
		accPoint{x: math.NaN(), want: math.NaN()}, accPoint{x: 0, want: 1},
		accPoint{x: math.Copysign(0, -1), want: 1}, accPoint{x: 1e6, want: math.Inf(1)},
		accPoint{x: -1e6, want: 0}, accPoint{x: math.MaxFloat32, want: math.Inf(1)})
	checkAcc(t, "Exp", pts, ops.Exp, 2)
}

func testLog1pAccuracy[T Float](t *testing.T, ops Ops[T], nRand int) {
	r := rand.New(rand.NewPCG(33, 34))
	lim := limitsOf[T]()
	var xs []float64
	for i := 0; i < nRand; i++ {
		xs = append(xs, 2*r.Float64()-1)
		xs = append(xs, math.Ldexp(1+r.Float64(), lim.minExp+r.IntN(lim.maxExpBin-lim.minExp)))
		xs = append(xs, -math.Ldexp(1+r.Float64(), lim.minExp+r.IntN(-lim.minExp-1)))
	}
	for e := -60; e <= lim.maxExpBin; e++ {
		for _, b := range []float64{math.Sqrt2, math.Sqrt2 / 2, 1} {
			v := math.Ldexp(b, e) - 1
			if math.IsInf(v, 0) || v <= -1 {
				continue
			}
			xs = append(xs, around[T](v, 1)...)
		}
	}
	for k := 1; k <= 60; k++ {
		xs = append(xs, -1+math.Ldexp(1, -k), -1+math.Ldexp(1.5, -k))
	}
	for _, th := range []float64{0, 1e-8, -1e-8, 0.5, -0.5, math.MaxFloat32} {
		xs = append(xs, around[T](th, 4)...)
	}
	var pts []accPoint
	for _, x := range xs {
		x = float64(T(x))
		if math.IsInf(x, 0) || x <= -1 {
			continue
		}
		pts = append(pts, accPoint{x: x, exact: bigLog1p(bigF(x))})
	}
	sub := math.Ldexp(1, lim.minExp)
	pts = append(pts,
		accPoint{x: -1, want: math.Inf(-1)}, accPoint{x: -1.5, want: math.NaN()},
		accPoint{x: math.Inf(-1), want: math.NaN()}, accPoint{x: math.Inf(1), want: math.Inf(1)},
		accPoint{x: math.NaN(), want: math.NaN()}, accPoint{x: 0, want: 0},
		accPoint{x: math.Copysign(0, -1), want: math.Copysign(0, -1)},
		accPoint{x: sub, want: sub}, accPoint{x: -sub, want: -sub})
	checkAcc(t, "Log1p", pts, ops.Log1p, 2)
}

// sigmoidInputs are inputs for σ, softplus and the logistic loss.
func sigmoidInputs[T Float](r *rand.Rand, nRand int) []float64 {
	lim := limitsOf[T]()
	var xs []float64
	for i := 0; i < nRand; i++ {
		xs = append(xs, (2*r.Float64()-1)*lim.expMax)
		xs = append(xs, math.Copysign(math.Ldexp(1+r.Float64(), lim.minExp+r.IntN(12-lim.minExp)), float64(2*r.IntN(2)-1)))
	}
	for k := -30; k <= 30; k++ {
		xs = append(xs, around[T]((float64(k)+0.5)*math.Ln2, 1)...)
	}
	for _, th := range []float64{lim.overflow, -lim.overflow, lim.underflow, -lim.underflow, lim.subnormal, -lim.subnormal, 0, 36.7, -36.7, 17, -17} {
		xs = append(xs, around[T](th, 4)...)
	}
	for i := range xs {
		xs[i] = float64(T(xs[i]))
	}
	return xs
}

func testSigmoidAccuracy[T Float](t *testing.T, ops Ops[T], nRand int) {
	r := rand.New(rand.NewPCG(35, 36))
	xs := sigmoidInputs[T](r, nRand)
	bound := 4.0
	if isF32[T]() {
		bound = 2
	}
	var sp, sg, lo, dl []accPoint
	for _, x := range xs {
		sp = append(sp, accPoint{x: x, exact: bigSoftplusB(x)})
		sg = append(sg, accPoint{x: x, exact: bigSigmoidB(x)})
		lo = append(lo, accPoint{x: x, exact: bigSoftplusB(-x)})
		d := bigSigmoidB(-x)
		dl = append(dl, accPoint{x: x, exact: d.Neg(d)})
	}
	inf, nan := math.Inf(1), math.NaN()
	sp = append(sp, accPoint{x: inf, want: inf}, accPoint{x: -inf, want: 0}, accPoint{x: nan, want: nan})
	sg = append(sg, accPoint{x: inf, want: 1}, accPoint{x: -inf, want: 0}, accPoint{x: nan, want: nan})
	lo = append(lo, accPoint{x: inf, want: 0}, accPoint{x: -inf, want: inf}, accPoint{x: nan, want: nan})
	dl = append(dl, accPoint{x: inf, want: math.Copysign(0, -1)}, accPoint{x: -inf, want: -1}, accPoint{x: nan, want: nan})
	checkAcc(t, "Softplus", sp, func(dst, s []T) { ops.Plus(PlusSoftplus, 1, dst, nil, s) }, bound)
	checkAcc(t, "Sigmoid", sg, func(dst, s []T) { ops.Plus(PlusSoftplus, 1, nil, dst, s) }, bound)
	ones := func(n int) []T {
		y := make([]T, n)
		for i := range y {
			y[i] = 1
		}
		return y
	}
	checkAcc(t, "LogisticLoss", lo, func(dst, m []T) { ops.LinearLoss(Logistic, dst, make([]T, len(m)), m, ones(len(m))) }, bound)
	checkAcc(t, "LogisticDeriv", dl, func(dst, m []T) { ops.LinearLoss(Logistic, make([]T, len(m)), dst, m, ones(len(m))) }, bound)
	// y = −1 mirrors m.
	neg := make([]accPoint, len(lo))
	for i, p := range lo {
		neg[i] = accPoint{x: -p.x, exact: p.exact, want: p.want}
	}
	checkAcc(t, "LogisticLoss(y=-1)", neg, func(dst, m []T) {
		y := ones(len(m))
		for i := range y {
			y[i] = -1
		}
		ops.LinearLoss(Logistic, dst, make([]T, len(m)), m, y)
	}, bound)
}

func accuracyPoints() int {
	if testing.Short() {
		return 2000
	}
	return 20000
}

func TestExpAccuracy(t *testing.T) {
	t.Parallel()
	n := accuracyPoints()
	forImpls(t, func(t *testing.T, im Impl) { testExpAccuracy(t, im.F32(), n) }, func(t *testing.T, im Impl) { testExpAccuracy(t, im.F64(), n) })
}

func TestLog1pAccuracy(t *testing.T) {
	t.Parallel()
	n := accuracyPoints()
	forImpls(t, func(t *testing.T, im Impl) { testLog1pAccuracy(t, im.F32(), n) }, func(t *testing.T, im Impl) { testLog1pAccuracy(t, im.F64(), n) })
}

func TestSigmoidSoftplusLogisticAccuracy(t *testing.T) {
	t.Parallel()
	n := accuracyPoints() / 4
	forImpls(t, func(t *testing.T, im Impl) { testSigmoidAccuracy(t, im.F32(), n) }, func(t *testing.T, im Impl) { testSigmoidAccuracy(t, im.F64(), n) })
}

// TestBigReference checks the math/big reference functions themselves.
func TestBigReference(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{-700, -3, -1e-10, 0.5, 1, 2, 30, 709} {
		got, _ := bigExp(bigF(x)).Float64()
		if ulpDiff(got, math.Exp(x)) > 1 {
			t.Errorf("bigExp(%v) = %v, math.Exp %v", x, got, math.Exp(x))
		}
	}
	for _, x := range []float64{-0.999, -0.5, -1e-12, 1e-30, 1e-6, 0.3, 1, 10, 1e100} {
		got, _ := bigLog1p(bigF(x)).Float64()
		if ulpDiff(got, math.Log1p(x)) > 1 {
			t.Errorf("bigLog1p(%v) = %v, math.Log1p %v", x, got, math.Log1p(x))
		}
	}
	if l, _ := bigLn2.Float64(); l != math.Ln2 {
		t.Errorf("ln2 = %v", l)
	}
}
