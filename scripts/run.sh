#!/usr/bin/env bash
# The main job: builds nodescope and, on a machine with an NVIDIA GPU, traces the example graph
# workload and writes nodescope-example.json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
if [ ! -x build/bin/graph_replay ]; then
  echo "run: the CUDA toolkit was not found at build time, so there is no example to trace." >&2
  exit 1
fi
build/bin/nodescope run -o nodescope-example.json -- build/bin/graph_replay
