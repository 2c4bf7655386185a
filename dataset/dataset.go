package dataset

import (
	"fmt"
	"math"
	"strings"

	"github.com/cvarlearn/cvar/kernel"
)

// Float is the element type of a dataset: float32 or float64, kernel.Float.
type Float = kernel.Float

// Task says what the target of a dataset is.
type Task int

const (
	// Classification targets are class labels 0..K-1.
	Classification Task = iota
	// Regression targets are real numbers.
	Regression
	// TaskAuto asks a reader to infer the task from the target values (see
	// the package documentation). It is never the Task of a Dataset.
	//
	// Note that the zero value of Task is Classification, so read options
	// must set TaskAuto explicitly to get inference.
	TaskAuto Task = -1
)

// MaxAutoClasses is the largest number of distinct integer target values
// that TaskAuto still treats as class labels.
const MaxAutoClasses = 20

// String returns "classification", "regression" or "auto".
func (t Task) String() string {
	switch t {
	case Classification:
		return "classification"
	case Regression:
		return "regression"
	case TaskAuto:
		return "auto"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// ParseTask is the inverse of Task.String, for command-line flags. It also
// accepts the abbreviations "class", "reg" and "" (auto).
func ParseTask(s string) (Task, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "classification", "class", "classify":
		return Classification, nil
	case "regression", "reg", "regress":
		return Regression, nil
	case "auto", "":
		return TaskAuto, nil
	}
	return 0, fmt.Errorf("dataset: unknown task %q; expected classification, regression or auto", s)
}

// Dataset is N samples of D features held in memory. Each sample has a
// class label (classification) or a real target (regression). Dense
// features are row-major in X. Sparse data (IsSparse) holds them in CSR
// form in Indptr, Cols and Vals, with X nil. ReadLIBSVM returns that for a
// sparse file. Dense converts the one into the other.
type Dataset[T Float] struct {
	Name string // file name, or "synthetic-classification" etc.
	X    []T    // N×D, row-major: row i is X[i*D:(i+1)*D]; nil if sparse
	N, D int    // number of samples and features
	// Sparse features (CSR): row i holds Vals[p] in column Cols[p] (0-based)
	// for Indptr[i] ≤ p < Indptr[i+1]. Nil for dense data.
	Indptr   []int64
	Cols     []uint32
	Vals     []T
	Task     Task     // Classification or Regression
	Y        []T      // regression targets, len N (nil for classification)
	Labels   []int32  // class of each row, 0..K-1 (nil for regression)
	Classes  []string // text of each class label, len K; nil for regression
	Features []string // feature names, len D
	// Groups, when not nil, holds the group of each row (len N), an index
	// into GroupNames. A report breaks its metrics down by them. They are
	// read from a CSV column (CSVOptions.Group) or a group file
	// (FileOptions.GroupFile). Groups are not features.
	Groups     []int32
	GroupNames []string // name of each group; nil when there are none
}

// K returns the number of classes, len(ds.Classes); 0 for regression.
func (ds *Dataset[T]) K() int { return len(ds.Classes) }

// IsSparse reports whether the features are held in CSR form.
func (ds *Dataset[T]) IsSparse() bool { return ds.Indptr != nil }

// Dense returns ds with dense features: ds itself if it is dense. Else it
// returns a copy whose X holds the rows; the targets, labels and names are
// shared. The dense matrix, N×D values of T, must not take more than
// maxBytes (0: DefaultMaxBytes, negative: no bound). A larger one is an
// error wrapping ErrTooLarge. Sparse data that Validate refuses is an
// error, and so is a nil ds.
func (ds *Dataset[T]) Dense(maxBytesBound int64) (*Dataset[T], error) {
	if ds == nil {
		return nil, errNoDataset
	}
	if !ds.IsSparse() {
		return ds, nil
	}
	if err := ds.Validate(); err != nil { // the copy reads every row's entries
		return nil, err
	}
	if err := checkDense[T](ds.Name, ds.N, ds.D, maxBytes(maxBytesBound), false); err != nil {
		return nil, err
	}
	out := *ds
	out.Indptr, out.Cols, out.Vals = nil, nil, nil
	out.X = make([]T, ds.N*ds.D)
	for i := 0; i < ds.N; i++ {
		row := out.X[i*ds.D : (i+1)*ds.D]
		for p := ds.Indptr[i]; p < ds.Indptr[i+1]; p++ {
			row[ds.Cols[p]] += ds.Vals[p]
		}
	}
	return &out, nil
}

// Row returns row i of X as a slice sharing X's memory. Like slice indexing,
// it panics if i is out of range. It panics on sparse data, which has no
// dense rows (see Dense).
func (ds *Dataset[T]) Row(i int) []T {
	if ds.IsSparse() {
		panic("dataset: Row of sparse data (see Dense)")
	}
	if i < 0 || i >= ds.N {
		panic(fmt.Sprintf("dataset: row %d out of range [0,%d)", i, ds.N))
	}
	return ds.X[i*ds.D : (i+1)*ds.D : (i+1)*ds.D]
}

// Subset returns a new dataset holding copies of the given rows, with
// their groups. The rows keep the given order, and may repeat, as in a
// bootstrap sample. Class, group and feature names are shared with ds,
// since they are never modified. Like slice indexing, it panics if a row
// is out of range.
func (ds *Dataset[T]) Subset(rows []int) *Dataset[T] {
	sub := &Dataset[T]{
		Name:     ds.Name,
		N:        len(rows),
		D:        ds.D,
		Task:     ds.Task,
		Classes:  ds.Classes,
		Features: ds.Features,
	}
	if ds.Groups != nil {
		sub.Groups, sub.GroupNames = make([]int32, len(rows)), ds.GroupNames
	}
	if ds.IsSparse() {
		sub.Indptr = make([]int64, 1, len(rows)+1)
		for _, i := range rows {
			if i < 0 || i >= ds.N {
				panic(fmt.Sprintf("dataset: row %d out of range [0,%d)", i, ds.N))
			}
			lo, hi := ds.Indptr[i], ds.Indptr[i+1]
			sub.Cols = append(sub.Cols, ds.Cols[lo:hi]...)
			sub.Vals = append(sub.Vals, ds.Vals[lo:hi]...)
			sub.Indptr = append(sub.Indptr, int64(len(sub.Cols)))
		}
	} else {
		sub.X = make([]T, len(rows)*ds.D)
	}
	if ds.Y != nil {
		sub.Y = make([]T, len(rows))
	}
	if ds.Labels != nil {
		sub.Labels = make([]int32, len(rows))
	}
	for k, i := range rows {
		if !ds.IsSparse() {
			copy(sub.X[k*ds.D:(k+1)*ds.D], ds.Row(i))
		}
		if ds.Y != nil {
			sub.Y[k] = ds.Y[i]
		}
		if ds.Labels != nil {
			sub.Labels[k] = ds.Labels[i]
		}
		if ds.Groups != nil {
			sub.Groups[k] = ds.Groups[i]
		}
	}
	return sub
}

// Validate checks that ds is consistent and finite. Shapes must agree.
// Sparse rows' offsets must rise and their columns lie below D. Every
// value of X (or Vals) and Y must be finite. The labels must lie in
// 0..K-1, and the task's target must be present. Groups, when there are
// any, must be one a row and name a group. Rows and features in its
// messages are 0-based. A nil ds is an error.
func (ds *Dataset[T]) Validate() error {
	if ds == nil {
		return errNoDataset
	}
	if err := ds.validateShape(); err != nil {
		return err
	}
	for i := 0; i < ds.N && !ds.IsSparse(); i++ {
		for j, v := range ds.X[i*ds.D : (i+1)*ds.D] {
			if !finite(float64(v)) {
				return ds.errorf("row %d, feature %d%s: %v; expected a finite number",
					i, j, ds.featureSuffix(j), float64(v))
			}
		}
	}
	for i := 0; i < ds.N && ds.IsSparse(); i++ { // the offsets first: then the rows lie within Cols
		if lo, hi := ds.Indptr[i], ds.Indptr[i+1]; hi < lo {
			return ds.errorf("row %d: offsets %d, %d decrease", i, lo, hi)
		}
	}
	for i := 0; i < ds.N && ds.IsSparse(); i++ {
		lo, hi := ds.Indptr[i], ds.Indptr[i+1]
		for p := lo; p < hi; p++ {
			j := int(ds.Cols[p])
			if j >= ds.D {
				return ds.errorf("row %d: column %d; expected one below D = %d", i, j, ds.D)
			}
			if v := ds.Vals[p]; !finite(float64(v)) {
				return ds.errorf("row %d, feature %d%s: %v; expected a finite number",
					i, j, ds.featureSuffix(j), float64(v))
			}
		}
	}
	for i, v := range ds.Y {
		if !finite(float64(v)) {
			return ds.errorf("row %d: target %v; expected a finite number", i, float64(v))
		}
	}
	k := int32(len(ds.Classes))
	for i, l := range ds.Labels {
		if l < 0 || l >= k {
			return ds.errorf("row %d: label %d; expected a class in 0..%d", i, l, k-1)
		}
	}
	return ds.validateGroups()
}

// validateShape checks lengths and the task, not values.
func (ds *Dataset[T]) validateShape() error {
	if ds.N < 0 || ds.D < 0 {
		return ds.errorf("negative shape %d×%d", ds.N, ds.D)
	}
	if ds.IsSparse() {
		switch {
		case ds.X != nil:
			return ds.errorf("sparse data has dense values X; expected nil")
		case len(ds.Indptr) != ds.N+1 || ds.Indptr[0] != 0 || ds.Indptr[ds.N] != int64(len(ds.Cols)) || len(ds.Cols) != len(ds.Vals):
			return ds.errorf("sparse data has %d offsets, %d columns and %d values; expected N+1 = %d offsets from 0 to one column and value a non-zero",
				len(ds.Indptr), len(ds.Cols), len(ds.Vals), ds.N+1)
		}
	} else if ds.D > 0 && ds.N > math.MaxInt/ds.D || len(ds.X) != ds.N*ds.D {
		return ds.errorf("X has %d values; expected N×D = %d×%d", len(ds.X), ds.N, ds.D)
	}
	if ds.Features != nil && len(ds.Features) != ds.D {
		return ds.errorf("%d feature names; expected D = %d", len(ds.Features), ds.D)
	}
	switch ds.Task {
	case Classification:
		if len(ds.Labels) != ds.N {
			return ds.errorf("classification data has %d labels; expected N = %d", len(ds.Labels), ds.N)
		}
		if len(ds.Classes) == 0 && ds.N > 0 {
			return ds.errorf("classification data has no classes")
		}
		if ds.Y != nil {
			return ds.errorf("classification data has regression targets Y; expected nil")
		}
	case Regression:
		if len(ds.Y) != ds.N {
			return ds.errorf("regression data has %d targets; expected N = %d", len(ds.Y), ds.N)
		}
		if ds.Labels != nil || ds.Classes != nil {
			return ds.errorf("regression data has class labels; expected Labels and Classes nil")
		}
	default:
		return ds.errorf("task %v; expected classification or regression", ds.Task)
	}
	return nil
}

func (ds *Dataset[T]) errorf(format string, args ...any) error {
	return &Error{File: ds.Name, Msg: fmt.Sprintf(format, args...)}
}

// featureSuffix returns ` ("name")` for feature j when it has a name.
func (ds *Dataset[T]) featureSuffix(j int) string {
	if j < len(ds.Features) && ds.Features[j] != "" {
		return fmt.Sprintf(" (%q)", ds.Features[j])
	}
	return ""
}

// numberedNames returns prefix+start .. prefix+(start+d-1).
func numberedNames(prefix string, start, d int) []string {
	names := make([]string, d)
	for j := range names {
		names[j] = fmt.Sprintf("%s%d", prefix, start+j)
	}
	return names
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
