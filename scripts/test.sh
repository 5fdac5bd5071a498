#!/usr/bin/env bash
# The test command: builds nodescope and runs every test (GPU tests skip cleanly without a GPU),
# then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then the trace
# reader's fuzzer for a minute (scripts/fuzz.sh; NODESCOPE_FUZZ_SECONDS changes how long).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
(cd build && ctest --output-on-failure -j "$(nproc)")
scripts/build.sh build-asan -DNODESCOPE_SANITIZE=ON -DNODESCOPE_BUILD_BENCH=OFF
(cd build-asan && ctest --output-on-failure -j "$(nproc)" -L unit)
scripts/fuzz.sh
