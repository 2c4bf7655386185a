"""Exact risk measures of a sample of losses, computed by the engine."""

from collections import namedtuple
import ctypes

import numpy as np

from . import _lib
from ._lib import call, lib

Tail = namedtuple("Tail", "alpha cvar var")
Tail.__doc__ = "CVaR_α and VaR_α of a sample of losses at one tail fraction α."

Interval = namedtuple("Interval", "value lo hi")
Interval.__doc__ = "An estimate and its 95 % percentile bootstrap interval [lo, hi] (NaN when there is none)."

TailInterval = namedtuple("TailInterval", "alpha cvar var")
Bootstrap = namedtuple("Bootstrap", "tails mean_loss accuracy")
Bootstrap.__doc__ = "Bootstrap intervals: a TailInterval for each α, then the mean loss's and the accuracy's Interval."


def _losses(losses):
    a = np.ascontiguousarray(losses, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"cvar: losses must be one-dimensional, not of shape {a.shape}")
    return a


def _alphas(alphas):
    a = np.ascontiguousarray(np.atleast_1d(np.asarray(alphas, dtype=np.float64)))
    if a.ndim != 1:
        raise ValueError(f"cvar: alphas must be a number or a list of numbers, not of shape {a.shape}")
    return a


def cvar(losses, alpha=0.1):
    """CVaR_α of the losses: the mean of the largest α·n of them, the
    boundary one counted in part. α ∈ (0, 1] is the tail fraction."""
    a, out = _losses(losses), ctypes.c_double()
    call(lib.cvar_cvar, a.ctypes.data, a.size, float(alpha), ctypes.byref(out))
    return out.value


def var(losses, alpha=0.1):
    """VaR_α of the losses: the (⌊α·n⌋+1)-th largest, or the smallest when α = 1."""
    a, out = _losses(losses), ctypes.c_double()
    call(lib.cvar_var, a.ctypes.data, a.size, float(alpha), ctypes.byref(out))
    return out.value


def tails(losses, alphas=(0.1,)):
    """CVaR_α and VaR_α at each α, in the order given, as a list of Tail."""
    a, al = _losses(losses), _alphas(alphas)
    cv, va = np.empty(al.size), np.empty(al.size)
    call(lib.cvar_tails, a.ctypes.data, a.size, al.ctypes.data, al.size, cv.ctypes.data, va.ctypes.data)
    return [Tail(float(x), float(c), float(v)) for x, c, v in zip(al, cv, va)]


def bootstrap(losses, alphas=(0.1,), resamples=1000, seed=1, correct=None, threads=None):
    """Percentile bootstrap 95 % intervals of CVaR_α and VaR_α at each α, of
    the mean loss and (given correct, a flag per loss) of the accuracy, from
    resamples resamples of the losses drawn with the seed."""
    a, al = _losses(losses), _alphas(alphas)
    flags = None
    if correct is not None:
        flags = np.ascontiguousarray(correct, dtype=bool).view(np.uint8)
        if flags.shape != a.shape:
            raise ValueError(f"cvar: correct has {flags.size} flags for {a.size} losses")
    out = np.empty(6 * al.size + 6)
    call(lib.cvar_bootstrap, a.ctypes.data, a.size, _lib.ptr(flags), al.ctypes.data, al.size,
         int(resamples), int(seed), int(threads or 0), out.ctypes.data)

    def iv(i):
        return Interval(*map(float, out[i:i + 3]))

    t = [TailInterval(float(x), iv(6 * i), iv(6 * i + 3)) for i, x in enumerate(al)]
    return Bootstrap(t, iv(6 * al.size), iv(6 * al.size + 3))


def training_rows(n, seed=1):
    """A boolean mask of the n rows that `cvar train -seed seed` trains on
    (its 2/3 split; the rest is its validation split)."""
    mask = np.empty(int(n), dtype=np.uint8)
    call(lib.cvar_training_rows, int(n), int(seed), mask.ctypes.data)
    return mask.astype(bool)
