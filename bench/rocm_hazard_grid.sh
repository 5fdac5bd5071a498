#!/usr/bin/env bash
# Issue 29's full grid: nodescope's AMD backend on the simulated rocprofiler-sdk under every hazard
# the simulator models (tests/rocprofiler_sim/check_hazards.py), threads 1-16 x GPU_MAX_HW_QUEUES
# {4, 8, 16} x plain launches mixed in or not, roctx ranges open, 20 seeds each: 0 wrong keys,
# range links and range spans, and the keyed share per configuration as a markdown table.
# Usage: bench/rocm_hazard_grid.sh [BUILD_DIR] [TABLE.md]   (CPU only; hours on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
table=${2:-/tmp/rocm_hazard_grid.md}
exec python3 tests/rocprofiler_sim/check_hazards.py \
  --nodescope "$build/bin/nodescope" --program "$build/bin/sim_program" \
  --sim-lib-dir "$build/lib/rocprofiler-sim" \
  --threads "$(seq -s, 1 16)" --queues 4,8,16 --plain 0,1 --seeds "${SEEDS:-20}" --table "$table"
