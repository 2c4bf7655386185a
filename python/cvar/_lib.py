"""The shared library of the Go engine, loaded with ctypes."""

import ctypes
import os
import sys

import numpy as np
import scipy.sparse as sp


class CVaRError(ValueError):
    """An error of the engine; its message is the engine's one-line message."""


def _library_name():
    if sys.platform == "darwin":
        return "_libcvar.dylib"
    if sys.platform == "win32":
        return "_libcvar.dll"
    return "_libcvar.so"


def _load():
    path = os.environ.get("CVAR_LIBRARY") or os.path.join(os.path.dirname(__file__), _library_name())
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"cvar: cannot load the engine's shared library {path}: {e}; "
            "install the package with pip (which builds it with Go) or from a wheel"
        ) from None


lib = _load()

_p = ctypes.c_void_p
_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_err = ctypes.POINTER(ctypes.c_void_p)

_signatures = {
    "cvar_free_string": (None, [_p]),
    "cvar_free_bytes": (None, [_p]),
    "cvar_free": (None, [_i64]),
    "cvar_live_models": (_i64, []),
    "cvar_fit": (_i64, [ctypes.c_char_p, _i32, _p, _i64, _i64, _p, _p, _i64, _p, _p, _p, _i64, _err]),
    "cvar_scores": (_i32, [_i64, _i32, _p, _i64, _i64, _p, _p, _i64, _i32, _p, _i64, _err]),
    "cvar_info": (_p, [_i64, _err]),
    "cvar_set_source": (_i32, [_i64, ctypes.c_char_p, _err]),
    "cvar_save": (_i32, [_i64, ctypes.c_char_p, _i32, _err]),
    "cvar_export_onnx": (_i32, [_i64, ctypes.c_char_p, _i32, ctypes.c_char_p, _err]),
    "cvar_load": (_i64, [ctypes.c_char_p, _err]),
    "cvar_to_bytes": (_p, [_i64, ctypes.POINTER(_i64), _err]),
    "cvar_from_bytes": (_i64, [_p, _i64, _err]),
    "cvar_cvar": (_i32, [_p, _i64, ctypes.c_double, _p, _err]),
    "cvar_var": (_i32, [_p, _i64, ctypes.c_double, _p, _err]),
    "cvar_tails": (_i32, [_p, _i64, _p, _i64, _p, _p, _err]),
    "cvar_bootstrap": (_i32, [_p, _i64, _p, _p, _i64, _i64, ctypes.c_uint64, _i32, _p, _err]),
    "cvar_training_rows": (_i32, [_i64, ctypes.c_uint64, _p, _err]),
}
for _name, (_res, _args) in _signatures.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args


def call(fn, *args):
    """Calls fn(*args, &err) and raises CVaRError with the engine's message
    when it sets err."""
    err = ctypes.c_void_p()
    out = fn(*args, ctypes.byref(err))
    if err.value:
        msg = ctypes.string_at(err.value).decode("utf-8", "replace")
        lib.cvar_free_string(err)
        raise CVaRError(msg)
    return out


def take_string(p):
    """The text of a C string the engine returned, which it frees."""
    try:
        return ctypes.string_at(p).decode("utf-8")
    finally:
        lib.cvar_free_string(p)


def ptr(a):
    """The address of a NumPy array's data, or None."""
    return None if a is None else a.ctypes.data


class Matrix:
    """A feature matrix laid out for the engine: C-contiguous float32 or
    float64 values, dense or CSR (int64 offsets, int32 columns). Arrays
    already laid out so are passed without a copy."""

    def __init__(self, X):
        if sp.issparse(X):
            X = X.tocsr()
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
            n, d = X.shape
            if d > np.iinfo(np.int32).max:
                raise CVaRError(f"cvar: {d} features; sparse data has at most {np.iinfo(np.int32).max}")
            self.vals = np.ascontiguousarray(X.data, dtype=X.data.dtype if X.data.dtype in (np.float32, np.float64) else np.float64)
            self.indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
            self.indices = np.ascontiguousarray(X.indices, dtype=np.int32)
            self.nnz = self.vals.shape[0]
        else:
            X = np.asarray(X)
            dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
            self.vals = np.ascontiguousarray(X, dtype=dtype)
            self.indptr = self.indices = None
            n, d = self.vals.shape
            self.nnz = 0
        self.n, self.d = n, d
        self.dtype = self.vals.dtype.itemsize

    def args(self):
        return (self.dtype, ptr(self.vals), self.n, self.d, ptr(self.indptr), ptr(self.indices), self.nnz)
