#!/usr/bin/env python3
"""Per-node mean duration from a sampled trace against the full trace's, same program, runs
alternated (full, sampled, full, sampled, ...): for every node carrying >= 1 % of GPU time, the
relative difference of the mean over the runs of each mode. Uses `nodescope nodes --json`.

  bench/sample_accuracy.py --bin-dir build/bin [--sample 20] [--runs 3] [--workload graph_replay|torch_mlp]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

p = argparse.ArgumentParser()
p.add_argument("--bin-dir", required=True)
p.add_argument("--sample", type=int, default=20)
p.add_argument("--runs", type=int, default=3)
p.add_argument("--workload", choices=["graph_replay", "torch_mlp"], default="graph_replay")
p.add_argument("--replays", type=int, default=None)
p.add_argument("--show", type=int, default=8, help="rows shown, largest difference first")
p.add_argument("--ticks", type=int, default=0, metavar="NS",
               help="also print, for the rows shown, how the kernel durations fall into ticks of "
               "NS ns (the GPU timestamp's resolution: 32 on the H200), per mode")
a = p.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
if a.workload == "graph_replay":
    program = [os.path.join(a.bin_dir, "graph_replay"), "--replays", str(a.replays or 5000)]
else:
    program = [sys.executable, os.path.join(here, "torch_mlp.py"), str(a.replays or 400)]
ns = os.path.join(a.bin_dir, "nodescope")
tmp = tempfile.mkdtemp()


def node_means(path):
    """(graph ordinal, node ordinal) -> (name, mean_us, replays, share) from `nodes --json`."""
    r = subprocess.run([ns, "nodes", "--json", "--top", "0", path], capture_output=True,
                       text=True, check=True)
    doc = json.loads(r.stdout)
    out = {}
    for gi, g in enumerate(sorted(doc["graphs"], key=lambda g: g["graph_id"])):
        for n in g["nodes"]:
            out[(gi, n["node_id"] & 0xFFFFFFFF)] = (n["name"], n["mean_us"], n["replays"],
                                                    n["total_us"], n["p50_us"], n["p99_us"],
                                                    n["max_us"])
    return out, doc.get("launch_sampling")


def tick_counts(path):
    """(graph ordinal, node ordinal) -> Counter of kernel durations in ticks of --ticks ns."""
    with open(path) as f:
        doc = json.load(f)
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and "graph id" in
               e.get("args", {})]
    graphs = {g: i for i, g in enumerate(sorted({e["args"]["graph id"] for e in kernels}))}
    out = collections.defaultdict(collections.Counter)
    for e in kernels:  # "dur" is in us with ns digits: exact, unlike the absolute "ts"
        key = (graphs[e["args"]["graph id"]], e["args"]["graph node id"] & 0xFFFFFFFF)
        out[key][round(e["dur"] * 1000 / a.ticks)] += 1
    return out


ticks = {"full": collections.defaultdict(collections.Counter),
         "sampled": collections.defaultdict(collections.Counter)}
per_mode = {"full": [], "sampled": []}
for i in range(a.runs):
    for mode in ("full", "sampled"):
        out = os.path.join(tmp, f"{mode}{i}.json")
        extra = ["--sample", str(a.sample)] if mode == "sampled" else []
        subprocess.run([ns, "run", "-o", out, *extra, "--", *program], check=True,
                       capture_output=True)
        per_mode[mode].append(node_means(out))
        if a.ticks:
            for k, c in tick_counts(out).items():
                ticks[mode][k].update(c)
        os.remove(out)

full = [m for m, _ in per_mode["full"]]
sampled = [m for m, _ in per_mode["sampled"]]
sampling = per_mode["sampled"][0][1]
keys = sorted(set.intersection(*(set(m) for m in full + sampled)))
# Share of all GPU time in graphs, in the full traces.
gpu_total = sum(sum(m[k][3] for k in m) for m in full) / len(full)
print(f"workload {a.workload}: {a.runs} runs per mode, alternated; sampled: {sampling}")
# Noise reference: how far the full traces' means of a node spread from run to run (max - min over
# the mean), and in how many run pairs the sampled mean was above the full one (a systematic bias
# shows as all or none).
print(f"{'graph.node':<12}{'name':<40}{'share':>7}{'full us':>10}{'sampled us':>11}{'replays':>9}"
      f"{'diff':>8}{'full range':>11}{'s>f':>6}  p50 full/sampled, p99 full/sampled, max full/sampled")
worst = 0.0
checked = 0


def Avg(runs, k, i):
    return sum(m[k][i] for m in runs) / len(runs)


rows = []
for k in keys:
    names = {m[k][0] for m in full + sampled}
    share = sum(m[k][3] for m in full) / len(full) / gpu_total
    if share < 0.01:
        continue
    f = sum(m[k][1] for m in full) / len(full)
    s = sum(m[k][1] for m in sampled) / len(sampled)
    reps = sum(m[k][2] for m in sampled) / len(sampled)
    d = (s - f) / f
    worst = max(worst, abs(d))
    checked += 1
    name = next(iter(names)) if len(names) == 1 else "(names differ!)"
    spread = (max(m[k][1] for m in full) - min(m[k][1] for m in full)) / f
    above = sum(1 for mf, ms in zip(full, sampled) if ms[k][1] > mf[k][1])
    rows.append((abs(d), k, f"{k[0]}.{k[1]:<10}{name[:38]:<40}{share:>7.3f}{f:>10.3f}{s:>11.3f}"
                         f"{reps:>9.0f}{d:>+8.2%}{spread:>11.2%}{above:>4}/{len(full)}"
                         f"  {Avg(full, k, 4):.3f}/{Avg(sampled, k, 4):.3f}"
                         f" {Avg(full, k, 5):.3f}/{Avg(sampled, k, 5):.3f}"
                         f" {Avg(full, k, 6):.1f}/{Avg(sampled, k, 6):.1f}"))
shown = sorted(rows, reverse=True)[:a.show]  # the largest differences first
for _, _, row in shown:
    print(row)
if a.ticks:
    # A kernel's duration is end tick - start tick: a true duration between n and n+1 ticks reads
    # as n or n+1, in proportion to where its start falls within a tick. The mean is exact only
    # while that phase is spread evenly; launches that start in step read one way more often.
    print(f"durations in ticks of {a.ticks} ns, all runs of each mode (ticks: share)")
    for _, k, _ in shown:
        for mode in ("full", "sampled"):
            c = ticks[mode][k]
            n = sum(c.values())
            mean = sum(t * v for t, v in c.items()) / n
            parts = "  ".join(f"{t}: {v / n:.3f}" for t, v in sorted(c.items()) if v / n >= 0.001)
            print(f"  {k[0]}.{k[1]:<4} {mode:<8} n={n:<8} mean {mean:.3f} ticks  {parts}")
print(f"nodes with >= 1 % of GPU time: {checked}; largest |difference| of the mean: {worst:.2%}")
