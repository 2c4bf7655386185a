"""The estimators follow scikit-learn's API and report the engine's errors."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import cvar


@pytest.mark.parametrize("est", [cvar.CVaRClassifier(), cvar.CVaRRegressor()], ids=lambda e: type(e).__name__)
def test_check_estimator(est):
    failed = [(r["check_name"], str(r["exception"])) for r in check_estimator(est, on_fail=None)
              if r["status"] == "failed"]
    assert failed == []


@pytest.fixture
def blobs():
    return make_classification(n_samples=400, n_features=8, n_informative=5, n_classes=3, random_state=0)


def test_grid_search_and_pipeline(blobs):
    X, y = blobs
    pipe = make_pipeline(StandardScaler(), cvar.CVaRClassifier(scale="none", threads=1))
    grid = GridSearchCV(pipe, {"cvarclassifier__alpha": [0.1, 0.5], "cvarclassifier__lr": [0.01, 0.1]}, cv=3)
    grid.fit(X, y)
    assert grid.best_params_["cvarclassifier__alpha"] in (0.1, 0.5)
    assert grid.score(X, y) > 0.6
    assert len(grid.cv_results_["mean_test_score"]) == 4


def test_probabilities_follow_scores(blobs):
    X, y = blobs
    est = cvar.CVaRClassifier().fit(X, y)
    p = est.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert (est.classes_[p.argmax(axis=1)] == est.predict(X)).all()
    assert est.decision_function(X).shape == (len(X), 3)
    assert est.model_kind_ == "softmax"
    b = cvar.CVaRClassifier().fit(X, y == 1)
    assert b.model_kind_ == "logistic" and b.decision_function(X).shape == (len(X),)
    assert ((b.decision_function(X) > 0) == b.predict(X)).all()


def test_engine_errors_are_exceptions(blobs):
    X, y = blobs
    with pytest.raises(cvar.CVaRError, match=r'^cvar: unknown method "alg9" \(want alg1, alg2, alg3, alg4, vanilla or minibatch\)$'):
        cvar.CVaRClassifier(method="alg9").fit(X, y)
    with pytest.raises(cvar.CVaRError, match="logistic regression is binary"):
        cvar.CVaRClassifier(model="logistic").fit(X, y)
    with pytest.raises(cvar.CVaRError, match=r"^cvar: alpha"):
        cvar.CVaRClassifier(alpha=1.5).fit(X, y)
    with pytest.raises(cvar.CVaRError, match="training diverged"):
        cvar.CVaRRegressor(lr=1e6, scale_target="none").fit(X, y * 1e3)
    with pytest.raises(cvar.CVaRError, match="objective blend takes the practical rule"):
        cvar.CVaRClassifier(objective="blend", lr="theorem").fit(X, y)
    with pytest.raises(TypeError, match="takes no sample_weight"):
        cvar.CVaRClassifier().fit(X, y, sample_weight=np.ones(len(y)))


def test_every_option_reaches_the_engine(blobs):
    X, y = blobs
    base = cvar.CVaRClassifier(threads=1).fit(X, y)
    for change in [dict(alpha=0.3), dict(method="alg2"), dict(objective="trimmed"), dict(objective="blend", blend=0.2),
                   dict(smoothing="quadratic"), dict(eps=0.5), dict(lr=0.05), dict(lr="theorem"),
                   dict(weight_decay=0.01), dict(epochs=2), dict(steps=50), dict(batch=64), dict(seed=9),
                   dict(precision="f32"), dict(precision="f32", storage="f16"), dict(scale="maxabs"),
                   dict(radius=0.5), dict(box=(-0.1, 0.1)), dict(model="mlp", hidden=4)]:
        est = cvar.CVaRClassifier(threads=1, **change).fit(X, y)
        assert est.to_bytes() != base.to_bytes(), change
    same = cvar.CVaRClassifier(threads=2).fit(X, y)
    assert same.to_bytes() == base.to_bytes()


def test_group_objective(blobs):
    X, y = blobs
    groups = (X[:, 0] > 0).astype(int)
    est = cvar.CVaRClassifier(objective="group").fit(X, y, groups=groups)
    assert est.score(X, y) > 0.5
    with pytest.raises(cvar.CVaRError, match="objective group needs Groups"):
        cvar.CVaRClassifier(objective="group").fit(X, y)


def test_sparse_input_as_dense(blobs):
    X, y = blobs
    X[np.abs(X) < 1] = 0
    Xs = sp.csr_matrix(X)
    a = cvar.CVaRClassifier(scale="maxabs").fit(X, y)
    b = cvar.CVaRClassifier(scale="maxabs").fit(Xs, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(Xs), rtol=1e-9, atol=1e-12)
    c = cvar.CVaRClassifier(scale="zscore").fit(X, y)  # centred: sparse rows are made dense to predict
    np.testing.assert_allclose(c.decision_function(Xs), c.decision_function(X), rtol=1e-12)


def test_warm_start_goes_on():
    X, y = make_regression(n_samples=300, n_features=5, noise=1.0, random_state=1)
    est = cvar.CVaRRegressor(warm_start=True, epochs=1, method="vanilla")
    first = est.fit(X, y).score(X, y)
    for _ in range(5):
        est.fit(X, y)
    assert est.score(X, y) > first
    cold = cvar.CVaRRegressor(epochs=1, method="vanilla").fit(X, y)
    assert cold.score(X, y) == pytest.approx(first)


def test_pickle_save_load(tmp_path, blobs):
    X, y = blobs
    est = cvar.CVaRClassifier(precision="f32").fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    path = tmp_path / "m.cvar"
    est.save(path)
    with pytest.raises(cvar.CVaRError, match="exists; pass overwrite=True"):
        est.save(path)
    est.save(path, overwrite=True)
    loaded = cvar.load(path)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    assert loaded.precision == "f32" and loaded.to_bytes() == est.to_bytes()
    (tmp_path / "bad.cvar").write_bytes(b"CVARMODL garbage")
    with pytest.raises(cvar.CVaRError, match="bad.cvar"):
        cvar.load(tmp_path / "bad.cvar")


def test_arrays_pass_without_copies():
    from cvar._lib import Matrix
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        X = rng.normal(size=(20, 4)).astype(dtype)
        assert np.shares_memory(Matrix(X).vals, X)
        assert not np.shares_memory(Matrix(np.asfortranarray(X)).vals, X)  # another layout: one copy
    S = sp.random(30, 50, density=0.1, format="csr", random_state=0)
    S.indptr = S.indptr.astype(np.int64)
    m = Matrix(S)
    assert np.shares_memory(m.vals, S.data) and np.shares_memory(m.indptr, S.indptr) and np.shares_memory(m.indices, S.indices)
