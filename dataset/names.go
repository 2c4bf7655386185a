package dataset

import (
	"path/filepath"
	"strings"
)

// plainName is the base name of path in lower case, without a trailing
// .gz or .bz2. The format and the delimiter are read from it.
func plainName(path string) string {
	name := strings.ToLower(filepath.Base(path))
	for _, z := range []string{".gz", ".bz2"} {
		name = strings.TrimSuffix(name, z)
	}
	return name
}

// FormatOfName is the format a data file's name says. Names are compared
// in lower case, after any .gz or .bz2. "csv" is for .csv, .tsv and .tab.
// "libsvm" is for .svm, .libsvm, .svmlight and .scale. "idx" is for .idx
// or a name holding idx3-ubyte. It is "" when the name does not say.
func FormatOfName(path string) string {
	name := plainName(path)
	switch ext := filepath.Ext(name); {
	case ext == ".csv" || ext == ".tsv" || ext == ".tab":
		return "csv"
	case ext == ".svm" || ext == ".libsvm" || ext == ".svmlight" || ext == ".scale":
		return "libsvm"
	case strings.Contains(name, "idx3-ubyte") || ext == ".idx":
		return "idx"
	}
	return ""
}

// CommaOfName is the delimiter of the CSV file at path, for
// CSVOptions.Comma. It is a tab for a name ending .tsv or .tab, else a
// comma. The ending may be in any case, before any .gz or .bz2.
func CommaOfName(path string) rune {
	switch filepath.Ext(plainName(path)) {
	case ".tsv", ".tab":
		return '\t'
	}
	return ','
}

// IDXLabelsPath is the label file of the IDX image file at images, by
// MNIST's naming. It is the same name with labels-idx1 in place of
// images-idx3, or labels.idx1 for images.idx3. So train-images-idx3-ubyte
// has train-labels-idx1-ubyte. It reports false for a name that holds
// neither.
func IDXLabelsPath(images string) (string, bool) {
	labels := strings.Replace(images, "images-idx3", "labels-idx1", 1)
	labels = strings.Replace(labels, "images.idx3", "labels.idx1", 1)
	return labels, labels != images
}

// Head is ds's first n rows. It is ds itself when it has at most n rows or
// n ≤ 0, else a copy (Subset).
func (ds *Dataset[T]) Head(n int) *Dataset[T] {
	if n <= 0 || ds.N <= n {
		return ds
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return ds.Subset(rows)
}

// SingleClass reports whether every row of classification data ds has the
// same class, and that class's text. Such data cannot train a classifier.
// A data set with one class named, or with none, reports true too.
func (ds *Dataset[T]) SingleClass() (string, bool) {
	if ds.K() < 2 {
		if ds.K() == 0 {
			return "", true
		}
		return ds.Classes[0], true
	}
	if len(ds.Labels) == 0 {
		return "", true
	}
	for _, l := range ds.Labels {
		if l != ds.Labels[0] {
			return "", false
		}
	}
	return ds.Classes[ds.Labels[0]], true
}
