"""The package and the cvar command make and read the same model files."""

import subprocess

import numpy as np
import pandas as pd
import pytest

import cvar


def write_csv(path, n, d, seed, target):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    w = rng.normal(size=d)
    if target == "binary":
        y = (X @ w > np.median(X @ w)).astype(int)
    elif target == "multi":
        y = np.digitize(X @ w, np.quantile(X @ w, [0.33, 0.66]))
    else:
        y = X @ w + rng.standard_t(3, size=n)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])
    df["y"] = y
    df.to_csv(path, index=False, float_format="%.6g")
    return pd.read_csv(path)


CASES = [
    ("binary", cvar.CVaRClassifier, [], {}),
    ("multi", cvar.CVaRClassifier, ["-precision", "f32"], {"precision": "f32"}),
    ("multi", cvar.CVaRClassifier, ["-method", "minibatch", "-batch", "32", "-epochs", "3"], {"method": "minibatch", "batch": 32, "epochs": 3}),
    ("real", cvar.CVaRRegressor, [], {}),
    ("real", cvar.CVaRRegressor, ["-model", "lad", "-alpha", "0.2", "-wd", "0.001", "-scale", "maxabs"],
     {"model": "lad", "alpha": 0.2, "weight_decay": 0.001, "scale": "maxabs"}),
    ("binary", cvar.CVaRClassifier, ["-objective", "trimmed", "-trim", "0.1"], {"objective": "trimmed", "trim": 0.1}),
    ("real", cvar.CVaRRegressor, ["-objective", "blend", "-blend", "0.3", "-smooth", "quadratic"],
     {"objective": "blend", "blend": 0.3, "smoothing": "quadratic"}),
]


@pytest.mark.parametrize("target,Est,flags,params", CASES)
def test_same_model_file_as_cvar_train(tmp_path, cvar_cli, target, Est, flags, params):
    data = tmp_path / "data.csv"
    df = write_csv(data, 300, 5, 7, target)
    seed = 5
    cli_model = tmp_path / "cli.cvar"
    subprocess.run([cvar_cli, "train", "-data", str(data), "-seed", str(seed), "-o", str(cli_model)] + flags,
                   check=True, capture_output=True)
    rows = cvar.training_rows(len(df), seed)
    X, y = df.drop(columns="y")[rows], df["y"][rows]
    est = Est(seed=seed, **params).fit(X, y)
    py_model = tmp_path / "py.cvar"
    est.save(py_model, source={"kind": "csv", "name": str(data)})
    assert py_model.read_bytes() == cli_model.read_bytes()


def test_cli_model_predicts_as_cvar_predict(tmp_path, cvar_cli):
    data = tmp_path / "data.csv"
    df = write_csv(data, 200, 4, 3, "multi")
    model = tmp_path / "m.cvar"
    subprocess.run([cvar_cli, "train", "-data", str(data), "-o", str(model)], check=True, capture_output=True)
    out = subprocess.run([cvar_cli, "predict", "-in", str(model), "-data", str(data)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    est = cvar.load(model)
    assert isinstance(est, cvar.CVaRClassifier)
    X = df.drop(columns="y").to_numpy()
    want = [line.split(",")[1] for line in out[1:]]
    assert [str(c) for c in est.predict(X)] == want
    scores = np.array([[float(v) for v in line.split(",")[2:5]] for line in out[1:]])
    np.testing.assert_allclose(est.decision_function(X), scores, rtol=1e-12)


def test_python_model_read_by_cvar_predict(tmp_path, cvar_cli):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=150)
    est = cvar.CVaRRegressor().fit(X, y)
    model = tmp_path / "m.cvar"
    est.save(model)
    data = tmp_path / "new.csv"
    np.savetxt(data, X[:20], delimiter=",", header="f1,f2,f3", comments="", fmt="%.17g")
    out = subprocess.run([cvar_cli, "predict", "-in", str(model), "-data", str(data)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    got = np.array([float(line.split(",")[1]) for line in out[1:]])
    np.testing.assert_allclose(got, est.predict(X[:20]), rtol=1e-12)


@pytest.mark.parametrize("Est,precision", [(cvar.CVaRClassifier, "f32"), (cvar.CVaRRegressor, "f64")])
def test_export_onnx_as_cvar_export(tmp_path, cvar_cli, Est, precision):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if Est is cvar.CVaRClassifier else X @ [1.0, 2.0, 0.0, -1.0]
    est = Est(precision=precision).fit(X, y)
    model = tmp_path / "m.cvar"
    est.save(model)
    est.export_onnx(tmp_path / "py.onnx", model_name="m.cvar")
    subprocess.run([cvar_cli, "export", "-in", str(model), "-o", str(tmp_path / "cli.onnx")], check=True,
                   capture_output=True)
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    with pytest.raises(cvar.CVaRError, match="exists; pass overwrite=True"):
        est.export_onnx(tmp_path / "py.onnx")
