#!/usr/bin/env python3
"""Times MNIST softmax training from NumPy arrays against cvar train and
against a PyTorch loop of the same CVaR-SGD.

  python3 python/bench/mnist.py MNIST_DIR [--cvar PATH] [--threads 1]
        [--epochs 10] [--reps 3] [--torch-python /usr/bin/python3]

1. cvar train: `cvar train -data MNIST_DIR -model softmax -precision f32
   -batch 512 -lr 0.01 -eps 0.1 -epochs E -threads T -o FILE` (its 2/3
   split, 40000 rows, pixels / 255 held as bytes). Its training time is its
   reported seconds less those of the same run with -steps 1 (reading,
   splitting, evaluating and writing are the same in both).
   The package fits CVaRClassifier with the same options on the same 40000
   rows (cvar.training_rows) of a float32 NumPy array of the raw pixels
   (scale="unit", storage="u8", as the command chooses for IDX data), timed
   around fit, and less a fit of one step (the setting up that cvar train
   does between reading and training: copy, scaling, byte storage); its model file must equal the command's byte for byte. Wall
   and CPU seconds are both reported: CPU seconds hold on a busy machine.
2. PyTorch: bench/torch_epoch.py (the repository's PyTorch loop of Alg 3,
   one epoch of 118 minibatches of 512 drawn with replacement from the 60000
   rows, float32, alpha = eps = 0.1, eta = 0.01) on one thread, its best
   epoch; the package fits the same (objective="cvar") on all 60000 rows of a float32 array of
   pixels / 255 (scale="none"), and its seconds per epoch are the fit's time
   over E (setting up included).
Prints one JSON object.
"""

import argparse
import gzip
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import cvar

ROOT = pathlib.Path(__file__).resolve().parents[2]


def idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        b = f.read()
    dims = b[3]
    shape = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def find(d, name):
    for suffix in (".gz", ""):
        if os.path.exists(os.path.join(d, name + suffix)):
            return os.path.join(d, name + suffix)
    sys.exit(f"{d}: no {name}[.gz]")


def cli_seconds(cli, d, flags, out):
    """The run's reported seconds and its CPU seconds."""
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([cli, "train", "-data", d, "-json", "-force", "-o", out] + flags,
                       check=True, capture_output=True, text=True)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return json.loads(r.stdout)["seconds"], (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)


def timed(f):
    """f's wall and CPU seconds (the CPU time of every thread of the process)."""
    w, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w, time.process_time() - c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mnist")
    ap.add_argument("--cvar", default=None, help="the cvar command (default: built from this checkout)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--torch-python", default=None, help="a Python with torch: run the PyTorch comparison")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    cli = a.cvar or os.path.join(tmp, "cvar")
    if a.cvar is None:
        subprocess.run(["go", "build", "-o", cli, "./cmd/cvar"], cwd=ROOT, check=True)
    X = idx(find(a.mnist, "train-images-idx3-ubyte")).reshape(60000, -1).astype(np.float32)
    y = idx(find(a.mnist, "train-labels-idx1-ubyte")).astype(np.int64)
    opts = dict(model="softmax", precision="f32", batch=512, lr=0.01, eps=0.1, epochs=a.epochs, threads=a.threads, seed=1)
    flags = ["-model", "softmax", "-precision", "f32", "-batch", "512", "-lr", "0.01", "-eps", "0.1",
             "-threads", str(a.threads), "-seed", "1"]
    rows = cvar.training_rows(len(X), 1)
    Xtr, ytr = np.ascontiguousarray(X[rows]), y[rows]
    cli_model, py_model = os.path.join(tmp, "cli.cvar"), os.path.join(tmp, "py.cvar")
    res = {"threads": a.threads, "epochs": a.epochs, "cli_total_s": [], "cli_s": [], "cli_cpu_s": [], "python_s": [],
           "python_cpu_s": [], "python_setup_s": [], "python_marginal_cpu_s": []}
    for _ in range(a.reps):
        full, full_cpu = cli_seconds(cli, a.mnist, flags + ["-epochs", str(a.epochs)], cli_model)
        base, base_cpu = cli_seconds(cli, a.mnist, flags + ["-steps", "1"], os.path.join(tmp, "base.cvar"))
        res["cli_total_s"].append(full)
        res["cli_s"].append(full - base)
        res["cli_cpu_s"].append(full_cpu - base_cpu)
        w, c = timed(lambda: cvar.CVaRClassifier(scale="unit", storage="u8", **opts).fit(Xtr, ytr))
        res["python_s"].append(w)
        res["python_cpu_s"].append(c)
        one = dict(opts, epochs=None, steps=1)
        w1, c1 = timed(lambda: cvar.CVaRClassifier(scale="unit", storage="u8", **one).fit(Xtr, ytr))
        res["python_setup_s"].append(w1)
        res["python_marginal_cpu_s"].append(c - c1)
    import pandas  # the feature names of the command's IDX reading, for the byte comparison (untimed)
    named = pandas.DataFrame(Xtr, columns=[f"pixel{j}" for j in range(X.shape[1])], copy=False)
    est = cvar.CVaRClassifier(scale="unit", storage="u8", **opts).fit(named, ytr)
    est.save(py_model, overwrite=True, source={"kind": "idx", "name": a.mnist})
    res["same_model_file"] = open(py_model, "rb").read() == open(cli_model, "rb").read()
    med = statistics.median
    res["python_over_cli"] = med(res["python_s"]) / med(res["cli_s"])
    res["python_over_cli_cpu"] = med(res["python_cpu_s"]) / med(res["cli_cpu_s"])
    res["python_marginal_over_cli_cpu"] = med(res["python_marginal_cpu_s"]) / med(res["cli_cpu_s"])
    if a.torch_python:
        X255 = X / np.float32(255)
        per, per_cpu = [], []
        for _ in range(a.reps):
            w, c = timed(lambda: cvar.CVaRClassifier(scale="none", objective="cvar", **opts).fit(X255, y))
            per.append(w / a.epochs)
            per_cpu.append(c / a.epochs)
        r = subprocess.run([a.torch_python, str(ROOT / "bench" / "torch_epoch.py"), "--mnist", a.mnist, "--models", "softmax",
                            "--threads", "1", "--epochs", "2"], check=True, capture_output=True, text=True)
        torch = json.loads(r.stdout.strip().splitlines()[-1])
        res["python_s_per_epoch_60000"] = per
        res["python_cpu_s_per_epoch_60000"] = per_cpu
        res["torch"] = torch
        res["torch_over_python"] = torch["s_per_epoch"] / min(per)
        res["torch_over_python_cpu"] = torch["cpu_s"] / min(per_cpu)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
