#!/usr/bin/env bash
# Installs the Python package (python/) into a venv made from Debian's Python and runs its
# pytest suite against the CLI of a build directory, and tracing over its simulated
# rocprofiler-sdk (lib/rocprofiler-sim, target rocprofiler_sim; those tests skip without it).
# Usage: scripts/python_test.sh [BUILD_DIR]   (default build; its bin/nodescope must be built)
# The venv is BUILD_DIR/py-venv (--system-site-packages: Debian's pandas, pytest, pybind11);
# no package index is used. CMAKE_ARGS reaches the extension's CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python=/usr/bin/python3  # Debian's: it sees python3-pandas, python3-pytest, python3-pybind11
venv="$build/py-venv"
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
start=$SECONDS
"$venv/bin/pip" install --no-build-isolation --no-index --no-deps -q ./python
echo "python_test: pip install ./python took $((SECONDS - start)) s" >&2
# From outside the checkout, so that the installed package is the one imported.
NODESCOPE_CLI="$PWD/$build/bin/nodescope" \
  NODESCOPE_SIM_LIB="$PWD/$build/lib/rocprofiler-sim/librocprofiler-sdk.so.1" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir python/tests python/tests
