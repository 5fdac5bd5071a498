#!/usr/bin/env python3
"""End-to-end tracing cost on a GPU: the example workload bare, under the CUPTI floor (kernel
activity only, bench/cupti_floor.cc), and under `nodescope run`, interleaved round by round so
all three see the same machine state. Prints medians and ratios.

  bench/overhead.py --bin-dir build/bin --lib-dir build/lib [--replays 1000] [--rounds 7]
"""
import argparse
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

p = argparse.ArgumentParser()
p.add_argument("--bin-dir", required=True)
p.add_argument("--lib-dir", required=True)
p.add_argument("--replays", type=int, default=None,
               help="replays of the workload (graph_replay: 5000, torch_mlp: 400)")
p.add_argument("--workload", choices=["graph_replay", "torch_mlp"], default="graph_replay",
               help="graph_replay: 32 short kernels per replay; torch_mlp: bench/torch_mlp.py")
p.add_argument("--rounds", type=int, default=9)
p.add_argument("--ranges", action="store_true",
               help="also time --ranges (an NVTX range around every replay), bare and traced")
p.add_argument("--floor", action="append", default=[],
               help="NAME=MODE: the CUPTI floor library in another CUPTI_FLOOR_MODE (cupti_floor.cc)")
p.add_argument("--profile", type=int, default=0, metavar="RUNS",
               help="graph_replay: then profile the launching thread by shared object under each "
                    "configuration (bench/launch_profile.cc, preloaded), averaged over RUNS runs")
p.add_argument("--extra", action="append", default=[],
               help="NAME=ENV1=V1,ENV2=V2: another nodescope configuration to time")
p.add_argument("--run", action="append", default=[],
               help="NAME=ARGS: another configuration, `nodescope run ARGS` (e.g. "
                    "sample20_metrics='--sample 20 --metrics 127.0.0.1:19400 --metrics-linger 0')")
a = p.parse_args()
if a.workload == "graph_replay":
    a.replays = a.replays or 5000
    example = [os.path.join(a.bin_dir, "graph_replay"), "--replays", str(a.replays)]
else:
    a.replays = a.replays or 400
    example = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "torch_mlp.py"), str(a.replays)]
tmp = tempfile.mkdtemp()
configs = {
    "bare": (example, {}),
    "cupti_floor": (example, {"CUDA_INJECTION64_PATH": os.path.join(a.lib_dir, "libcupti_floor.so")}),
    "nodescope": ([os.path.join(a.bin_dir, "nodescope"), "run", "-o", os.path.join(tmp, "t.json"),
                   "--"] + example, {}),
}
if a.workload == "graph_replay":
    configs["injected_only"] = (example, {
        "CUDA_INJECTION64_PATH": os.path.join(a.lib_dir, "libnodescope_cuda.so"),
        "NODESCOPE_OUTPUT": os.path.join(tmp, "direct.json")})
p_ranges = example + ["--ranges"]
if a.ranges:
    configs["bare_ranges"] = (p_ranges, {})
    configs["nodescope_ranges"] = ([os.path.join(a.bin_dir, "nodescope"), "run", "-o",
                                    os.path.join(tmp, "r.json"), "--"] + p_ranges, {})
for spec in a.floor:
    name, _, mode = spec.partition("=")
    configs[name] = (example, {**configs["cupti_floor"][1], "CUPTI_FLOOR_MODE": mode})
for spec in a.extra:
    name, _, envs = spec.partition("=")
    env = dict(kv.split("=", 1) for kv in envs.split(",") if kv)
    configs[name] = (configs["nodescope"][0], env)

for spec in a.run:
    name, _, run_args = spec.partition("=")
    configs[name] = ([os.path.join(a.bin_dir, "nodescope"), "run", *shlex.split(run_args), "-o",
                      os.path.join(tmp, f"{name}.json"), "--"] + example, {})

loop = {k: [] for k in configs}
launch = {k: [] for k in configs}  # graph_replay: the launching thread's own time
wall = {k: [] for k in configs}
rng = random.Random(1)
names = list(configs)
for _ in range(a.rounds + 1):
    rng.shuffle(names)  # no configuration always runs first or last in a round
    for name in names:
        cmd, env = configs[name]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
        wall[name].append((time.perf_counter() - t0) * 1e3)
        m = re.search(r"in ([0-9.]+) ms", r.stdout)
        if r.returncode != 0 or not m:
            raise SystemExit(f"{name} failed: {r.returncode}\n{r.stdout}\n{r.stderr}")
        loop[name].append(float(m.group(1)))
        ml = re.search(r"launches ([0-9.]+) ms", r.stdout)
        if ml:
            launch[name].append(float(ml.group(1)))
for name in configs:  # the first round warms the GPU, the driver and the page cache
    loop[name] = loop[name][1:]
    launch[name] = launch[name][1:]
    wall[name] = wall[name][1:]

dispatches = a.replays * 32 if a.workload == "graph_replay" else None
print(f"workload: {a.workload}, {a.replays} replays, {a.rounds} rounds (+1 warm-up), order shuffled per round")
# CUPTI runs are bimodal from run to run (see bench/RESULTS.md): ratios use the minimum, the
# stable estimator; medians are shown for reference.
print(f"{'config':<18}{'loop ms min':>12}{'median':>9}{'max':>9}{'min/bare':>10}{'min/floor':>10}"
      f"{'wall ms med':>12}{'launch ms med':>14}")
bl, fl = min(loop["bare"]), min(loop["cupti_floor"])
for name in configs:
    lm = min(loop[name])
    print(f"{name:<18}{lm:>12.2f}{statistics.median(loop[name]):>9.2f}{max(loop[name]):>9.2f}"
          f"{lm / bl:>10.3f}{lm / fl:>10.3f}{statistics.median(wall[name]):>12.1f}"
          f"{statistics.median(launch[name]) if launch[name] else float('nan'):>14.2f}")
ns = min(loop["nodescope"])
if dispatches:
    print(f"per dispatch (minima): floor {(fl - bl) * 1e6 / dispatches:+.0f} ns over bare, nodescope "
          f"{(ns - fl) * 1e6 / dispatches:+.1f} ns over the floor")

if a.profile and a.workload == "graph_replay":
    # Where the launching thread's time goes, by shared object: bench/launch_profile.cc samples
    # graph_replay's main thread every 50 us until its launch loop ends. Mean ms per run.
    preload = os.path.join(a.lib_dir, "liblaunch_profile.so")
    prof = {}
    for name in configs:
        cmd, env = configs[name]
        total = {}
        for _ in range(a.profile):
            r = subprocess.run(cmd, capture_output=True, text=True,
                               env={**os.environ, **env, "LD_PRELOAD": preload})
            line = next((l for l in r.stderr.splitlines() if l.startswith("launch_profile:")), "")
            for obj, ms in re.findall(r" (\S+) [0-9.]+ % \(([0-9.]+) ms\)", line):
                total[obj] = total.get(obj, 0.0) + float(ms) / a.profile
        prof[name] = total
    objects = sorted({o for t in prof.values() for o in t},
                     key=lambda o: -max(t.get(o, 0.0) for t in prof.values()))
    shown = objects[:5]
    print(f"\nlaunching thread, ms per run by shared object (launch_profile, {a.profile} runs each)")
    print(f"{'config':<18}{'total':>8}" + "".join(f"{o[:15]:>16}" for o in shown) + f"{'other':>8}")
    for name in configs:
        t = prof[name]
        tot = sum(t.values())
        print(f"{name:<18}{tot:>8.1f}" + "".join(f"{t.get(o, 0.0):>16.1f}" for o in shown)
              + f"{tot - sum(t.get(o, 0.0) for o in shown):>8.1f}")
