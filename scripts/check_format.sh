#!/usr/bin/env bash
# Fails, listing the files, when a tracked C/C++/CUDA source differs from .clang-format
# (clang-format from Debian's packages; scripts/setup.sh installs it). Fix with:
#   git ls-files '*.cc' '*.h' '*.cu' '*.hpp' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cc' '*.h' '*.cu' '*.hpp')
if [ ${#bad[@]} -gt 0 ]; then
  echo "format: ${#bad[@]} file(s) differ from .clang-format ($(clang-format --version | head -1)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format: every tracked source matches .clang-format"
