package kernel

import "unsafe"

// The driver: the Go half of every assembly implementation, shared by all
// architectures. It checks bounds (out-of-range input panics before any
// assembly reads memory), cuts long inputs into bounded calls (assembly loops
// cannot be preempted), pads the tails of the elementwise kernels when the
// assembly only takes whole groups of elements, and blocks rows and classes.
// Each architecture supplies, in kernel_amd64.go or kernel_arm64.go, only what
// differs: the primitives below (arch*, each calling its assembly directly)
// and the constants that size the calls. kernel_other.go declares them for
// builds without assembly, where archImpls offers none and they never run.
//
// The primitives are functions of the architecture's file rather than
// function values in a table: the compiler then calls the assembly directly
// and sees that the stack buffers handed to it (tails, fused blocks) do not
// escape, so the kernels stay allocation-free and add no indirect call.
//
// Primitives, for T float32 or float64; each takes the level lvl first (see
// level), pointers address the first element, counts are in
// elements, and nothing is checked:
//
//	archDot(lvl, x, y, n) T                  Σ x[i]·y[i], n ≤ archChunk
//	archDotF32(x, y, n), archDotF64          archDot at isaBase for one type, and
//	archWideDotF32, archWideDotF64           at isaWide: no lvl, so that each
//	                                         inlines to its stub
//	archAxpy(lvl, a, x, y, n), archLerp(lvl, t, x, y, n)
//	                                         as Ops.Axpy, Ops.Lerp
//	archExp(lvl, dst, x, n), archLog1p(lvl, dst, x, n)
//	                                         n a multiple of archGroup
//	archLoss(lvl, kind, loss, dloss, m, y, n) kind valid, n a multiple of archGroup
//	archPlus(lvl, kind, eps, rho, drho, s, n) kind ≠ PlusNone, rho and drho both
//	                                         written, n a multiple of archGroup
//	archSoftmax(lvl, loss, z, label, n, k)   n rows of k ≥ 1 logits, labels in range
//	archBiasReLU(lvl, z, b, n, h, stride), archReLUBackward(lvl, gb, dh, a, n, h, stride)
//	                                         as Ops.BiasReLU, Ops.ReLUBackward on n ≥ 1
//	                                         rows of h ≥ 1 columns, stride elements apart
//	archMargins(lvl, m, mstride, x, stride, idx, i0, n, w, d)
//	    m[i*mstride] = x_{r(i0+i)}·w for i < n; rows checked, n ≤ archRowsPerCall(lvl, d)
//	archAddRows(lvl, g, d, x, stride, idx, i0, n, c, cstride)
//	    g += Σ_i c[i*cstride]·x_{r(i0+i)}, rows in order; n ≤ archRowsPerCall(lvl, d)
//	archMarginsK, archAddOuterK              the register-blocked multi-class
//	                                         kernels, when archClassKernels, over
//	                                         blocks of at most archClassBlock(lvl)
//	                                         classes (MarginsK: archMarginsKBlock)
//	archMarginsKC, archAddOuterKC            the same on compact rows (float32),
//	                                         when archClassKernelsC(lvl, format)

// isa selects one of an architecture's instruction-set levels within the
// shared driver: every primitive takes it (in its level) and switches on it,
// one predictable branch per bounded call. The compiler still sees direct
// calls of the assembly, so stack buffers handed to it do not escape.
type isa uint8

const (
	// isaBase is the baseline SIMD level: AVX2+FMA on amd64, NEON on arm64.
	isaBase isa = iota
	// isaWide is the 512-bit level: AVX-512 (zmm) on amd64; other
	// architectures have none and never build an implementation with it.
	isaWide
)

// level is what the driver and every primitive take first: the
// instruction-set level and the sizes that decide how the work is cut into
// calls and which variants of the kernels run. An implementation is built
// with one (newImpl) and keeps it; tests build implementations with smaller
// sizes, so that small inputs take the paths of large ones.
type level struct {
	isa isa
	// streamBytes is the size of a matrix above which the row kernels
	// prefetch (on amd64; the NEON kernels have no prefetching variants).
	streamBytes int
	// sparseBudget bounds the multiply-adds of one CSR assembly call;
	// sparseAhead is how many gathered rows ahead the CSR kernels prefetch.
	sparseBudget, sparseAhead int
}

// defaultStreamBytes is the streamBytes of the implementations Impls lists:
// a matrix this big (twice a core's L2) is taken to be out of cache.
const defaultStreamBytes = 4 << 20

// tunedLevel returns instruction-set level i with the sizes of the
// implementations Impls lists.
func tunedLevel(i isa) level {
	return level{isa: i, streamBytes: defaultStreamBytes, sparseBudget: defaultSparseBudget, sparseAhead: defaultSparseAhead}
}

// newImpl builds an assembly implementation: the driver's kernels over the
// architecture's primitives at level lvl, in both precisions.
func newImpl(name string, lvl level) *impl {
	return &impl{name: name, lvl: lvl, f32: driverOps[float32](lvl), f64: driverOps[float64](lvl)}
}

func driverOps[T Float](lvl level) table[T] {
	// Dot is called per row by some callers: the float32 and float64 entries
	// are plain functions, one per level, without the generic dictionary
	// (each calls its stub directly).
	var dot func(x, y []T) T
	switch {
	case is32[T]() && lvl.isa == isaWide:
		dot = any(dotF32Wide).(func(x, y []T) T)
	case is32[T]():
		dot = any(dotF32Base).(func(x, y []T) T)
	case lvl.isa == isaWide:
		dot = any(dotF64Wide).(func(x, y []T) T)
	default:
		dot = any(dotF64Base).(func(x, y []T) T)
	}
	ops := table[T]{
		dot:  dot,
		axpy: func(a T, x, y []T) { axpyDriver(lvl, a, x, y) },
		lerp: func(t T, x, y []T) { lerpDriver(lvl, t, x, y) },
		margins: func(m, x []T, stride int, idx []int, w []T) {
			marginsDriver(lvl, m, x, stride, idx, w)
		},
		addRows: func(g, x []T, stride int, idx []int, c []T) {
			addRowsDriver(lvl, g, x, stride, idx, c)
		},
		addRowsK: func(g, x []T, stride int, c []T, k int) {
			addRowsKDriver(lvl, g, x, stride, c, k)
		},
		marginsK: func(m, x []T, stride int, idx []int, w []T, k int) {
			marginsKDriver(lvl, m, x, stride, idx, w, k)
		},
		addOuterK: func(g, x []T, stride int, idx []int, c []T, k int) {
			addOuterKDriver(lvl, g, x, stride, idx, c, k, nil)
		},
		addOuterKNext: func(g, x []T, stride int, idx []int, c []T, k int, next []int) {
			addOuterKDriver(lvl, g, x, stride, idx, c, k, next)
		},
		linearLoss: func(kind LossKind, loss, dloss, m, y []T) {
			linearLossDriver(lvl, kind, loss, dloss, m, y)
		},
		softmaxCE: func(loss, z []T, label []int32, k int) {
			softmaxCEDriver(lvl, loss, z, label, k)
		},
		plus: func(kind PlusKind, eps T, rho, drho, s []T) {
			plusDriver(lvl, kind, eps, rho, drho, s)
		},
		biasReLU:     func(z, b []T) { biasReLUDriver(lvl, z, b) },
		reluBackward: func(gb, dh, a []T) { reluBackwardDriver(lvl, gb, dh, a) },
		exp:          func(dst, x []T) { expDriver(lvl, dst, x) },
		log1p:        func(dst, x []T) { log1pDriver(lvl, dst, x) },
		fusedLinear: func(g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
			return fusedLinearDriver(lvl, g, loss, x, stride, idx, y, w, p)
		},
	}
	// CSR rows: the AVX2 or NEON kernels at every level (sparse_amd64.go).
	ops.sparseMargins, ops.sparseAddRows = sparseMarginsGeneric[T], sparseAddRowsGeneric[T]
	ops.sparseMarginsK, ops.sparseAddOuterK = sparseMarginsKGeneric[T], sparseAddOuterKGeneric[T]
	if archSparse {
		sparseOps(&ops, lvl)
	}
	compactDriverOps(&ops, lvl)
	return ops
}

// ptr returns the address of s's first element (s may be empty; the kernels
// then read nothing).
func ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// at returns the address of element i of the array at p.
func at[T Float](p unsafe.Pointer, i int) unsafe.Pointer {
	return unsafe.Add(p, uintptr(i)*unsafe.Sizeof(T(0)))
}

// is32 reports whether T is float32; it is a constant in each instantiation.
func is32[T Float]() bool { return unsafe.Sizeof(T(0)) == 4 }

// rowAt returns the address of gathered row i of x; checkRows has checked it.
func rowAt[T Float](x []T, stride int, idx []int, i int) unsafe.Pointer {
	return at[T](ptr(x), row(idx, i)*stride)
}

// checkRows panics, through an ordinary bounds check, unless every gathered
// row r_i (i < n) satisfies 0 ≤ r_i and r_i*stride + d ≤ len(x). The
// assembly reads the rows unchecked, so this is what keeps bad input from
// reading outside x.
func checkRows[T Float](n int, x []T, stride int, idx []int, d int) {
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

// dotF32Base, dotF32Wide, dotF64Base and dotF64Wide call the assembly
// directly for one chunk (archDotF32, archDotF64 inline to the stub, the
// level a constant): Dot is called per row.
func dotF32Base(x, y []float32) float32 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float32
		return s + archDotF32(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaBase), x, y)
}

func dotF32Wide(x, y []float32) float32 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float32
		return s + archWideDotF32(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaWide), x, y)
}

func dotF64Base(x, y []float64) float64 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float64
		return s + archDotF64(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaBase), x, y)
}

func dotF64Wide(x, y []float64) float64 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float64
		return s + archWideDotF64(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaWide), x, y)
}

func dotDriver[T Float](lvl level, x, y []T) T {
	y = y[:len(x)]
	var s T
	for len(x) > 0 {
		n := min(len(x), archChunk)
		s += archDot[T](lvl, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
	return s
}

func axpyDriver[T Float](lvl level, a T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), archChunk)
		archAxpy(lvl, a, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
}

func lerpDriver[T Float](lvl level, t T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), archChunk)
		archLerp(lvl, t, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
}

// ---- ReLU ------------------------------------------------------------------

func biasReLUDriver[T Float](lvl level, z, b []T) {
	h := len(b)
	reluBlocks(reluRows(len(z), h), h, func(i, j, rows, cols int) {
		archBiasReLU[T](lvl, ptr(z[i*h+j:]), ptr(b[j:]), rows, cols, h)
	})
}

func reluBackwardDriver[T Float](lvl level, gb, dh, a []T) {
	h := len(gb)
	dh = dh[:len(a)]
	reluBlocks(reluRows(len(a), h), h, func(i, j, rows, cols int) {
		archReLUBackward[T](lvl, ptr(gb[j:]), ptr(dh[i*h+j:]), ptr(a[i*h+j:]), rows, cols, h)
	})
}

// reluBlocks cuts n rows of h columns into calls of about archChunk
// elements at most: blocks of at most archChunk columns, each in runs of
// whole rows taken in order (so each column's sum sees the rows in order).
func reluBlocks(n, h int, call func(i, j, rows, cols int)) {
	for j := 0; j < h; j += archChunk {
		cols := min(archChunk, h-j)
		step := max(1, archChunk/cols)
		for i := 0; i < n; i += step {
			call(i, j, min(step, n-i), cols)
		}
	}
}

// ---- Elementwise ------------------------------------------------------------

// whole returns the largest multiple of archGroup not above n: the elements
// the elementwise primitives take directly; the rest go through a padded
// buffer of archGroup elements.
func whole(n int) int { return n &^ (archGroup - 1) }

func expDriver[T Float](lvl level, dst, x []T) {
	dst = dst[:len(x)]
	n := whole(len(x))
	for i := 0; i < n; i += archChunk {
		archExp[T](lvl, at[T](ptr(dst), i), at[T](ptr(x), i), min(archChunk, n-i))
	}
	if n < len(x) {
		var b [archGroup]T
		copy(b[:], x[n:])
		archExp[T](lvl, ptr(b[:]), ptr(b[:]), archGroup)
		copy(dst[n:], b[:])
	}
}

func log1pDriver[T Float](lvl level, dst, x []T) {
	dst = dst[:len(x)]
	n := whole(len(x))
	for i := 0; i < n; i += archChunk {
		archLog1p[T](lvl, at[T](ptr(dst), i), at[T](ptr(x), i), min(archChunk, n-i))
	}
	if n < len(x) {
		var b [archGroup]T
		copy(b[:], x[n:])
		archLog1p[T](lvl, ptr(b[:]), ptr(b[:]), archGroup)
		copy(dst[n:], b[:])
	}
}

func checkLoss(kind LossKind) {
	if kind < Logistic || kind > Absolute {
		panic("kernel: unknown LossKind")
	}
}

func checkPlus(kind PlusKind) {
	if kind < PlusNone || kind > PlusQuadratic {
		panic("kernel: unknown PlusKind")
	}
}

// lossN runs the loss primitive over n elements (no checks), in bounded
// calls, with a padded tail.
func lossN[T Float](lvl level, kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	nw := whole(n)
	for i := 0; i < nw; i += archChunk {
		archLoss[T](lvl, kind, at[T](loss, i), at[T](dloss, i), at[T](m, i), at[T](y, i), min(archChunk, nw-i))
	}
	if nw < n {
		var bm, by, bl, bd [archGroup]T
		copy(bm[:], unsafe.Slice((*T)(at[T](m, nw)), n-nw))
		copy(by[:], unsafe.Slice((*T)(at[T](y, nw)), n-nw))
		archLoss[T](lvl, kind, ptr(bl[:]), ptr(bd[:]), ptr(bm[:]), ptr(by[:]), archGroup)
		copy(unsafe.Slice((*T)(at[T](loss, nw)), n-nw), bl[:])
		copy(unsafe.Slice((*T)(at[T](dloss, nw)), n-nw), bd[:])
	}
}

func linearLossDriver[T Float](lvl level, kind LossKind, loss, dloss, m, y []T) {
	checkLoss(kind)
	n := len(m)
	loss, dloss, y = loss[:n], dloss[:n], y[:n]
	lossN[T](lvl, kind, ptr(loss), ptr(dloss), ptr(m), ptr(y), n)
}

// plusN runs the plus primitive over n elements (no checks; kind is not
// PlusNone, rho and drho are both writable), in bounded calls, with a padded
// tail.
func plusN[T Float](lvl level, kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	nw := whole(n)
	for i := 0; i < nw; i += archChunk {
		archPlus(lvl, kind, eps, at[T](rho, i), at[T](drho, i), at[T](s, i), min(archChunk, nw-i))
	}
	if nw < n {
		var bs, br, bd [archGroup]T
		copy(bs[:], unsafe.Slice((*T)(at[T](s, nw)), n-nw))
		archPlus(lvl, kind, eps, ptr(br[:]), ptr(bd[:]), ptr(bs[:]), archGroup)
		copy(unsafe.Slice((*T)(at[T](rho, nw)), n-nw), br[:])
		copy(unsafe.Slice((*T)(at[T](drho, nw)), n-nw), bd[:])
	}
}

func plusDriver[T Float](lvl level, kind PlusKind, eps T, rho, drho, s []T) {
	checkPlus(kind)
	if rho != nil {
		rho = rho[:len(s)]
	}
	if drho != nil {
		drho = drho[:len(s)]
	}
	if kind == PlusNone {
		// ρ(s) = s and ρ' = 1: a copy and a fill, no arithmetic.
		copy(rho, s)
		for i := range drho {
			drho[i] = 1
		}
		return
	}
	if rho != nil && drho != nil {
		plusN(lvl, kind, eps, ptr(rho), ptr(drho), ptr(s), len(s))
		return
	}
	// The primitive writes both; the one not wanted goes to a scratch block.
	const B = 256
	var scratch [B]T
	for i := 0; i < len(s); i += B {
		n := min(B, len(s)-i)
		r, dr := ptr(scratch[:]), ptr(scratch[:])
		if rho != nil {
			r = ptr(rho[i:])
		}
		if drho != nil {
			dr = ptr(drho[i:])
		}
		plusN(lvl, kind, eps, r, dr, ptr(s[i:]), n)
	}
}

func softmaxCEDriver[T Float](lvl level, loss, z []T, label []int32, k int) {
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
	step := max(1, archChunk/k)
	for i := 0; i < n; i += step {
		archSoftmax[T](lvl, ptr(loss[i:]), ptr(z[i*k:]), unsafe.Pointer(&label[i]), min(step, n-i), k)
	}
}

// ---- Rows -------------------------------------------------------------------

func marginsDriver[T Float](lvl level, m, x []T, stride int, idx []int, w []T) {
	n, d := len(m), len(w)
	if n == 0 {
		return
	}
	if d == 0 {
		clear(m)
		return
	}
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	for i := 0; i < n; i += step {
		archMargins(lvl, ptr(m[i:]), 1, x, stride, idx, i, min(step, n-i), ptr(w), d)
	}
}

func addRowsDriver[T Float](lvl level, g, x []T, stride int, idx []int, c []T) {
	n, d := len(c), len(g)
	if n == 0 || d == 0 {
		return
	}
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	for i := 0; i < n; i += step {
		archAddRows(lvl, ptr(g), d, x, stride, idx, i, min(step, n-i), ptr(c[i:]), 1)
	}
}

// addRowsKDriver is AddRowsK: blocks of rows of g of about archChunkFlops
// multiply-adds each (a bounded assembly call) through archAddRowsK.
func addRowsKDriver[T Float](lvl level, g, x []T, stride int, c []T, k int) {
	if k <= 0 || len(c) < k {
		return
	}
	n := len(c) / k
	d := len(g) / n
	if d == 0 {
		return
	}
	checkRows(k, x, stride, nil, d)
	step := max(1, archChunkFlops/(k*d))
	for i := 0; i < n; i += step {
		b := min(step, n-i)
		archAddRowsK(lvl, ptr(g[i*d:]), d, x, stride, ptr(c[i*k:]), k, b)
	}
}

// classSplit returns the number of class blocks for k classes in blocks of
// at most cb; classBlockSize the size of block b of nb: k split as evenly as
// possible (k = 16 in blocks of 5 runs as 4+4+4+4, not 5+5+5+1).
func classSplit(k, cb int) int { return (k + cb - 1) / cb }

func classBlockSize(k, nb, b int) int {
	s := k / nb
	if b < k%nb {
		s++
	}
	return s
}

func marginsKDriver[T Float](lvl level, m, x []T, stride int, idx []int, w []T, k int) {
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
	checkRows(n, x, stride, idx, d)
	step := archRowsPerCall(lvl, d)
	if k < 4 {
		// Few classes: one pass per class, blocks of rows share each load
		// of the class's weights; outputs are k apart.
		for j := 0; j < k; j++ {
			wj := ptr(w[j*d:])
			for i := 0; i < n; i += step {
				archMargins(lvl, ptr(m[i*k+j:]), k, x, stride, idx, i, min(step, n-i), wj, d)
			}
		}
		return
	}
	if !archClassKernels || d > archColBlock {
		// For each row, the k class vectors play the rows of the margins
		// primitive (which, on long rows, splits the columns).
		for i := 0; i < n; i++ {
			xi := rowAt(x, stride, idx, i)
			for j := 0; j < k; j += step {
				archMargins(lvl, ptr(m[i*k+j:]), 1, w, d, nil, j, min(step, k-j), xi, d)
			}
		}
		return
	}
	eachClassBlock[T](lvl, n, d, k, func(first bool, i, b, j, c int) {
		archMarginsK(lvl, first, ptr(m[i*k+j:]), k, b, x, stride, idx, i, ptr(w[j*d:]), d, c)
	})
}

// eachClassBlock runs call over the class kernels' schedule for n rows of d
// elements of T and k classes: blocks of rows [i, i+b) (that stay in cache
// while each class block takes its turn) times blocks of classes [j, j+c),
// at most archMarginsKBlock of them; first marks a row block's first class
// block, the only one that may prefetch (the others find the rows in
// cache).
func eachClassBlock[T Float](lvl level, n, d, k int, call func(first bool, i, b, j, c int)) {
	cbMax := archMarginsKBlock[T](lvl, d)
	nb := classSplit(k, cbMax)
	rb := max(2, archRowBlockFlops(lvl)/(cbMax*d)) &^ 1
	for i := 0; i < n; i += rb {
		b := min(rb, n-i)
		j := 0
		for cb := 0; cb < nb; cb++ {
			c := classBlockSize(k, nb, cb)
			call(cb == 0, i, b, j, c)
			j += c
		}
	}
}

// addOuterKDriver is AddOuterK, and with next AddOuterKNext: the first class
// block of each block of gathered rows prefetches the same columns of the
// rows next lists at the same places (archAddOuterKNext; results are the
// same bits either way).
func addOuterKDriver[T Float](lvl level, g, x []T, stride int, idx []int, c []T, k int, next []int) {
	if k <= 0 {
		return
	}
	n, d := len(c)/k, len(g)/k
	if n == 0 || d == 0 {
		return
	}
	c = c[:n*k]
	checkRows(n, x, stride, idx, d)
	if !archClassKernels || k < 3 {
		// Few classes: too few independent accumulators for the
		// register-blocked kernel; blocks of rows per class instead.
		step := archOuterRows[T](lvl, d)
		for i := 0; i < n; i += step {
			b := min(step, n-i)
			for j := 0; j < k; j++ {
				archAddRows(lvl, ptr(g[j*d:]), d, x, stride, idx, i, b, ptr(c[i*k+j:]), k)
			}
		}
		return
	}
	strip := archOuterStrip / int(unsafe.Sizeof(T(0)))
	eachOuterBlock(lvl, n, d, k, archOuterRowsK, strip, nil, func(first bool, i, b, l, cols, j, nc int) {
		if nb := blockNext(next, idx, i, b); first && len(nb) > 0 {
			archAddOuterKNext(lvl, ptr(g[j*d+l:]), d, x, stride, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc, ptr(nb), len(nb))
			return
		}
		archAddOuterK(lvl, first, ptr(g[j*d+l:]), d, x, stride, idx, i, l, ptr(c[i*k+j:]), k, b, cols, nc)
	})
}

// blockNext is the part of a prefetch list next for the gathered rows
// [i, i+b) of a call (row i+r asks for next[i+r]): empty for consecutive
// rows (idx nil), which the hardware fetches ahead by itself.
func blockNext(next, idx []int, i, b int) []int {
	if idx == nil || i >= len(next) {
		return nil
	}
	return next[i:min(i+b, len(next))]
}

// eachOuterBlock runs the class kernels' accumulation schedule for n rows
// of d columns and k classes: blocks of rows rows [i, i+b) in order (so
// each element of g still sees the rows in increasing order), then column
// strips [l, l+cols) of strip columns, then (after atStrip, if not nil)
// blocks of classes [j, j+nc), at most archClassBlock of them; first marks
// a strip's first class block. Within a call each chunk of g stays in
// registers over the block's rows.
func eachOuterBlock(lvl level, n, d, k, rows, strip int, atStrip func(i, b, l, cols int), call func(first bool, i, b, l, cols, j, nc int)) {
	nb := classSplit(k, archClassBlock(lvl))
	for i := 0; i < n; i += rows {
		b := min(rows, n-i)
		for l := 0; l < d; l += strip {
			cols := min(strip, d-l)
			if atStrip != nil {
				atStrip(i, b, l, cols)
			}
			j := 0
			for cb := 0; cb < nb; cb++ {
				nc := classBlockSize(k, nb, cb)
				call(cb == 0, i, b, l, cols, j, nc)
				j += nc
			}
		}
	}
}

// ---- Fused step ---------------------------------------------------------------

func fusedLinearDriver[T Float](lvl level, g, loss, x []T, stride int, idx []int, y, w []T, p *LinearStep[T]) (sumV, sumC T) {
	n, d := len(loss), len(w)
	if n == 0 {
		return 0, 0
	}
	g = g[:d]
	y = y[:n]
	checkLoss(p.Loss)
	checkPlus(p.Plus)
	checkRows(n, x, stride, idx, d)
	bs := archFusedBlock[T](lvl, d)
	var fb fusedBlock[T]
	for i := 0; i < n; i += bs {
		b := min(bs, n-i)
		if d > 0 {
			archMargins(lvl, ptr(fb.m[:]), 1, x, stride, idx, i, b, ptr(w), d)
		} else {
			clear(fb.m[:b])
		}
		sumV, sumC = fb.weigh(lvl, p, loss[i:i+b], y[i:i+b], sumV, sumC)
		if d > 0 {
			archAddRows(lvl, ptr(g), d, x, stride, idx, i, b, ptr(fb.c[:]), 1)
		}
	}
	return sumV, sumC
}

// fusedBlock holds a FusedLinear block's margins and what the step derives
// from them, on the caller's stack (at most archFusedMax rows).
type fusedBlock[T Float] struct {
	m, dl, s, rho, v, c [archFusedMax]T
}

// weigh turns the block's margins (m, without the bias) into the losses of
// its len(loss) rows, written to loss, and their coefficients
// c_j = Scale·v_j·ℓ'_j, adding Σ v_j and Σ c_j to sumV and sumC in row order.
func (fb *fusedBlock[T]) weigh(lvl level, p *LinearStep[T], loss, y []T, sumV, sumC T) (T, T) {
	b := len(loss)
	for j := range b {
		fb.m[j] += p.Bias
	}
	lossN[T](lvl, p.Loss, ptr(loss), ptr(fb.dl[:]), ptr(fb.m[:]), ptr(y), b)
	for j := range b {
		fb.s[j] = loss[j]*p.InvL - p.Tau
	}
	if p.Plus == PlusNone {
		for j := range b {
			fb.v[j] = 1
		}
	} else {
		plusN(lvl, p.Plus, p.Eps, ptr(fb.rho[:]), ptr(fb.v[:]), ptr(fb.s[:]), b)
	}
	for j := range b {
		c := p.Scale * fb.v[j] * fb.dl[j]
		fb.c[j] = c
		sumV += fb.v[j]
		sumC += c
	}
	return sumV, sumC
}
