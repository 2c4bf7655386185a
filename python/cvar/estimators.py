"""scikit-learn estimators over the cvar engine."""

import numbers

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._model import Model

try:  # scikit-learn ≥ 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover
    def _validate_data(est, X="no_validation", y="no_validation", **kw):
        return est._validate_data(X, y, **kw)

_DTYPES = [np.float64, np.float32]


def _class_text(c):
    """A class's text in the model file, as cvar reads a numeric label:
    the shortest decimal form (1, 1.0 and +1 are all "1")."""
    if isinstance(c, (bool, np.bool_)):
        return str(c)
    if isinstance(c, numbers.Integral):
        return str(int(c))
    if isinstance(c, numbers.Real):
        v = float(c)
        return str(int(v)) if v.is_integer() and abs(v) < 1e21 else repr(v)
    return str(c)


def _labels_of(texts):
    """Class labels from their texts: integers or numbers when all are."""
    for conv in (int, float):
        try:
            return np.array([conv(t) for t in texts])
        except ValueError:
            pass
    return np.array(texts, dtype=object)


class _CVaRBase(BaseEstimator):
    """The parameters and fitting shared by both estimators."""

    _task = None

    def __init__(self, model="auto", *, method="alg3", alpha=0.1, objective="default", blend=None, trim=None,
                 rho=None, group_lr=None, smoothing="softplus", eps=None, lr=None, weight_decay=0.0, epochs=None,
                 steps=None, batch=None, seed=1, threads=None, precision="f64", storage="auto", scale="auto",
                 radius=None, box=None, hidden=100, warm_start=False):
        self.model = model
        self.method = method
        self.alpha = alpha
        self.objective = objective
        self.blend = blend
        self.trim = trim
        self.rho = rho
        self.group_lr = group_lr
        self.smoothing = smoothing
        self.eps = eps
        self.lr = lr
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.steps = steps
        self.batch = batch
        self.seed = seed
        self.threads = threads
        self.precision = precision
        self.storage = storage
        self.scale = scale
        self.radius = radius
        self.box = box
        self.hidden = hidden
        self.warm_start = warm_start

    def _config(self, classes, features):
        def num(v, kind=float):
            return kind(0) if v is None else kind(v)

        lr = self.lr
        theorem = isinstance(lr, str)
        if theorem and lr != "theorem":
            raise ValueError(f"cvar: lr {lr!r}: a step size, None for the default, or 'theorem'")
        return dict(
            task=self._task, classes=classes, features=features, model=self.model, hidden=int(self.hidden),
            method=self.method, alpha=float(self.alpha), objective=self.objective or "default",
            blend=num(self.blend), trim=num(self.trim), rho=num(self.rho), group_lr=num(self.group_lr),
            smoothing=self.smoothing, eps=num(self.eps), lr=0.0 if theorem else num(lr), lr_theorem=theorem,
            weight_decay=num(self.weight_decay), epochs=num(self.epochs, int), steps=num(self.steps, int),
            batch=num(self.batch, int), seed=int(self.seed), threads=num(self.threads, int), precision=self.precision,
            storage=self.storage, scale=self.scale, scale_target=getattr(self, "scale_target", "none"),
            radius=num(self.radius), box=None if self.box is None else [float(b) for b in self.box],
        )

    def _fit(self, X, y, groups, fit_params, classifier):
        if "sample_weight" in fit_params:
            raise TypeError(
                f"{type(self).__name__}.fit takes no sample_weight: the engine's objectives weight the rows "
                "only through their losses; repeat a row to count it more than once")
        if fit_params:
            raise TypeError(f"{type(self).__name__}.fit got unexpected keyword arguments {sorted(fit_params)}")
        warm = self._model_ if self.warm_start and hasattr(self, "_model_") else None
        X, y = _validate_data(self, X, y, accept_sparse="csr", dtype=_DTYPES, y_numeric=not classifier,
                              reset=warm is None)
        labels = target = None
        if classifier:
            check_classification_targets(y)
            classes, labels = np.unique(y, return_inverse=True)
            if warm is not None and not np.array_equal(classes, self.classes_):
                raise ValueError(f"cvar: warm_start needs the classes of the first fit, {self.classes_!r}, not {classes!r}")
            texts = [_class_text(c) for c in classes]
        else:
            target, texts = y, None
        names = getattr(self, "feature_names_in_", None)
        features = None if names is None else [str(f) for f in names]
        g = None if groups is None else np.asarray(groups)
        if g is not None and g.shape != (X.shape[0],):
            raise ValueError(f"cvar: groups has shape {g.shape}; expected one group a row, ({X.shape[0]},)")
        model = Model.fit(self._config(texts, features), X, y=target, labels=labels, groups=g, warm=warm)
        if classifier:
            self.classes_ = classes
        self._model_ = model
        info = model.info
        self.model_kind_ = info["kind"]
        self.tau_ = float("nan") if info["tau"] is None else info["tau"]
        self.params_ = info["params"]
        return self

    def _scores(self, X):
        check_is_fitted(self, "_model_")
        X = _validate_data(self, X, accept_sparse="csr", dtype=_DTYPES, reset=False)
        return self._model_.scores(X, int(self.threads or 0))

    def save(self, path, overwrite=False, source=None):
        """Writes the fitted model as a cvar model file, which `cvar predict`,
        `cvar eval` and cvar.load read. An existing path is an error unless
        overwrite. source, a dict with kind, name, target and no_header,
        records the training data in the file (the `source` object of its
        header) as `cvar train` does; by default kind is "python"."""
        check_is_fitted(self, "_model_")
        if source is not None:
            self._model_.set_source(source)
        self._model_.save(path, overwrite)

    def export_onnx(self, path, overwrite=False, model_name=None):
        """Writes the fitted model as an ONNX model (opset 13, IR version 7),
        as `cvar export -format onnx` does: it takes the raw features, as
        float32 for precision f32 and float64 for f64, and returns what
        predict and predict_proba return (label, probabilities, class_index
        and scores; value for a regressor). model_name, when given, is
        recorded as the model file it came from."""
        check_is_fitted(self, "_model_")
        self._model_.export_onnx(path, overwrite, model_name)

    def to_bytes(self):
        """The bytes of the fitted model's cvar model file."""
        check_is_fitted(self, "_model_")
        return self._model_.to_bytes()

    def __getstate__(self):
        state = dict(super().__getstate__())
        model = state.pop("_model_", None)
        if model is not None:
            state["_model_bytes"] = model.to_bytes()
        return state

    def __setstate__(self, state):
        state = dict(state)
        data = state.pop("_model_bytes", None)
        super().__setstate__(state)
        if data is not None:
            self._model_ = Model.from_bytes(data)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"X_types": ["2darray", "sparse"]}


class CVaRClassifier(ClassifierMixin, _CVaRBase):
    """A classifier trained to minimise the CVaR_α of its losses (logistic
    loss for two classes, cross-entropy for more), by the cvar engine.

    model is auto (logistic for two classes, softmax for more), logistic,
    softmax or mlp (hidden units). The other parameters are the training
    options of `cvar train`; None means the engine's default."""

    _task = "classification"

    def fit(self, X, y, groups=None, **fit_params):
        """Fits on X (dense or CSR) and the labels y; groups gives each row's
        group for objective='group'. With warm_start, a second fit goes on
        from the first one's parameters and feature scaling."""
        return self._fit(X, y, groups, fit_params, classifier=True)

    def decision_function(self, X):
        """The scores: for two classes the margin of classes_[1], else
        the logit of each class."""
        s = self._scores(X)
        if s.shape[1] == 1:
            return s[:, 0]
        if s.shape[1] == 2:
            return s[:, 1] - s[:, 0]
        return s

    def predict_proba(self, X):
        """The probability of each class, columns in the order of classes_."""
        s = self._scores(X)
        if s.shape[1] == 1:
            p = expit(s[:, 0])
            return np.column_stack([1 - p, p])
        return softmax(s, axis=1)

    def predict(self, X):
        """The class of highest score of each row (as `cvar predict`)."""
        s = self._scores(X)
        idx = (s[:, 0] > 0).astype(np.intp) if s.shape[1] == 1 else np.argmax(s, axis=1)
        return self.classes_[idx]


class CVaRRegressor(RegressorMixin, _CVaRBase):
    """A regressor trained to minimise the CVaR_α of its losses (squared
    error for model linear, absolute error for lad), by the cvar engine.

    scale_target is zscore (train on standardised targets; the model and
    its τ stay in the target's units) or none. The other parameters are the
    training options of `cvar train`; None means the engine's default."""

    _task = "regression"

    def __init__(self, model="auto", *, method="alg3", alpha=0.1, objective="default", blend=None, trim=None,
                 rho=None, group_lr=None, smoothing="softplus", eps=None, lr=None, weight_decay=0.0, epochs=None,
                 steps=None, batch=None, seed=1, threads=None, precision="f64", storage="auto", scale="auto",
                 scale_target="zscore", radius=None, box=None, hidden=100, warm_start=False):
        super().__init__(model, method=method, alpha=alpha, objective=objective, blend=blend, trim=trim, rho=rho,
                         group_lr=group_lr, smoothing=smoothing, eps=eps, lr=lr, weight_decay=weight_decay,
                         epochs=epochs, steps=steps, batch=batch, seed=seed, threads=threads, precision=precision,
                         storage=storage, scale=scale, radius=radius, box=box, hidden=hidden, warm_start=warm_start)
        self.scale_target = scale_target

    def fit(self, X, y, groups=None, **fit_params):
        """Fits on X (dense or CSR) and the targets y; groups as for
        CVaRClassifier.fit."""
        return self._fit(X, y, groups, fit_params, classifier=False)

    def predict(self, X):
        """The prediction of each row, in the target's units."""
        return self._scores(X)[:, 0]


def load(path):
    """Reads a cvar model file (written by `cvar train -o` or save) as a
    fitted CVaRClassifier or CVaRRegressor."""
    return _estimator_of(Model.load(path))


def _estimator_of(model):
    info = model.info
    common = dict(model=info["kind"], method=info["method"], alpha=info["alpha"], precision=info["precision"])
    if info["hidden"]:
        common["hidden"] = info["hidden"]
    if info["k"]:
        est = CVaRClassifier(**common)
        est.classes_ = _labels_of(info["classes"])
    else:
        est = CVaRRegressor(**common)
    est._model_ = model
    est.n_features_in_ = info["d"]
    est.model_kind_ = info["kind"]
    est.tau_ = float("nan") if info["tau"] is None else info["tau"]
    est.params_ = info["params"]
    return est
