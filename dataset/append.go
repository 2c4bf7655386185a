package dataset

// AppendRow adds a dense row: its D features x, and its target, y for
// regression or the class index label for classification. The row must
// hold to Validate's rules, else it is refused and ds is unchanged. An
// error names ds and the fault, not the row: it is the row of the call. The
// rows of one data set are all dense or all sparse. Data with groups
// takes no rows.
func (ds *Dataset[T]) AppendRow(x []T, y T, label int32) error {
	if err := ds.appendable(false); err != nil {
		return err
	}
	if len(x) != ds.D {
		return ds.errorf("%d features; expected D = %d", len(x), ds.D)
	}
	for j, v := range x {
		if !finite(float64(v)) {
			return ds.errorf("feature %d%s: %v; expected a finite number", j, ds.featureSuffix(j), float64(v))
		}
	}
	if err := ds.appendTarget(y, label); err != nil {
		return err
	}
	ds.X = append(ds.X, x...)
	return nil
}

// AppendSparse adds a sparse row: the columns (0-based, rising, below D)
// and values of its non-zeros, and its target as AppendRow takes it.
func (ds *Dataset[T]) AppendSparse(cols []uint32, vals []T, y T, label int32) error {
	if err := ds.appendable(true); err != nil {
		return err
	}
	if len(cols) != len(vals) {
		return ds.errorf("%d columns and %d values", len(cols), len(vals))
	}
	for p, c := range cols {
		if int(c) >= ds.D || p > 0 && c <= cols[p-1] {
			return ds.errorf("column %d; expected rising columns below D = %d", c, ds.D)
		}
		if v := vals[p]; !finite(float64(v)) {
			return ds.errorf("feature %d%s: %v; expected a finite number", c, ds.featureSuffix(int(c)), float64(v))
		}
	}
	if err := ds.appendTarget(y, label); err != nil {
		return err
	}
	if ds.Indptr == nil {
		ds.Indptr = []int64{0}
	}
	ds.Cols, ds.Vals = append(ds.Cols, cols...), append(ds.Vals, vals...)
	ds.Indptr = append(ds.Indptr, int64(len(ds.Cols)))
	return nil
}

// Reset removes every row and keeps the memory for the rows added next.
func (ds *Dataset[T]) Reset() {
	ds.N = 0
	ds.X, ds.Cols, ds.Vals, ds.Y, ds.Labels = ds.X[:0], ds.Cols[:0], ds.Vals[:0], ds.Y[:0], ds.Labels[:0]
	if ds.Indptr != nil {
		ds.Indptr = ds.Indptr[:1]
	}
}

// appendable refuses a row that is not like the rows ds holds.
func (ds *Dataset[T]) appendable(sparse bool) error {
	switch {
	case ds.Groups != nil:
		return ds.errorf("data with groups takes no appended rows")
	case ds.N > 0 && ds.IsSparse() != sparse, sparse && ds.X != nil, !sparse && ds.Indptr != nil:
		return ds.errorf("dense and sparse rows cannot mix")
	}
	return nil
}

// appendTarget appends the row's target and counts the row.
func (ds *Dataset[T]) appendTarget(y T, label int32) error {
	switch {
	case ds.Task == Classification && (label < 0 || int(label) >= len(ds.Classes)):
		return ds.errorf("label %d; expected a class in 0..%d", label, len(ds.Classes)-1)
	case ds.Task == Classification:
		ds.Labels = append(ds.Labels, label)
	case ds.Task != Regression:
		return ds.errorf("task %v; expected classification or regression", ds.Task)
	case !finite(float64(y)):
		return ds.errorf("target %v; expected a finite number", float64(y))
	default:
		ds.Y = append(ds.Y, y)
	}
	ds.N++
	return nil
}
