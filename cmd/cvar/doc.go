// Command cvar trains models that minimise the conditional value at risk
// (CVaR) of their losses. It evaluates and applies them. It reproduces the
// experiments of Soma & Yoshida, "Statistical Learning with Conditional
// Value at Risk".
//
// Usage:
//
//	cvar train      [flags]   train a model, print its metrics, write a model file (-o)
//	cvar eval       -in FILE  CVaR, VaR, accuracy and mean loss with bootstrap intervals
//	cvar predict    -in FILE  scores, classes or values for each row, as CSV
//	cvar experiment [flags]   the paper's comparison: Vanilla-SGD, CVaR-on-Minibatch, CVaR-SGD
//	cvar export     -in FILE  the model file as an ONNX model (-o)
//
// Every command runs without a data file, on built-in synthetic data. -data
// takes a CSV or LIBSVM file or a directory holding MNIST's IDX files. Run
// "cvar COMMAND -h" for a command's flags. Results go to stdout (-json for
// machines). A progress bar goes to stderr when it is a terminal. Exit
// status is 0 on success and 2 for a usage error. It is 1 for any other
// failure, which is reported as one line on stderr.
//
// Data are held in memory, densely: N×D values, or a byte or a half a value
// with -storage. A LIBSVM file sparser than -sparse is held as its
// non-zeros. Reading holds at most -max-memory (default 4 GiB) plus 6 MiB,
// counted as the data are read. Lines hold at most -max-line (64 MiB). The
// model must fit in -max-memory too. "cvar train -stream" with alg1 or
// alg4 reads a CSV or LIBSVM file one row at a time instead. -threads is
// clamped to the cores. Outputs are written through a temporary file. They
// replace only regular files, only with -force, and never a file the
// command reads.
package main
