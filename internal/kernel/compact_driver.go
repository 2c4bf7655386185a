package kernel

import "unsafe"

// The driver of the Compact kernels in assembly implementations: float32
// kernels over converted blocks. Where the architecture has compact kernels,
// they read the rows themselves. These are the row kernels of the linear
// models (archRowKernels). On amd64 they are also the class kernels of
// MarginsKC and AddOuterKC (classKernelsC).

// compactBuf is the number of float32 values a block of converted rows
// holds: 32 KiB, an L1 data cache's worth. Rows of at most compactBuf
// features are converted a block of rows at a time. They then run through
// the float32 row kernels. Longer rows are converted a column block at a
// time.
const compactBuf = 8192

// compactDriverOps sets the Compact kernels of an assembly implementation.
// Float32 gets the driver's, float64 the generic loops. Compact storage is
// meant for float32 models; float64 models read it correctly, unhurried.
func compactDriverOps[T Float](o *table[T]) {
	compactOps(o)
	if !is32[T]() {
		return
	}
	o32 := any(o).(*table[float32])
	o32.marginsC = marginsCDriver
	o32.addRowsC = addRowsCDriver
	o32.marginsKC = marginsKCDriver
	o32.addOuterKC = addOuterKCNoNext
	o32.addOuterKCNext = addOuterKCDriver
	o32.fusedLinearC = fusedLinearCDriver
}

// addOuterKCNoNext is AddOuterKC: addOuterKCDriver with no rows to
// prefetch.
func addOuterKCNoNext(lvl level, g []float32, x *Compact, idx []int, c []float32, k int) {
	addOuterKCDriver(lvl, g, x, idx, c, k, nil)
}

// convert writes cols features of the gathered rows i0 ≤ i < i0+b into buf,
// from column l on. buf is row-major, of stride cols. Rows are checked.
func convert(buf []float32, x *Compact, idx []int, i0, b, l, cols int) {
	if b == 0 || cols == 0 {
		return
	}
	buf = buf[:b*cols]
	contiguous := idx == nil && x.Stride == cols
	es := x.ElemBytes()
	for i := 0; i < b; i++ {
		if !contiguous && i+2 < b && cols > 0 {
			// Gathered rows come one at a time. So ask for the row after
			// next, and several rows' lines are in flight.
			p := row(idx, i0+i+2)*x.Stride + l
			archPrefetch(x.at(p), cols*es)
		}
		r := row(idx, i0+i)*x.Stride + l
		n := cols
		if contiguous {
			n = b * cols // the rows follow each other: one call
		}
		convertN(unsafe.Pointer(&buf[i*cols]), x, r, n)
		if contiguous {
			return
		}
	}
}

// convertN converts the n elements of x from flat position p on to dst.
func convertN(dst unsafe.Pointer, x *Compact, p, n int) {
	nw := n &^ 7
	out := unsafe.Slice((*float32)(dst), n)
	if x.Format == U8 {
		src := x.U8[p : p+n]
		s := float32(x.Scale)
		if nw > 0 {
			archCvtU8(dst, unsafe.Pointer(&src[0]), nw, s)
		}
		for j := nw; j < n; j++ {
			out[j] = s * float32(src[j])
		}
		return
	}
	if x.Format == BF16 {
		src := x.BF16[p : p+n]
		if nw > 0 {
			archCvtBF16(dst, unsafe.Pointer(&src[0]), nw)
		}
		for j := nw; j < n; j++ {
			out[j] = BF16ToF32(src[j])
		}
		return
	}
	src := x.F16[p : p+n]
	if nw > 0 {
		archCvtF16(dst, unsafe.Pointer(&src[0]), nw)
	}
	for j := nw; j < n; j++ {
		out[j] = F16ToF32(src[j])
	}
}

// classKernelsC reports whether MarginsKC and AddOuterKC of k classes run
// the class kernels that read the rows directly (archClassKernelsC). Rows
// need at least 8 features. The ymm kernels read the register of 8 that ends
// a row to take its last d mod 8. Shorter rows are converted. In ymm there
// must be at most two class blocks, since each block widens the rows again.
// With few blocks, reading directly saves the conversion. With many,
// converting the rows once costs less than widening them in every block.
func classKernelsC(lvl level, f Format, d, k int) bool {
	return archClassKernelsC(lvl, f) && d >= 8 && (lvl.isa == isaWide || k <= 2*archClassBlock(lvl))
}

// compactRows is the number of rows of d features a block holds.
func compactRows(d int) int { return max(1, compactBuf/max(d, 1)) }

func marginsCDriver(lvl level, m []float32, x *Compact, idx []int, w []float32) {
	n, d := len(m), len(w)
	checkCompactRows(n, x, idx, d)
	if n == 0 {
		return
	}
	if d == 0 {
		clear(m)
		return
	}
	if archRowKernels(x.Format) {
		marginsU8Rows(lvl, m, x, idx, 0, w)
		return
	}
	var buf [compactBuf]float32
	if d <= compactBuf {
		rb := compactRows(d)
		for i := 0; i < n; i += rb {
			b := min(rb, n-i)
			convert(buf[:], x, idx, i, b, 0, d)
			marginsDriver(lvl, m[i:i+b], buf[:b*d], d, nil, w)
		}
		return
	}
	for i := 0; i < n; i++ {
		var s float32
		for l := 0; l < d; l += compactBuf {
			c := min(compactBuf, d-l)
			convert(buf[:], x, idx, i, 1, l, c)
			s += dotDriver(lvl, buf[:c], w[l:l+c])
		}
		m[i] = s
	}
}

func addRowsCDriver(lvl level, g []float32, x *Compact, idx []int, c []float32) {
	n, d := len(c), len(g)
	checkCompactRows(n, x, idx, d)
	if n == 0 || d == 0 {
		return
	}
	if archRowKernels(x.Format) {
		addRowsU8Rows(lvl, g, x, idx, 0, c)
		return
	}
	var buf [compactBuf]float32
	if d <= compactBuf {
		rb := compactRows(d)
		for i := 0; i < n; i += rb {
			b := min(rb, n-i)
			convert(buf[:], x, idx, i, b, 0, d)
			addRowsDriver(lvl, g, buf[:b*d], d, nil, c[i:i+b])
		}
		return
	}
	for i := 0; i < n; i++ {
		for l := 0; l < d; l += compactBuf {
			cols := min(compactBuf, d-l)
			convert(buf[:], x, idx, i, 1, l, cols)
			axpyDriver(lvl, c[i], buf[:cols], g[l:l+cols])
		}
	}
}

func marginsKCDriver(lvl level, m []float32, x *Compact, idx []int, w []float32, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	checkCompactRows(n, x, idx, d)
	if n == 0 {
		return
	}
	if d == 0 {
		clear(m[:n*k])
		return
	}
	if classKernelsC(lvl, x.Format, d, k) && d <= archColBlock {
		// The class kernel reads the rows' bytes, halves or bfloat16s
		// itself, with the blocking of marginsKDriver on float32 rows.
		eachClassBlock[float32](lvl, n, d, k, func(first bool, i, b, j, c int) {
			archMarginsKC(lvl, first, ptr(m[i*k+j:]), k, b, x, idx, i, ptr(w[j*d:]), d, c)
		})
		return
	}
	// The register-blocked kernel takes blocks of rb rows through every
	// class block. A conversion block of as many rows keeps the weights'
	// passes as few as on dense rows. (16 rows of 784 features take 49 KiB.)
	var buf [2 * compactBuf]float32
	if d <= compactBuf {
		rb := compactRows(d)
		if rk := max(2, archChunkFlops/(archClassBlock(lvl)*d)) &^ 1; archClassKernels && rk*d <= len(buf) {
			rb = max(rb, rk)
		}
		for i := 0; i < n; i += rb {
			b := min(rb, n-i)
			convert(buf[:], x, idx, i, b, 0, d)
			marginsKDriver(lvl, m[i*k:(i+b)*k], buf[:b*d], d, nil, w, k)
		}
		return
	}
	for i := 0; i < n; i++ {
		mi := m[i*k : (i+1)*k]
		clear(mi)
		for l := 0; l < d; l += compactBuf {
			cols := min(compactBuf, d-l)
			convert(buf[:], x, idx, i, 1, l, cols)
			for j := range mi {
				mi[j] += dotDriver(lvl, buf[:cols], w[j*d+l:j*d+l+cols])
			}
		}
	}
}

// addOuterKCDriver is AddOuterKC, and with next AddOuterKCNext. The class
// kernels of compact rows prefetch the next rows, as in addOuterKDriver.
func addOuterKCDriver(lvl level, g []float32, x *Compact, idx []int, c []float32, k int, next []int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	checkCompactRows(n, x, idx, d)
	if n == 0 || d == 0 {
		return
	}
	if classKernelsC(lvl, x.Format, d, k) {
		// The class kernel reads the rows' bytes, halves or bfloat16s
		// itself, with the blocking of addOuterKDriver on float32 rows. It
		// does so for one or two classes too. Reading each row once costs
		// less than converting blocks for addRows.
		eachOuterBlock(lvl, n, d, k, archOuterRowsK, archOuterStrip/4, nil, func(first bool, i, b, l, cols, j, nc int) {
			if nb := blockNext(next, idx, i, b); first && len(nb) > 0 {
				archAddOuterKCNext(lvl, ptr(g[j*d+l:]), d, x, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc, ptr(nb), len(nb))
				return
			}
			archAddOuterKC(lvl, first, ptr(g[j*d+l:]), d, x, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc)
		})
		return
	}
	var buf [compactBuf]float32
	if archClassKernels && k >= 3 {
		// As addOuterKDriver: blocks of rows, then column strips, then class
		// blocks. Each strip of the block's rows is converted once; 64 rows
		// × 128 columns fill the buffer. So g is read and written once per
		// 64 rows, as on dense rows.
		strip := archOuterStrip / 4
		rows := min(archOuterRowsK, compactBuf/strip)
		convertStrip := func(i, b, l, cols int) { convert(buf[:], x, idx, i, b, l, cols) }
		eachOuterBlock(lvl, n, d, k, rows, strip, convertStrip, func(first bool, i, b, l, cols, j, nc int) {
			archAddOuterK(lvl, first, ptr(g[j*d+l:]), d, buf[:b*cols], cols, nil, 0, 0, ptr(c[i*k+j:]), k, b, cols, nc)
		})
		return
	}
	if d <= compactBuf {
		rb := compactRows(d)
		for i := 0; i < n; i += rb {
			b := min(rb, n-i)
			convert(buf[:], x, idx, i, b, 0, d)
			addOuterKDriver(lvl, g[:k*d], buf[:b*d], d, nil, c[i*k:(i+b)*k], k, nil)
		}
		return
	}
	for i := 0; i < n; i++ {
		for l := 0; l < d; l += compactBuf {
			cols := min(compactBuf, d-l)
			convert(buf[:], x, idx, i, 1, l, cols)
			for j := 0; j < k; j++ {
				axpyDriver(lvl, c[i*k+j], buf[:cols], g[j*d+l:j*d+l+cols])
			}
		}
	}
}

func fusedLinearCDriver(lvl level, g, loss []float32, x *Compact, idx []int, y, w []float32, p *LinearStep[float32]) (sumV, sumC float32) {
	n, d := len(loss), len(w)
	checkCompactRows(n, x, idx, d)
	if n == 0 {
		return 0, 0
	}
	if archRowKernels(x.Format) {
		return fusedLinearU8(lvl, g, loss, x, idx, y, w, p)
	}
	if d > compactBuf {
		return fusedLinearCGeneric(g, loss, x, idx, y, w, p)
	}
	y = y[:n]
	var buf [compactBuf]float32
	rb := compactRows(d)
	for i := 0; i < n; i += rb {
		b := min(rb, n-i)
		convert(buf[:], x, idx, i, b, 0, d)
		v, c := fusedLinearDriver(lvl, g, loss[i:i+b], buf[:b*d], d, nil, y[i:i+b], w, p)
		sumV += v
		sumC += c
	}
	return sumV, sumC
}

// Compact rows read directly by the architecture's row kernels
// (archRowKernels), without a conversion buffer.

// compactRowBase returns the rows from gathered row i0 on as the compact row
// kernels take them. With idx, they are the storage itself and &idx[i0].
// Without, they are row i0's address.
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

// marginsU8Rows writes to m the margins of the gathered rows
// i0 ≤ i < i0+len(m) of x. The rows are checked, in a format archRowKernels
// takes. The kernel takes the first d &^ 7 columns, and Go the rest. Then
// the scale of bytes is applied.
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

// raw is the feature at flat position p before the scale of bytes. It is the
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

// addRowsU8Rows adds Σ_i c[i]·x_{r(i0+i)} to g for the gathered rows of x.
// The rows are checked, in a format archRowKernels takes. For bytes,
// x = scale·u, and the coefficients times the scale meet the bytes.
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
// by the compact row kernels. A block of rows stays in L1 as bytes, halves
// or bfloat16s. It gives its margins, losses and weights, then its gradient.
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
		// Ask for the next block's rows while this one computes. Else
		// gathered rows are fetched one or two at a time.
		for j := i + bs; j < min(i+2*bs, n) && d > 0; j++ {
			archPrefetch(x.at(row(idx, j)*x.Stride), d*x.ElemBytes())
		}
		marginsU8Rows(lvl, fb.m[:b], x, idx, i, w)
		sumV, sumC = fb.weigh(lvl, p, loss[i:i+b], y[i:i+b], sumV, sumC)
		addRowsU8Rows(lvl, g, x, idx, i, fb.c[:b])
	}
	return sumV, sumC
}
