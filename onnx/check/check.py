"""Checks cvar's ONNX export against cvar predict in real runtimes.

For every model kind (logistic, softmax, mlp, linear, lad), in f32 and f64,
trained on dense CSV data and on sparse LIBSVM data, it trains a model with
`cvar train`, exports it with `cvar export -format onnx`, and on held-out
rows compares what `cvar predict -json` prints with what the exported model
returns in ONNX Runtime and in ONNX's reference evaluator: the ONNX checker
must pass, the probabilities must agree with the softmax (logistic: the
sigmoid) of predict's scores to 1e-5 relative, the classes must be equal,
and the scores and regression values must agree to 1e-5 of the largest
|value| (a value near zero is a sum of larger terms whose rounding in
float32 depends on the order of summation).

Usage: python check.py -cvar PATH_TO_CVAR_BINARY -dir WORK_DIR
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx.reference import ReferenceEvaluator

RTOL = 1e-5


def write_csv(path, x, y, header=True):
    with open(path, "w") as f:
        if header:
            f.write(",".join([f"x{j}" for j in range(x.shape[1])] + ["target"]) + "\n")
        for row, t in zip(x, y):
            f.write(",".join(f"{v:.6g}" for v in row) + f",{t}\n")


def write_libsvm(path, x, y):
    with open(path, "w") as f:
        for row, t in zip(x, y):
            nz = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{t} {nz}\n")


def make_data(rng, d_dir):
    """Writes the data sets; returns {name: (train, test, test features)}."""
    sets = {}

    def split(name, x, y, writer, ext):
        n = len(y) * 3 // 4
        tr, te = os.path.join(d_dir, f"{name}-train.{ext}"), os.path.join(d_dir, f"{name}-test.{ext}")
        writer(tr, x[:n], y[:n])
        writer(te, x[n:], y[n:])
        # The features as the files hold them (6 significant digits).
        xt = np.array([[float(f"{v:.6g}") for v in row] for row in x[n:]])
        sets[name] = (tr, te, xt)

    # Two classes with texts, skewed features.
    x = rng.normal(size=(800, 8)) * rng.uniform(0.5, 5, 8) + rng.uniform(-3, 3, 8)
    y = np.where(x @ rng.normal(size=8) + rng.normal(size=800) > 0, "yes", "no")
    split("binary", x, y, write_csv, "csv")
    # Four classes.
    x = rng.normal(size=(1000, 10)) * 2 + 1
    y = np.array(["a", "b", "ça", "Δ"])[np.argmax(x @ rng.normal(size=(10, 4)) + rng.normal(size=(1000, 4)), axis=1)]
    split("multi", x, y, write_csv, "csv")
    # Regression with targets far from zero (trained on standardised targets).
    x = rng.normal(size=(800, 6)) * 3
    y = 100 + x @ rng.normal(size=6) * 20 + rng.standard_t(3, size=800) * 5
    split("regression", x, np.round(y, 4), write_csv, "csv")
    # 8-bit "pixels" (-scale unit divides by 255).
    x = rng.integers(0, 256, size=(600, 16)).astype(float)
    y = np.array(["dark", "mid", "light"])[np.digitize(x[:, :4].mean(axis=1), [100, 155])]
    split("pixels", x, y, write_csv, "csv")
    # Sparse text-like data: held sparse (CSR) by cvar, scaled by max |x|.
    x = rng.exponential(size=(900, 300)) * (rng.random((900, 300)) < 0.03)
    w = rng.normal(size=(300, 3))
    y = np.argmax(x @ w + 0.1 * rng.normal(size=(900, 3)), axis=1) + 1
    split("sparse3", x, y, write_libsvm, "libsvm")
    y2 = np.where(x @ w[:, 0] > np.median(x @ w[:, 0]), 1, -1)
    split("sparse2", x, y2, write_libsvm, "libsvm")
    # IDX images (MNIST's format): a float32 model reads them as bytes
    # (-storage auto: u8, the 1/255 folded into the kernels).
    idx = os.path.join(d_dir, "idx")
    os.makedirs(idx, exist_ok=True)
    for prefix, n in (("train", 600), ("t10k", 200)):
        img = rng.integers(0, 256, size=(n, 6, 6), dtype=np.uint8)
        lab = np.digitize(img[:, :2, :].mean(axis=(1, 2)), [100, 155]).astype(np.uint8)
        write_idx(os.path.join(idx, f"{prefix}-images-idx3-ubyte"), img)
        write_idx(os.path.join(idx, f"{prefix}-labels-idx1-ubyte"), lab)
    sets["idx"] = (idx, idx, img.reshape(n, -1).astype(np.float64))
    return sets


def write_idx(path, a):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, a.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in a.shape) + a.tobytes())


# (name, data set, flags of cvar train)
CASES = [
    ("logistic", "binary", ["-model", "logistic"]),
    ("softmax", "multi", ["-model", "softmax"]),
    ("mlp", "multi", ["-model", "mlp", "-hidden", "16"]),
    ("linear", "regression", ["-model", "linear"]),
    ("lad", "regression", ["-model", "lad"]),
    ("softmax-unit", "pixels", ["-model", "softmax", "-scale", "unit"]),
    ("mlp-unit", "pixels", ["-model", "mlp", "-hidden", "8", "-scale", "unit"]),
    ("softmax-idx", "idx", ["-model", "softmax"]),
    ("mlp-idx", "idx", ["-model", "mlp", "-hidden", "8"]),
    ("softmax-sparse", "sparse3", ["-model", "softmax"]),
    ("logistic-sparse", "sparse2", ["-model", "logistic"]),
    ("mlp-sparse-zscore", "sparse3", ["-model", "mlp", "-hidden", "8", "-scale", "zscore"]),
]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def expected(kind, rows):
    """What predict printed, as the exported graph should return it."""
    if kind in ("linear", "lad"):
        return {"value": np.array([[r["value"]] for r in rows])}
    scores = np.array([r["scores"] for r in rows], dtype=np.float64)
    z = np.hstack([-scores / 2, scores / 2]) if kind == "logistic" else scores
    return {"label": np.array([r["class"] for r in rows], dtype=object), "probabilities": softmax(z), "scores": scores}


def rel_err(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny)))


def of_largest(got, want):
    """The largest difference in units of the largest |want|: scores and
    values near zero are sums of larger terms, whose rounding differs."""
    return float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)) / np.max(np.abs(want)))


def compare(case, runtime, kind, out, want, classes):
    errs = {}
    if "value" in want:
        errs["value"] = of_largest(out["value"], want["value"])
        if errs["value"] > RTOL:
            sys.exit(f"{case} ({runtime}): values differ from cvar predict's by {errs['value']:.3g} of their largest")
        return errs
    errs["probabilities"] = rel_err(out["probabilities"], want["probabilities"])
    if errs["probabilities"] > RTOL:
        sys.exit(f"{case} ({runtime}): probabilities differ from cvar predict's by {errs['probabilities']:.3g} relative")
    labels = np.array([v.decode() if isinstance(v, bytes) else v for v in out["label"]], dtype=object)
    if not np.array_equal(labels, want["label"]):
        bad = int(np.argmax(labels != want["label"]))
        sys.exit(f"{case} ({runtime}): row {bad + 1}: class {labels[bad]!r}, cvar predict {want['label'][bad]!r}")
    if not np.array_equal(np.array(classes, dtype=object)[out["class_index"]], want["label"]):
        sys.exit(f"{case} ({runtime}): class_index does not name predict's classes")
    errs["scores"] = of_largest(out["scores"], want["scores"])
    if errs["scores"] > RTOL:
        sys.exit(f"{case} ({runtime}): scores differ from cvar predict's by {errs['scores']:.3g} of their largest")
    return errs


def check_case(cvar, d_dir, sets, name, data, flags, precision):
    train, test, xt = sets[data]
    case = f"{name}/{precision}"
    model = os.path.join(d_dir, f"{name}-{precision}.cvar")
    exported = os.path.join(d_dir, f"{name}-{precision}.onnx")
    run([cvar, "train", "-data", train, "-precision", precision, "-seed", "3", "-o", model, "-force"] + flags)
    rows = json.loads(run([cvar, "predict", "-in", model, "-data", test, "-json"]))
    sig = json.loads(run([cvar, "export", "-in", model, "-format", "onnx", "-o", exported, "-force", "-json"]))
    m = onnx.load(exported)
    onnx.checker.check_model(m, full_check=True)
    meta = {p.key: p.value for p in m.metadata_props}
    kind = meta["cvar.kind"]
    if kind != name.split("-")[0] or meta["cvar.precision"] != precision:
        sys.exit(f"{case}: metadata names a {kind} {meta['cvar.precision']} model")
    classes = json.loads(meta.get("cvar.classes", "null"))
    want = expected(kind, rows)
    x = xt.astype(np.float32 if precision == "f32" else np.float64)
    names = [o["name"] for o in sig["outputs"]]
    sess = ort.InferenceSession(exported, providers=["CPUExecutionProvider"])
    got_ort = dict(zip(names, sess.run(names, {"features": x})))
    got_ref = dict(zip(names, ReferenceEvaluator(m).run(names, {"features": x})))
    for runtime, got in (("onnxruntime", got_ort), ("reference evaluator", got_ref)):
        for o in names:
            if got[o].dtype != np.dtype(dtype_of(o, precision)):
                sys.exit(f"{case} ({runtime}): output {o} is {got[o].dtype}")
    e1 = compare(case, "onnxruntime", kind, got_ort, want, classes)
    e2 = compare(case, "reference evaluator", kind, got_ref, want, classes)
    print(f"{case:28s} rows {len(rows):4d}  onnxruntime {fmt(e1)}  reference {fmt(e2)}")


def dtype_of(output, precision):
    if output == "label":
        return object
    if output == "class_index":
        return np.int64
    return np.float32 if precision == "f32" else np.float64


def fmt(errs):
    return " ".join(f"{k} {v:.1e}" for k, v in errs.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-cvar", required=True)
    ap.add_argument("-dir", required=True)
    a = ap.parse_args()
    sets = make_data(np.random.default_rng(7), a.dir)
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__}, numpy {np.__version__}; largest relative errors:")
    for name, data, flags in CASES:
        for precision in ("f32", "f64"):
            check_case(a.cvar, a.dir, sets, name, data, flags, precision)
    print(f"all {2 * len(CASES)} exported models agree with cvar predict")


if __name__ == "__main__":
    main()
