#!/bin/sh
# Checks what a nodescope library ($1) exports and needs:
#   check_exports.sh LIB EXPORTS [needs:NAME | never:REGEX]...
# EXPORTS is an extended regex every defined dynamic symbol must match in full (a C++ symbol
# leaking out can interpose on a program's own, or theirs on ours: exports.map); needs:NAME
# requires a NEEDED entry starting with NAME (libcupti: libcupti.so.13), never:REGEX forbids any
# NEEDED entry matching REGEX (libnodescope.so needs no vendor SDK), nosym:REGEX forbids any
# symbol, local ones included (nm -C), matching REGEX (a backend library holds no copy of the
# state libnodescope.so owns: the tracer registry, the range recorder's per-thread logs).
set -eu
lib=$1
exports=$2
shift 2
name=$(basename "$lib")
status=0
extra=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v -x -E "$exports" || true)
if [ -n "$extra" ]; then
  echo "$name exports symbols outside its version script:"
  echo "$extra" | head -20
  status=1
fi
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for rule in "$@"; do
  case $rule in
    needs:*)
      if ! echo "$needed" | grep -q -E "^${rule#needs:}"; then
        echo "$name does not need ${rule#needs:} (NEEDED: $(echo $needed))"
        status=1
      fi ;;
    never:*)
      bad=$(echo "$needed" | grep -E "${rule#never:}" || true)
      if [ -n "$bad" ]; then
        echo "$name needs a library it must not: $(echo $bad)"
        status=1
      fi ;;
    nosym:*)
      if ! nm "$lib" >/dev/null 2>&1 || [ -z "$(nm "$lib" 2>/dev/null | head -1)" ]; then
        echo "$name has no symbol table (stripped): nosym rules cannot be checked"
        status=1
      fi
      bad=$(nm -C "$lib" 2>/dev/null | grep -E "${rule#nosym:}" || true)
      if [ -n "$bad" ]; then
        echo "$name holds code it must not:"
        echo "$bad" | head -10
        status=1
      fi ;;
    *) echo "check_exports.sh: unknown rule $rule"; exit 2 ;;
  esac
done
[ $status -eq 0 ] || exit 1
echo "$name exports only: $(nm -D --defined-only "$lib" | awk '{print $3}' | tr '\n' ' ')"
echo "$name needs: $(echo $needed)"
