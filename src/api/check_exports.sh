#!/bin/sh
# Fails if libnodescope.so ($1) exports a symbol other than the C API and the entry points
# (exports.map): a C++ symbol leaking out can interpose on a program's own, or theirs on ours.
set -eu
extra=$(nm -D --defined-only "$1" | awk '{print $3}' |
  grep -v -E '^(nodescope_[a-z_0-9]+|InitializeInjection|InitializeInjectionNvtx2|InitializeInjectionNvtxExtension)$' || true)
if [ -n "$extra" ]; then
  echo "libnodescope.so exports symbols outside exports.map:"
  echo "$extra" | head -20
  exit 1
fi
echo "libnodescope.so exports only: $(nm -D --defined-only "$1" | awk '{print $3}' | tr '\n' ' ')"
