#!/usr/bin/env bash
# Configures and builds nodescope into build/ (or $1). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
# The CUDA toolkit is optional: with it the CUPTI backend and the examples are built.
if [ -z "${CUDAToolkit_ROOT:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDAToolkit_ROOT=/usr/local/cuda
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
