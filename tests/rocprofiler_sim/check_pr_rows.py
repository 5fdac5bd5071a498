#!/usr/bin/env python3
"""Issue 29: each row of the kineto ROCm PR's validation tables (as the PR reports them on real
ROCm) as a named check, on the simulated rocprofiler-sdk: the plain recipe (plain_recipe_tool, the
PR's per-thread recipe) must give the PR's numbers, exactly where the simulator is deterministic
and within the band its randomness gives where it is not (stated per row), and nodescope its own
(0 wrong keys always). docs/rocm-notes.md lists the rows with their test names.

  check_pr_rows.py --row ROW --nodescope nodescope --program sim_program --sim-lib-dir DIR --tool T
Prints "pr row ROW: passed" when every check of the row passed.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from sim_checks import Checker

p = argparse.ArgumentParser()
p.add_argument("--row", required=True)
p.add_argument("--nodescope", required=True)
p.add_argument("--program", required=True)
p.add_argument("--sim-lib-dir", required=True)
p.add_argument("--tool", required=True)
args = p.parse_args()
tmp = tempfile.mkdtemp(prefix="nodescope_pr_rows_")
checker = Checker(f"pr row {args.row}")
check = checker.check
LINE = re.compile(r"plain-recipe: keys=(\d+) aliased=(\d+) dispatches=(\d+) untagged=(\d+) "
                  r"graphs=(\d+) max_ordinal=(\d+)")




def clean_env(extra):
    env = dict(os.environ)
    for k in ("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION", "AMD_DIRECT_DISPATCH", "ROCP_TOOL_LIBRARIES",
              "GPU_MAX_HW_QUEUES", "SIM_MIX_PLAIN", "SIM_RANGES", "SIM_ASYNC_PERCENT",
              "SIM_WORKER_PERCENT", "PLAIN_RECIPE_NAIVE"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def plain(case, extra=None):
    env = clean_env(extra)
    env["ROCP_TOOL_LIBRARIES"] = args.tool
    r = subprocess.run([args.program, case], env=env, capture_output=True, text=True, timeout=120)
    m = LINE.search(r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"FAIL {case}: exit {r.returncode}, no plain-recipe line\n{r.stderr[-500:]}")
    return dict(zip(("keys", "aliased", "dispatches", "untagged", "graphs", "max_ordinal"),
                    map(int, m.groups())))


def ours(case, extra=None):
    out = os.path.join(tmp, case + ".json")
    env = clean_env(extra)
    env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "-o", out, "--", args.program,
                        case], env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.exists(out):
        sys.exit(f"FAIL {case}: nodescope run exited {r.returncode}\n{r.stderr[-500:]}")
    with open(out) as f:
        ev = json.load(f)["traceEvents"]
    kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
    names, keys_of, occ = collections.defaultdict(set), collections.defaultdict(set), collections.Counter()
    keyed = 0
    for e in kernels:
        a = e.get("args", {})
        if "graph id" in a and "graph node id" in a:
            keyed += 1
            key = (a["graph id"], a["graph node id"])
            names[key].add(e["name"])
            keys_of[e["name"]].add(key)
            occ[key] += 1
    wrong = sum(1 for k, v in names.items() if len(v) > 1 or any(len(keys_of[n]) > 1 for n in v))
    return dict(kernels=len(kernels), keyed=keyed, graphs=len({k[0] for k in names}),
                keys=len(names), wrong=wrong, per_key=set(occ.values()))


def row_chain32():
    # 32-node graph x 200 replays: 6400 kernels, 6400 with both fields, 1 graph id, 32 node ids,
    # 200 each; opt-out set: 6400 kernels, 0 with fields.
    s = ours("chain32")
    check(s["kernels"] == 6400 and s["keyed"] == 6400 and s["graphs"] == 1 and s["keys"] == 32
          and s["per_key"] == {200} and s["wrong"] == 0,
          f"nodescope chain32: {s}")
    o = ours("chain32", {"NODESCOPE_DISABLE_GRAPH_ATTRIBUTION": "1"})
    check(o["kernels"] == 6400 and o["keyed"] == 0, f"nodescope chain32 opt-out: {o}")
    r = plain("chain32")
    check(r["dispatches"] == 6400 and r["keys"] == 32 and r["aliased"] == 0 and r["graphs"] == 1,
          f"plain recipe chain32: {r}")


def row_fan4():
    # root -> 4 independent -> join, 200 replays: 1200 attributed, 6 keys, 0 aliased, 3 of 3 runs.
    for i in range(3):
        s = ours("fan4")
        check(s["keyed"] == 1200 and s["keys"] == 6 and s["wrong"] == 0, f"nodescope fan4 run {i}: {s}")
        r = plain("fan4")
        check(r["dispatches"] == 1200 and r["keys"] == 6 and r["aliased"] == 0,
              f"plain recipe fan4 run {i}: {r}")


def row_update():
    # 4-node chain x 150, update to 4 other kernels, 150 more. Without update handling (the plain
    # recipe): 1 graph id / 4 keys / 4 aliased, the negative control. Ours: one graph id, new node
    # ids for the changed nodes, no alias.
    r = plain("updateonly")
    check(r["graphs"] == 1 and r["keys"] == 4 and r["aliased"] == 4,
          f"plain recipe updateonly: 1 / 4 / 4 aliased ({r})")
    s = ours("updateonly")
    check(s["graphs"] == 1 and s["keys"] == 8 and s["keyed"] == 1200 and s["wrong"] == 0,
          f"nodescope updateonly: 1 graph id, 8 keys, 0 wrong ({s})")


def row_destroy():
    # Destroy, then a third graph at the same address. Without forgetting destroyed execs (the
    # naive recipe): 2 / 8 / 4 aliased, the negative control. Forgetting them (the plain recipe,
    # and ours): 3 graph ids, 12 keys, no alias.
    r = plain("destroyreuse", {"PLAIN_RECIPE_NAIVE": "1"})
    check(r["graphs"] == 2 and r["keys"] == 8 and r["aliased"] == 4,
          f"naive recipe destroyreuse: 2 / 8 / 4 aliased ({r})")
    r = plain("destroyreuse")
    check(r["graphs"] == 3 and r["keys"] == 12 and r["aliased"] == 0,
          f"plain recipe destroyreuse: 3 / 12 / 0 ({r})")
    s = ours("destroyreuse")
    check(s["graphs"] == 3 and s["keys"] == 12 and s["keyed"] == 1200 and s["wrong"] == 0,
          f"nodescope destroyreuse: 3 / 12, 0 wrong ({s})")


# Threads, one exec each, root -> 4 -> join, 100 replays per thread, plain recipe, 4 queues:
# (threads, PR dispatches, PR keys, PR aliased, band of the simulator's plain recipe for keys and
# aliased over 3 runs (median), how it compares). Bands from README.md's 10-run table and
# this session's runs; where the PR's number is outside, the row says so.
THREADS = {
    1: (600, 6, 0, (6, 6), (0, 0)),
    2: (1200, 12, 0, (12, 12), (0, 0)),
    3: (1800, 18, 0, (18, 18), (0, 0)),
    4: (2400, 27, 11, (25, 30), (8, 14)),
    8: (4798, 70, 64, (56, 70), (45, 64)),  # the simulator aliases less here (about 62 / 53)
    16: (9598, 153, 138, (140, 170), (125, 160)),
}


def row_threads(n):
    pr_dispatches, pr_keys, pr_aliased, (klo, khi), (alo, ahi) = THREADS[n]
    runs = [plain(f"threads{n}", {"GPU_MAX_HW_QUEUES": "4"}) for _ in range(3 if n >= 4 else 1)]
    k = statistics.median_low(r["keys"] for r in runs)
    a = statistics.median_low(r["aliased"] for r in runs)
    seen = ", ".join(f"{r['keys']}/{r['aliased']}" for r in runs)
    check(klo <= k <= khi and alo <= a <= ahi and all(r["dispatches"] == 600 * n for r in runs),
          f"plain recipe threads{n}: median {k} keys / {a} aliased in [{klo}, {khi}] / "
          f"[{alo}, {ahi}] (PR: {pr_dispatches} / {pr_keys} / {pr_aliased}; runs {seen})")
    s = ours(f"threads{n}", {"GPU_MAX_HW_QUEUES": "4"})
    check(s["kernels"] == 600 * n and s["wrong"] == 0, f"nodescope threads{n}: 0 wrong ({s})")
    if n <= 3:
        check(s["keyed"] == 600 * n, f"nodescope threads{n}: all keyed ({s['keyed']})")


def row_queues8():
    # GPU_MAX_HW_QUEUES=8: 4 and 8 threads clean.
    for n in (4, 8):
        r = plain(f"threads{n}", {"GPU_MAX_HW_QUEUES": "8"})
        check(r["keys"] == 6 * n and r["aliased"] == 0, f"plain recipe threads{n}, 8 queues: {r}")
        s = ours(f"threads{n}", {"GPU_MAX_HW_QUEUES": "8"})
        check(s["wrong"] == 0 and s["keyed"] == 600 * n, f"nodescope threads{n}, 8 queues: {s}")


def row_queues16():
    # GPU_MAX_HW_QUEUES=16: 16 threads far less affected than with 4.
    q4 = plain("threads16", {"GPU_MAX_HW_QUEUES": "4"})
    q16 = plain("threads16", {"GPU_MAX_HW_QUEUES": "16"})
    check(q16["aliased"] * 4 <= q4["aliased"],
          f"plain recipe threads16: 16 queues aliased {q16['aliased']} <= a quarter of 4 queues' "
          f"{q4['aliased']}")
    s = ours("threads16", {"GPU_MAX_HW_QUEUES": "16"})
    check(s["wrong"] == 0, f"nodescope threads16, 16 queues: {s}")


def row_ordinals():
    # A 6-node graph showing ordinals 6, 7, 8: a counter advanced by another launch's dispatches.
    runs = [plain("threads8", {"GPU_MAX_HW_QUEUES": "4"}) for _ in range(3)]
    check(any(r["max_ordinal"] >= 6 for r in runs),
          f"plain recipe threads8: a 6-node graph's ordinal past 5 "
          f"({[r['max_ordinal'] for r in runs]})")


ROWS = {"chain32": row_chain32, "fan4": row_fan4, "update": row_update, "destroy": row_destroy,
        "queues8": row_queues8, "queues16": row_queues16, "ordinals": row_ordinals}
for n in THREADS:
    ROWS[f"threads{n}"] = (lambda n=n: row_threads(n))
ROWS[args.row]()
checker.finish()
