"""The risk measures are the engine's exact ones."""

import numpy as np
import pytest

import cvar


def reference_cvar(losses, alpha):
    s = np.sort(losses)[::-1]
    n = len(s)
    k = int(np.floor(alpha * n))
    tail = s[:k].sum() + (alpha * n - k) * (s[k] if k < n else 0)
    return tail / (alpha * n)


def test_cvar_var_tails():
    rng = np.random.default_rng(1)
    losses = rng.exponential(size=1001)
    for alpha in [0.01, 0.1, 0.37, 1.0]:
        assert cvar.cvar(losses, alpha) == pytest.approx(reference_cvar(losses, alpha), rel=1e-12)
        k = int(np.floor(alpha * len(losses)))
        assert cvar.var(losses, alpha) == (np.sort(losses)[::-1][k] if alpha < 1 else losses.min())
    t = cvar.tails(losses, [0.5, 0.05])
    assert [x.alpha for x in t] == [0.5, 0.05]
    assert t[1].cvar == pytest.approx(cvar.cvar(losses, 0.05), rel=1e-12) and t[1].var == cvar.var(losses, 0.05)
    assert cvar.cvar([1, 2, 3, 4], 1.0) == 2.5


def test_errors():
    with pytest.raises(cvar.CVaRError, match="alpha"):
        cvar.cvar([1.0, 2.0], 0)
    with pytest.raises(cvar.CVaRError, match="NaN"):
        cvar.var([1.0, np.nan], 0.5)
    with pytest.raises(cvar.CVaRError):
        cvar.tails([], [0.1])
    with pytest.raises(ValueError, match="one-dimensional"):
        cvar.cvar(np.ones((2, 2)), 0.5)


def test_bootstrap():
    rng = np.random.default_rng(2)
    losses = rng.exponential(size=500)
    correct = rng.random(500) < 0.8
    b = cvar.bootstrap(losses, [0.1, 0.5], resamples=300, seed=3, correct=correct)
    assert len(b.tails) == 2
    for t in b.tails:
        assert t.cvar.lo <= t.cvar.value <= t.cvar.hi
        assert t.cvar.value == pytest.approx(cvar.cvar(losses, t.alpha), rel=1e-12)
    assert b.accuracy.value == pytest.approx(correct.mean())
    again = cvar.bootstrap(losses, [0.1, 0.5], resamples=300, seed=3, correct=correct, threads=1)
    assert again == b
    none = cvar.bootstrap(losses, 0.1, resamples=0)
    assert np.isnan(none.tails[0].cvar.lo) and np.isnan(none.accuracy.value)


def test_training_rows():
    mask = cvar.training_rows(300, 5)
    assert mask.sum() == 200
    assert (mask == cvar.training_rows(300, 5)).all() and (mask != cvar.training_rows(300, 6)).any()
