#!/usr/bin/env bash
# The main job: builds nodescope, then on a machine with an NVIDIA GPU traces the example graph
# workload (examples/graph_replay.cu); without one, takes the trace recorded on an H200 that is
# committed under examples/traces/. Either way it checks the trace's keys, prints the per-node
# cost across replays and draws it (nodescope-nodes.svg).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu=1
fi
# Only what this job runs, built as a user would (Release, warnings not fatal): with a GPU the
# `main_job` target (the CLI, libnodescope.so with its backend libraries and, with CUDA, the
# example); without one the CLI alone. Not the tests and benchmarks that scripts/test.sh builds.
if [ "$gpu" = 1 ]; then
  echo "run: building the nodescope CLI, its libraries and the example (Release) into build/" >&2
  scripts/build.sh build -DCMAKE_BUILD_TYPE=Release --target main_job
else
  echo "run: no NVIDIA GPU here: building only the nodescope CLI (Release) into build/" >&2
  scripts/build.sh build -DCMAKE_BUILD_TYPE=Release --target nodescope_cli
fi
bin=build/bin
if [ "$gpu" = 1 ] && [ -x "$bin/graph_replay" ]; then
  trace=nodescope-example.json
  "$bin/nodescope" run -o "$trace" -- "$bin/graph_replay"
else
  trace=examples/traces/torch_graph_mlp.json
  echo "run: no NVIDIA GPU here; analysing $trace, recorded with nodescope run on an H200" >&2
  echo "     (see examples/traces/README.md)" >&2
fi
"$bin/nodescope" check "$trace"
"$bin/nodescope" nodes "$trace" --top 5 --rows 10
"$bin/nodescope" plot "$trace" -o nodescope-nodes.svg
echo "run: per-node durations over the replays drawn in nodescope-nodes.svg" >&2
