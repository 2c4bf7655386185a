package dataset

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/cvarlearn/cvar/internal/footprint"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// DefaultMaxBytes bounds the memory a reader holds, unless its options say
// otherwise: 4 GiB. See MaxBytes of CSVOptions, LIBSVMOptions and
// IDXOptions for what it counts.
const DefaultMaxBytes int64 = 4 << 30

// ReadOverhead is the memory a reader may hold beyond its MaxBytes bound.
// It holds 1 MiB of small buffers counted against the bound's margin, not
// the bound. So a small bound still applies to the data matrix exactly. It
// holds the fixed buffers of buffered reading, 128 KiB a file. It holds
// those of decompression; bzip2's block, 3.6 MB, is the largest. The heap
// of the process also holds the garbage the collector has yet to reclaim,
// such as the arrays a buffer outgrew. That is up to GOGC per cent of what
// is live (100 by default). GOMEMLIMIT bounds the whole.
const ReadOverhead int64 = 6 << 20

// countedMargin is the part of ReadOverhead that the readers count: their
// budgets stop at MaxBytes + countedMargin.
const countedMargin = 1 << 20

// DefaultMaxLine bounds a line of text input, unless the options say
// otherwise. A line is a CSV record, with the lines of its quoted fields,
// or a LIBSVM sample. The bound is 64 MiB: eight million numbers of eight
// characters. That is some ten times the longest rows of public CSV and
// LIBSVM data sets. A longer line is corrupt or not line-oriented text (a
// file of zeros, a binary file).
const DefaultMaxLine int64 = 64 << 20

// maxBytes resolves a MaxBytes option: 0 means DefaultMaxBytes, a negative
// value no bound.
func maxBytes(opt int64) int64 { return resolveLimit(opt, DefaultMaxBytes) }

// maxLine resolves a MaxLine option: 0 means DefaultMaxLine, a negative
// value no limit.
func maxLine(opt int64) int64 { return resolveLimit(opt, DefaultMaxLine) }

func resolveLimit(opt, def int64) int64 {
	switch {
	case opt == 0:
		return def
	case opt < 0:
		return math.MaxInt64
	}
	return opt
}

func sizeOf[T Float]() int64 {
	var z T
	return int64(unsafe.Sizeof(z))
}

// checkDense reports an *Error wrapping ErrTooLarge when n samples of d
// features of T exceed the bound. more says that n is only a lower bound,
// for a reader that stopped part way.
func checkDense[T Float](name string, n, d int, bound int64, more bool) error {
	b := footprint.Dense[T](n, d)
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
			some, n, d, typeName[T](), numtext.Bytes(b), numtext.Bytes(bound)),
		Err: ErrTooLarge,
	}
}

func typeName[T Float]() string {
	if sizeOf[T]() == 4 {
		return "float32"
	}
	return "float64"
}

// SparseBytes returns the bytes of n rows of nnz non-zeros of T in CSR
// form. A row takes an int64 offset, and there is one more. A non-zero
// takes a uint32 column and a value of T. It returns math.MaxInt64 when
// that does not fit in an int64.
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
			n, nnz, typeName[T](), numtext.Bytes(b), numtext.Bytes(bound)),
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

// budget counts the bytes a reader holds, by the capacity of its buffers.
// It fails as soon as they would pass the bound plus countedMargin. A
// buffer that grows is charged for its new array while the old one is
// still held, as both are during the copy.
type budget struct {
	name  string
	bound int64 // as given, for messages
	limit int64 // bound + countedMargin, saturating
	held  int64
}

func newBudget(name string, maxBytesOpt int64) *budget {
	bound := maxBytes(maxBytesOpt)
	return &budget{name: name, bound: bound, limit: bound + min(countedMargin, math.MaxInt64-bound)}
}

// take charges n bytes; line is the line reached, for the message (0: none).
func (b *budget) take(n int64, line int) error {
	if n <= b.limit-b.held {
		b.held += n
		return nil
	}
	need := "more than 8 EiB"
	if n <= math.MaxInt64-b.held {
		need = numtext.Bytes(b.held + n)
	}
	return &Error{
		File: b.name,
		Line: line,
		Msg:  fmt.Sprintf("reading stopped: the data held with this line would need %s, more than the bound of %s", need, numtext.Bytes(b.bound)),
		Err:  ErrTooLarge,
	}
}

// free returns n bytes charged before.
func (b *budget) free(n int64) { b.held -= n }

// grow returns s with room for n more elements, charging b for a larger
// array. The array doubles up to 4 MiB and grows a quarter beyond, as
// append grows. So a result keeps little spare capacity. It grows less
// where the bound does not leave room while the old array is still held.
// line is as for take.
func grow[E any](b *budget, s []E, n int, line int) ([]E, error) {
	return growBy(b, s, n, math.MaxInt64, false, line)
}

// growMax is grow for a buffer that is reused, such as a line's. It never
// needs more than most elements, its limit. It doubles up to most, which
// leaves less garbage.
func growMax[E any](b *budget, s []E, n int, most int64, line int) ([]E, error) {
	return growBy(b, s, n, most, true, line)
}

func growBy[E any](b *budget, s []E, n int, most int64, double bool, line int) ([]E, error) {
	need := int64(len(s)) + int64(n)
	if need <= int64(cap(s)) {
		return s, nil
	}
	var z E
	size := max(int64(unsafe.Sizeof(z)), 1)
	grown := 2 * int64(cap(s))
	if !double && int64(cap(s))*size > 4<<20 {
		grown = int64(cap(s)) + int64(cap(s))/4
	}
	newCap := max(min(max(grown, 16), most), need)
	if room := (b.limit - b.held) / size; newCap > room {
		newCap = max(room, need)
	}
	return realloc(b, s, newCap, line)
}

// realloc returns a copy of s with capacity newCap (≥ len(s)). It charges
// b for it and frees s's array.
func realloc[E any](b *budget, s []E, newCap int64, line int) ([]E, error) {
	var z E
	size := max(int64(unsafe.Sizeof(z)), 1)
	if newCap > math.MaxInt64/size || newCap > math.MaxInt {
		return nil, b.take(math.MaxInt64, line)
	}
	if err := b.take(newCap*size, line); err != nil {
		return nil, err
	}
	t := make([]E, len(s), newCap)
	copy(t, s)
	b.free(int64(cap(s)) * size)
	return t, nil
}

// appendTo appends v to s within b.
func appendTo[E any](b *budget, s []E, line int, v ...E) ([]E, error) {
	s, err := grow(b, s, len(v), line)
	if err != nil {
		return nil, err
	}
	return append(s, v...), nil
}

// makeCounted returns a slice of n zero elements charged to b.
func makeCounted[E any](b *budget, n int, line int) ([]E, error) {
	var z E
	size := max(int64(unsafe.Sizeof(z)), 1)
	if int64(n) > math.MaxInt64/size {
		return nil, b.take(math.MaxInt64, line)
	}
	if err := b.take(int64(n)*size, line); err != nil {
		return nil, err
	}
	return make([]E, n), nil
}
