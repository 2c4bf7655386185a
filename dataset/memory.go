package dataset

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// DefaultMaxBytes bounds the dense feature matrix (N × D values of the
// element type) that a reader allocates, unless its options say otherwise:
// 4 GiB. Readers hold the input in memory proportional to its size until
// they know N and D (LIBSVM rows are kept sparse until then), and check the
// bound before they allocate the matrix, so that a small file cannot ask
// for an unbounded amount of memory: 1500 LIBSVM lines of one feature with
// index 1048576 would take 12 GB as a float64 matrix.
const DefaultMaxBytes int64 = 4 << 30

// ErrTooLarge is wrapped by the *Error of a reader whose dense feature
// matrix would exceed its MaxBytes option; test with errors.Is.
var ErrTooLarge = errors.New("over the memory bound; raise the option MaxBytes to allow it")

// maxBytes resolves a MaxBytes option: 0 means DefaultMaxBytes, a negative
// value no bound.
func maxBytes(opt int64) int64 {
	switch {
	case opt == 0:
		return DefaultMaxBytes
	case opt < 0:
		return math.MaxInt64
	}
	return opt
}

func sizeOf[T Float]() int64 {
	var z T
	return int64(unsafe.Sizeof(z))
}

// DenseBytes returns the bytes of an n × d matrix of T, or math.MaxInt64
// when that does not fit in an int64.
func DenseBytes[T Float](n, d int) int64 {
	size := sizeOf[T]()
	if n <= 0 || d <= 0 {
		return 0
	}
	if int64(n) > math.MaxInt64/size/int64(d) {
		return math.MaxInt64
	}
	return int64(n) * int64(d) * size
}

// checkDense reports an *Error wrapping ErrTooLarge when n samples of d
// features of T exceed the bound; more says that n is only a lower bound
// (a reader that stopped part way).
func checkDense[T Float](name string, n, d int, bound int64, more bool) error {
	b := DenseBytes[T](n, d)
	if b <= bound {
		return nil
	}
	some := ""
	if more {
		some = "at least "
	}
	return &Error{
		File: name,
		Msg: fmt.Sprintf("%s%d samples × %d features as a dense %s matrix need %s, more than the bound of %s",
			some, n, d, typeName[T](), FormatBytes(b), FormatBytes(bound)),
		Err: ErrTooLarge,
	}
}

func typeName[T Float]() string {
	if sizeOf[T]() == 4 {
		return "float32"
	}
	return "float64"
}

// FormatBytes formats a byte count for messages: "11.7 GiB (12582912000
// bytes)", or "1000 bytes" below 1 KiB.
func FormatBytes(b int64) string {
	if b == math.MaxInt64 {
		return "more than 8 EiB"
	}
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d bytes", b)
	}
	v, i := float64(b), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.3g %ciB (%d bytes)", v, "KMGTPE"[i], b)
}

// SparseBytes returns the bytes of n rows of nnz non-zeros of T in CSR form:
// an int64 offset a row (and one more), a uint32 column and a value of T a
// non-zero; math.MaxInt64 when that does not fit in an int64.
func SparseBytes[T Float](n, nnz int) int64 {
	per := 4 + sizeOf[T]()
	if n < 0 || nnz < 0 || int64(nnz) > (math.MaxInt64-8*int64(n)-8)/per {
		return math.MaxInt64
	}
	return 8*(int64(n)+1) + int64(nnz)*per
}

// checkSparse is checkDense for n rows of nnz non-zeros held in CSR form.
func checkSparse[T Float](name string, n, nnz int, bound int64) error {
	b := SparseBytes[T](n, nnz)
	if b <= bound {
		return nil
	}
	return &Error{
		File: name,
		Msg: fmt.Sprintf("%d samples with %d non-zeros of %s in CSR form need %s, more than the bound of %s",
			n, nnz, typeName[T](), FormatBytes(b), FormatBytes(bound)),
		Err: ErrTooLarge,
	}
}

// isSparse reports whether nnz non-zeros in n×d fall below the density
// threshold below (0 or negative: never).
func isSparse(below float64, nnz, n, d int) bool {
	if below <= 0 || n <= 0 || d <= 0 {
		return false
	}
	return float64(nnz) < below*float64(n)*float64(d)
}
