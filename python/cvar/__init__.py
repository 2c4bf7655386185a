"""cvar: scikit-learn estimators that minimise the conditional value at
risk (CVaR) of their losses, and exact risk measures, over the cvar engine
(a Go library, loaded as a shared library)."""

from ._lib import CVaRError
from ._model import live_models
from .estimators import CVaRClassifier, CVaRRegressor, load
from .risk import bootstrap, cvar, tails, training_rows, var

__all__ = ["CVaRClassifier", "CVaRRegressor", "CVaRError", "load", "cvar", "var", "tails", "bootstrap",
           "training_rows", "live_models"]
__version__ = "0.1.0"
