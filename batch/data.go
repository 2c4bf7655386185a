package batch

import (
	"errors"
	"fmt"
	"math"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// Float is the element type: float32 or float64.
type Float = kernel.Float

// Data is n samples of d features, with their targets. The features are held
// either dense, row-major in X, or sparse in CSR form (IsSparse). CSR form
// holds the offsets Indptr, and the column indices Cols and values Vals of
// the non-zeros. NewData builds the one, NewSparseData the other.
type Data[T Float] struct {
	// X holds row i in X[i*Stride : i*Stride+D]; nil for sparse data.
	X      []T
	N, D   int
	Stride int // 0 for sparse data

	// Sparse data (CSR): row i holds Vals[p] in column Cols[p] for
	// Indptr[i] ≤ p < Indptr[i+1]. The N+1 offsets rise from 0 to len(Cols).
	// A row's columns need not be sorted. A column repeated within a row
	// means the sum of its values. All three are nil for dense data.
	Indptr []int64
	Cols   []uint32
	Vals   []T

	// c holds compact dense features (NewDataU8, NewDataF16, NewDataBF16;
	// see IsCompact). Row i starts at i*Stride, and X is nil. c.Format is
	// kernel.Dense otherwise.
	c kernel.Compact

	Y      []T     // regression targets, or ±1 for binary classification
	Labels []int32 // classes 0..K−1 for classification, nil for regression
	K      int     // number of classes; 0 for regression
}

// NewData wraps x (n×d, row-major, not copied) with regression targets y or
// class labels in [0, k). Exactly one of y and labels is given. It checks
// the shapes, that every value is finite and that every label is in range.
// So the kernels never see bad input. For k = 2, Y is filled with the ±1
// labels that binary logistic regression uses.
func NewData[T Float](x []T, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	switch {
	case n <= 0 || d <= 0:
		return nil, fmt.Errorf("batch: data has %d rows and %d columns; need at least one of each", n, d)
	case len(x)%d != 0 || len(x)/d != n: // len(x) = n·d, without overflowing n·d
		return nil, fmt.Errorf("batch: x has %d values, want n·d = %d·%d", len(x), n, d)
	case (y == nil) == (labels == nil):
		return nil, errors.New("batch: give either regression targets or class labels, not both or neither")
	}
	for i, v := range x {
		if !finite(float64(v)) {
			return nil, fmt.Errorf("batch: row %d, column %d: value %v is not finite", i/d, i%d, v)
		}
	}
	return setTargets(&Data[T]{X: x, N: n, D: d, Stride: d}, y, labels, k)
}

// NewSparseData wraps n rows of d features in CSR form (not copied). Row i
// holds vals[p] in column cols[p] for indptr[i] ≤ p < indptr[i+1]. Columns
// need not be sorted. A column repeated within a row stands for the sum of
// its values. Targets and labels are as for NewData. It checks that indptr
// has n+1 offsets rising from 0 to len(cols) = len(vals). It checks that
// every column is below d and every value finite. It checks the targets as
// NewData does.
func NewSparseData[T Float](indptr []int64, cols []uint32, vals []T, n, d int, y []T, labels []int32, k int) (*Data[T], error) {
	switch {
	case n <= 0 || d <= 0:
		return nil, fmt.Errorf("batch: data has %d rows and %d columns; need at least one of each", n, d)
	case len(indptr)-1 != n:
		return nil, fmt.Errorf("batch: %d row offsets for %d rows; want n+1", len(indptr), n)
	case len(cols) != len(vals):
		return nil, fmt.Errorf("batch: %d column indices and %d values; want one of each per non-zero", len(cols), len(vals))
	case indptr[0] != 0 || indptr[n] != int64(len(cols)):
		return nil, fmt.Errorf("batch: row offsets run from %d to %d; want 0 to the %d non-zeros", indptr[0], indptr[n], len(cols))
	case (y == nil) == (labels == nil):
		return nil, errors.New("batch: give either regression targets or class labels, not both or neither")
	}
	for i := 0; i < n; i++ {
		if indptr[i+1] < indptr[i] {
			return nil, fmt.Errorf("batch: row %d: offsets %d, %d decrease", i, indptr[i], indptr[i+1])
		}
	}
	for i := 0; i < n; i++ {
		for p := indptr[i]; p < indptr[i+1]; p++ {
			if c := cols[p]; uint64(c) >= uint64(d) {
				return nil, fmt.Errorf("batch: row %d: column %d outside the %d columns", i, c, d)
			}
			if v := vals[p]; !finite(float64(v)) {
				return nil, fmt.Errorf("batch: row %d, column %d: value %v is not finite", i, cols[p], v)
			}
		}
	}
	return setTargets(&Data[T]{N: n, D: d, Indptr: indptr, Cols: cols, Vals: vals}, y, labels, k)
}

// setTargets checks and sets the targets of NewData and NewSparseData.
func setTargets[T Float](data *Data[T], y []T, labels []int32, k int) (*Data[T], error) {
	n := data.N
	if y != nil {
		if len(y) != n {
			return nil, fmt.Errorf("batch: %d targets for %d rows", len(y), n)
		}
		for i, v := range y {
			if !finite(float64(v)) {
				return nil, fmt.Errorf("batch: row %d: target %v is not finite", i, v)
			}
		}
		data.Y = y
		return data, nil
	}
	if k < 2 {
		return nil, fmt.Errorf("batch: classification needs at least 2 classes, got k = %d", k)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("batch: %d labels for %d rows", len(labels), n)
	}
	for i, c := range labels {
		if c < 0 || int(c) >= k {
			return nil, fmt.Errorf("batch: row %d: label %d outside the classes 0..%d", i, c, k-1)
		}
	}
	data.Labels, data.K = labels, k
	if k == 2 {
		data.Y = make([]T, n)
		for i, c := range labels {
			data.Y[i] = T(2*c - 1)
		}
	}
	return data, nil
}

// Validate reports a Data that the models and the Engine cannot use. The
// error names the row and the column or entry at fault:
//
//   - its features, as ValidateFeatures;
//   - its targets: for regression (Labels nil) K = 0 and a finite target
//     Y a row; for classification K ≥ 2, a label a row in [0, K), and for
//     K = 2 the ±1 targets of binary logistic regression, Y[i] =
//     2·Labels[i] − 1 (NewData fills them in).
//
// NewData's, NewSparseData's and the compact constructors' results are
// valid; a Data built by hand should be validated. It reads the whole data
// once.
func (d *Data[T]) Validate() error {
	if err := d.checkShape(); err != nil {
		return err
	}
	var scratch []T
	if err := d.checkFeatureRows(0, d.N, &scratch); err != nil {
		return err
	}
	return d.checkTargetRows(0, d.N)
}

// IsSparse reports whether the features are held in CSR form.
func (d *Data[T]) IsSparse() bool { return d.Indptr != nil }

// rows is N, or 0 for a nil Data.
func (d *Data[T]) rows() int {
	if d == nil {
		return 0
	}
	return d.N
}

// ValidateFeatures reports a Data whose features the models cannot read. The
// error names the row and the column or entry at fault. Engine.Scores needs
// this check, as it uses no targets or labels. The data has N ≥ 1 rows of
// D ≥ 1 columns, and
//
//   - dense: X holds N rows of Stride ≥ D values, every one finite;
//   - sparse (CSR): Indptr holds N+1 offsets rising from 0 to len(Cols),
//     and len(Vals) = len(Cols); every column index is below D (the
//     indices of a row need not be sorted, and may repeat: see Data) and
//     every value finite; X is nil and the data not compact;
//   - compact: its storage holds N rows of Stride ≥ D values, every one
//     finite, a u8 scale positive and finite.
//
// It reads every feature once.
func (d *Data[T]) ValidateFeatures() error {
	if err := d.featureShape(); err != nil {
		return err
	}
	var scratch []T
	return d.checkFeatureRows(0, d.N, &scratch)
}

// featureShape is ValidateFeatures without the values: O(1).
func (d *Data[T]) featureShape() error {
	switch {
	case d == nil:
		return errNoData
	case d.IsSparse():
		return d.sparseShape()
	case d.IsCompact():
		return d.validateCompact()
	case d.N <= 0 || d.D <= 0 || d.Stride < d.D:
		return fmt.Errorf("batch: data has %d rows of %d columns with stride %d; want at least one of each, stride ≥ columns", d.N, d.D, d.Stride)
	case len(d.X) < d.D || (len(d.X)-d.D)/d.Stride < d.N-1: // len(X) ≥ (N−1)·Stride + D
		return fmt.Errorf("batch: data has %d values, too few for %d rows of stride %d", len(d.X), d.N, d.Stride)
	}
	return nil
}

// sparseShape is featureShape for sparse data.
func (d *Data[T]) sparseShape() error {
	switch {
	case d.N <= 0 || d.D <= 0:
		return fmt.Errorf("batch: data has %d rows of %d columns; want at least one of each", d.N, d.D)
	case len(d.Indptr)-1 != d.N:
		return fmt.Errorf("batch: sparse data has %d row offsets for %d rows; want n+1", len(d.Indptr), d.N)
	case len(d.Cols) != len(d.Vals):
		return fmt.Errorf("batch: sparse data has %d column indices and %d values; want one of each per non-zero", len(d.Cols), len(d.Vals))
	case d.Indptr[0] != 0 || d.Indptr[d.N] != int64(len(d.Cols)):
		return fmt.Errorf("batch: sparse data's row offsets run from %d to %d; want 0 to the %d non-zeros", d.Indptr[0], d.Indptr[d.N], len(d.Cols))
	case d.X != nil || d.IsCompact():
		return errors.New("batch: sparse data also holds dense or compact features; want only Indptr, Cols and Vals")
	}
	return nil
}

// checkFeatureRows reports the first bad feature of the rows [lo, hi) of
// data whose shape is valid (featureShape). A bad feature is a value that is
// not finite. Of sparse data it is also an offset that falls or leaves [0,
// len(Cols)], or a column index outside the columns. It reads nothing
// outside those rows, so each of the Engine's chunks checks its own. scratch
// is a buffer it may grow.
func (d *Data[T]) checkFeatureRows(lo, hi int, scratch *[]T) error {
	switch {
	case d.IsSparse():
		return d.checkSparseRows(lo, hi)
	case d.IsCompact():
		return d.checkCompactRows(lo, hi)
	}
	return d.checkDenseRows(lo, hi, scratch)
}

// checkSparseRows is checkFeatureRows for sparse data. It checks the offsets
// first, so the rows' entries are read only within Cols and Vals.
func (d *Data[T]) checkSparseRows(lo, hi int) error {
	nnz := int64(len(d.Cols))
	if a := d.Indptr[lo]; a < 0 || a > nnz {
		return fmt.Errorf("batch: row %d: offset %d outside the %d non-zeros", lo, a, nnz)
	}
	for i := lo; i < hi; i++ {
		a, b := d.Indptr[i], d.Indptr[i+1]
		switch {
		case b < a:
			return fmt.Errorf("batch: row %d: offsets %d, %d decrease", i, a, b)
		case b > nnz:
			return fmt.Errorf("batch: row %d: offset %d outside the %d non-zeros", i, b, nnz)
		}
	}
	for i := lo; i < hi; i++ {
		a, b := d.Indptr[i], d.Indptr[i+1]
		for p, c := range d.Cols[a:b] {
			if uint64(c) >= uint64(d.D) {
				return fmt.Errorf("batch: row %d, entry %d: column %d outside the %d columns", i, p, c, d.D)
			}
			if v := d.Vals[a+int64(p)]; !finite(float64(v)) {
				return fmt.Errorf("batch: row %d, column %d: value %v is not finite", i, c, v)
			}
		}
	}
	return nil
}

// checkDenseRows is checkFeatureRows for dense data; scratch is grown to
// hold a margin a row. A row's margin against zero weights is 0 unless the
// row holds a NaN or an infinity (0·±Inf is NaN). So the kernels' Margins
// screens the rows at the speed of the models' own passes. Only a row that
// fails is searched value by value.
func (d *Data[T]) checkDenseRows(lo, hi int, scratch *[]T) error {
	margins := kernel.For[T]().Margins
	zeros := zerosOf[T]()
	const rows = 256 // margins a screen
	m := grow(*scratch, min(rows, hi-lo))
	*scratch = m
	for i := lo; i < hi; i += rows {
		n := min(rows, hi-i)
		for l := 0; l < d.D; l += len(zeros) { // columns l … l+w−1 of the rows
			w := min(len(zeros), d.D-l)
			margins(m[:n], d.X[i*d.Stride+l:], d.Stride, nil, zeros[:w])
			for r, v := range m[:n] {
				if v != 0 {
					return d.nonFinite(i + r)
				}
			}
		}
	}
	return nil
}

// zeros32 and zeros64 are the weights checkDenseRows screens rows
// against: read, never written.
var (
	zeros32 [4096]float32
	zeros64 [4096]float64
)

func zerosOf[T Float]() []T {
	if is32[T]() {
		return any(zeros32[:]).([]T)
	}
	return any(zeros64[:]).([]T)
}

// nonFinite reports the first value of dense row i that is not finite,
// which the caller's screen found.
func (d *Data[T]) nonFinite(i int) error {
	for j, v := range d.Row(i) {
		if !finite(float64(v)) {
			return fmt.Errorf("batch: row %d, column %d: value %v is not finite", i, j, v)
		}
	}
	return fmt.Errorf("batch: row %d: the features' product with zeros is not 0", i)
}

// checkCompactRows is checkFeatureRows for compact data. A byte is always
// finite; its scale is checked with the shape. A half or a bfloat16 is not
// finite when its exponent bits are all ones.
func (d *Data[T]) checkCompactRows(lo, hi int) error {
	c := &d.c
	var h []uint16
	var exp uint16
	switch c.Format {
	case kernel.F16:
		h, exp = c.F16, 0x7c00
	case kernel.BF16:
		h, exp = c.BF16, 0x7f80
	default:
		return nil
	}
	for i := lo; i < hi; i++ {
		for j, v := range h[i*c.Stride : i*c.Stride+d.D] {
			if v&exp == exp {
				return fmt.Errorf("batch: row %d, column %d: value %v is not finite", i, j, kernel.CompactAt[float32](c, i*c.Stride+j))
			}
		}
	}
	return nil
}

// checkShape is Validate without the values: O(1).
func (d *Data[T]) checkShape() error {
	if err := d.featureShape(); err != nil {
		return err
	}
	switch {
	case d.Labels == nil && (d.K != 0 || len(d.Y) < d.N):
		return fmt.Errorf("batch: regression data has %d targets for %d rows and %d classes; want a target a row and no classes", len(d.Y), d.N, d.K)
	case d.Labels != nil && (d.K < 2 || len(d.Labels) < d.N):
		return fmt.Errorf("batch: classification data has %d labels for %d rows and %d classes; want a label a row and at least 2 classes", len(d.Labels), d.N, d.K)
	case d.K == 2 && len(d.Y) < d.N:
		return fmt.Errorf("batch: binary data has %d ±1 targets for %d rows (NewData fills them in)", len(d.Y), d.N)
	}
	return nil
}

// checkTargetRows reports the first bad target of the rows [lo, hi) of data
// whose shape is valid (checkShape). A bad target is a label outside the
// classes, or a binary ±1 target that is not its label's. It is also a
// regression target that is not finite.
func (d *Data[T]) checkTargetRows(lo, hi int) error {
	if d.Labels == nil {
		for i, v := range d.Y[lo:hi] {
			if !finite(float64(v)) {
				return fmt.Errorf("batch: row %d: target %v is not finite", lo+i, v)
			}
		}
		return nil
	}
	if err := checkLabels(d, d.Labels[lo:hi], lo); err != nil {
		return err
	}
	if d.K == 2 {
		for i, c := range d.Labels[lo:hi] {
			if y := d.Y[lo+i]; y != T(2*c-1) {
				return fmt.Errorf("batch: row %d: binary target %v for label %d; want %d (2·label − 1, which NewData fills in)", lo+i, y, c, 2*c-1)
			}
		}
	}
	return nil
}

// Row returns sample i's features. Like a slice index, it panics unless
// 0 ≤ i < N on a valid Data. It panics on sparse data, which has no dense
// rows: see SparseRow; and on compact data: see RowTo.
func (d *Data[T]) Row(i int) []T {
	if d.IsSparse() {
		panic("batch: Row of sparse data (use SparseRow)")
	}
	if d.IsCompact() {
		panic("batch: Row of compact data (use RowTo)")
	}
	return d.X[i*d.Stride : i*d.Stride+d.D]
}

// SparseRow returns the column indices and values of sparse sample i's
// entries (not copied; columns may repeat, see Data). It panics unless the
// data is sparse and 0 ≤ i < N.
func (d *Data[T]) SparseRow(i int) (cols []uint32, vals []T) {
	if !d.IsSparse() {
		panic("batch: SparseRow of dense data (use Row)")
	}
	lo, hi := d.Indptr[i], d.Indptr[i+1]
	return d.Cols[lo:hi], d.Vals[lo:hi]
}

// sqNorm returns ‖x_i‖², of the row's summed entries for sparse data.
func (d *Data[T]) sqNorm(i int, sums map[uint32]float64) float64 {
	var s float64
	if d.IsCompact() {
		r := i * d.c.Stride
		for l := 0; l < d.D; l++ {
			v := float64(kernel.CompactAt[T](&d.c, r+l))
			s += v * v
		}
		return s
	}
	if !d.IsSparse() {
		for _, v := range d.Row(i) {
			s += float64(v) * float64(v)
		}
		return s
	}
	cols, vals := d.SparseRow(i)
	sorted := true
	for p := 1; p < len(cols); p++ {
		if cols[p] <= cols[p-1] {
			sorted = false
			break
		}
	}
	if sorted { // no repeated column
		for _, v := range vals {
			s += float64(v) * float64(v)
		}
		return s
	}
	clear(sums)
	for p, c := range cols {
		sums[c] += float64(vals[p])
	}
	for _, v := range sums {
		s += v * v
	}
	return s
}

// IsClassification reports whether the data carries class labels.
func (d *Data[T]) IsClassification() bool { return d.Labels != nil }

// Scale returns max_i ‖x_i‖ and, for regression, max_i |y_i|. They are the
// data constants of the theorems' Lipschitz and smoothness bounds. d must be
// valid: NewData's or NewSparseData's result, or see Validate. Of sparse
// data the norms are those of the non-zeros, repeated columns summed first.
func (d *Data[T]) Scale() Scale {
	var maxNorm, maxAbsY float64
	var sums map[uint32]float64
	if d.IsSparse() {
		sums = make(map[uint32]float64)
	}
	for i := 0; i < d.N; i++ {
		maxNorm = math.Max(maxNorm, d.sqNorm(i, sums))
	}
	if d.Labels == nil {
		for _, v := range d.Y {
			maxAbsY = math.Max(maxAbsY, math.Abs(float64(v)))
		}
	}
	return Scale{MaxNorm: math.Sqrt(maxNorm), MaxAbsY: maxAbsY}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
