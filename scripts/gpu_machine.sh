#!/usr/bin/env bash
# GPU checks on a machine that reaches no package registry (the team's lent GPU machine).
#   scripts/gpu_machine.sh prepare   here, online: downloads the Debian packages a build needs
#                                    (and prometheus) into .devcarry/, unpacks them, and builds
#                                    the GPU targets into build-gpu/ (Release)
#   scripts/gpu_machine.sh check [STEP...]
#                                    there, with .devcarry, build-gpu/bin and build-gpu/lib
#                                    carried: runs the steps (default: matrix python metrics
#                                    overhead) while GUARD seconds (default 560) last; writes
#                                    each step's log under $OUT (default /tmp/gpu-checks). If the
#                                    carried build does not run there, it builds build-gpu first.
# Steps: matrix (tests/gpu/test_graph_matrix.py, its table to $OUT/graph-matrix-results.md),
# python (tests/gpu/test_python.py; with rocprofiler_sim built, the pytest suite's simulated-runtime
# cases run there too), metrics (tests/gpu/test_metrics.py with the carried prometheus), overhead
# (bench/overhead.py: the torch MLP, --sample 20 with and without --metrics).
set -uo pipefail
cd "$(dirname "$0")/.."
R=$(pwd)
D=$R/.devcarry
targets=(nodescope_cli nodescope_libraries graph_replay in_process graph_cases dag_cases ranges_cases
  cupti_client graph_matrix cupti_floor rocprofiler_sim)
export CUDAToolkit_ROOT=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH

if [ "${1:-}" = prepare ]; then
  set -e
  mkdir -p "$D/debs" "$D/root"
  (cd "$D/debs" && apt-get download libcli11-dev libsimdjson-dev libsimdjson14 libgtest-dev \
    zlib1g-dev libbenchmark-dev libbenchmark1debian prometheus)
  for deb in "$D"/debs/*.deb; do
    case $deb in *prometheus*) ;; *) dpkg -x "$deb" "$D/root" ;; esac
  done
  scripts/build.sh build-gpu -DCMAKE_BUILD_TYPE=Release --target "${targets[@]}"
  echo "carry: .devcarry build-gpu/bin build-gpu/lib ($(du -shc "$D" build-gpu/bin build-gpu/lib | tail -1))"
  exit 0
fi
[ "${1:-}" = check ] || { echo "usage: $0 prepare | check [STEP...]" >&2; exit 2; }
shift
OUT=${OUT:-/tmp/gpu-checks}
mkdir -p "$OUT"
START=$(date +%s)
GUARD=${GUARD:-560}
left() { echo $((GUARD - ($(date +%s) - START))); }
export CMAKE_PREFIX_PATH=$D/root/usr
export LD_LIBRARY_PATH=$R/build-gpu/lib:$D/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Debian's CLI11 and zlib headers from .devcarry; the machine's own libz.
flags=(-DZLIB_LIBRARY=/lib/x86_64-linux-gnu/libz.so.1 -DZLIB_INCLUDE_DIR=$D/root/usr/include
  -DCLI11_DIR=$D/root/usr/share/cmake/CLI11)
export CMAKE_ARGS="${flags[*]}"  # for test_python.py's pip build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
if ! build-gpu/bin/nodescope --version >/dev/null 2>&1 || ! build-gpu/bin/graph_matrix --list >/dev/null 2>&1; then
  echo "the carried build does not run here: building build-gpu"
  rm -rf build-gpu
  t=$(date +%s)
  scripts/build.sh build-gpu "${flags[@]}" -DCMAKE_BUILD_TYPE=Release --target "${targets[@]}" \
    >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
  echo "build $(($(date +%s) - t)) s"
fi
mkdir -p /tmp/prom && dpkg-deb -x "$D"/debs/prometheus_*.deb /tmp/prom
export NODESCOPE_PROMETHEUS_BIN=/tmp/prom/usr/bin
A=(--nodescope "$R/build-gpu/bin/nodescope" --bin-dir "$R/build-gpu/bin")
# step NAME NEEDS CMD...: runs CMD into $OUT/NAME.log if NEEDS seconds are left, and stops it
# when the guard ends.
step() {
  local name=$1 needs=$2 l t
  shift 2
  l=$(left)
  t=$(date +%s)
  [ "$l" -gt "$needs" ] || { echo "skip $name ($l s left)"; return; }
  timeout $((l - 5)) "$@" >"$OUT/$name.log" 2>&1
  echo "$name rc=$? $(($(date +%s) - t)) s"
  tail -20 "$OUT/$name.log"
}
steps=("$@")
[ $# -gt 0 ] || steps=(matrix python metrics overhead)
for s in "${steps[@]}"; do
  case $s in
    matrix) step matrix 60 python3 tests/gpu/test_graph_matrix.py "${A[@]}" \
      --table "$OUT/graph-matrix-results.md" ;;
    python) step python 150 python3 tests/gpu/test_python.py "${A[@]}" ;;
    metrics) step metrics 80 python3 tests/gpu/test_metrics.py "${A[@]}" ;;
    overhead) step overhead 130 python3 bench/overhead.py --workload torch_mlp --replays 2000 \
      --rounds 3 --bin-dir build-gpu/bin --lib-dir build-gpu/lib --extra sample20=NODESCOPE_SAMPLE=20 \
      --run sample20_metrics="--sample 20 --metrics 127.0.0.1:19400 --metrics-linger 0" ;;
    *) echo "unknown step $s" >&2; exit 2 ;;
  esac
done
echo "total $(($(date +%s) - START)) s"
