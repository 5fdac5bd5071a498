#!/usr/bin/env bash
# Builds the trace reader's libFuzzer target with clang (ASan + UBSan) into build-fuzz/ and runs it
# for a bounded time on a copy of fuzz/corpus. A crash, leak, timeout or out-of-memory leaves the
# input that caused it in build-fuzz/ (crash-*, leak-*, timeout-*, oom-*) and fails the script.
# Usage: scripts/fuzz.sh [SECONDS]   (default 60, or $NODESCOPE_FUZZ_SECONDS)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${NODESCOPE_FUZZ_SECONDS:-60}}
dir=build-fuzz
# Only what the fuzzer needs: no tests, benchmarks or CUDA. Optimized but without NDEBUG, so that
# asserts and simdjson's development checks (misuse of its On-Demand API) stay on.
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DNODESCOPE_FUZZ=ON -DNODESCOPE_WERROR=ON \
  -DNODESCOPE_BUILD_TESTS=OFF -DNODESCOPE_BUILD_BENCH=OFF -DNODESCOPE_WITH_CUPTI=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target trace_reader_fuzzer
# New inputs the fuzzer finds go into the copy; fuzz/corpus stays as committed.
rm -rf "$dir/corpus"
cp -r fuzz/corpus "$dir/corpus"
cd "$dir"
rm -f crash-* leak-* timeout-* oom-* slow-unit-*  # a previous run's
if ! bin/trace_reader_fuzzer -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -dict=../fuzz/trace.dict -artifact_prefix=./ -print_final_stats=1 corpus; then
  echo "fuzz: trace_reader_fuzzer failed; the input is in $dir/:" >&2
  ls -1 crash-* leak-* timeout-* oom-* slow-unit-* >&2 2>/dev/null || true
  echo "fuzz: reproduce with $dir/bin/trace_reader_fuzzer $dir/<file>" >&2
  exit 1
fi
