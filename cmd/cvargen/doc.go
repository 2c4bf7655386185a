// Command cvargen writes synthetic data sets for benchmarks, as files the
// cvar command and other tools read: text-like sparse binary classification
// (dataset.SyntheticText) in LIBSVM format.
//
// Usage:
//
//	cvargen -o text.svm                   # 100 000 rows × 2²⁰ features, 40 non-zeros a row
//	cvargen -n 5000 -d 20000 -o small.svm
//
// -nnz, -zipf, -noise and -seed set the rest of the generator's
// configuration (dataset.SynthTextOptions); -o - writes to stdout, and the
// same flags give the same file. An existing -o file is replaced only with
// -force, and the file is written whole or not at all, as cvar writes its
// files.
//
// Values are written as float32 (the shortest text that reads back to the
// same float32), so that cvar's float32 training and a float64 reader of
// the file see the same numbers.
package main
