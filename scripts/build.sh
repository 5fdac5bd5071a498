#!/usr/bin/env bash
# Configures and builds nodescope into build/ (or $1).
# Usage: scripts/build.sh [DIR] [CMAKE_ARGS...] [--target TARGET...]
# CMAKE_ARGS go to the configure step; with --target only those targets are built, else all.
# Warnings are not errors unless -DNODESCOPE_WERROR=ON is given (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake_args=()
targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = --target ]; then
    shift
    targets=("$@")
    break
  fi
  cmake_args+=("$1")
  shift
done
# The CUDA toolkit is optional: with it the CUPTI backend and the examples are built.
if [ -z "${CUDAToolkit_ROOT:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDAToolkit_ROOT=/usr/local/cuda
  export PATH="/usr/local/cuda/bin:$PATH"
fi
echo "build: configuring $dir" >&2
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_args[@]}" >/dev/null
if [ ${#targets[@]} -gt 0 ]; then
  echo "build: building ${targets[*]} in $dir ($(nproc) jobs)" >&2
  cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}"
else
  echo "build: building everything in $dir ($(nproc) jobs)" >&2
  cmake --build "$dir" -j "$(nproc)"
fi
