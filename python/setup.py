"""Builds the engine's shared library with Go (go build -buildmode=c-shared
of ./capi) into the package, so that pip install ./python needs Go, and a
wheel made here installs without it. CVAR_LIBRARY_PREBUILT names a library
to package instead of building one."""

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))


def library_name():
    if sys.platform == "darwin":
        return "_libcvar.dylib"
    if sys.platform == "win32":
        return "_libcvar.dll"
    return "_libcvar.so"


class BuildWithGo(build_py):
    """build_py that also builds the shared library into the package."""

    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "cvar", library_name())
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        prebuilt = os.environ.get("CVAR_LIBRARY_PREBUILT")
        if prebuilt:
            shutil.copyfile(prebuilt, dest)
            return
        go = shutil.which("go")
        if go is None:
            sys.exit("cvar: building the package needs Go (https://go.dev/dl/) on PATH; or install a wheel")
        env = dict(os.environ, CGO_ENABLED="1")
        env.setdefault("GOFLAGS", "-buildvcs=false")
        cmd = [go, "build", "-trimpath", "-ldflags=-s -w", "-buildmode=c-shared", "-o", os.path.abspath(dest), "."]
        subprocess.check_call(cmd, cwd=os.path.join(HERE, "capi"), env=env)
        header = os.path.splitext(dest)[0] + ".h"
        if os.path.exists(header):
            os.remove(header)


class BinaryDistribution(Distribution):
    """The package holds a platform's shared library: its wheels are
    platform wheels."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithGo}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A py3-none-<platform> wheel: ctypes needs no Python ABI."""

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
