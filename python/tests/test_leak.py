"""Fits and frees do not leak memory or handles."""

import gc
import resource

import numpy as np

import cvar


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def test_no_leak_across_10000_fits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(16, 3))
    y = (X[:, 0] > 0).astype(int)
    est = cvar.CVaRClassifier(steps=2, batch=4, threads=1)
    base = cvar.live_models()

    def fits(n):
        for _ in range(n):
            est.fit(X, y)
            est.predict(X)

    fits(1000)  # the runtimes' arenas settle
    gc.collect()
    before = rss_kib()
    fits(9000)
    gc.collect()
    grown = rss_kib() - before
    assert cvar.live_models() == base + 1
    del est
    gc.collect()
    assert cvar.live_models() == base
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 9000 fits"
