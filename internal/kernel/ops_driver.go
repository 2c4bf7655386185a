package kernel

import "unsafe"

// The driver is the Go half of every assembly implementation, shared by all
// architectures. It checks bounds, so bad input panics before any assembly
// reads memory. It cuts long inputs into bounded calls, because an assembly
// loop cannot be preempted. It pads the tails of the elementwise kernels
// where the assembly takes only whole groups. It blocks rows and classes.
//
// Each architecture supplies only what differs. impl_amd64.go and
// impl_arm64.go list the implementations and size the calls. The files
// elementwise_*.go and rows_*.go hold the primitives below (arch*). Each
// calls its assembly directly. The *_other.go files declare them for builds
// without assembly, where they never run.
//
// The primitives are plain functions, not function values in a table. The
// compiler then calls the assembly directly and sees that the stack
// buffers passed to it do not escape. So the kernels allocate nothing and
// add no indirect call.
//
// Primitives, for T float32 or float64. Each takes the level lvl first (see
// level). Pointers address the first element, counts are in elements, and
// nothing is checked:
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
// shared driver. Every primitive takes it, in its level, and switches on it.
// That is one predictable branch per bounded call. The compiler still sees
// direct calls of the assembly, so stack buffers handed to it do not escape.
type isa uint8

const (
	// isaBase is the baseline SIMD level: AVX2+FMA on amd64, NEON on arm64.
	isaBase isa = iota
	// isaWide is the 512-bit level: AVX-512 (zmm) on amd64; other
	// architectures have none and never build an implementation with it.
	isaWide
)

// level is what the driver and every primitive take first. It is the
// instruction-set level and the sizes that decide how the work is cut into
// calls. The sizes also pick which variants of the kernels run. An
// implementation is built with one (newImpl) and keeps it. Tests build
// implementations with smaller sizes, so that small inputs take the paths of
// large ones.
type level struct {
	isa isa
	// streamBytes is the size of a matrix above which the row kernels
	// prefetch. That is on amd64; the NEON kernels have no prefetching
	// variants.
	streamBytes int
	// sparseBudget bounds the multiply-adds of one CSR assembly call.
	// sparseAhead is how many gathered rows ahead the CSR kernels prefetch.
	sparseBudget, sparseAhead int
}

// defaultStreamBytes is the streamBytes of the implementations Impls lists.
// A matrix this big, twice a core's L2, is taken to be out of cache.
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
	// Some callers call Dot once a row. So the float32 and float64 entries
	// are plain functions, one per level, without the generic dictionary.
	// Each calls its stub directly.
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
	// Each entry is the driver itself, so a method reaches the assembly in
	// three calls: driver, primitive, stub.
	ops := table[T]{
		lvl:       lvl,
		dot:       dot,
		axpy:      axpyDriver[T],
		lerp:      lerpDriver[T],
		margins:   marginsDriver[T],
		addRows:   addRowsDriver[T],
		addRowsK:  addRowsKDriver[T],
		marginsK:  marginsKDriver[T],
		addOuterK: addOuterKNoNext[T],

		addOuterKNext: addOuterKDriver[T],
		linearLoss:    linearLossDriver[T],
		softmaxCE:     softmaxCEDriver[T],
		plus:          plusDriver[T],
		biasReLU:      biasReLUDriver[T],
		reluBackward:  reluBackwardDriver[T],
		exp:           expDriver[T],
		log1p:         log1pDriver[T],
		fusedLinear:   fusedLinearDriver[T],
	}
	// CSR rows: the AVX2 or NEON kernels at every level (sparse_amd64.go).
	g := genericOps[T]()
	ops.sparseMargins, ops.sparseAddRows = g.sparseMargins, g.sparseAddRows
	ops.sparseMarginsK, ops.sparseAddOuterK = g.sparseMarginsK, g.sparseAddOuterK
	if archSparse {
		sparseOps(&ops)
	}
	compactDriverOps(&ops)
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
// row r_i (i < n) is in x. That is, 0 ≤ r_i and r_i*stride + d ≤ len(x). The
// assembly reads the rows unchecked. So this is what keeps bad input from
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
