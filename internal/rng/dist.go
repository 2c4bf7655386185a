package rng

import "math"

// NormFloat64 returns a standard normal variate by Box–Muller. From
// uniforms u, v it makes √(−2 ln(1−u))·cos(2πv), returned now. The next
// call returns √(−2 ln(1−u))·sin(2πv).
func (r *Rand) NormFloat64() float64 {
	if r.has {
		r.has = false
		return r.spare
	}
	u := 1 - r.Float64() // (0, 1], so the logarithm is finite
	v := r.Float64()
	rad := math.Sqrt(-2 * log(u))
	s, c := sincos(2 * math.Pi * v)
	r.spare, r.has = rad*s, true
	return rad * c
}

// Gamma returns a Gamma(shape, 1) variate (Marsaglia and Tsang, 2000) for
// a finite shape > 0.
func (r *Rand) Gamma(shape float64) float64 {
	if shape < 1 {
		// Gamma(a) = Gamma(a+1) · U^(1/a).
		return r.Gamma(shape+1) * pow(1-r.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + float64(c*x)
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.Float64()
		if log(u) < float64(0.5*x*x)+d-float64(d*v)+float64(d*log(v)) {
			return d * v
		}
	}
}

// StudentT returns a Student-t variate with dof > 0 degrees of freedom: a
// normal over √(χ²/dof), χ² = 2·Gamma(dof/2).
func (r *Rand) StudentT(dof float64) float64 {
	z := r.NormFloat64()
	chi2 := 2 * r.Gamma(dof/2)
	return z / math.Sqrt(chi2/dof)
}
