package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cvarlearn/cvar/bench/internal/peak"
	"github.com/cvarlearn/cvar/internal/rng"
	"github.com/cvarlearn/cvar/kernel"
)

// Names of the baselines that run beside the kernel implementations.
const (
	// Gonum is gonum's blas32/blas64 on the same operation.
	Gonum = "gonum"
	// MathLoop is the plain loop over math.Exp and math.Log1p (in float64,
	// the only precision package math has) that an elementwise kernel
	// replaces.
	MathLoop = "mathloop"
	// Stream is the read-only pass over the same buffer (peak.Sum32), the
	// limit of an out-of-cache kernel.
	Stream = "stream"
)

// Default sizes of the kernel suite: feature counts that put one row in L1
// (64), an MNIST row (784) and a wide row (4096); minibatches of 512 rows;
// elementwise kernels over 4096 elements; the out-of-cache matrix is
// MNIST's 60000 × 784.
var (
	DefaultDims = []int{64, 784, 4096}
)

const (
	// Batch is the minibatch of the row kernels.
	Batch = 512
	// Elems is the length of the elementwise kernels' vectors.
	Elems = 4096
	// Classes is k of the softmax kernels.
	Classes = 10
	// Hidden is h of the MLP's products.
	Hidden = 100
	// ChunkRows is the engine's chunk (64 rows: batch.NewEngine), the rows
	// the MLP's matrix products see at a time.
	ChunkRows = 64
	// OOCRows and OOCDim shape the out-of-cache matrix (MNIST's training set).
	OOCRows, OOCDim = 60000, 784
)

// Variant is one implementation of a kernel case: a kernel implementation
// of package kernel (by its Impl name) or a baseline (Gonum, MathLoop,
// Stream).
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
	// Bytes is what one call reads and writes of its main operands (the
	// matrix or the vectors); it is the working set whose cache level
	// Level names.
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

// Build allocates the case's data and returns it with a variant for each of
// impls followed by the baselines.
func (s KernelSpec) Build(impls []kernel.Impl) *KernelCase { return s.build(impls) }

// SpecConfig selects kernel cases.
type SpecConfig struct {
	Dims       []int    // feature counts of the row and level-1 kernels
	Precs      []string // "f32", "f64"
	Kernels    []string // kernel names; nil: all
	OutOfCache bool     // include the 60000×784 cases
}

// KernelNames lists every kernel case name, in suite order.
var KernelNames = []string{
	"dot", "axpy", "margins", "addrows", "fused", "margins-gather", "addrows-gather", "fused-gather",
	"marginsk", "addouterk",
	"mlp-hidden", "mlp-logits", "mlp-gradw2", "mlp-backh", "mlp-gradw1",
	"mlp-relu", "mlp-relugrad",
	"logistic", "softplus", "exp", "log1p", "softmaxce",
	"margins-ooc", "margins-ooc-gather", "marginsk-ooc-gather",
}

// KernelSpecs returns the cases cfg selects.
func KernelSpecs(cfg SpecConfig) []KernelSpec {
	var out []KernelSpec
	want := func(k string) bool { return cfg.Kernels == nil || slices.Contains(cfg.Kernels, k) }
	for _, k := range KernelNames {
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

// rowOrder returns the gather list of a row-kernel case: nil (rows in order)
// or, for the "-gather" cases, the n rows in a scrambled order, as the
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

// fastest returns the first (best) implementation, for the non-BLAS parts
// of a gonum baseline.
func fastest[T kernel.Float]() kernel.Ops[T] { return kernel.OpsOf[T](kernel.Impls()[0]) }

func build[T kernel.Float](k string, d int, impls []kernel.Impl) *KernelCase {
	s := elemSize[T]()
	c := &KernelCase{}
	add := func(name string, base bool, run func()) {
		c.Variants = append(c.Variants, Variant{Impl: name, Baseline: base, Run: run})
	}
	each := func(f func(ops kernel.Ops[T]) func()) {
		for _, im := range impls {
			add(im.Name(), false, f(kernel.OpsOf[T](im)))
		}
	}
	switch k {
	case "dot":
		x, y := randSlice[T](d, 1, -1, 1), randSlice[T](d, 2, -1, 1)
		c.Bytes, c.Flops = 2*int64(d)*s, 2*int64(d)
		each(func(ops kernel.Ops[T]) func() { return func() { sink += float64(ops.Dot(x, y)) } })
		add(Gonum, true, func() { sink += float64(gonumDot(x, y)) })

	case "axpy":
		x, y := randSlice[T](d, 1, -1, 1), randSlice[T](d, 2, -1, 1)
		c.Bytes, c.Flops = 3*int64(d)*s, 2*int64(d)
		a := T(1e-4)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.Axpy(a, x, y) } })
		add(Gonum, true, func() { gonumAxpy(a, x, y) })

	case "margins", "margins-gather":
		n := Batch
		x, w, m := randSlice[T](n*d, 1, -1, 1), randSlice[T](d, 2, -1, 1), make([]T, n)
		idx := rowOrder(k, n)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.Margins(m, x, d, idx, w) } })
		if idx == nil {
			add(Gonum, true, func() { gonumGemv(false, n, d, 1, x, d, w, 0, m) })
		}

	case "addrows", "addrows-gather":
		n := Batch
		x, cf, g := randSlice[T](n*d, 1, -1, 1), randSlice[T](n, 2, -1e-4, 1e-4), make([]T, d)
		idx := rowOrder(k, n)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.AddRows(g, x, d, idx, cf) } })
		if idx == nil {
			add(Gonum, true, func() { gonumGemv(true, n, d, 1, x, d, cf, 1, g) })
		}

	case "fused", "fused-gather":
		n := Batch
		x, w := randSlice[T](n*d, 1, -1, 1), randSlice[T](d, 2, -0.1, 0.1)
		y, loss, g := signs[T](n), make([]T, n), make([]T, d)
		idx := rowOrder(k, n)
		p := kernel.LinearStep[T]{Loss: kernel.Logistic, Plus: kernel.PlusSoftplus, Tau: 0.5, InvL: 1, Eps: 0.1, Scale: T(1.0 / (0.1 * float64(n)))}
		c.Bytes, c.Flops = int64(n*d)*s, 4*int64(n*d)
		each(func(ops kernel.Ops[T]) func() {
			return func() {
				clear(g)
				sv, sc := ops.FusedLinear(g, loss, x, d, idx, y, w, &p)
				sink += float64(sv + sc)
			}
		})
		if idx != nil {
			break // gonum has no gathered matrix-vector product
		}
		// gonum: the two matrix passes through Sgemv/Dgemv, the loss and
		// weights in between through the fastest elementwise kernels.
		m, dl, sArg, rho, v := make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n)
		fast := fastest[T]()
		add(Gonum, true, func() {
			clear(g)
			gonumGemv(false, n, d, 1, x, d, w, 0, m)
			fast.LinearLoss(kernel.Logistic, loss, dl, m, y)
			for i, l := range loss {
				sArg[i] = l*p.InvL - p.Tau
			}
			fast.Plus(kernel.PlusSoftplus, p.Eps, rho, v, sArg)
			for i := range v {
				v[i] = p.Scale * v[i] * dl[i]
			}
			gonumGemv(true, n, d, 1, x, d, v, 1, g)
		})

	case "marginsk":
		n, kk := Batch, Classes
		x, w, m := randSlice[T](n*d, 1, -1, 1), randSlice[T](kk*d, 2, -1, 1), make([]T, n*kk)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d*kk)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(m, x, d, nil, w, kk) } })
		add(Gonum, true, func() { gonumGemm(false, true, n, kk, d, 1, x, d, w, d, 0, m, kk) })

	case "addouterk":
		n, kk := Batch, Classes
		x, cf, g := randSlice[T](n*d, 1, -1, 1), randSlice[T](n*kk, 2, -1e-4, 1e-4), make([]T, kk*d)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d*kk)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, x, d, nil, cf, kk) } })
		add(Gonum, true, func() { gonumGemm(true, false, kk, d, n, 1, cf, kk, x, d, 1, g, d) })

	case "mlp-hidden": // H = X·W1ᵀ: n×d times d×h
		n, h := ChunkRows, Hidden
		x, w1, hh := randSlice[T](n*d, 1, 0, 1), randSlice[T](h*d, 2, -0.03, 0.03), make([]T, n*h)
		c.Bytes, c.Flops = int64(n*d+h*d)*s, 2*int64(n*d*h)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(hh, x, d, nil, w1, h) } })
		add(Gonum, true, func() { gonumGemm(false, true, n, h, d, 1, x, d, w1, d, 0, hh, h) })

	case "mlp-logits": // Z = H·W2ᵀ: n×h times h×k
		n, h, kk := ChunkRows, Hidden, Classes
		hh, w2, z := randSlice[T](n*h, 1, 0, 1), randSlice[T](kk*h, 2, -0.1, 0.1), make([]T, n*kk)
		c.Bytes, c.Flops = int64(n*h+kk*h)*s, 2*int64(n*h*kk)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.MarginsK(z, hh, h, nil, w2, kk) } })
		add(Gonum, true, func() { gonumGemm(false, true, n, kk, h, 1, hh, h, w2, h, 0, z, kk) })

	case "mlp-gradw2": // gW2 += dZᵀ·H: k×n times n×h
		n, h, kk := ChunkRows, Hidden, Classes
		hh, dz, g := randSlice[T](n*h, 1, 0, 1), randSlice[T](n*kk, 2, -1e-4, 1e-4), make([]T, kk*h)
		c.Bytes, c.Flops = int64(n*h+n*kk)*s, 2*int64(n*h*kk)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, hh, h, nil, dz, kk) } })
		add(Gonum, true, func() { gonumGemm(true, false, kk, h, n, 1, dz, kk, hh, h, 1, g, h) })

	case "mlp-backh": // dH = dZ·W2: n×k times k×h
		n, h, kk := ChunkRows, Hidden, Classes
		dz, w2, dh := randSlice[T](n*kk, 1, -1, 1), randSlice[T](kk*h, 2, -0.1, 0.1), make([]T, n*h)
		c.Bytes, c.Flops = int64(n*h+n*kk)*s, 2*int64(n*h*kk)
		each(func(ops kernel.Ops[T]) func() {
			return func() {
				clear(dh)
				ops.AddRowsK(dh, w2, h, dz, kk)
			}
		})
		add(Gonum, true, func() { gonumGemm(false, false, n, h, kk, 1, dz, kk, w2, h, 0, dh, h) })

	case "mlp-gradw1": // gW1 += dHᵀ·X: h×n times n×d
		n, h := ChunkRows, Hidden
		x, dh, g := randSlice[T](n*d, 1, 0, 1), randSlice[T](n*h, 2, -1e-4, 1e-4), make([]T, h*d)
		c.Bytes, c.Flops = int64(n*d+h*d)*s, 2*int64(n*d*h)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.AddOuterK(g, x, d, nil, dh, h) } })
		add(Gonum, true, func() { gonumGemm(true, false, h, d, n, 1, dh, h, x, d, 1, g, d) })

	case "mlp-relu": // H = max(H + b1, 0): n×h
		n, h := ChunkRows, Hidden
		hh, b1 := randSlice[T](n*h, 1, -1, 1), randSlice[T](h, 2, -0.1, 0.1)
		c.Bytes, c.Elems = int64(2*n*h)*s, int64(n*h)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.BiasReLU(hh, b1) } })

	case "mlp-relugrad": // dH masked where H ≤ 0, gb1 += its rows: n×h
		n, h := ChunkRows, Hidden
		a, dh, gb := randSlice[T](n*h, 1, -1, 1), randSlice[T](n*h, 2, -1e-4, 1e-4), make([]T, h)
		c.Bytes, c.Elems = int64(3*n*h)*s, int64(n*h)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.ReLUBackward(gb, dh, a) } })

	case "logistic":
		n := d
		m, y := randSlice[T](n, 1, -8, 8), signs[T](n)
		loss, dl := make([]T, n), make([]T, n)
		c.Bytes, c.Elems = 4*int64(n)*s, int64(n)
		each(func(ops kernel.Ops[T]) func() {
			return func() { ops.LinearLoss(kernel.Logistic, loss, dl, m, y) }
		})
		add(MathLoop, true, func() {
			for i, mi := range m {
				yi := float64(y[i])
				z := yi * float64(mi)
				loss[i] = T(math.Max(-z, 0) + math.Log1p(math.Exp(-math.Abs(z))))
				dl[i] = T(-yi / (1 + math.Exp(z)))
			}
		})

	case "softplus":
		n := d
		sArg := randSlice[T](n, 1, -2, 2)
		rho, dr := make([]T, n), make([]T, n)
		const eps = 0.5
		c.Bytes, c.Elems = 3*int64(n)*s, int64(n)
		each(func(ops kernel.Ops[T]) func() {
			return func() { ops.Plus(kernel.PlusSoftplus, eps, rho, dr, sArg) }
		})
		add(MathLoop, true, func() {
			for i, si := range sArg {
				t := float64(si) / eps
				rho[i] = T(math.Max(float64(si), 0) + eps*math.Log1p(math.Exp(-math.Abs(t))))
				dr[i] = T(1 / (1 + math.Exp(-t)))
			}
		})

	case "exp":
		n := d
		x, dst := randSlice[T](n, 1, -20, 20), make([]T, n)
		c.Bytes, c.Elems = 2*int64(n)*s, int64(n)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.Exp(dst, x) } })
		add(MathLoop, true, func() {
			for i, v := range x {
				dst[i] = T(math.Exp(float64(v)))
			}
		})

	case "log1p":
		n := d
		x, dst := randSlice[T](n, 1, -0.5, 20), make([]T, n)
		c.Bytes, c.Elems = 2*int64(n)*s, int64(n)
		each(func(ops kernel.Ops[T]) func() { return func() { ops.Log1p(dst, x) } })
		add(MathLoop, true, func() {
			for i, v := range x {
				dst[i] = T(math.Log1p(float64(v)))
			}
		})

	case "softmaxce":
		// The kernel overwrites z with its gradient; each call starts from a
		// copy of the logits (the copy, 20 KiB, is part of every variant).
		n, kk := Batch, Classes
		z0, z := randSlice[T](n*kk, 1, -5, 5), make([]T, n*kk)
		loss, lab := make([]T, n), make([]int32, n)
		for i := range lab {
			lab[i] = int32(i * 7 % kk)
		}
		c.Bytes, c.Elems = int64(2*n*kk+n)*s, int64(n*kk)
		each(func(ops kernel.Ops[T]) func() {
			return func() { copy(z, z0); ops.SoftmaxCE(loss, z, lab, kk) }
		})
		add(MathLoop, true, func() {
			copy(z, z0)
			for i := range loss {
				zi := z[i*kk : (i+1)*kk]
				mx := math.Inf(-1)
				for _, v := range zi {
					mx = math.Max(mx, float64(v))
				}
				var sum float64
				for j, v := range zi {
					e := math.Exp(float64(v) - mx)
					zi[j] = T(e)
					sum += e
				}
				y := lab[i]
				loss[i] = T(math.Log(sum) - (float64(z0[i*kk+int(y)]) - mx))
				for j := range zi {
					zi[j] = T(float64(zi[j]) / sum)
				}
				zi[y]--
			}
		})

	case "margins-ooc", "margins-ooc-gather":
		n := OOCRows
		x, w, m := randSlice[T](n*d, 1, 0, 1), randSlice[T](d, 2, -1, 1), make([]T, Batch)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d)
		// One call covers the whole matrix, a minibatch of rows at a time
		// (as training does); "gather" visits n rows drawn with replacement,
		// like Alg 3's sampling.
		idx := make([]int, n)
		r := rng.New(3, 4)
		for i := range idx {
			if k == "margins-ooc-gather" {
				idx[i] = r.IntN(n)
			} else {
				idx[i] = i
			}
		}
		gather := k == "margins-ooc-gather"
		each(func(ops kernel.Ops[T]) func() {
			return func() {
				for i := 0; i < n; i += Batch {
					b := min(Batch, n-i)
					if gather {
						ops.Margins(m[:b], x, d, idx[i:i+b], w)
					} else {
						ops.Margins(m[:b], x[i*d:], d, nil, w)
					}
				}
			}
		})
		if !gather {
			add(Gonum, true, func() {
				for i := 0; i < n; i += Batch {
					b := min(Batch, n-i)
					gonumGemv(false, b, d, 1, x[i*d:], d, w, 0, m[:b])
				}
			})
		}
		// The same bytes read once, front to back, by the stream loop.
		raw := asFloat32s(x)
		add(Stream, true, func() { sink += float64(peak.Sum32(raw)) })

	case "marginsk-ooc-gather":
		// Softmax's forward pass as Alg 3 runs it: k = 10 margins of rows
		// drawn with replacement from the 60000×784 matrix, a minibatch at
		// a time.
		n, kk := OOCRows, Classes
		x, w, m := randSlice[T](n*d, 1, 0, 1), randSlice[T](kk*d, 2, -1, 1), make([]T, Batch*kk)
		c.Bytes, c.Flops = int64(n*d)*s, 2*int64(n*d*kk)
		idx := make([]int, n)
		r := rng.New(3, 4)
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		each(func(ops kernel.Ops[T]) func() {
			return func() {
				for i := 0; i < n; i += Batch {
					b := min(Batch, n-i)
					ops.MarginsK(m[:b*kk], x, d, idx[i:i+b], w, kk)
				}
			}
		})
		raw := asFloat32s(x)
		add(Stream, true, func() { sink += float64(peak.Sum32(raw)) })

	default:
		panic("bench: unknown kernel case " + k)
	}
	return c
}
