package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/rng"
)

// Names of the baselines that run beside the kernel implementations.
const (
	// Gonum is gonum's blas32/blas64 on the same operation.
	Gonum = "gonum"
	// MathLoop is the plain loop over math.Exp and math.Log1p that an
	// elementwise kernel replaces. It runs in float64, the only precision
	// package math has.
	MathLoop = "mathloop"
	// Stream is the read-only pass over the same buffer (peak.Sum32). It
	// is the limit of an out-of-cache kernel.
	Stream = "stream"
)

// Default sizes of the kernel suite. The feature counts put one row in L1
// (64), an MNIST row (784) and a wide row (4096). Minibatches hold 512
// rows. Elementwise kernels run over 4096 elements. The out-of-cache
// matrix is MNIST's 60000 × 784.
func DefaultDims() []int { return []int{64, 784, 4096} }

const (
	// Batch is the minibatch of the row kernels.
	Batch = 512
	// Elems is the length of the elementwise kernels' vectors.
	Elems = 4096
	// Classes is k of the softmax kernels.
	Classes = 10
	// Hidden is h of the MLP's products.
	Hidden = 100
	// ChunkRows is the engine's chunk (64 rows: batch.NewEngine). The
	// MLP's matrix products see that many rows at a time.
	ChunkRows = 64
	// OOCRows and OOCDim shape the out-of-cache matrix (MNIST's training set).
	OOCRows, OOCDim = 60000, 784
)

// Variant is one implementation of a kernel case. It is a kernel
// implementation of package kernel (by its Impl name) or a baseline
// (Gonum, MathLoop, Stream).
type Variant struct {
	Impl     string
	Baseline bool
	// Run does one call of the case. It does not allocate.
	Run func()
}

// KernelCase is one kernel at one size and precision with every variant
// that computes it. Bytes and Flops are per call of Run.
type KernelCase struct {
	Kernel string // "dot", "margins", …
	Prec   string // "f32" or "f64"
	Size   string // "d=784", "n=4096", …; the sub-benchmark's size element
	// Bytes is what one call reads and writes of its main operands: the
	// matrix or the vectors. It is the working set whose cache level Level
	// names.
	Bytes int64
	// Flops counts a multiply-add as 2; 0 for elementwise kernels.
	Flops int64
	// Elems is the number of elements of an elementwise kernel, else 0.
	Elems    int64
	Variants []Variant
}

// KernelSpec names a case without allocating it; Build makes its data.
type KernelSpec struct {
	Kernel, Prec, Size string
	build              func(impls []kernel.Impl) *KernelCase
}

// Build allocates the case's data. It returns it with a variant for each
// of impls, followed by the baselines.
func (s KernelSpec) Build(impls []kernel.Impl) *KernelCase { return s.build(impls) }

// SpecOptions selects kernel cases.
type SpecOptions struct {
	Dims       []int    // feature counts of the row and level-1 kernels
	Precs      []string // "f32", "f64"
	Kernels    []string // kernel names; nil: all
	OutOfCache bool     // include the 60000×784 cases
}

// KernelNames lists every kernel case name, in suite order.
func KernelNames() []string {
	return []string{
		"dot", "axpy", "margins", "addrows", "fused", "margins-gather", "addrows-gather", "fused-gather",
		"marginsk", "addouterk",
		"mlp-hidden", "mlp-logits", "mlp-gradw2", "mlp-backh", "mlp-gradw1",
		"mlp-relu", "mlp-relugrad",
		"logistic", "softplus", "exp", "log1p", "softmaxce",
		"margins-ooc", "margins-ooc-gather", "marginsk-ooc-gather",
	}
}

// KernelSpecs returns the cases cfg selects.
func KernelSpecs(cfg SpecOptions) []KernelSpec {
	var out []KernelSpec
	want := func(k string) bool { return cfg.Kernels == nil || slices.Contains(cfg.Kernels, k) }
	for _, k := range KernelNames() {
		if !want(k) {
			continue
		}
		if strings.Contains(k, "-ooc") && !cfg.OutOfCache {
			continue
		}
		for _, prec := range cfg.Precs {
			for _, size := range caseSizes(k, cfg.Dims) {
				out = append(out, KernelSpec{Kernel: k, Prec: prec, Size: size.name, build: builder(k, prec, size)})
			}
		}
	}
	return out
}

type caseSize struct {
	name string
	d    int
}

func caseSizes(k string, dims []int) []caseSize {
	switch k {
	case "logistic", "softplus", "exp", "log1p":
		return []caseSize{{fmt.Sprintf("n=%d", Elems), Elems}}
	case "softmaxce":
		return []caseSize{{fmt.Sprintf("n=%d,k=%d", Batch, Classes), 0}}
	case "mlp-hidden", "mlp-logits", "mlp-gradw2", "mlp-backh", "mlp-gradw1", "mlp-relu", "mlp-relugrad":
		return []caseSize{{fmt.Sprintf("n=%d,d=%d,h=%d", ChunkRows, OOCDim, Hidden), OOCDim}}
	case "margins-ooc", "margins-ooc-gather", "marginsk-ooc-gather":
		return []caseSize{{fmt.Sprintf("rows=%d,d=%d", OOCRows, OOCDim), OOCDim}}
	}
	out := make([]caseSize, len(dims))
	for i, d := range dims {
		out[i] = caseSize{fmt.Sprintf("d=%d", d), d}
	}
	return out
}

func builder(k, prec string, size caseSize) func([]kernel.Impl) *KernelCase {
	return func(impls []kernel.Impl) *KernelCase {
		var c *KernelCase
		if prec == "f32" {
			c = build[float32](k, size.d, impls)
		} else {
			c = build[float64](k, size.d, impls)
		}
		c.Kernel, c.Prec, c.Size = k, prec, size.name
		return c
	}
}

// sink keeps results alive.
var sink float64

// randSlice returns n values uniform in [lo, hi), from a fixed seed.
func randSlice[T kernel.Float](n int, seed uint64, lo, hi float64) []T {
	r := rng.New(seed, 0xbe7c)
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + (hi-lo)*r.Float64())
	}
	return x
}

func signs[T kernel.Float](n int) []T {
	y := make([]T, n)
	for i := range y {
		y[i] = T(1 - 2*((i*7/3)%2))
	}
	return y
}

func elemSize[T kernel.Float]() int64 {
	if is32[T]() {
		return 4
	}
	return 8
}

// rowOrder returns the gather list of a row-kernel case: nil for rows in
// order. The "-gather" cases get the n rows in a scrambled order. So the
// engine hands a sampled minibatch to the kernels.
func rowOrder(k string, n int) []int {
	if !strings.HasSuffix(k, "-gather") {
		return nil
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = (i * 37) % n // a permutation: 37 is odd and n a power of 2
	}
	return idx
}

// caseFunc makes the data of a case k at size d and adds its variants to b.
type caseFunc[T kernel.Float] func(b *caseBuild[T], k string, d int)

// caseBuild is a case being built: c and the size s of an element of T in
// bytes. It holds the implementations that each case gets a variant of.
type caseBuild[T kernel.Float] struct {
	c     *KernelCase
	s     int64
	impls []kernel.Impl
}

// add appends a variant named name.
func (b *caseBuild[T]) add(name string, base bool, run func()) {
	b.c.Variants = append(b.c.Variants, Variant{Impl: name, Baseline: base, Run: run})
}

// each appends a variant for each implementation. The variant runs what f
// returns for its kernels.
func (b *caseBuild[T]) each(f func(ops kernel.Ops[T]) func()) {
	for _, im := range b.impls {
		b.add(im.Name(), false, f(kernel.OpsOf[T](im)))
	}
}

// build makes case k at size d, in T, with a variant for each of impls
// followed by the baselines. The case families are in kernels_*.go.
func build[T kernel.Float](k string, d int, impls []kernel.Impl) *KernelCase {
	b := &caseBuild[T]{c: &KernelCase{}, s: elemSize[T](), impls: impls}
	for _, family := range []map[string]caseFunc[T]{rowCases[T](), mlpCases[T](), elementwiseCases[T](), outOfCacheCases[T]()} {
		if f, ok := family[k]; ok {
			f(b, k, d)
			return b.c
		}
	}
	panic("bench: unknown kernel case " + k)
}
