#!/usr/bin/env bash
# Installs nodescope's build dependencies from Debian's packages (idempotent; root or sudo).
set -euo pipefail
# clang and libclang-rt-14-dev (libclang_rt.fuzzer, the sanitizer runtimes): scripts/fuzz.sh.
packages=(cmake g++ make python3 libgtest-dev libbenchmark-dev libcli11-dev libsimdjson-dev zlib1g-dev
  clang libclang-rt-14-dev clang-format)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
