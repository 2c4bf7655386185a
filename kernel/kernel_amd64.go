//go:build !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// archImpls lists the amd64 assembly implementations this CPU supports, best
// first. The AVX2+FMA kernels need both features; x/sys/cpu honours
// GODEBUG=cpu.avx2=off and cpu.fma=off, which force the generic path.
func archImpls() []*Impl {
	if !(cpu.X86.HasAVX2 && cpu.X86.HasFMA) {
		return nil
	}
	return []*Impl{{
		Name:     "avx2",
		Requires: "AVX2, FMA3",
		F32:      avx2Ops[float32](),
		F64:      avx2Ops[float64](),
	}}
}

func avx2Ops[T Float]() Ops[T] {
	// Dot is called per row by some callers: the float32 and float64 entries
	// are plain functions, without the generic dictionary.
	var dot func(x, y []T) T
	if avx2Is32[T]() {
		dot = any(dotAVX2F32).(func(x, y []T) T)
	} else {
		dot = any(dotAVX2F64).(func(x, y []T) T)
	}
	return Ops[T]{
		Dot:         dot,
		Axpy:        axpyAVX2[T],
		Lerp:        lerpAVX2[T],
		Margins:     marginsAVX2[T],
		AddRows:     addRowsAVX2[T],
		MarginsK:    marginsKAVX2[T],
		AddOuterK:   addOuterKAVX2[T],
		LinearLoss:  linearLossAVX2[T],
		SoftmaxCE:   softmaxCEAVX2[T],
		Plus:        plusAVX2[T],
		Exp:         expAVX2[T],
		Log1p:       log1pAVX2[T],
		FusedLinear: fusedLinearAVX2[T],
	}
}

// Work bounds for one assembly call: assembly loops cannot be preempted, so
// the wrappers below split long inputs into calls of about this many
// multiply-adds (a few microseconds each).
const (
	avx2ChunkElems = 1 << 15 // elements per call of a vector kernel
	avx2ChunkFlops = 1 << 16 // multiply-adds per call of a row kernel
)

// avx2Ptr returns the address of s's first element (s may be empty; the kernels
// then read nothing).
func avx2Ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// avx2Is32 reports whether T is float32; it is a constant in each instantiation.
func avx2Is32[T Float]() bool { return unsafe.Sizeof(T(0)) == 4 }

// avx2CheckRows panics, through an ordinary bounds check, unless every gathered
// row r_i (i < n) satisfies 0 ≤ r_i and r_i*stride + d ≤ len(x). The
// assembly reads the rows unchecked, so this is what keeps bad input from
// reading outside x.
func avx2CheckRows[T Float](n int, x []T, stride int, idx []int, d int) {
	if n == 0 || d == 0 {
		return
	}
	if stride < 0 {
		panic("kernel: negative row stride")
	}
	lo, hi := 0, n-1
	if idx != nil {
		idx = idx[:n]
		lo, hi = idx[0], idx[0]
		for _, r := range idx {
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	if lo < 0 {
		panic("kernel: negative row index")
	}
	_ = x[hi*stride : hi*stride+d]
}

// ---- Level 1 ----------------------------------------------------------------

func dotAVX2F32(x, y []float32) float32 {
	y = y[:len(x)]
	if len(x) <= avx2ChunkElems {
		return dotF32(avx2Ptr(x), avx2Ptr(y), len(x))
	}
	return dotAVX2(x, y)
}

func dotAVX2F64(x, y []float64) float64 {
	y = y[:len(x)]
	if len(x) <= avx2ChunkElems {
		return dotF64(avx2Ptr(x), avx2Ptr(y), len(x))
	}
	return dotAVX2(x, y)
}

func dotAVX2[T Float](x, y []T) T {
	y = y[:len(x)]
	var s T
	for len(x) > 0 {
		n := min(len(x), avx2ChunkElems)
		if avx2Is32[T]() {
			s += T(dotF32(avx2Ptr(x), avx2Ptr(y), n))
		} else {
			s += T(dotF64(avx2Ptr(x), avx2Ptr(y), n))
		}
		x, y = x[n:], y[n:]
	}
	return s
}

func axpyAVX2[T Float](a T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), avx2ChunkElems)
		if avx2Is32[T]() {
			axpyF32(float32(a), avx2Ptr(x), avx2Ptr(y), n)
		} else {
			axpyF64(float64(a), avx2Ptr(x), avx2Ptr(y), n)
		}
		x, y = x[n:], y[n:]
	}
}

func lerpAVX2[T Float](t T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), avx2ChunkElems)
		if avx2Is32[T]() {
			lerpF32(float32(t), avx2Ptr(x), avx2Ptr(y), n)
		} else {
			lerpF64(float64(t), avx2Ptr(x), avx2Ptr(y), n)
		}
		x, y = x[n:], y[n:]
	}
}

// ---- Rows -------------------------------------------------------------------

// avx2StreamBytes is the size of a matrix above which the row kernels
// prefetch: a matrix this big (twice a core's L2) is taken to be out of
// cache. Tests lower it to run the prefetching variant on small data.
var avx2StreamBytes = 4 << 20

// avx2Streams reports whether the matrix x is big enough to prefetch from.
func avx2Streams[T Float](x []T) bool {
	return uintptr(len(x))*unsafe.Sizeof(T(0)) > uintptr(avx2StreamBytes)
}

// avx2RowsPerCall bounds the rows of one row-kernel call to about avx2ChunkFlops
// multiply-adds, in multiples of 4.
func avx2RowsPerCall(d int) int { return max(4, avx2ChunkFlops/max(d, 1)) &^ 3 }

// avx2RowBase returns the address of row i of the block that starts at gathered
// row i: with idx the assembly indexes from x itself, without idx it starts at
// row i.
func avx2RowBase[T Float](x []T, stride int, idx []int, i int) (unsafe.Pointer, unsafe.Pointer) {
	if idx != nil {
		return avx2Ptr(x), unsafe.Pointer(&idx[i])
	}
	return unsafe.Add(avx2Ptr(x), uintptr(i*stride)*unsafe.Sizeof(T(0))), nil
}

// avx2ColBlock is the most columns one row-kernel call handles: longer rows are
// split so that a call (at most 4 rows when rows are this long) stays short.
const avx2ColBlock = 1 << 14

// avx2Margins runs the margins kernel over gathered rows i0 ≤ i < i0+n (no
// checks), splitting rows longer than avx2ColBlock into column blocks whose
// partial sums are added up.
func avx2Margins[T Float](m unsafe.Pointer, mstride int, x []T, stride int, idx []int, i0, n int, w unsafe.Pointer, d int) {
	xp, ip := avx2RowBase(x, stride, idx, i0)
	pf := avx2Streams(x)
	if d <= avx2ColBlock {
		avx2MarginsCall[T](pf, m, mstride, n, xp, stride, ip, w, d)
		return
	}
	size := unsafe.Sizeof(T(0))
	var part [4]T
	for i := 0; i < n; i += 4 {
		b := min(4, n-i)
		mi := unsafe.Add(m, uintptr(i*mstride)*size)
		xi, ii := xp, ip
		if ip != nil {
			ii = unsafe.Add(ip, uintptr(i)*unsafe.Sizeof(int(0)))
		} else {
			xi = unsafe.Add(xp, uintptr(i*stride)*size)
		}
		avx2MarginsCall[T](pf, mi, mstride, b, xi, stride, ii, w, avx2ColBlock)
		for l := avx2ColBlock; l < d; l += avx2ColBlock {
			avx2MarginsCall[T](pf, unsafe.Pointer(&part[0]), 1, b, unsafe.Add(xi, uintptr(l)*size), stride, ii,
				unsafe.Add(w, uintptr(l)*size), min(avx2ColBlock, d-l))
			for j := 0; j < b; j++ {
				*(*T)(unsafe.Add(mi, uintptr(j*mstride)*size)) += part[j]
			}
		}
	}
}

func avx2MarginsCall[T Float](pf bool, m unsafe.Pointer, mstride, n int, x unsafe.Pointer, stride int, idx, w unsafe.Pointer, d int) {
	switch {
	case avx2Is32[T]() && pf:
		marginsPFF32(m, mstride, n, x, stride, idx, w, d)
	case avx2Is32[T]():
		marginsF32(m, mstride, n, x, stride, idx, w, d)
	case pf:
		marginsPFF64(m, mstride, n, x, stride, idx, w, d)
	default:
		marginsF64(m, mstride, n, x, stride, idx, w, d)
	}
}

// avx2AddRows runs the accumulation kernel over gathered rows i0 ≤ i < i0+n,
// column block by column block for rows longer than avx2ColBlock.
func avx2AddRows[T Float](g unsafe.Pointer, d int, x []T, stride int, idx []int, i0, n int, c unsafe.Pointer, cstride int) {
	xp, ip := avx2RowBase(x, stride, idx, i0)
	size := unsafe.Sizeof(T(0))
	pf := avx2Streams(x)
	for l := 0; l < d; l += avx2ColBlock {
		gl, xl, dl := unsafe.Add(g, uintptr(l)*size), unsafe.Add(xp, uintptr(l)*size), min(avx2ColBlock, d-l)
		switch {
		case avx2Is32[T]() && pf:
			addRowsPFF32(gl, dl, xl, stride, ip, c, cstride, n)
		case avx2Is32[T]():
			addRowsF32(gl, dl, xl, stride, ip, c, cstride, n)
		case pf:
			addRowsPFF64(gl, dl, xl, stride, ip, c, cstride, n)
		default:
			addRowsF64(gl, dl, xl, stride, ip, c, cstride, n)
		}
	}
}

func marginsAVX2[T Float](m, x []T, stride int, idx []int, w []T) {
	n, d := len(m), len(w)
	if n == 0 {
		return
	}
	if d == 0 {
		clear(m)
		return
	}
	avx2CheckRows(n, x, stride, idx, d)
	step := avx2RowsPerCall(d)
	for i := 0; i < n; i += step {
		avx2Margins(unsafe.Pointer(&m[i]), 1, x, stride, idx, i, min(step, n-i), avx2Ptr(w), d)
	}
}

func addRowsAVX2[T Float](g, x []T, stride int, idx []int, c []T) {
	n, d := len(c), len(g)
	if n == 0 || d == 0 {
		return
	}
	avx2CheckRows(n, x, stride, idx, d)
	step := avx2RowsPerCall(d)
	for i := 0; i < n; i += step {
		avx2AddRows(avx2Ptr(g), d, x, stride, idx, i, min(step, n-i), unsafe.Pointer(&c[i]), 1)
	}
}

// avx2ClassBlock is the most classes one call of the register-blocked
// kernels handles.
const avx2ClassBlock = 5

// avx2ClassSplit returns the number of class blocks for k classes and the
// size of block b: k split as evenly as possible into blocks of at most
// avx2ClassBlock (k = 16 runs as 4+4+4+4, not 5+5+5+1).
func avx2ClassSplit(k int) int { return (k + avx2ClassBlock - 1) / avx2ClassBlock }

func avx2ClassBlockSize(k, nb, b int) int {
	s := k / nb
	if b < k%nb {
		s++
	}
	return s
}

func marginsKAVX2[T Float](m, x []T, stride int, idx []int, w []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(m)/k, len(w)/k
	if n == 0 {
		return
	}
	m = m[:n*k]
	if d == 0 {
		clear(m)
		return
	}
	avx2CheckRows(n, x, stride, idx, d)
	if k < 4 {
		// Few classes: one pass per class, four rows at a time share each
		// load of the class's weights; outputs are k apart.
		step := avx2RowsPerCall(d)
		for j := 0; j < k; j++ {
			wj := unsafe.Pointer(&w[j*d])
			for i := 0; i < n; i += step {
				avx2Margins(unsafe.Pointer(&m[i*k+j]), k, x, stride, idx, i, min(step, n-i), wj, d)
			}
		}
		return
	}
	if d > avx2ColBlock {
		// Very long rows: for each row, the k class vectors play the rows of
		// the margins kernel, which splits the columns into bounded calls.
		step := avx2RowsPerCall(d)
		for i := 0; i < n; i++ {
			xi := unsafe.Pointer(&x[row(idx, i)*stride])
			for j := 0; j < k; j += step {
				avx2Margins(unsafe.Pointer(&m[i*k+j]), 1, w, d, nil, j, min(step, k-j), xi, d)
			}
		}
		return
	}
	// Blocks of rows (that stay in cache while each class block takes its
	// turn) times blocks of up to five classes, two rows × c classes per
	// step of the kernel. Only the first class block of a block of rows
	// prefetches: the others find the rows in cache.
	pf := avx2Streams(x)
	rb := max(2, avx2ChunkFlops/(avx2ClassBlock*d)) &^ 1
	nb := avx2ClassSplit(k)
	size := unsafe.Sizeof(T(0))
	for i := 0; i < n; i += rb {
		b := min(rb, n-i)
		xp, ip := avx2RowBase(x, stride, idx, i)
		j := 0
		for cb := 0; cb < nb; cb++ {
			c := avx2ClassBlockSize(k, nb, cb)
			mp, wp := unsafe.Pointer(&m[i*k+j]), unsafe.Add(avx2Ptr(w), uintptr(j*d)*size)
			switch {
			case avx2Is32[T]() && pf && cb == 0:
				marginsKPFF32(mp, k, b, xp, stride, ip, wp, d, c)
			case avx2Is32[T]():
				marginsKF32(mp, k, b, xp, stride, ip, wp, d, c)
			case pf && cb == 0:
				marginsKPFF64(mp, k, b, xp, stride, ip, wp, d, c)
			default:
				marginsKF64(mp, k, b, xp, stride, ip, wp, d, c)
			}
			j += c
		}
	}
}

// avx2OuterRows and avx2OuterStrip bound one addOuterK call: at most 64 rows
// × one 512-byte column strip × 5 classes (≤ 41k multiply-adds), and the
// block's rows' strip (32 KiB) stays in L1 while the class blocks take
// their turns.
const (
	avx2OuterRows  = 64
	avx2OuterStrip = 512
)

func addOuterKAVX2[T Float](g, x []T, stride int, idx []int, c []T, k int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	if n == 0 || d == 0 {
		return
	}
	c = c[:n*k]
	avx2CheckRows(n, x, stride, idx, d)
	if k < 3 {
		// One or two classes: too few independent accumulators for the
		// register-blocked kernel; four rows at a time per class instead.
		step := max(4, (16<<10)/(d*int(unsafe.Sizeof(T(0))))) &^ 3
		for i := 0; i < n; i += step {
			b := min(step, n-i)
			for j := 0; j < k; j++ {
				avx2AddRows(unsafe.Pointer(&g[j*d]), d, x, stride, idx, i, b, unsafe.Pointer(&c[i*k+j]), k)
			}
		}
		return
	}
	// Row blocks in order (so each g element still sees the rows in
	// increasing order), then column strips, then class blocks; within a
	// call each g chunk stays in registers over the block's rows.
	size := unsafe.Sizeof(T(0))
	strip := avx2OuterStrip / int(size)
	pf := avx2Streams(x)
	nb := avx2ClassSplit(k)
	for i := 0; i < n; i += avx2OuterRows {
		b := min(avx2OuterRows, n-i)
		xp, ip := avx2RowBase(x, stride, idx, i)
		for l := 0; l < d; l += strip {
			cols := min(strip, d-l)
			xl := unsafe.Add(xp, uintptr(l)*size)
			j := 0
			for cb := 0; cb < nb; cb++ {
				nc := avx2ClassBlockSize(k, nb, cb)
				gp, cp := unsafe.Pointer(&g[j*d+l]), unsafe.Pointer(&c[i*k+j])
				switch {
				case avx2Is32[T]() && pf && cb == 0:
					addOuterKPFF32(gp, d, xl, stride, ip, cp, k, b, cols, nc)
				case avx2Is32[T]():
					addOuterKF32(gp, d, xl, stride, ip, cp, k, b, cols, nc)
				case pf && cb == 0:
					addOuterKPFF64(gp, d, xl, stride, ip, cp, k, b, cols, nc)
				default:
					addOuterKF64(gp, d, xl, stride, ip, cp, k, b, cols, nc)
				}
				j += nc
			}
		}
	}
}

// ---- Elementwise ------------------------------------------------------------

func expAVX2[T Float](dst, x []T) {
	dst = dst[:len(x)]
	for len(x) > 0 {
		n := min(len(x), avx2ChunkElems)
		if avx2Is32[T]() {
			expF32(avx2Ptr(dst), avx2Ptr(x), n)
		} else {
			expF64(avx2Ptr(dst), avx2Ptr(x), n)
		}
		dst, x = dst[n:], x[n:]
	}
}

func log1pAVX2[T Float](dst, x []T) {
	dst = dst[:len(x)]
	for len(x) > 0 {
		n := min(len(x), avx2ChunkElems)
		if avx2Is32[T]() {
			log1pF32(avx2Ptr(dst), avx2Ptr(x), n)
		} else {
			log1pF64(avx2Ptr(dst), avx2Ptr(x), n)
		}
		dst, x = dst[n:], x[n:]
	}
}

// avx2LinearLoss runs the loss kernel of kind over n elements (no checks).
func avx2LinearLoss[T Float](kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	f32 := avx2Is32[T]()
	switch kind {
	case Logistic:
		if f32 {
			logisticF32(loss, dloss, m, y, n)
		} else {
			logisticF64(loss, dloss, m, y, n)
		}
	case Squared:
		if f32 {
			squaredF32(loss, dloss, m, y, n)
		} else {
			squaredF64(loss, dloss, m, y, n)
		}
	case Absolute:
		if f32 {
			absoluteF32(loss, dloss, m, y, n)
		} else {
			absoluteF64(loss, dloss, m, y, n)
		}
	default:
		panic("kernel: unknown LossKind")
	}
}

func linearLossAVX2[T Float](kind LossKind, loss, dloss, m, y []T) {
	n := len(m)
	loss, dloss, y = loss[:n], dloss[:n], y[:n]
	if kind < Logistic || kind > Absolute {
		panic("kernel: unknown LossKind")
	}
	for len(m) > 0 {
		n := min(len(m), avx2ChunkElems)
		avx2LinearLoss[T](kind, avx2Ptr(loss), avx2Ptr(dloss), avx2Ptr(m), avx2Ptr(y), n)
		loss, dloss, m, y = loss[n:], dloss[n:], m[n:], y[n:]
	}
}

// avx2Plus runs the plus kernel over n elements; rho and drho must be writable.
func avx2Plus[T Float](kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	if avx2Is32[T]() {
		plusF32(int(kind), float64(eps), rho, drho, s, n)
	} else {
		plusF64(int(kind), float64(eps), rho, drho, s, n)
	}
}

func plusAVX2[T Float](kind PlusKind, eps T, rho, drho, s []T) {
	if kind < PlusNone || kind > PlusQuadratic {
		panic("kernel: unknown PlusKind")
	}
	if rho != nil {
		rho = rho[:len(s)]
	}
	if drho != nil {
		drho = drho[:len(s)]
	}
	if rho == nil || drho == nil {
		// The kernel writes both; the one not wanted goes to a scratch block.
		const B = 256
		var scratch [B]T
		for i := 0; i < len(s); i += B {
			n := min(B, len(s)-i)
			r, dr := unsafe.Pointer(&scratch[0]), unsafe.Pointer(&scratch[0])
			if rho != nil {
				r = unsafe.Pointer(&rho[i])
			}
			if drho != nil {
				dr = unsafe.Pointer(&drho[i])
			}
			avx2Plus(kind, eps, r, dr, unsafe.Pointer(&s[i]), n)
		}
		return
	}
	for i := 0; i < len(s); i += avx2ChunkElems {
		n := min(avx2ChunkElems, len(s)-i)
		avx2Plus(kind, eps, unsafe.Pointer(&rho[i]), unsafe.Pointer(&drho[i]), unsafe.Pointer(&s[i]), n)
	}
}

func softmaxCEAVX2[T Float](loss, z []T, label []int32, k int) {
	n := len(loss)
	if n == 0 || k <= 0 {
		return
	}
	z = z[:n*k]
	label = label[:n]
	for _, y := range label {
		if uint32(y) >= uint32(k) {
			panic("kernel: label out of range")
		}
	}
	step := max(1, avx2ChunkElems/k)
	for i := 0; i < n; i += step {
		b := min(step, n-i)
		if avx2Is32[T]() {
			softmaxF32(unsafe.Pointer(&loss[i]), unsafe.Pointer(&z[i*k]), unsafe.Pointer(&label[i]), b, k)
		} else {
			softmaxF64(unsafe.Pointer(&loss[i]), unsafe.Pointer(&z[i*k]), unsafe.Pointer(&label[i]), b, k)
		}
	}
}

// ---- Fused step ---------------------------------------------------------------

// avx2FusedBlock is the most rows FusedLinear handles per block; the block
// shrinks (to 8 rows at least) so that its rows stay in L1 until they are read
// the second time, for the accumulation into g.
const avx2FusedBlock = 64

func fusedLinearAVX2[T Float](g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	n, d := len(loss), len(w)
	if n == 0 {
		return 0, 0
	}
	g = g[:d]
	y = y[:n]
	if p.Loss < Logistic || p.Loss > Absolute {
		panic("kernel: unknown LossKind")
	}
	if p.Plus < PlusNone || p.Plus > PlusQuadratic {
		panic("kernel: unknown PlusKind")
	}
	avx2CheckRows(n, x, stride, idx, d)
	bs := min(avx2FusedBlock, max(8, (32<<10)/max(1, d*int(unsafe.Sizeof(T(0))))&^3))
	var mb, db, sb, rb, vb, cb [avx2FusedBlock]T
	for i := 0; i < n; i += bs {
		b := min(bs, n-i)
		if d > 0 {
			avx2Margins(unsafe.Pointer(&mb[0]), 1, x, stride, idx, i, b, avx2Ptr(w), d)
		} else {
			mb = [avx2FusedBlock]T{}
		}
		for j := range b {
			mb[j] += p.Bias
		}
		avx2LinearLoss[T](p.Loss, unsafe.Pointer(&loss[i]), unsafe.Pointer(&db[0]), unsafe.Pointer(&mb[0]), unsafe.Pointer(&y[i]), b)
		for j := range b {
			sb[j] = loss[i+j]*p.InvL - p.Tau
		}
		avx2Plus(p.Plus, p.Eps, unsafe.Pointer(&rb[0]), unsafe.Pointer(&vb[0]), unsafe.Pointer(&sb[0]), b)
		for j := range b {
			c := p.Scale * vb[j] * db[j]
			cb[j] = c
			sumV += vb[j]
			sumC += c
		}
		if d > 0 {
			avx2AddRows(avx2Ptr(g), d, x, stride, idx, i, b, unsafe.Pointer(&cb[0]), 1)
		}
	}
	return sumV, sumC
}
