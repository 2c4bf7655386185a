// Command cvargen writes synthetic data sets for benchmarks. The cvar
// command and other tools read its files. The data is text-like sparse
// binary classification (dataset.SyntheticText) in LIBSVM format.
//
// Usage:
//
//	cvargen -o text.svm                   # 100 000 rows × 2²⁰ features, 40 non-zeros a row
//	cvargen -n 5000 -d 20000 -o small.svm
//
// The flags -nnz, -zipf, -noise and -seed set the rest of the generator's
// configuration (dataset.SynthTextOptions). The same flags give the same
// file. The flag -o - writes to stdout. An existing -o file is replaced
// only with -force. The file is written whole or not at all, as cvar writes
// its files.
//
// Values are written as float32: the shortest text that reads back to the
// same float32. So cvar's float32 training and a float64 reader of the file
// see the same numbers.
package main
