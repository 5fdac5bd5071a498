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
import statistics
import subprocess
import tempfile
import time

p = argparse.ArgumentParser()
p.add_argument("--bin-dir", required=True)
p.add_argument("--lib-dir", required=True)
p.add_argument("--replays", type=int, default=5000)
p.add_argument("--rounds", type=int, default=9)
p.add_argument("--extra", action="append", default=[],
               help="NAME=ENV1=V1,ENV2=V2: another nodescope configuration to time")
a = p.parse_args()
example = [os.path.join(a.bin_dir, "graph_replay"), "--replays", str(a.replays)]
tmp = tempfile.mkdtemp()
configs = {
    "bare": (example, {}),
    "cupti_floor": (example, {"CUDA_INJECTION64_PATH": os.path.join(a.lib_dir, "libcupti_floor.so")}),
    "nodescope": ([os.path.join(a.bin_dir, "nodescope"), "run", "-o", os.path.join(tmp, "t.json"),
                   "--"] + example, {}),
}
configs["injected_only"] = (example, {
    "CUDA_INJECTION64_PATH": os.path.join(a.lib_dir, "libnodescope.so"),
    "NODESCOPE_OUTPUT": os.path.join(tmp, "direct.json")})
for spec in a.extra:
    name, _, envs = spec.partition("=")
    env = dict(kv.split("=", 1) for kv in envs.split(",") if kv)
    configs[name] = (configs["nodescope"][0], env)

loop = {k: [] for k in configs}
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
for name in configs:  # the first round warms the GPU, the driver and the page cache
    loop[name] = loop[name][1:]
    wall[name] = wall[name][1:]

dispatches = a.replays * 32
print(f"workload: {a.replays} replays x 32 kernels = {dispatches} graph kernels, {a.rounds} rounds (+1 warm-up), order shuffled per round")
print(f"{'config':<16}{'loop ms median':>15}{'min':>9}{'max':>9}{'vs bare':>9}{'vs floor':>9}"
      f"{'wall ms':>9}")
bl, fl = statistics.median(loop["bare"]), statistics.median(loop["cupti_floor"])
for name in configs:
    lm, wm = statistics.median(loop[name]), statistics.median(wall[name])
    print(f"{name:<16}{lm:>15.2f}{min(loop[name]):>9.2f}{max(loop[name]):>9.2f}{lm / bl:>9.3f}"
          f"{lm / fl:>9.3f}{wm:>9.1f}")
ns = statistics.median(loop["nodescope"])
print(f"per dispatch: floor +{(fl - bl) * 1e6 / dispatches:.0f} ns over bare, nodescope "
      f"+{(ns - fl) * 1e6 / dispatches:.0f} ns over the floor")
