package rng

import "math"

// The elementary functions the distributions need, for the arguments they
// pass. They are the FreeBSD msun / Cephes algorithms of Go's pure-Go math
// package, in the same order of operations. Every product that feeds a sum
// is wrapped in float64(). The Go spec lets a compiler fuse x*y+z into one
// rounding unless a conversion forces the product's rounding. On arm64
// (or amd64 built with GOAMD64=v3) it does fuse. On some platforms
// math.Log and math.Exp are assembly. The amd64 assembly of math.Exp
// differs between CPUs with and without FMA. So the platform's routines cannot be used
// where the draws must be the same everywhere.

// log returns the natural logarithm of a finite x > 0 (error < 1 ulp).
func log(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
		ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
		l1    = 6.666666666666735130e-01   // 0x3FE5555555555593
		l2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
		l3    = 2.857142874366239149e-01   // 0x3FD2492494229359
		l4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
		l5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
		l6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
		l7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	// x = 2^k · (1+f), 1+f in [√2/2, √2).
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	rr := t1 + t2
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+rr)) + float64(k*ln2Lo))) - f)
}

// exp returns e^x (error < 1 ulp).
func exp(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		log2e = 1.44269504088896338700e+00

		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)

		p1 = 1.66666666666666657415e-01  // 0x3FC55555; 0x55555555
		p2 = -2.77777777770155933842e-03 // 0xBF66C16C; 0x16BEBD93
		p3 = 6.61375632143793436117e-05  // 0x3F11566A; 0xAF25DE2C
		p4 = -1.65339022054652515390e-06 // 0xBEBBBD41; 0xC5D26BF1
		p5 = 4.13813679705723846039e-08  // 0x3E663769; 0x72BEA4D0
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	// x = k·ln2 + r, |r| ≤ ln2/2, r carried as hi − lo.
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := r * r
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// pow returns x^y for a finite x > 0 and a finite y, as Go's math.Pow
// computes it. Let yi be the integer part of |y| and yf the fraction, in
// (−½, ½]. Then x^yi comes from repeated squaring of x's mantissa. It is
// multiplied by e^(yf·ln x).
func pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case y == 0.5:
		return math.Sqrt(x)
	case y == -0.5:
		return 1 / math.Sqrt(x)
	}
	yi, yf := math.Modf(math.Abs(y))
	if yi >= 1<<63 {
		if (x < 1) == (y > 0) {
			return 0
		}
		return math.Inf(1)
	}
	a1, ae := 1.0, 0 // the result is a1 · 2^ae
	if yf != 0 {
		if yf > 0.5 {
			yf--
			yi++
		}
		a1 = exp(yf * log(x))
	}
	x1, xe := math.Frexp(x)
	for i := int64(yi); i != 0; i >>= 1 {
		if xe < -1<<12 || 1<<12 < xe {
			ae += xe // the result under- or overflows
			break
		}
		if i&1 == 1 {
			a1 *= x1
			ae += xe
		}
		x1 *= x1
		xe <<= 1
		if x1 < .5 {
			x1 += x1
			xe--
		}
	}
	if y < 0 {
		a1 = 1 / a1
		ae = -ae
	}
	return math.Ldexp(a1, ae)
}

// sincos returns sin x and cos x for 0 ≤ x < 2⁲⁹. It uses Cody–Waite
// reduction by π/4 and Cephes' polynomials. The error is < 1 ulp for the
// x ∈ [0, 2π) that Box–Muller passes.
func sincos(x float64) (sin, cos float64) {
	const (
		pi4A = 7.85398125648498535156e-1  // 0x3fe921fb40000000, π/4 in three parts
		pi4B = 3.77489470793079817668e-8  // 0x3e64442d00000000
		pi4C = 2.69515142907905952645e-15 // 0x3ce8469898cc5170
	)
	j := uint64(x * (4 / math.Pi)) // the octant
	y := float64(j)
	if j&1 == 1 { // map zeros to origin
		j++
		y++
	}
	j &= 7
	z := ((x - float64(y*pi4A)) - float64(y*pi4B)) - float64(y*pi4C)
	sinSign, cosSign := false, false
	if j > 3 {
		j -= 4
		sinSign, cosSign = !sinSign, !cosSign
	}
	if j > 1 {
		cosSign = !cosSign
	}
	zz := z * z
	cos = (1.0 - float64(0.5*zz)) + float64(float64(zz*zz)*horner(&cosCoef, zz))
	sin = z + float64(float64(z*zz)*horner(&sinCoef, zz))
	if j == 1 || j == 2 {
		sin, cos = cos, sin
	}
	if cosSign {
		cos = -cos
	}
	if sinSign {
		sin = -sin
	}
	return sin, cos
}

// horner evaluates c[0]·z⁵ + c[1]·z⁴ + … + c[5], rounding each product.
func horner(c *[6]float64, z float64) float64 {
	p := c[0]
	for _, v := range c[1:] {
		p = float64(p*z) + v
	}
	return p
}

// The Cephes coefficients of sin and cos on [−π/4, π/4].
var (
	sinCoef = [6]float64{
		1.58962301576546568060e-10, // 0x3de5d8fd1fd19ccd
		-2.50507477628578072866e-8, // 0xbe5ae5e5a9291f5d
		2.75573136213857245213e-6,  // 0x3ec71de3567d48a1
		-1.98412698295895385996e-4, // 0xbf2a01a019bfdf03
		8.33333333332211858878e-3,  // 0x3f8111111110f7d0
		-1.66666666666666307295e-1, // 0xbfc5555555555548
	}
	cosCoef = [6]float64{
		-1.13585365213876817300e-11, // 0xbda8fa49a0861a9b
		2.08757008419747316778e-9,   // 0x3e21ee9d7b4e3f05
		-2.75573141792967388112e-7,  // 0xbe927e4f7eac4bc6
		2.48015872888517045348e-5,   // 0x3efa01a019c844f5
		-1.38888888888730564116e-3,  // 0xbf56c16c16c14f91
		4.16666666666665929218e-2,   // 0x3fa555555555554b
	}
)
