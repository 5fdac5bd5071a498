#!/usr/bin/env bash
# Installs nodescope's build dependencies from Debian's packages (idempotent; root or sudo).
set -euo pipefail
# python3-*, pybind11-dev: the Python package (python/, its tests in scripts/test.sh).
# clang and libclang-rt-14-dev (libclang_rt.fuzzer, the sanitizer runtimes): scripts/fuzz.sh.
packages=(cmake g++ make python3 libgtest-dev libbenchmark-dev libcli11-dev libsimdjson-dev zlib1g-dev
  clang libclang-rt-14-dev clang-format
  python3-dev python3-venv python3-pip python3-setuptools pybind11-dev python3-pybind11 python3-numpy
  python3-pandas python3-pytest)
# prometheus (prometheus + promtool): `run --metrics` scraped by the real server (the ctest
# `metrics_prometheus`, which skips without it); without its recommends, and its packaged service
# is not needed (the test starts its own server on its own ports).
# chromium: the plots checked in a real browser, headless (the ctest `plot_browser`, label
# `browser`, which skips without it); without its recommends (desktop services headless needs not).
lean=(chromium prometheus)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
missing_lean=()
for p in "${lean[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing_lean+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_lean[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]} ${missing_lean[*]}"
  $sudo apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ ${#missing_lean[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing_lean[@]}" >/dev/null
  fi
fi
