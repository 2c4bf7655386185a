// Package dataset reads data into validated in-memory data sets. It reads
// CSV, LIBSVM and MNIST IDX files, gonum matrices and built-in synthetic
// generators. It provides the preprocessing that training needs.
//
// A [Dataset] is N samples of D features, dense and row-major or sparse in
// CSR form. Each sample has a class label or a real target. The readers
// make one:
//
//   - [LoadCSV] and [ReadCSV]: delimited text with a header row, the target
//     in a named or the last column ([CSVOptions]);
//   - [LoadLIBSVM] and [ReadLIBSVM]: LIBSVM / svmlight files, held sparse
//     when their density is below [LIBSVMOptions].SparseBelow;
//   - [LoadIDX], [ReadIDX] and [LoadMNIST]: MNIST's IDX image and label
//     files;
//   - [FromMat]: a gonum matrix and a target per row;
//   - [SyntheticClassification], [SyntheticRegression] and [SyntheticText]:
//     problems generated from a seed, with a rare subgroup
//     ([SyntheticClassificationGroups] says which rows) or text-like
//     sparse rows.
//
// The Load functions open a file. The Read functions take an io.Reader and
// the name to report in errors. Every reader takes gzip- and
// bzip2-compressed input too, recognised by its content. For data larger
// than memory, [NewCSVStream] and [NewLIBSVMStream] return a [Stream]. It
// yields one sample at a time.
//
// [Split] divides a data set into training and validation sets. A
// [Standardizer] scales the features. [FitStandardizer] fits z-scores.
// [FitScaler] scales without centring and [FitMaxAbs] into [−1, 1]; those
// two keep sparse data sparse. [StandardizeInPlace] applies one to dense
// data. A [RunningScaler] fits one a row at a time. A [Preprocessing]
// records the whole preparation of the features. So a model file can
// apply it to new data. [PreprocessDataset] applies it to dense or sparse
// data. [Dataset.Batch] hands the result to package batch for training
// with package cvar. [WriteLIBSVM] writes a data set back out.
//
// Rows may carry groups: labels that are not features, such as a site or a
// source. They serve metrics by group and Group DRO. [Dataset].Groups is
// filled from a CSV column ([CSVOptions].Group). It may come from a group
// file of one label a line ([FileOptions].GroupFile, [Dataset.LoadGroups],
// [ReadGroups]). It may be the synthetic data's subgroup
// ([SynthClassOptions].MarkGroups). Subset and Split carry groups with
// their rows.
//
// # Errors
//
// Readers never print, exit or panic on bad input. Every problem is
// reported as one *[Error]. It names the input and the position: line and
// column for text files, byte offset or record for binary ones. It says
// what was wrong and what was expected, for example
//
//	data.csv:17: column 3 ("age"): "abc" is not a number
//
// Line and column numbers in messages are 1-based, as in editors. Row and
// feature indices of in-memory data (Validate, FromMat) are 0-based, as in
// Go.
//
// # Class labels
//
// Classification targets are mapped to classes 0..K-1 deterministically.
// If every label is a decimal number, classes are ordered numerically
// ("-1", "1" become 0, 1). Their text is then the shortest decimal form of
// the number, so "+1" and "1.0" are both class "1". Otherwise the label
// texts are ordered lexicographically (byte-wise). Numbers in data files,
// features and targets alike, are decimal. Go's underscores (1_000) and
// hexadecimal (0x1p3) are not numbers there. To evaluate data with the
// mapping of an earlier training set, pass that set's Classes in the read
// options.
//
// # Task inference
//
// With TaskAuto, a target is a classification label if any value is not a
// number. It is one too if every value is an integer and there are at most
// MaxAutoClasses distinct values. Otherwise it is a regression target.
package dataset
