#!/usr/bin/env bash
# `nodescope nodes` over one trace per rank, read in parallel: writes the synthetic job of
# src/analysis/merge/synthetic_job.h (RANKS traces of REPLAYS replays of a 4-node graph, rank 1 the
# straggler) with make_rank_traces, then times `nodes --csv` reading them on 1 thread and on
# every core (best of RUNS), and prints GB/s of trace read.
#   bench/nodes_ranks.sh BUILD_DIR [RANKS=16] [REPLAYS=20000] [RUNS=3]
set -euo pipefail
build=${1:?usage: bench/nodes_ranks.sh BUILD_DIR [RANKS] [REPLAYS] [RUNS]}
ranks=${2:-16}
replays=${3:-20000}
runs=${4:-3}
dir=$(mktemp -d /tmp/nodescope-ranks-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$build/bin/make_rank_traces" "$dir" "$ranks" "$replays" 1 50 > /dev/null
bytes=$(cat "$dir"/rank*.json | wc -c)
cores=$(nproc)
echo "$ranks traces, $replays replays each, $((bytes / 1000000)) MB in all; $cores cores"
for threads in 1 "$cores"; do
  best=""
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$build/bin/nodescope" nodes --csv --threads "$threads" "$dir"/rank*.json > /dev/null
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  gbs=$(awk -v b="$bytes" -v ms="$best" 'BEGIN { printf "%.2f", b / (ms / 1000) / 1e9 }')
  echo "threads $threads: best of $runs ${best} ms, $gbs GB/s"
done
