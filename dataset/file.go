package dataset

import (
	"fmt"
	"os"
)

// FileOptions say how LoadFile reads a data file of any format. Each field
// is the reader option of the same name, for the formats that have one
// (CSVOptions, LIBSVMOptions, IDXOptions).
type FileOptions struct {
	// Format is "csv", "libsvm" or "idx"; "" takes "idx" for a directory
	// and FormatOfName for a file.
	Format string
	// Task, Classes, Limit and MaxBytes are every reader's; MaxLine is the
	// CSV and LIBSVM readers'.
	Task              Task
	Classes           []string
	Limit             int
	MaxBytes, MaxLine int64
	// Target, NoHeader and Group are CSV's; the delimiter follows from
	// the name (CommaOfName).
	Target   string
	NoHeader bool
	Group    string
	// GroupFile, if not empty, is a group file for the data (see
	// ReadGroups). It serves any format but CSV with Group. It holds the
	// groups of the rows read; with a Limit, its first lines do.
	GroupFile string
	// Dim, MaxDim and SparseBelow are LIBSVM's.
	Dim, MaxDim int
	SparseBelow float64
	// Raw keeps IDX pixels 0..255 instead of scaling them to [0, 1].
	Raw bool
	// Split is the part of MNIST that LoadFile reads of a directory:
	// "train" ("" too) or "test" (see FindMNIST).
	Split string
}

// format resolves Format for the data at path.
func (o *FileOptions) format(path string) (string, error) {
	if o.Format != "" {
		return o.Format, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "idx", nil
	}
	if f := FormatOfName(path); f != "" {
		return f, nil
	}
	return "", fmt.Errorf("dataset: %s: cannot guess the format from the name", path)
}

// CSV are the options of the CSV reader for the file at path.
func (o *FileOptions) CSV(path string) CSVOptions {
	return CSVOptions{Comma: CommaOfName(path), Target: o.Target, NoHeader: o.NoHeader, Group: o.Group, Task: o.Task, Classes: o.Classes, Limit: o.Limit, MaxBytes: o.MaxBytes, MaxLine: o.MaxLine}
}

// libsvm are the options of the LIBSVM reader.
func (o *FileOptions) libsvm() LIBSVMOptions {
	return LIBSVMOptions{Dim: o.Dim, MaxDim: o.MaxDim, Task: o.Task, Classes: o.Classes, Limit: o.Limit, MaxBytes: o.MaxBytes, MaxLine: o.MaxLine, SparseBelow: o.SparseBelow}
}

// idxFiles are the image and label files of the IDX data at path: MNIST's
// files of Split in a directory, or an image file and the label file
// IDXLabelsPath names.
func (o *FileOptions) idxFiles(path string) (images, labels string, err error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		split := o.Split
		if split == "" {
			split = "train"
		}
		return FindMNIST(path, split)
	}
	labels, ok := IDXLabelsPath(path)
	if !ok {
		return "", "", &Error{File: path, Msg: "cannot find the label file: an IDX image file's name holds images-idx3 (or images.idx3), and its labels are in the file of the same name with labels-idx1 (labels.idx1) in its place, e.g. train-images-idx3-ubyte and train-labels-idx1-ubyte; rename the files, or give the directory of MNIST's four files"}
	}
	return path, labels, nil
}

// LabelsPath is the file that holds the labels of the data at path, for
// messages about them. It is path itself, or for IDX data its label file
// (path when there is none).
func (o *FileOptions) LabelsPath(path string) string {
	if f, err := o.format(path); err != nil || f != "idx" {
		return path
	}
	if _, labels, err := o.idxFiles(path); err == nil {
		return labels
	}
	return path
}

// LoadFile reads the data at path in its format. It reads a CSV or LIBSVM
// file (LoadCSV, LoadLIBSVM). It reads an IDX image file with its label
// file, or a directory of MNIST's IDX files (LoadIDX). IDX files hold
// class labels, so a Task of Regression is an error for them. The rows'
// groups come from the CSV column Group or from GroupFile.
func LoadFile[T Float](path string, opt FileOptions) (*Dataset[T], error) {
	format, err := opt.format(path)
	if err != nil {
		return nil, err
	}
	switch {
	case opt.Group != "" && format != "csv":
		return nil, &Error{File: path, Msg: fmt.Sprintf("a group column is read from CSV files; %s data takes a group file", format)}
	case opt.Group != "" && opt.GroupFile != "":
		return nil, &Error{File: path, Msg: "both a group column and a group file; give one"}
	}
	ds, err := loadFormat[T](path, format, opt)
	if err != nil || opt.GroupFile == "" {
		return ds, err
	}
	if err := ds.LoadGroups(opt.GroupFile, opt.Limit); err != nil {
		return nil, err
	}
	return ds, nil
}

// loadFormat is LoadFile of the data in format.
func loadFormat[T Float](path, format string, opt FileOptions) (*Dataset[T], error) {
	switch format {
	case "csv":
		return LoadCSV[T](path, opt.CSV(path))
	case "libsvm":
		return LoadLIBSVM[T](path, opt.libsvm())
	case "idx":
		if opt.Task == Regression {
			return nil, &Error{File: path, Msg: "IDX files hold class labels; a regression model cannot use them"}
		}
		images, labels, err := opt.idxFiles(path)
		if err != nil {
			return nil, err
		}
		return LoadIDX[T](images, labels, IDXOptions{Raw: opt.Raw, Limit: opt.Limit, Classes: opt.Classes, MaxBytes: opt.MaxBytes})
	}
	return nil, fmt.Errorf("dataset: unknown format %q", format)
}

// RowLine is the line of the CSV or LIBSVM file at path that holds its
// row i (0-based, in the order of the file), found by reading the file
// again as opt says up to that row, for messages about a row that a
// reader returned; 0 when it cannot be found (another format, a file that
// cannot be read again such as a pipe, or fewer rows). A LIBSVM file is
// read with opt.Dim features, which must be known.
func RowLine[T Float](path string, opt FileOptions, i int) int {
	format, err := opt.format(path)
	if err != nil || format != "csv" && format != "libsvm" {
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var st *Stream[T]
	if format == "csv" {
		st, err = newCSVStream[T](f, path, opt.CSV(path))
	} else {
		st, err = NewLIBSVMStream[T](f, path, LIBSVMOptions{Dim: opt.Dim, Task: opt.Task, Classes: opt.Classes, MaxBytes: opt.MaxBytes, MaxLine: opt.MaxLine})
	}
	if err != nil {
		return 0
	}
	for range i + 1 {
		if _, _, _, _, err := st.NextSparse(); err != nil {
			return 0
		}
	}
	return st.Line()
}
