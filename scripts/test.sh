#!/usr/bin/env bash
# The test command: checks the sources' formatting (scripts/check_format.sh), builds nodescope
# with warnings as errors and runs every test (GPU tests skip
# cleanly without a GPU), then the unit tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then the concurrent parts' tests under ThreadSanitizer, then builds
# the libraries and CLI in Release as users do, then the trace reader's fuzzer for a minute
# (scripts/fuzz.sh; NODESCOPE_FUZZ_SECONDS changes how long).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/check_format.sh
# The project's own builds treat warnings as errors; a user's build does not (NODESCOPE_WERROR).
scripts/build.sh build -DNODESCOPE_WERROR=ON
(cd build && ctest --output-on-failure -j "$(nproc)")
# The Python package (python/): installed into a venv of Debian's Python, which sees Debian's
# pandas, pytest and pybind11 (a `python3` earlier on PATH may be another build that does not),
# then its tests, against the CLI just built.
scripts/python_test.sh build
scripts/build.sh build-asan -DNODESCOPE_WERROR=ON -DNODESCOPE_SANITIZE=ON -DNODESCOPE_BUILD_BENCH=OFF
# intercept_tls_get_addr=0: LeakSanitizer's dynamic-TLS tracking misreads glibc 2.36's TLS blocks
# when their address happens to fall on a particular offset (google/sanitizers#1322), and its
# tracer then dies at exit (SIGSEGV), layout-dependent: seen on a traced program's exit with
# nodescope's libraries dlopened. Leak checking itself stays on.
(cd build-asan && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0 \
  ctest --output-on-failure -j "$(nproc)" -L unit)
# ThreadSanitizer over the tests labelled `concurrent` (range recorder, attributors, capture
# scopes, CUPTI buffer pool): only those targets are built (the target concurrent_tests).
scripts/build.sh build-tsan -DNODESCOPE_WERROR=ON -DNODESCOPE_TSAN=ON -DNODESCOPE_BUILD_BENCH=OFF \
  --target concurrent_tests
(cd build-tsan && ctest --output-on-failure -j "$(nproc)" -L concurrent --no-tests=error)
# A Release build of the library and the CLI as users build them: -O3 and the default options,
# so warnings are not fatal (g++ 12 warns falsely there, -Wrestrict); then a smoke run of it.
scripts/build.sh build-release -DCMAKE_BUILD_TYPE=Release -DNODESCOPE_BUILD_TESTS=OFF \
  -DNODESCOPE_BUILD_BENCH=OFF --target nodescope_cli nodescope_libraries
build-release/bin/nodescope check examples/traces/torch_graph_mlp.json >/dev/null
scripts/fuzz.sh
