package kernel

import "unsafe"

// Compact rows read directly by the architecture's row kernels
// (archRowKernels), without a conversion buffer.

// compactRowBase returns the rows from gathered row i0 on as the compact row
// kernels take them: with idx, the storage itself and &idx[i0]; without,
// row i0's address.
func compactRowBase(x *Compact, idx []int, i0 int) (xp, ip unsafe.Pointer) {
	base := ptr(x.U8)
	if x.Format != U8 {
		base = ptr(x.halves())
	}
	if idx != nil {
		return base, unsafe.Pointer(&idx[i0])
	}
	return unsafe.Add(base, i0*x.Stride*x.ElemBytes()), nil
}

// u8CallRows bounds the rows of one compact row kernel call.
func u8CallRows(d int) int { return max(1, min(archFusedMax, archChunkFlops/max(d, 1))) }

// marginsU8Rows writes to m the margins of the gathered rows i0 ≤ i <
// i0+len(m) of x (rows checked; a format archRowKernels takes): the kernel
// over the first d &^ 7 columns, the rest in Go, then the scale of bytes.
func marginsU8Rows(lvl level, m []float32, x *Compact, idx []int, i0 int, w []float32) {
	n, d := len(m), len(w)
	d8 := d &^ 7
	step := u8CallRows(d)
	for i := 0; i < n; i += step {
		b := min(step, n-i)
		if d8 > 0 {
			xp, ip := compactRowBase(x, idx, i0+i)
			archMarginsC(lvl, x.Format, ptr(m[i:]), b, xp, x.Stride, ip, ptr(w), d8)
		} else {
			clear(m[i : i+b])
		}
	}
	if d8 < d {
		for i := range m {
			r := row(idx, i0+i) * x.Stride
			t := m[i]
			for l := d8; l < d; l++ {
				t += raw(x, r+l) * w[l]
			}
			m[i] = t
		}
	}
	if x.Format == U8 {
		s := float32(x.Scale)
		for i := range m {
			m[i] *= s
		}
	}
}

// raw is the feature at flat position p before the scale of bytes: the
// byte as a float32, or the half's or bfloat16's value.
func raw(x *Compact, p int) float32 {
	switch x.Format {
	case F16:
		return F16ToF32(x.F16[p])
	case BF16:
		return BF16ToF32(x.BF16[p])
	}
	return float32(x.U8[p])
}

// addRowsU8Rows adds Σ_i c[i]·x_{r(i0+i)} to g for the gathered rows of x
// (rows checked; a format archRowKernels takes); for bytes, x = scale·u, the
// coefficients times the scale meet the bytes.
func addRowsU8Rows(lvl level, g []float32, x *Compact, idx []int, i0 int, c []float32) {
	d := len(g)
	d8 := d &^ 7
	s := float32(1)
	if x.Format == U8 {
		s = float32(x.Scale)
	}
	step := u8CallRows(d)
	var cs [archFusedMax]float32
	for i := 0; i < len(c); i += step {
		b := min(step, len(c)-i)
		for j := range b {
			cs[j] = c[i+j] * s
		}
		if d8 > 0 {
			xp, ip := compactRowBase(x, idx, i0+i)
			archAddRowsC(lvl, x.Format, ptr(g), d8, xp, x.Stride, ip, ptr(cs[:]), b)
		}
		if d8 < d {
			for j := range b {
				r := row(idx, i0+i+j) * x.Stride
				for l := d8; l < d; l++ {
					g[l] += cs[j] * raw(x, r+l)
				}
			}
		}
	}
}

// fusedLinearU8 is fusedLinearDriver on the rows of a compact matrix, read
// by the compact row kernels: a block of rows (in L1 as bytes, halves or
// bfloat16s) gives its margins, losses and weights, then its gradient.
func fusedLinearU8(lvl level, g, loss []float32, x *Compact, idx []int, y, w []float32, p *LinearStep[float32]) (sumV, sumC float32) {
	n, d := len(loss), len(w)
	g = g[:d]
	y = y[:n]
	checkLoss(p.Loss)
	checkPlus(p.Plus)
	bs := min(archFusedMax, max(8, (32<<10)/max(1, d*x.ElemBytes())&^3))
	var fb fusedBlock[float32]
	for i := 0; i < n; i += bs {
		b := min(bs, n-i)
		// Ask for the next block's rows while this one computes: gathered
		// rows are otherwise fetched one or two at a time.
		for j := i + bs; j < min(i+2*bs, n) && d > 0; j++ {
			archPrefetch(x.at(row(idx, j)*x.Stride), d*x.ElemBytes())
		}
		marginsU8Rows(lvl, fb.m[:b], x, idx, i, w)
		sumV, sumC = fb.weigh(lvl, p, loss[i:i+b], y[i:i+b], sumV, sumC)
		addRowsU8Rows(lvl, g, x, idx, i, fb.c[:b])
	}
	return sumV, sumC
}
