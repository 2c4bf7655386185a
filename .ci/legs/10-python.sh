#!/usr/bin/env bash
# The Python package: pip install ./python (which builds the engine's shared
# library with Go) into a fresh virtual environment with pinned NumPy,
# SciPy, scikit-learn and pandas (pip's cache keeps the downloads), then its
# tests, which also build the cvar command to compare model files with it.
# The C ABI's module (python/capi) is gofmt- and vet-clean first.
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
