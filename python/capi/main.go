// Command capi is the C ABI of cvar for its Python package, built with
// go build -buildmode=c-shared. It is a module of its own so that the
// library stays free of cgo.
//
// Every function that can fail takes a char** err. On failure it sets
// *err to the engine's one-line message, which the caller frees with
// cvar_free_string. It then returns 0, or -1 where 0 is a value. Models are
// opaque int64 handles, freed with cvar_free. Buffers passed in are read
// during the call only: nothing of them is kept.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/onnx"
)

func main() {}

var models = newHandles()

// fail sets *err to e's message.
func fail(err **C.char, e error) {
	if err != nil {
		*err = C.CString(e.Error())
	}
}

//export cvar_free_string
func cvar_free_string(s *C.char) { C.free(unsafe.Pointer(s)) }

//export cvar_free_bytes
func cvar_free_bytes(p unsafe.Pointer) { C.free(p) }

//export cvar_free
func cvar_free(h C.int64_t) { models.free(int64(h)) }

//export cvar_live_models
func cvar_live_models() C.int64_t { return C.int64_t(models.count()) }

func matrixOf(dtype C.int32_t, vals unsafe.Pointer, n, d C.int64_t, indptr *C.int64_t, indices *C.int32_t, nnz C.int64_t) *matrix {
	return &matrix{dtype: int(dtype), vals: vals, n: int(n), d: int(d), indptr: (*int64)(unsafe.Pointer(indptr)), indices: (*int32)(unsafe.Pointer(indices)), nnz: int(nnz)}
}

// cvar_fit trains a model on n rows of d features. The rows are dense
// (indptr NULL) or CSR, of float32 (dtype 4) or float64 (dtype 8). The
// array y holds regression targets. The array labels holds class indices
// into the configuration's classes. The array groups (or NULL) holds each
// row's group. The string config is the JSON of the options. When warm is
// not 0, it is the handle of the model to go on from. It returns the new
// model's handle.
//
//export cvar_fit
func cvar_fit(config *C.char, dtype C.int32_t, vals unsafe.Pointer, n, d C.int64_t, indptr *C.int64_t, indices *C.int32_t, nnz C.int64_t,
	y *C.double, labels *C.int32_t, groups *C.int32_t, warm C.int64_t, err **C.char) C.int64_t {
	h, e := fitC(C.GoString(config), matrixOf(dtype, vals, n, d, indptr, indices, nnz), y, labels, groups, int64(warm))
	if e != nil {
		fail(err, e)
		return 0
	}
	return C.int64_t(h)
}

// recovered turns a panic of the calling goroutine into *err. So a bug
// reaches Python as an exception rather than ending its process.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("cvar: internal error: %v", r)
	}
}

func fitC(config string, x *matrix, y *C.double, labels, groups *C.int32_t, warmID int64) (h int64, err error) {
	defer recovered(&err)
	cfg, err := parseConfig(config)
	if err != nil {
		return 0, err
	}
	if err := x.check(); err != nil {
		return 0, err
	}
	in := &fitData{x: x}
	if y != nil {
		in.y = unsafe.Slice((*float64)(unsafe.Pointer(y)), x.n)
	}
	if labels != nil {
		in.labels = unsafe.Slice((*int32)(unsafe.Pointer(labels)), x.n)
	}
	if groups != nil {
		in.groups = unsafe.Slice((*int32)(unsafe.Pointer(groups)), x.n)
	}
	var warm *cvar.ModelFile
	if warmID != 0 {
		if warm, err = models.get(warmID); err != nil {
			return 0, err
		}
		cfg.Precision = warm.Precision
	}
	var mf *cvar.ModelFile
	switch cfg.Precision {
	case cvar.F32:
		mf, err = fit[float32](cfg, in, warm)
	case cvar.F64:
		mf, err = fit[float64](cfg, in, warm)
	default:
		err = fmt.Errorf("cvar: unknown precision %q (want f32 or f64)", cfg.Precision)
	}
	if err != nil {
		return 0, err
	}
	return models.put(mf), nil
}

// cvar_scores writes the model's scores of n rows into out. The rows are
// laid out as for cvar_fit. The scores are n×outputs row-major float64: a
// margin for logistic regression, K logits for softmax and the mlp, the
// prediction for regression. It returns the number of outputs a row.
//
//export cvar_scores
func cvar_scores(h C.int64_t, dtype C.int32_t, vals unsafe.Pointer, n, d C.int64_t, indptr *C.int64_t, indices *C.int32_t, nnz C.int64_t,
	threads C.int32_t, out *C.double, outLen C.int64_t, err **C.char) C.int32_t {
	m, e := models.get(int64(h))
	if e == nil {
		x := matrixOf(dtype, vals, n, d, indptr, indices, nnz)
		dst := unsafe.Slice((*float64)(unsafe.Pointer(out)), int(outLen))
		var k int
		if m.Precision == cvar.F32 {
			k, e = scores[float32](m, x, int(threads), dst)
		} else {
			k, e = scores[float64](m, x, int(threads), dst)
		}
		if e == nil {
			return C.int32_t(k)
		}
	}
	fail(err, e)
	return 0
}

// scores computes m's scores of x, preprocessed as m says, into dst.
func scores[T batch.Float](m *cvar.ModelFile, x *matrix, threads int, dst []float64) (k int, err error) {
	defer recovered(&err)
	if err := x.check(); err != nil {
		return 0, err
	}
	if x.d != m.D {
		return 0, fmt.Errorf("cvar: X has %d features; the model was fitted on %d", x.d, m.D)
	}
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		return 0, err
	}
	k = model.NumOutputs()
	if len(dst) != x.n*k {
		return 0, fmt.Errorf("cvar: output of %d values for %d rows of %d scores", len(dst), x.n, k)
	}
	if x.n == 0 {
		return k, nil
	}
	ds := ownedFeatures[T](x)
	ds.Task, ds.Y = dataset.Regression, make([]T, x.n)
	if ds.IsSparse() && m.Preprocessing.Centres() {
		if ds, err = ds.Dense(-1); err != nil {
			return 0, err
		}
	}
	if err := dataset.PreprocessDataset(&m.Preprocessing, ds); err != nil {
		return 0, err
	}
	data, err := ds.Batch()
	if err != nil {
		return 0, err
	}
	ev, err := cvar.NewEvaluator(model, threads)
	if err != nil {
		return 0, err
	}
	defer ev.Close()
	s, err := ev.Scores(theta, data)
	if err != nil {
		return 0, err
	}
	for i, v := range s {
		dst[i] = float64(v)
	}
	return k, nil
}

// modelInfo is what Python reads of a model.
type modelInfo struct {
	Kind      string          `json:"kind"`
	D         int             `json:"d"`
	K         int             `json:"k"`
	Hidden    int             `json:"hidden"`
	Precision string          `json:"precision"`
	Outputs   int             `json:"outputs"`
	Classes   []string        `json:"classes"`
	Features  []string        `json:"features"`
	Tau       *float64        `json:"tau"`
	Alpha     float64         `json:"alpha"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Theta     []float64       `json:"theta"`
}

// cvar_info returns the JSON of the model's description (free it with
// cvar_free_string), or NULL.
//
//export cvar_info
func cvar_info(h C.int64_t, err **C.char) *C.char {
	m, e := models.get(int64(h))
	if e != nil {
		fail(err, e)
		return nil
	}
	params, e := json.Marshal(m.Params)
	if e != nil {
		fail(err, e)
		return nil
	}
	info := modelInfo{Kind: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden, Precision: m.Precision, Outputs: max(m.K, 1),
		Classes: m.Classes, Features: m.Features, Alpha: m.Alpha, Method: m.Method.String(), Params: params, Theta: m.Theta}
	if m.Kind == batch.KindLogistic {
		info.Outputs = 1
	}
	if tau := m.Tau; tau == tau {
		info.Tau = &tau
	}
	b, e := json.Marshal(info)
	if e != nil {
		fail(err, e)
		return nil
	}
	return C.CString(string(b))
}

// cvar_set_source records what to say of the training data in the model
// file: the source object of its header. It reads kind, name, target and
// no_header from JSON. The number of training rows stays the model's.
//
//export cvar_set_source
func cvar_set_source(h C.int64_t, source *C.char, err **C.char) C.int32_t {
	m, e := models.get(int64(h))
	if e == nil {
		var src cvar.Provenance
		if e = json.Unmarshal([]byte(C.GoString(source)), &src); e == nil {
			src.N = m.Source.N
			c := *m // handles' models are never modified in place
			c.Source = src
			if _, e = json.Marshal(src); e == nil {
				models.replace(int64(h), &c)
				return 1
			}
		}
	}
	fail(err, e)
	return 0
}

// cvar_save writes the model file to path, through a temporary file and a
// rename. An existing path is an error unless overwrite is not 0.
//
//export cvar_save
func cvar_save(h C.int64_t, path *C.char, overwrite C.int32_t, err **C.char) C.int32_t {
	m, e := models.get(int64(h))
	if e == nil {
		e = save(m, C.GoString(path), overwrite != 0)
	}
	if e != nil {
		fail(err, e)
		return 0
	}
	return 1
}

// cvar_export_onnx writes the model as an ONNX model (onnx.Marshal) to
// path, as save writes. A modelName that is not empty is recorded as the
// model file it came from.
//
//export cvar_export_onnx
func cvar_export_onnx(h C.int64_t, path *C.char, overwrite C.int32_t, modelName *C.char, err **C.char) C.int32_t {
	m, e := models.get(int64(h))
	var b []byte
	if e == nil {
		b, e = onnx.Marshal(m, onnx.Options{ModelName: C.GoString(modelName)})
	}
	if e == nil {
		e = writeFile(C.GoString(path), overwrite != 0, b)
	}
	if e != nil {
		fail(err, e)
		return 0
	}
	return 1
}

func save(m *cvar.ModelFile, path string, overwrite bool) error {
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, m); err != nil {
		return err
	}
	return writeFile(path, overwrite, buf.Bytes())
}

// writeFile writes b to path through a temporary file and a rename. An
// existing path is an error unless overwrite. Only a regular file is
// replaced.
func writeFile(path string, overwrite bool, b []byte) error {
	if st, err := os.Lstat(path); err == nil {
		if !overwrite {
			return fmt.Errorf("%s exists; pass overwrite=True to replace it", path)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; a model file replaces only a regular file", path)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// cvar_load reads a model file and returns its handle.
//
//export cvar_load
func cvar_load(path *C.char, err **C.char) C.int64_t {
	p := C.GoString(path)
	f, e := os.Open(p)
	if e != nil {
		fail(err, e)
		return 0
	}
	defer f.Close()
	m, e := cvar.LoadModel(f)
	if e != nil {
		fail(err, fmt.Errorf("%s: %w", p, e))
		return 0
	}
	return C.int64_t(models.put(m))
}

// cvar_to_bytes returns the model file's bytes in memory the caller frees
// with cvar_free_bytes, their length in *n.
//
//export cvar_to_bytes
func cvar_to_bytes(h C.int64_t, n *C.int64_t, err **C.char) unsafe.Pointer {
	m, e := models.get(int64(h))
	var buf bytes.Buffer
	if e == nil {
		e = cvar.SaveModel(&buf, m)
	}
	if e != nil {
		fail(err, e)
		return nil
	}
	*n = C.int64_t(buf.Len())
	return C.CBytes(buf.Bytes())
}

// cvar_from_bytes reads a model file's n bytes and returns its handle.
//
//export cvar_from_bytes
func cvar_from_bytes(p unsafe.Pointer, n C.int64_t, err **C.char) C.int64_t {
	m, e := cvar.LoadModel(bytes.NewReader(C.GoBytes(p, C.int(n))))
	if e != nil {
		fail(err, e)
		return 0
	}
	return C.int64_t(models.put(m))
}
