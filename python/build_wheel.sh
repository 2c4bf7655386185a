#!/usr/bin/env bash
# Builds a platform wheel of the Python package into python/dist: the
# engine's shared library is built with Go here, and the wheel installs
# without Go on machines of the same platform.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip wheel --no-deps -w dist . "$@"
ls dist/*.whl
