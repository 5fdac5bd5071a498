"""The package as a process sees it: what its compiled extensions export, and that importing it
first leaves the C++ libraries loaded after it alone."""
import os
import shutil
import subprocess
import sys

import pytest

import nodescope  # noqa: F401
from conftest import TESTDATA
from nodescope import _nodescope, _tracing_ext

TRACE = os.path.join(TESTDATA, "forkjoin_dag_h200.json")


@pytest.mark.skipif(shutil.which("nm") is None, reason="binutils' nm is not installed")
@pytest.mark.parametrize("module", [_nodescope, _tracing_ext], ids=lambda m: m.__name__)
def test_extension_exports_only_its_init(module):
    # The analysis libraries linked into _nodescope (std::string's members among them, built by
    # this compiler) must not be exported: libstdc++ loaded after them would bind its own calls
    # to those copies (python/src/extension.map).
    r = subprocess.run(["nm", "-D", "--defined-only", module.__file__], capture_output=True,
                       text=True, check=True)
    names = [line.split()[-1] for line in r.stdout.splitlines() if line.strip()]
    assert names == ["PyInit_" + module.__name__.rsplit(".", 1)[-1]], names


def test_import_first_then_cpp_modules():
    # `import nodescope` as a script's first line, then C++ extension modules of other packages
    # (the GPU machine's torch and pyarrow crashed here before the exports were limited); then
    # the DataFrame path, which imports pandas late.
    code = ("import nodescope, json, decimal, sqlite3, ssl\n"
            "import pandas\n"
            "t = nodescope.load(" + repr(TRACE) + ")\n"
            "print(len(t.kernels()), len(t.nodes()))\n")
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    kernels, nodes = map(int, r.stdout.split())
    assert kernels > 0 and nodes > 0
