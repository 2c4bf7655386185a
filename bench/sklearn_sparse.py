#!/usr/bin/env python3
"""Times scikit-learn's SGDClassifier on a sparse LIBSVM file: the baseline
of cvar's sparse logistic regression.

    python3 bench/sklearn_sparse.py FILE.svm [--epochs 1] [--alpha 1e-4]

Loads FILE with sklearn.datasets.load_svmlight_file (CSR, float32 read as
float64 by scikit-learn), splits it 2/3 : 1/3 in order, and trains
SGDClassifier(loss='log_loss', max_iter=1, tol=None, learning_rate='constant',
eta0=0.01) for one epoch on the first part, on one thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1 are set before numpy is imported; SGD is
single-threaded anyway). It prints the load time, the fit's time an epoch
(wall, and the process's CPU time), the peak RSS of the process and the
validation accuracy, one "key value" a line.
Needs python3-sklearn (apt-get install -y python3-sklearn); nothing in cvar's
tests or CI runs it.
"""
import os

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"

import argparse
import resource
import sys
import time
import warnings


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--alpha", type=float, default=1e-4, help="SGDClassifier's L2 penalty")
    p.add_argument("--eta0", type=float, default=0.01)
    a = p.parse_args()
    try:
        from sklearn.datasets import load_svmlight_file
        from sklearn.linear_model import SGDClassifier
        from sklearn.exceptions import ConvergenceWarning
        import sklearn
    except ImportError as e:
        sys.exit(f"sklearn_sparse.py: {e}; install scikit-learn (apt-get install -y python3-sklearn)")
    t0 = time.perf_counter()
    X, y = load_svmlight_file(a.file)
    load = time.perf_counter() - t0
    n = X.shape[0]
    m = 2 * n // 3
    Xtr, ytr, Xva, yva = X[:m], y[:m], X[m:], y[m:]
    clf = SGDClassifier(loss="log_loss", max_iter=a.epochs, tol=None, alpha=a.alpha,
                        learning_rate="constant", eta0=a.eta0, shuffle=True, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t0 = time.perf_counter()
        c0 = time.process_time()
        clf.fit(Xtr, ytr)
        fit = time.perf_counter() - t0
        fitcpu = time.process_time() - c0
    acc = clf.score(Xva, yva)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
    print(f"sklearn {sklearn.__version__}")
    print(f"rows {n} features {X.shape[1]} nnz {X.nnz} train_rows {m}")
    print(f"load_seconds {load:.3f}")
    print(f"epoch_seconds {fit / a.epochs:.4f}")
    print(f"epoch_cpu_seconds {fitcpu / a.epochs:.4f}")
    print(f"peak_rss_mb {rss / 1e6:.1f}")
    print(f"validation_accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
