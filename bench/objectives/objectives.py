#!/usr/bin/env python3
"""Trains each objective of cvar on data with flipped training labels and
measures accuracy and CVaR_0.1 on clean held-out labels: the table of
"Objectives under label noise" in docs/algorithms.md.

    python3 bench/objectives/objectives.py [--cvar BIN] [--mnist DIR] [--seeds 3]

For each data set, seed and flip rate it writes the training part (2/3,
stratified) with that fraction of labels replaced by another class at
random, and the test part (1/3) clean; then runs `cvar train -data TRAIN
-test TEST -seed SEED` with each objective's flags and reads the test
metrics from -json. Data: scikit-learn's breast cancer, digits and wine
sets; 10 000 MNIST training images when --mnist names the IDX directory;
sparse text from `cvargen` (LIBSVM, 20 000 rows). It prints a Markdown
table: mean test accuracy / CVaR_0.1 over the seeds, the best CVaR among
the rows within 2 points of plain SGD's accuracy in bold.
Needs numpy and scikit-learn; BIN defaults to `cvar` on the PATH, and
`cvargen` is looked up beside it. The page's table is this output as is:
`MNIST=DIR go run ./internal/doctables -all -only objectives.py` rewrites it
with the tree's cvar.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

FLIPS = (0.0, 0.05, 0.1, 0.2)
TUNE = ["-tune", "-tune-lrs", "0.01,0.03", "-tune-wds", "0", "-tune-eps", "0.05"]
CONFIGS = [
    ("plain SGD", ["-method", "vanilla"]),
    ("CVaR", ["-objective", "cvar"]),
    ("blend (default)", []),
    ("trimmed", ["-objective", "trimmed"]),
    ("χ²", ["-objective", "chi2"]),
    ("blend, -tune", TUNE),
]


def sklearn_sets():
    from sklearn import datasets
    for name, load in (("cancer", datasets.load_breast_cancer), ("digits", datasets.load_digits), ("wine", datasets.load_wine)):
        b = load()
        yield name, b.data, b.target


def mnist(path, n=10000):
    def idx(f):
        with (gzip.open if f.endswith(".gz") else open)(f, "rb") as fh:
            data = fh.read()
        dims = data[3]
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)
    files = sorted(os.listdir(path))
    img = next(f for f in files if f.startswith("train-images"))
    lab = next(f for f in files if f.startswith("train-labels"))
    x = idx(os.path.join(path, img))[:n].reshape(n, -1).astype(np.float64)
    return x, idx(os.path.join(path, lab))[:n].astype(np.int64)


def write_csv(fn, x, y):
    with open(fn, "w") as f:
        f.write(",".join([f"x{j}" for j in range(x.shape[1])] + ["y"]) + "\n")
        for row, lab in zip(x, y):
            f.write(",".join(f"{v:g}" for v in row) + f",c{lab}\n")


def split(y, seed):
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(y))
    return train_test_split(idx, test_size=1 / 3, random_state=seed, stratify=y)


def flip(y, rate, seed, k):
    r = np.random.default_rng([seed, int(rate * 1000)])
    y = y.copy()
    m = r.random(len(y)) < rate
    y[m] = (y[m] + r.integers(1, k, m.sum())) % k
    return y


def dense_jobs(tmp, name, x, y, seeds):
    k = len(np.unique(y))
    for seed in seeds:
        tr, te = split(y, seed)
        test = os.path.join(tmp, f"{name}-{seed}-test.csv")
        write_csv(test, x[te], y[te])
        for rate in FLIPS:
            train = os.path.join(tmp, f"{name}-{seed}-{rate}-train.csv")
            write_csv(train, x[tr], flip(y[tr], rate, seed, k))
            yield name, rate, seed, ["-data", train, "-test", test, "-target", "y"]


def text_jobs(tmp, cvargen, seeds):
    src = os.path.join(tmp, "text.svm")
    subprocess.run([cvargen, "-n", "20000", "-d", "50000", "-noise", "-1", "-seed", "1", "-o", src], check=True)
    rows = open(src).read().splitlines()
    y = np.array([0 if r.split(" ", 1)[0] in ("-1", "0") else 1 for r in rows])
    for seed in seeds:
        tr, te = split(y, seed)
        test = os.path.join(tmp, f"text-{seed}-test.svm")
        with open(test, "w") as f:
            f.writelines(rows[i] + "\n" for i in te)
        for rate in FLIPS:
            yf = flip(y[tr], rate, seed, 2)
            train = os.path.join(tmp, f"text-{seed}-{rate}-train.svm")
            with open(train, "w") as f:
                f.writelines(("+1" if lab else "-1") + " " + rows[i].split(" ", 1)[1] + "\n" for i, lab in zip(tr, yf))
            yield "text", rate, seed, ["-data", train, "-test", test]


def run(binary, data_args, seed, extra):
    out = subprocess.run([binary, "train", "-json", "-seed", str(seed), "-threads", "1"] + data_args + extra,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cvar train {' '.join(data_args + extra)}: {out.stderr.strip()}")
    m = json.loads(out.stdout)["metrics"]["test"]
    return m["accuracy"], m["cvar_0.1"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cvar", default=shutil.which("cvar") or "cvar")
    ap.add_argument("--mnist")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    a = ap.parse_args()
    seeds = range(1, a.seeds + 1)
    cvargen = os.path.join(os.path.dirname(os.path.abspath(a.cvar)), "cvargen")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for name, x, y in sklearn_sets():
            jobs += dense_jobs(tmp, name, x, y, seeds)
        if a.mnist:
            x, y = mnist(a.mnist)
            jobs += dense_jobs(tmp, "MNIST", x, y, seeds)
        if os.path.exists(cvargen):
            jobs += text_jobs(tmp, cvargen, seeds)
        work = [(j, c) for j in jobs for c in range(len(CONFIGS))]
        with ThreadPoolExecutor(a.jobs) as ex:
            results = list(ex.map(lambda w: run(a.cvar, w[0][3], w[0][2], CONFIGS[w[1]][1]), work))
    table = {}
    for ((name, rate, _, _), c), r in zip(work, results):
        table.setdefault((name, rate), [[] for _ in CONFIGS])[c].append(r)
    print("| data | flipped | " + " | ".join(n for n, _ in CONFIGS) + " |")
    print("|---|---|" + "---|" * len(CONFIGS))
    for (name, rate), cols in table.items():
        means = [tuple(np.mean(v, axis=0)) for v in cols]
        ok = [i for i, (acc, _) in enumerate(means) if acc >= means[0][0] - 0.02]
        best = min(ok, key=lambda i: means[i][1])
        cells = [("**%.3f / %.3f**" if i == best else "%.3f / %.3f") % m for i, m in enumerate(means)]
        print(f"| {name} | {rate:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
