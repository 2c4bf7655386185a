package batch

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/internal/rng"
)

// DefaultHidden is the hidden width of the paper's three-layer network.
const DefaultHidden = 100

// MLP is the three-layer network d → h → k with ReLU hidden units and a
// softmax cross-entropy output. Its matrix products run through the kernels
// of package kernel (MarginsK, AddOuterK, AddRows). A network made by
// NewMLPBLAS runs them through gonum's BLAS (Sgemm/Dgemm) instead. The two
// give the same gradients to rounding. The kernels are faster on minibatch
// chunks, as gonum's gemm starts goroutines of its own and allocates.
// θ = (W1, b1, W2, b2). W1 is h×d, unit j's input weights at θ[j*d:(j+1)*d].
// b1 has h entries, W2 is k×h, b2 has k.
type MLP[T Float] struct {
	d, h, k int
	ops     kernel.Ops[T]
	blas    bool // matrix products through gonum's BLAS
}

// NewMLP returns the network d → h → k; h ≤ 0 means DefaultHidden. It
// returns an error unless 1 ≤ d ≤ MaxDim, 2 ≤ k ≤ MaxDim and h ≤ MaxDim. The
// h·(d + k + 1) + k parameters must be at most MaxParams.
func NewMLP[T Float](d, h, k int) (*MLP[T], error) {
	if h <= 0 {
		h = DefaultHidden
	}
	for _, c := range []struct {
		what   string
		v, min int
	}{{"inputs", d, 1}, {"hidden units", h, 1}, {"classes", k, 2}} {
		if err := checkSize(c.what, c.v, c.min); err != nil {
			return nil, err
		}
	}
	if err := checkParams(fmt.Sprintf("mlp %d → %d → %d", d, h, k), h, d+k+1, k); err != nil {
		return nil, err
	}
	return &MLP[T]{d: d, h: h, k: k, ops: kernel.For[T]()}, nil
}

// NewMLPBLAS returns the network d → h → k whose matrix products run through
// gonum's BLAS. It uses blas32.Implementation or blas64.Implementation.
// Sizes are as for NewMLP.
func NewMLPBLAS[T Float](d, h, k int) (*MLP[T], error) {
	m, err := NewMLP[T](d, h, k)
	if err != nil {
		return nil, err
	}
	m.blas = true
	return m, nil
}

// Name implements Model.
func (m *MLP[T]) Name() string { return "mlp" }

// Hidden returns the hidden width h.
func (m *MLP[T]) Hidden() int { return m.h }

// NumParams implements Model.
func (m *MLP[T]) NumParams() int { return m.h*m.d + m.h + m.k*m.h + m.k }

// NumOutputs implements Model.
func (m *MLP[T]) NumOutputs() int { return m.k }

// NumInputs returns the number of features d.
func (m *MLP[T]) NumInputs() int { return m.d }

// Convex implements Model: a ReLU network is not.
func (m *MLP[T]) Convex() bool { return false }

// split returns views of θ's four blocks.
func (m *MLP[T]) split(theta []T) (w1, b1, w2, b2 []T) {
	o := m.h * m.d
	w1, b1 = theta[:o], theta[o:o+m.h]
	o += m.h
	w2 = theta[o : o+m.k*m.h]
	o += m.k * m.h
	return w1, b1, w2, theta[o : o+m.k]
}

// InitParams implements Model with PyTorch's default for linear layers.
// Every weight and bias is uniform in ±1/√fan_in. They are drawn from stream
// 0x1a17 of seed in internal/rng, in their layout's order: W₁, b₁, W₂, b₂.
func (m *MLP[T]) InitParams(theta []T, seed uint64) {
	r := rng.New(seed, 0x1a17)
	w1, b1, w2, b2 := m.split(theta)
	uniform := func(x []T, fanIn int) {
		s := 1 / math.Sqrt(float64(fanIn))
		for i := range x {
			x[i] = T((2*r.Float64() - 1) * s)
		}
	}
	uniform(w1, m.d)
	uniform(b1, m.d)
	uniform(w2, m.h)
	uniform(b2, m.h)
}

// Check implements Model.
func (m *MLP[T]) Check(data *Data[T]) error {
	if data == nil {
		return errNoData
	}
	if data.D != m.d {
		return fmt.Errorf("batch: mlp has %d inputs, data has %d features", m.d, data.D)
	}
	if data.K != m.k {
		return fmt.Errorf("batch: mlp has %d classes, data has %d", m.k, data.K)
	}
	return nil
}

// readsSparse marks MLP as a model of sparse (CSR) data: its first layer
// runs the sparse kernels.
func (m *MLP[T]) readsSparse() {}

// gather returns the n input rows as a contiguous n×d matrix for gemm. It
// copies them into wk.xb unless they already are.
func (m *MLP[T]) gather(wk *Work[T], data *Data[T], idx []int, n int) []T {
	if idx == nil && data.Stride == m.d && !data.IsCompact() {
		return data.X[:n*m.d]
	}
	wk.xb = grow(wk.xb, n*m.d)
	if data.IsCompact() {
		for i := 0; i < n; i++ {
			r := i
			if idx != nil {
				r = idx[i]
			}
			data.RowTo(wk.xb[i*m.d:], r)
		}
		return wk.xb
	}
	for i := 0; i < n; i++ {
		r := i
		if idx != nil {
			r = idx[i]
		}
		r *= data.Stride
		copy(wk.xb[i*m.d:(i+1)*m.d], data.X[r:r+m.d])
	}
	return wk.xb
}

// gathered returns what the last gather on wk returned, without copying.
func (m *MLP[T]) gathered(wk *Work[T], data *Data[T], idx []int, n int) []T {
	if idx == nil && data.Stride == m.d && !data.IsCompact() {
		return data.X[:n*m.d]
	}
	return wk.xb[:n*m.d]
}

// logits runs the network to its output layer. It leaves the ReLU
// activations in wk.h and the logits in wk.dloss. The products run through
// the kernels. H = X·W1ᵀ is MarginsK over the gathered rows; W1's h rows
// play the classes. On CSR rows it is SparseMarginsK, h times the row's
// non-zeros, BLAS network or not. Z = H·W2ᵀ is MarginsK over H.
func (m *MLP[T]) logits(wk *Work[T], theta []T, data *Data[T], idx []int, n int) []T {
	w1, b1, w2, b2 := m.split(theta)
	wk.h = grow(wk.h, n*m.h)
	wk.dloss = grow(wk.dloss, n*m.k)
	switch {
	case data.IsSparse():
		m.ops.SparseMarginsK(wk.h, data.Indptr, data.Cols, data.Vals, idx, w1, m.h)
	case m.blas:
		gemm(false, true, n, m.h, m.d, 1, m.gather(wk, data, idx, n), m.d, w1, m.d, 0, wk.h, m.h)
	case data.IsCompact():
		m.ops.MarginsKC(wk.h, &data.c, idx, w1, m.h)
	default:
		m.ops.MarginsK(wk.h, data.X, data.Stride, idx, w1, m.h)
	}
	m.ops.BiasReLU(wk.h, b1)
	if m.blas {
		gemm(false, true, n, m.k, m.h, 1, wk.h, m.h, w2, m.h, 0, wk.dloss, m.k)
	} else {
		m.ops.MarginsK(wk.dloss, wk.h, m.h, nil, w2, m.k)
	}
	addBias(m.ops, &wk.tile, wk.dloss, b2)
	return wk.dloss
}

// Forward implements Model.
func (m *MLP[T]) Forward(wk *Work[T], theta []T, data *Data[T], idx []int, n int) {
	z := m.logits(wk, theta, data, idx, n)
	wk.Loss = grow(wk.Loss, n)
	m.ops.SoftmaxCE(wk.Loss, z, gatherLabels(wk, data, idx, n), m.k)
}

// Backward implements Model by backpropagation through both layers. ∂W2 +=
// dZᵀ·H and ∂W1 += dHᵀ·X are AddOuterK. X's rows are gathered by idx, so
// they are never copied. On CSR rows it is SparseAddOuterK, h times the
// rows' non-zeros. dH = dZ·W2 is AddRowsK: W2's k rows weighted by each
// sample's dZ.
func (m *MLP[T]) Backward(wk *Work[T], theta []T, data *Data[T], idx []int, coef, g []T) {
	m.backwardRest(wk, theta, data, idx, coef, g)
	gw1, _, _, _ := m.split(g)
	switch {
	case data.IsSparse():
		m.ops.SparseAddOuterK(gw1, data.Indptr, data.Cols, data.Vals, idx, wk.dh, m.h)
	case m.blas:
		// The rows were gathered into wk.xb by the Forward on wk.
		gemm(true, false, m.h, m.d, len(coef), 1, wk.dh, m.h, m.gathered(wk, data, idx, len(coef)), m.d, 1, gw1, m.d)
	case data.IsCompact():
		m.ops.AddOuterKC(gw1, &data.c, idx, wk.dh, m.h)
	default:
		m.ops.AddOuterK(gw1, data.X, data.Stride, idx, wk.dh, m.h)
	}
}

// firstLayer implements firstLayerModel: the kernel network's first layer
// on dense float rows.
func (m *MLP[T]) firstLayer(data *Data[T]) (h, d int, ok bool) {
	return m.h, m.d, !m.blas && !data.IsSparse() && !data.IsCompact()
}

// firstLayerCols implements firstLayerModel. It adds to dst, h rows of the
// columns [lo, hi), the hidden gradients wk.dh of the rows idx times those
// columns of the rows. A nil idx means the first n rows. Backward adds the
// same to ∂W1 there.
func (m *MLP[T]) firstLayerCols(dst []T, wk *Work[T], data *Data[T], idx []int, n, lo int) {
	m.ops.AddOuterK(dst, data.X[lo:], data.Stride, idx, wk.dh[:n*m.h], m.h)
}

// backwardRest is Backward but for ∂W1. It leaves that to the caller, with
// the hidden gradients in wk.dh, coefficients applied and ReLU's mask.
func (m *MLP[T]) backwardRest(wk *Work[T], theta []T, data *Data[T], idx []int, coef, g []T) {
	n := len(coef)
	_, _, w2, _ := m.split(theta)
	_, gb1, gw2, gb2 := m.split(g)
	dz := wk.dloss[:n*m.k]
	scaleRows(dz, coef, m.k)
	a := wk.h[:n*m.h]
	wk.dh = grow(wk.dh, n*m.h)
	if m.blas {
		gemm(true, false, m.k, m.h, n, 1, dz, m.k, a, m.h, 1, gw2, m.h)
		gemm(false, false, n, m.h, m.k, 1, dz, m.k, w2, m.h, 0, wk.dh, m.h)
	} else {
		m.ops.AddOuterK(gw2, a, m.h, nil, dz, m.k)
		clear(wk.dh)
		m.ops.AddRowsK(wk.dh, w2, m.h, dz, m.k)
	}
	sumRows(gb2, dz)
	m.ops.ReLUBackward(gb1, wk.dh, a)
}

// Scores implements Model: the logits.
func (m *MLP[T]) Scores(wk *Work[T], theta []T, data *Data[T], idx []int, n int, out []T) {
	copy(out[:n*m.k], m.logits(wk, theta, data, idx, n))
}

// Bounds implements Model: a ReLU network has no closed-form constants.
func (m *MLP[T]) Bounds(Scale, float64) Bounds {
	return Bounds{G: math.NaN(), Beta: math.NaN(), L: math.NaN()}
}
