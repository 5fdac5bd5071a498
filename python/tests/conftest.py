import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTDATA = os.path.join(ROOT, "src", "analysis", "testdata")


@pytest.fixture(scope="session")
def cli():
    """The nodescope CLI built from this checkout: $NODESCOPE_CLI (scripts/test.sh sets it), else
    build/bin/nodescope."""
    path = os.environ.get("NODESCOPE_CLI")
    if path:
        assert os.access(path, os.X_OK), f"NODESCOPE_CLI={path} is not an executable"
        return path
    path = os.path.join(ROOT, "build", "bin", "nodescope")
    if not os.access(path, os.X_OK):
        pytest.skip("no nodescope CLI built (scripts/build.sh, or set NODESCOPE_CLI)")
    return path
