#!/usr/bin/env bash
# The Python package: pip install ./python (which builds the engine's shared
# library with Go) into a fresh virtual environment with pinned NumPy,
# SciPy, scikit-learn and pandas (pip's cache keeps the downloads), then its
# tests, which also build the cvar command to compare model files with it.
# The C ABI's module (python/capi) is gofmt- and vet-clean first; last, the
# platform wheel of python/build_wheel.sh installs and fits without Go.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/pip}" PIP_DISABLE_PIP_VERSION_CHECK=1
unformatted=$(gofmt -l python/capi)
if [ -n "$unformatted" ]; then echo "gofmt -l python/capi:"; echo "$unformatted"; exit 1; fi
(cd python/capi && go vet .)
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q numpy==2.2.6 scipy==1.15.3 scikit-learn==1.6.1 pandas==2.2.3 pytest==8.3.4
"$venv/bin/pip" install -q ./python
"$venv/bin/pytest" -q -p no:cacheprovider python/tests

# The platform wheel installs and runs where Go is not on PATH.
python/build_wheel.sh -q
nogo="$(dirname "$venv")/nogo"
python3 -m venv "$nogo"
"$nogo/bin/pip" install -q numpy==2.2.6 scipy==1.15.3 scikit-learn==1.6.1 python/dist/cvar-*.whl
(cd "$(dirname "$venv")" && env PATH=/usr/bin:/bin "$nogo/bin/python" -c '
import numpy as np, cvar
X = np.random.default_rng(0).normal(size=(200, 3))
y = (X[:, 0] > 0).astype(int)
assert cvar.CVaRClassifier().fit(X, y).score(X, y) > 0.9
print("wheel without Go: ok")')
rm -rf python/dist
