import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cvar_cli(tmp_path_factory):
    """The cvar command, built from this checkout (CVAR_CLI names one built already)."""
    if os.environ.get("CVAR_CLI"):
        return os.environ["CVAR_CLI"]
    go = shutil.which("go")
    assert go, "the command-line tests build the cvar command: they need Go on PATH (or CVAR_CLI)"
    out = tmp_path_factory.mktemp("bin") / "cvar"
    subprocess.check_call([go, "build", "-o", str(out), "./cmd/cvar"], cwd=ROOT)
    return str(out)
