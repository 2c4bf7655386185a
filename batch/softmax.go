package batch

import (
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// Softmax is multinomial logistic regression over k classes with
// cross-entropy loss. The loss is ℓ = logsumexp(z) − z_y, with z = W x + b.
// θ = (W, b): W is k×d class-major (class j's weights at θ[j*d:(j+1)*d]),
// then the k biases.
type Softmax[T Float] struct {
	d, k int
	ops  kernel.Ops[T]
}

// NewSoftmax returns multinomial logistic regression on d features, k
// classes. It returns an error unless 1 ≤ d ≤ MaxDim and 2 ≤ k ≤ MaxDim. The
// k·(d + 1) parameters must be at most MaxParams.
func NewSoftmax[T Float](d, k int) (*Softmax[T], error) {
	if err := checkSize("features", d, 1); err != nil {
		return nil, err
	}
	if err := checkSize("classes", k, 2); err != nil {
		return nil, err
	}
	if err := checkParams(fmt.Sprintf("softmax with %d features and %d classes", d, k), k, d+1, 0); err != nil {
		return nil, err
	}
	return &Softmax[T]{d: d, k: k, ops: kernel.For[T]()}, nil
}

// Name implements Model.
func (s *Softmax[T]) Name() string { return "softmax" }

// NumParams implements Model: k·d weights and k biases.
func (s *Softmax[T]) NumParams() int { return s.k*s.d + s.k }

// NumOutputs implements Model.
func (s *Softmax[T]) NumOutputs() int { return s.k }

// NumInputs returns the number of features d.
func (s *Softmax[T]) NumInputs() int { return s.d }

// Convex implements Model.
func (s *Softmax[T]) Convex() bool { return true }

// InitParams implements Model: zeros.
func (s *Softmax[T]) InitParams(theta []T, _ uint64) { clear(theta[:s.NumParams()]) }

// Check implements Model.
func (s *Softmax[T]) Check(data *Data[T]) error {
	if data == nil {
		return errNoData
	}
	if data.D != s.d {
		return fmt.Errorf("batch: softmax model has %d features, data has %d", s.d, data.D)
	}
	if data.K != s.k {
		return fmt.Errorf("batch: softmax model has %d classes, data has %d", s.k, data.K)
	}
	return nil
}

func gatherLabels[T Float](wk *Work[T], data *Data[T], idx []int, n int) []int32 {
	return gather(&wk.lab, data.Labels, idx, n)
}

// addBias adds b[j] to column j of the n×k matrix z, as one Axpy over b
// tiled to z's length in tile. The result is z + b bit for bit: the kernel's
// product by 1 is exact. For small k a Go loop over the columns costs about
// as much as the softmax itself.
func addBias[T Float](ops kernel.Ops[T], tile *[]T, z, b []T) {
	k := len(b)
	if k == 0 {
		return
	}
	n := len(z) / k * k
	*tile = grow(*tile, n)
	t := (*tile)[:n]
	for filled := copy(t, b); filled < n; {
		filled += copy(t[filled:], t[:filled])
	}
	ops.Axpy(1, t, z[:n])
}

// logits returns the n×k logits for θ of k blocks of d weights and the k
// biases. A d below s.d means sparse data of d columns, renumbered (see
// sparsecols.go).
func (s *Softmax[T]) logits(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int) []T {
	kd := s.k * d
	wk.dloss = grow(wk.dloss, n*s.k)
	if data.IsSparse() {
		s.ops.SparseMarginsK(wk.dloss, data.Indptr, data.Cols, data.Vals, idx, theta[:kd], s.k)
	} else if data.IsCompact() {
		s.ops.MarginsKC(wk.dloss, &data.c, idx, theta[:kd], s.k)
	} else {
		s.ops.MarginsK(wk.dloss, data.X, data.Stride, idx, theta[:kd], s.k)
	}
	addBias(s.ops, &wk.tile, wk.dloss, theta[kd:kd+s.k])
	return wk.dloss
}

// readsSparse marks Softmax as a model of sparse (CSR) data.
func (s *Softmax[T]) readsSparse() {}

// Forward implements Model.
func (s *Softmax[T]) Forward(wk *Work[T], theta []T, data *Data[T], idx []int, n int) {
	s.forward(wk, theta, data, idx, n, s.d)
}

// forward is Forward with θ of k blocks of d weights and the k biases (see
// logits).
func (s *Softmax[T]) forward(wk *Work[T], theta []T, data *Data[T], idx []int, n, d int) {
	z := s.logits(wk, theta, data, idx, n, d)
	wk.Loss = grow(wk.Loss, n)
	s.ops.SoftmaxCE(wk.Loss, z, gatherLabels(wk, data, idx, n), s.k)
}

// Backward implements Model: G += Σ_i c_i (p_i − e_{y_i}) x_iᵀ, b += Σ_i c_i (p_i − e_{y_i}).
func (s *Softmax[T]) Backward(wk *Work[T], _ []T, data *Data[T], idx []int, coef, g []T) {
	s.backward(wk, data, idx, coef, g, s.d)
}

// backward is Backward into a gradient of k blocks of d weights and the k
// biases. A d below s.d means sparse data of d columns, renumbered (see
// sparsecols.go).
func (s *Softmax[T]) backward(wk *Work[T], data *Data[T], idx []int, coef, g []T, d int) {
	kd := s.k * d
	scaleRows(wk.dloss, coef, s.k)
	if data.IsSparse() {
		s.ops.SparseAddOuterK(g[:kd], data.Indptr, data.Cols, data.Vals, idx, wk.dloss[:len(coef)*s.k], s.k)
	} else if data.IsCompact() {
		s.ops.AddOuterKCNext(g[:kd], &data.c, idx, wk.dloss[:len(coef)*s.k], s.k, wk.next)
	} else {
		s.ops.AddOuterKNext(g[:kd], data.X, data.Stride, idx, wk.dloss[:len(coef)*s.k], s.k, wk.next)
	}
	sumRows(g[kd:kd+s.k], wk.dloss[:len(coef)*s.k])
}

// scaleRows multiplies row i of the n×k matrix z by c[i].
func scaleRows[T Float](z, c []T, k int) {
	for i, ci := range c {
		row := z[i*k : (i+1)*k]
		for j := range row {
			row[j] *= ci
		}
	}
}

// sumRows adds the rows of the n×k matrix z to dst (len k).
func sumRows[T Float](dst, z []T) {
	k := len(dst)
	for i := 0; i+k <= len(z); i += k {
		for j, v := range z[i : i+k] {
			dst[j] += v
		}
	}
}

// Scores implements Model: the logits.
func (s *Softmax[T]) Scores(wk *Work[T], theta []T, data *Data[T], idx []int, n int, out []T) {
	copy(out[:n*s.k], s.logits(wk, theta, data, idx, n, s.d))
}

// Bounds implements Model. Let X = max‖(x, 1)‖. The gradient in z of the
// cross-entropy has norm ≤ √2 and its Hessian norm ≤ ½. So G = √2·X and
// β = X²/2. The logits differ by at most 2R·X, so L = log k + 2R·X.
func (s *Softmax[T]) Bounds(sc Scale, radius float64) Bounds {
	x := math.Sqrt(sc.MaxNorm*sc.MaxNorm + 1)
	return Bounds{G: math.Sqrt2 * x, Beta: x * x / 2, L: math.Log(float64(s.k)) + 2*radius*x}
}
