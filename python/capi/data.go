package main

import (
	"fmt"
	"unsafe"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// Element types of the buffers Python passes: the size of a value.
const (
	dtypeF32 = 4
	dtypeF64 = 8
)

// matrix is a feature matrix in Python's memory. It is n×d dense and
// row-major (indptr nil). Or it is CSR: indptr holds n+1 offsets, and
// indices and values hold nnz entries each. It is valid only during the call that received it.
type matrix struct {
	dtype   int
	vals    unsafe.Pointer
	n, d    int
	indptr  *int64
	indices *int32
	nnz     int
}

func (m *matrix) sparse() bool { return m.indptr != nil }

func (m *matrix) check() error {
	switch {
	case m.dtype != dtypeF32 && m.dtype != dtypeF64:
		return fmt.Errorf("cvar: element size %d; expected 4 (float32) or 8 (float64)", m.dtype)
	case m.n < 0 || m.d < 0 || m.nnz < 0:
		return fmt.Errorf("cvar: negative shape %d×%d", m.n, m.d)
	case m.n > 0 && m.vals == nil && (!m.sparse() || m.nnz > 0):
		return fmt.Errorf("cvar: no feature values")
	}
	return nil
}

// values returns count values at p as T. When p's element type is T, it
// returns a view of p, without a copy. Else it returns a converted copy.
func values[T batch.Float](p unsafe.Pointer, dtype, count int) []T {
	if count == 0 {
		return []T{}
	}
	var z T
	if int(unsafe.Sizeof(z)) == dtype {
		return unsafe.Slice((*T)(p), count)
	}
	out := make([]T, count)
	if dtype == dtypeF32 {
		for i, v := range unsafe.Slice((*float32)(p), count) {
			out[i] = T(v)
		}
	} else {
		for i, v := range unsafe.Slice((*float64)(p), count) {
			out[i] = T(v)
		}
	}
	return out
}

// owned returns count values at p as T in memory of Go's own.
func owned[T batch.Float](p unsafe.Pointer, dtype, count int) []T {
	v := values[T](p, dtype, count)
	var z T
	if int(unsafe.Sizeof(z)) == dtype && count > 0 {
		v = append([]T(nil), v...)
	}
	return v
}

// features is m as a Dataset without targets, viewing Python's memory
// where the element type allows: the caller copies what it keeps.
func features[T batch.Float](m *matrix) *dataset.Dataset[T] {
	ds := &dataset.Dataset[T]{Name: "X", N: m.n, D: m.d}
	if m.sparse() {
		ds.Indptr = unsafe.Slice(m.indptr, m.n+1)
		ds.Cols = []uint32{}
		if m.nnz > 0 {
			ds.Cols = unsafe.Slice((*uint32)(unsafe.Pointer(m.indices)), m.nnz)
		}
		ds.Vals = values[T](m.vals, m.dtype, m.nnz)
		return ds
	}
	ds.X = values[T](m.vals, m.dtype, m.n*m.d)
	return ds
}

// ownedFeatures is m as a Dataset whose values Go owns. The offsets and
// columns of CSR data still view Python's memory, as they are only read.
func ownedFeatures[T batch.Float](m *matrix) *dataset.Dataset[T] {
	ds := features[T](m)
	if m.sparse() {
		ds.Vals = owned[T](m.vals, m.dtype, m.nnz)
	} else {
		ds.X = owned[T](m.vals, m.dtype, m.n*m.d)
	}
	return ds
}
