"""A trained model held by the engine, behind an opaque handle."""

import ctypes
import json
import os

import numpy as np

from . import _lib
from ._lib import call, lib


class Model:
    """A model in the engine: what a cvar model file holds. The handle is
    freed when the object is collected."""

    def __init__(self, handle):
        self._handle = handle
        self._info = None

    def __del__(self):
        h, self._handle = getattr(self, "_handle", 0), 0
        if h and lib is not None:
            lib.cvar_free(h)

    @classmethod
    def fit(cls, config, X, y=None, labels=None, groups=None, warm=None):
        m = _lib.Matrix(X)
        y = None if y is None else np.ascontiguousarray(y, dtype=np.float64)
        labels = None if labels is None else np.ascontiguousarray(labels, dtype=np.int32)
        groups = None if groups is None else np.ascontiguousarray(groups, dtype=np.int32)
        h = call(lib.cvar_fit, json.dumps(config).encode(), *m.args(), _lib.ptr(y), _lib.ptr(labels), _lib.ptr(groups),
                 warm._handle if warm is not None else 0)
        return cls(h)

    @classmethod
    def load(cls, path):
        return cls(call(lib.cvar_load, os.fsencode(path)))

    @classmethod
    def from_bytes(cls, data):
        buf = ctypes.create_string_buffer(data, len(data))
        return cls(call(lib.cvar_from_bytes, ctypes.addressof(buf), len(data)))

    def to_bytes(self):
        n = ctypes.c_int64()
        p = call(lib.cvar_to_bytes, self._handle, ctypes.byref(n))
        try:
            return ctypes.string_at(p, n.value)
        finally:
            lib.cvar_free_bytes(p)

    @property
    def info(self):
        """The model's description: kind, d, k, hidden, precision, outputs,
        classes, features, tau, alpha, method, params and theta."""
        if self._info is None:
            self._info = json.loads(_lib.take_string(call(lib.cvar_info, self._handle)))
        return self._info

    def scores(self, X, threads=0):
        """The model's scores of the rows of X, an n × outputs float64 array."""
        m = _lib.Matrix(X)
        k = self.info["outputs"]
        out = np.empty((m.n, k), dtype=np.float64)
        call(lib.cvar_scores, self._handle, *m.args(), threads, out.ctypes.data, out.size)
        return out

    def set_source(self, source):
        call(lib.cvar_set_source, self._handle, json.dumps(source).encode())

    def export_onnx(self, path, overwrite=False, model_name=""):
        call(lib.cvar_export_onnx, self._handle, os.fsencode(path), 1 if overwrite else 0, (model_name or "").encode())

    def save(self, path, overwrite=False):
        call(lib.cvar_save, self._handle, os.fsencode(path), 1 if overwrite else 0)


def live_models():
    """The number of models the engine holds (for tests of leaks)."""
    return lib.cvar_live_models()
